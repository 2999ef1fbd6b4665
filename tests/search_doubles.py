"""Evaluators that stand in for a network in tests of the search and of what plays with it (the
choosers, GTP): deterministic, and one that fails once where a CUDA out-of-memory error would."""

import numpy as np

from alphazero.mcts.evaluator import UniformEvaluator


class DiscCountEvaluator:
    """Uniform priors, value = tanh(disc difference / 8) for the side to move: deterministic and
    the same in any batch, but a search with it still prefers some moves to others."""

    def __call__(self, positions):
        priors, _ = UniformEvaluator()(positions)
        counts = np.bitwise_count(np.ascontiguousarray(positions, dtype=np.uint64)).astype(np.float32)
        return priors, np.tanh((counts[:, 0] - counts[:, 1]) / 8).astype(np.float32)


class FlakyEvaluator:
    """`inner` (a DiscCountEvaluator by default) that raises on its `fail_on`-th call, counting
    from 1, once."""

    def __init__(self, fail_on, inner=None):
        self.inner = inner if inner is not None else DiscCountEvaluator()
        self.calls, self.fail_on = 0, fail_on

    def __call__(self, positions):
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError(f"evaluator failed on call {self.calls}")
        return self.inner(positions)
