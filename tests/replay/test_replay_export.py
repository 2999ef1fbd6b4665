"""GGF export of the newest self-play games."""

import numpy as np
import pytest

from alphazero.othello.game import GameState
from alphazero.replay.buffer import ShardWriter
from replay_games import random_record, random_records

ggf = pytest.importorskip("alphazero.data.ggf")
from alphazero.replay.export import export_ggf  # noqa: E402  (needs alphazero.data.ggf)


def test_export_writes_the_newest_games_oldest_first_and_reads_back(tmp_path):
    writer = ShardWriter(tmp_path / "replay", "w0")
    games = random_records(9, seed=8)
    games.append(random_record(np.random.default_rng(9), start=GameState.start().play(19), game_id=9))
    for i in range(0, 10, 3):
        writer.write(games[i : i + 3])
    out = tmp_path / "recent.ggf"
    assert export_ggf(tmp_path / "replay", out, last_n_games=5) == 5
    back = ggf.read_ggf(out)
    assert len(out.read_text().splitlines()) == 5
    for actual, expected in zip(back, games[-5:]):
        assert actual.start == expected.start
        np.testing.assert_array_equal(actual.actions, expected.actions)
        assert actual.black_margin == expected.black_margin
        assert actual.metadata["PB"] == "alphazero-net-0007"


def test_export_of_more_games_than_stored_writes_them_all(tmp_path):
    ShardWriter(tmp_path, "w0").write(random_records(2, seed=10))
    assert export_ggf(tmp_path, tmp_path / "all.ggf", last_n_games=50) == 2
