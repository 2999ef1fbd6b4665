"""Elo: 0.5 -> 0, symmetry, intervals that shrink with games, finite extremes, ladder fit."""

import math

import numpy as np
import pytest

from alphazero.arena.elo import elo_from_score, estimate_elo, fit_ratings, score_from_elo


def test_an_even_score_is_zero_elo():
    assert estimate_elo(5, 0, 5).diff == 0.0
    assert estimate_elo(0, 8, 0).diff == 0.0
    assert estimate_elo(3, 4, 3).diff == 0.0


def test_elo_and_expected_score_are_inverse():
    for diff in (-600.0, -100.0, 0.0, 35.0, 400.0):
        assert elo_from_score(score_from_elo(diff)) == pytest.approx(diff)
    assert elo_from_score(10 / 11) == pytest.approx(400.0)


def test_swapping_wins_and_losses_negates_the_difference_and_mirrors_the_interval():
    a, b = estimate_elo(30, 10, 20), estimate_elo(20, 10, 30)
    assert a.diff == pytest.approx(-b.diff)
    assert a.ci95 == pytest.approx(b.ci95)
    assert (a.low, a.high) == pytest.approx((-b.high, -b.low))
    assert a.low < a.diff < a.high


def test_interval_shrinks_with_more_games_at_the_same_score():
    widths = [estimate_elo(6 * k, 2 * k, 2 * k).ci95 for k in (1, 4, 16, 64)]
    assert all(w1 > w2 for w1, w2 in zip(widths, widths[1:]))
    assert widths[0] / widths[2] == pytest.approx(4.0, rel=0.35)  # ~ 1 / sqrt(games)


def test_draws_narrow_the_interval_compared_with_wins_and_losses_at_the_same_score():
    assert estimate_elo(0, 100, 0).ci95 < estimate_elo(50, 0, 50).ci95


def test_perfect_and_zero_scores_give_finite_mirror_results():
    best, worst = estimate_elo(20, 0, 0), estimate_elo(0, 0, 20)
    assert math.isfinite(best.diff) and math.isfinite(best.ci95) and best.diff > 400
    assert best.diff == pytest.approx(-worst.diff)
    assert estimate_elo(40, 0, 0).diff > best.diff


def test_no_games_means_unknown():
    empty = estimate_elo(0, 0, 0)
    assert empty.diff == 0.0 and math.isinf(empty.ci95)


def test_fit_ratings_orders_players_and_matches_the_pairwise_formula():
    # 0 beats 1 75%, 1 beats 2 75%, 0 beats 2 90%: many games, so the prior barely matters.
    games = np.full((3, 3), 1000.0)
    points = np.array([[0, 750, 900], [250, 0, 750], [100, 250, 0]], dtype=float)
    ratings = fit_ratings(points, games)
    assert ratings[0] > ratings[1] > ratings[2]
    assert ratings.sum() == pytest.approx(0.0, abs=1e-6)
    two = fit_ratings(np.array([[0, 750], [250, 0]]), np.full((2, 2), 10_000.0))
    assert two[0] - two[1] == pytest.approx(elo_from_score(0.75), rel=0.01)


def test_fit_ratings_keeps_an_unbeaten_player_finite():
    ratings = fit_ratings(np.array([[0, 10], [0, 0]]), np.full((2, 2), 10.0))
    assert np.isfinite(ratings).all() and ratings[0] > ratings[1]


def test_fit_ratings_rejects_inconsistent_tables():
    with pytest.raises(ValueError, match="symmetric"):
        fit_ratings(np.zeros((2, 2)), np.array([[0, 2], [3, 0]]))
    with pytest.raises(ValueError, match="points"):
        fit_ratings(np.array([[0, 5], [0, 0]]), np.full((2, 2), 2.0))
