"""Fixtures for the network tests."""

import numpy as np
import pytest
import torch

from alphazero.othello.game import GameState

from .helpers import FORCED_PASS_TEXT, board, random_positions


@pytest.fixture
def positions() -> np.ndarray:
    """40 random positions plus the start and a forced pass (the last row)."""
    return np.concatenate(
        [random_positions(40, seed=7), GameState.start().as_array()[None], board(FORCED_PASS_TEXT)[None]]
    )


@pytest.fixture(autouse=True)
def _deterministic_torch():
    """Seeded weights; torch's process-wide thread count restored after tests that set it."""
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)
