"""train.value_target_q_weight: value targets (1 - w) * z + w * q, from the side to move's view."""

import numpy as np
import pytest

from alphazero.othello.bitboard import PASS
from alphazero.othello.record import GameRecord
from alphazero.replay.buffer import ReplayBuffer
from alphazero.train.config import TrainConfig
from alphazero.validation import ConfigValueError

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "replay"))
from replay_games import random_record  # noqa: E402


def game_with_a_pass(seed: int = 0) -> GameRecord:
    """A random finished game with a decisive result that contains at least one forced pass."""
    rng = np.random.default_rng(seed)
    while True:
        record = random_record(rng)
        if (record.actions == PASS).any() and record.black_margin != 0:
            return record


def expected_targets(record: GameRecord, w: float) -> dict:
    """position (player, opponent) -> value target, computed ply by ply from the states."""
    z_black = float(np.sign(record.black_margin))
    targets = {}
    for t, state in enumerate(record.states()[:-1]):
        if record.actions[t] == PASS:
            continue
        z = z_black if state.black_to_move else -z_black
        q = float(np.float16(record.root_values[t]))
        exact = np.nan if record.exact_values is None else record.exact_values[t]
        key = tuple(int(v) for v in state.as_array())
        targets[key] = float(exact) if not np.isnan(exact) else (1 - w) * z + w * q
    return targets


def sampled_targets(directory, records, w: float) -> dict:
    buffer = ReplayBuffer(directory, window_positions=10_000, value_target_q_weight=w)
    buffer.add_games(records, writer_id="t")
    batch = buffer.sample(2000, np.random.default_rng(0), augment=False)
    return {tuple(int(v) for v in p): float(v) for p, v in zip(batch.positions, batch.values)}


def test_blended_value_target_is_from_the_side_to_move_with_passes(tmp_path):
    record = game_with_a_pass()
    black_to_move = np.array([s.black_to_move for s in record.states()[:-1]])
    # q differs from z and depends on who moves: +0.5 for black's roots, -0.25 for white's, and a
    # value at the pass plies that must never show up (a forced pass has no search).
    record.root_values = np.where(black_to_move, 0.5, -0.25).astype(np.float32)
    record.root_values[record.actions == PASS] = 0.875
    w = 0.25
    got = sampled_targets(tmp_path, [record], w)
    want = expected_targets(record, w)
    assert set(got) <= set(want) and len(got) == len(want)
    for key, value in got.items():
        assert value == pytest.approx(want[key], abs=1e-6)
    # Both sides appear and their targets differ as z and q say.
    z_black = float(np.sign(record.black_margin))
    values = np.array(sorted(set(got.values())))
    np.testing.assert_allclose(values, sorted({(1 - w) * z_black + w * 0.5, (1 - w) * -z_black + w * -0.25}), atol=1e-6)


def test_exact_values_win_over_the_blend_and_weight_zero_is_the_result(tmp_path):
    record = game_with_a_pass(seed=1)
    record.root_values = np.full(len(record), 0.375, dtype=np.float32)
    exact = np.full(len(record), np.nan, dtype=np.float32)
    non_pass = np.flatnonzero(record.actions != PASS)
    exact[non_pass[-3:]] = -np.sign(record.black_margin)  # disagrees with z for one side at least
    record.exact_values = exact
    for w, directory in ((0.5, tmp_path / "half"), (0.0, tmp_path / "zero"), (1.0, tmp_path / "one")):
        got = sampled_targets(directory, [record], w)
        want = expected_targets(record, w)
        assert len(got) == len(want)
        for key, value in got.items():
            assert value == pytest.approx(want[key], abs=1e-6)
    zero = sampled_targets(tmp_path / "zero2", [record], 0.0)
    assert set(zero.values()) <= {-1.0, 0.0, 1.0}


def test_games_without_root_values_use_the_result(tmp_path):
    record = game_with_a_pass(seed=2)
    record.root_values = None
    got = sampled_targets(tmp_path, [record], 1.0)
    assert set(got.values()) <= {-1.0, 1.0}


def test_weight_out_of_range_names_the_key():
    with pytest.raises(ConfigValueError, match="train.value_target_q_weight"):
        TrainConfig(value_target_q_weight=1.5)
