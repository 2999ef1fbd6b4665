"""Helpers for the network tests: hand-made and seeded random positions, batch-norm scrambling."""

import numpy as np
import torch

from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_board_text

# White to move with no legal move (a1 black, b1 white; nothing flanks a1), black could play c1.
FORCED_PASS_TEXT = "XO------" + "-" * 56 + " O"


def board(text: str) -> np.ndarray:
    """uint64[2] (player, opponent) of a 64-square board text plus side to move."""
    return parse_board_text(text).as_array()


def random_positions(count: int, seed: int, max_plies: int = 60) -> np.ndarray:
    """uint64[count, 2] positions after 0..max_plies random legal plies (passes included)."""
    rng = np.random.default_rng(seed)
    out = np.empty((count, 2), dtype=np.uint64)
    for i in range(count):
        state = GameState.start()
        for _ in range(rng.integers(0, max_plies + 1)):
            actions = state.legal_actions()
            if not actions:
                break
            state = state.play(actions[rng.integers(len(actions))])
        out[i] = state.as_array()
    return out


def randomize_batch_norm(net: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    """Give every batch norm non-trivial statistics and affine terms, so that fusion and round
    trips are tested on weights where a mistake shows."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                size = module.num_features
                module.running_mean.copy_(torch.rand(size, generator=generator) - 0.5)
                module.running_var.copy_(torch.rand(size, generator=generator) + 0.5)
                module.weight.copy_(torch.rand(size, generator=generator) + 0.5)
                module.bias.copy_(torch.rand(size, generator=generator) - 0.5)
    return net
