"""The Evaluator protocol: what the search asks of a network, and a uniform stand-in.

An evaluator is any callable

    evaluator(positions: uint64[N, 2]) -> (priors: float32[N, 65], values: float32[N])

where each row of `positions` is (player, opponent) with `player` to move. `priors` are
probabilities over the 65 actions (64 squares, 64 = pass): 0 on illegal actions, summing to 1.
`values` are the expected outcome in [-1, 1] from the side to move's view. The search never sends
finished games (it scores those exactly) and sends each leaf once; N may be 0 only if a caller
does so itself.

Batch invariance is not part of the contract. `BatchedSearch` guarantees that game b of a batch
gets exactly the results of a one-game search only with an evaluator that answers a position the
same way whatever batch it arrives in: `UniformEvaluator` and the tests' evaluators do, the
network evaluator (`alphazero.nn.inference.NetworkEvaluator`) does not. On CUDA it runs bf16
autocast and switches layout with the batch size (channels-last copy from
`CUDA_CHANNELS_LAST_MIN_BATCH` positions, NCHW below), and on the CPU it switches from the fused
eager model to oneDNN's kernels at `cpu_inference.MIN_BATCH` (or at its caller's smaller batch,
where a probe found them faster there); different kernels round differently,
so the same position's priors and value can differ in their low bits (bf16: about 1e-2 relative)
with the batch it is in, and a search's visits and moves can then differ too.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount
from alphazero.othello.bitboard import NUM_ACTIONS, PASS, legal_moves


class Evaluator(Protocol):
    def __call__(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """priors float32[N, 65], values float32[N] for positions uint64[N, 2] (see module doc)."""


@njit(cache=True)
def uniform_priors(positions):
    """float32[N, 65]: probability 1/k on each of the k legal actions (PASS alone when forced)."""
    count = positions.shape[0]
    priors = np.zeros((count, NUM_ACTIONS), dtype=np.float32)
    for i in range(count):
        moves = legal_moves(positions[i, 0], positions[i, 1])
        if moves == ZERO:
            priors[i, PASS] = 1.0
            continue
        share = np.float32(1.0) / np.float32(popcount(moves))
        while moves:
            priors[i, lowest_bit_index(moves)] = share
            moves &= moves - ONE
    return priors


class UniformEvaluator:
    """Uniform priors over the legal actions and value 0: search guided by terminal results alone.

    Useful as the tree's own benchmark (it costs almost nothing) and in tests, where exact game
    results at terminal nodes are the only signal.
    """

    def __call__(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        positions = np.ascontiguousarray(positions, dtype=np.uint64).reshape(-1, 2)
        return uniform_priors(positions), np.zeros(positions.shape[0], dtype=np.float32)
