"""The status line after a session's first games: rates only over a few seconds (a resumed
session's first games are mostly games an earlier session searched), and what training waits for."""

import logging
import time
from types import SimpleNamespace

from alphazero.train.config import TrainConfig
from alphazero.train.loop import FIRST_RATE_SECONDS, TrainingRun


def _line(caplog, seconds_ago: float, window: int, min_positions: int = 6000) -> str:
    run = SimpleNamespace(
        first_games_reported=False,
        selfplay_stats={"games": 32, "positions": 1939, "simulations": 2_000_000, "start": time.perf_counter() - seconds_ago},
        replay=SimpleNamespace(window_size=window),
        cfg=SimpleNamespace(train=TrainConfig(min_positions=min_positions)),
        _elapsed=lambda: 900.0,
    )
    with caplog.at_level(logging.INFO, logger="alphazero.train"):
        TrainingRun._report_first_games(run)
    assert run.first_games_reported
    return caplog.records[-1].getMessage()


def test_games_restored_from_an_earlier_session_give_no_rate(caplog):
    line = _line(caplog, seconds_ago=0.2, window=150_000)
    assert "rates in the next status line" in line and "pos/s" not in line
    assert "training under way" in line


def test_a_fresh_session_gives_its_rates_and_what_training_waits_for(caplog):
    line = _line(caplog, seconds_ago=FIRST_RATE_SECONDS + 15, window=0)
    assert "pos/s" in line and "sims/s" in line
    assert "training starts once the buffer holds 6000 positions (has 1939)" in line
