"""The gate's sequential test keeps its stated error rates, and the Elo step it records for a
promotion is not inflated by the selection (a fixed 0.55-over-40-games gate does neither)."""

import math

import numpy as np
import pytest

from alphazero.arena.elo import estimate_elo, score_from_elo
from alphazero.arena.sprt import SPRT, run_sequential

TEST = SPRT(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.1)
DRAW_RATE = 0.04  # Othello between close networks: few draws


def round_of(rng, elo: float, games: int = 40):
    """(wins, draws, losses) of `games` games of a player `elo` above its opponent."""
    score = score_from_elo(elo)
    win = score - DRAW_RATE / 2
    outcomes = rng.choice(3, size=games, p=[win, DRAW_RATE, 1 - win - DRAW_RATE])
    return int((outcomes == 0).sum()), int((outcomes == 1).sum()), int((outcomes == 2).sum())


def test_wald_bounds_and_the_llr_sign():
    assert TEST.lower == pytest.approx(math.log(0.1 / 0.95)) and TEST.upper == pytest.approx(math.log(0.9 / 0.05))
    assert TEST.llr(0, 0, 0) == 0.0
    assert TEST.llr(30, 0, 10) > 0 > TEST.llr(18, 0, 22)
    assert TEST.decision(60, 0, 20) == "H1" and TEST.decision(15, 0, 45) == "H0" and TEST.decision(11, 0, 9) is None
    assert math.isfinite(TEST.llr(40, 0, 0)) and math.isfinite(TEST.llr(0, 40, 0))


@pytest.mark.parametrize("true_elo, promote_at_most, promote_at_least", [(0.0, 0.075, 0.0), (50.0, 1.0, 0.85)])
def test_the_test_keeps_its_error_rates(true_elo, promote_at_most, promote_at_least):
    rng = np.random.default_rng(1)
    trials = 600
    promoted = sum(run_sequential(TEST, lambda _: round_of(rng, true_elo), max_rounds=200).decision == "H1" for _ in range(trials))
    assert promote_at_least <= promoted / trials <= promote_at_most


def test_a_fixed_threshold_gate_promotes_an_equal_network_far_more_often_than_the_test():
    """What the test replaces: 0.55 over 40 games lets an equal candidate through about 1 in 4."""
    rng = np.random.default_rng(2)
    fixed = np.mean([(lambda r: (r[0] + 0.5 * r[1]) / 40 >= 0.55)(round_of(rng, 0.0)) for _ in range(2000)])
    assert fixed > 0.2


def test_steps_measured_on_fresh_games_do_not_drift_where_selected_ones_do():
    """Candidates exactly as strong as the best: the decision games of the promoted ones show a
    large gain (the winner's curse), their confirmation games none."""
    rng = np.random.default_rng(3)
    selected, confirmed = [], []
    for _ in range(3000):
        decided = run_sequential(TEST, lambda _: round_of(rng, 0.0), max_rounds=3)
        if decided.decision == "H1":
            selected.append(estimate_elo(decided.wins, decided.draws, decided.losses).diff)
            confirmed.append(estimate_elo(*round_of(rng, 0.0)).diff)
    assert len(selected) >= 20
    assert np.mean(selected) > 60
    assert abs(np.mean(confirmed)) < 3 * np.std(confirmed) / math.sqrt(len(confirmed)) + 5
