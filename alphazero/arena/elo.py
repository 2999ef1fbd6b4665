"""Elo from match results: one pairing's difference with a 95% interval, and a ladder fit.

Conventions: a win scores 1, a draw 1/2; the expected score of a player `d` Elo above its opponent
is `1 / (1 + 10 ** (-d / 400))`.

Interval: the per-game score is a random variable over {0, 1/2, 1}; its sample variance (draws
included, so many draws give a narrower interval than the same score from wins and losses) gives a
normal-approximation interval for the mean score, `mean +- 1.96 * sd / sqrt(n)`, whose ends are
converted to Elo. A perfect (or zero) score would make both the difference and the variance
degenerate, so such a result is scored as if one decisive game had been a draw; the variance is
floored at `1 / (4 n)` (all draws would otherwise claim certainty); and the interval's ends are
clamped to `[1 / (4 n), 1 - 1 / (4 n)]`: finite, and wider than anything n games resolve.

Ladder: a Bradley-Terry model fitted by Hunter's minorisation-maximisation iteration over a
round-robin table (draws as half a win each), with a weak prior of `prior_games` virtual draws of
every player against a fixed reference, so that an unbeaten player still gets a finite rating.
Ratings are shifted to average 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class EloEstimate:
    """diff: Elo difference of the player over its opponent; ci95: half the width of the 95%
    interval (low, high) in Elo; score: the mean score the difference comes from (after the
    perfect-score adjustment of the module doc)."""

    diff: float
    ci95: float
    low: float
    high: float
    score: float
    games: int


def elo_from_score(score: float) -> float:
    """Elo difference whose expected score is `score` (strictly between 0 and 1)."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"score {score} has no finite Elo difference: expected 0 < score < 1")
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(diff: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def estimate_elo(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo difference and 95% interval from one player's wins, draws and losses (see module doc)."""
    for label, value in (("wins", wins), ("draws", draws), ("losses", losses)):
        if value < 0:
            raise ValueError(f"{label} must be >= 0, got {value}")
    games = wins + draws + losses
    if games == 0:
        return EloEstimate(0.0, math.inf, -math.inf, math.inf, 0.5, 0)
    if wins == games:
        wins, draws = wins - 1, draws + 1
    elif losses == games:
        losses, draws = losses - 1, draws + 1
    score = (wins + 0.5 * draws) / games
    variance = (wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    # All draws would claim zero uncertainty: floor at one game in n differing by half a point.
    variance = max(variance, 0.25 / games)
    half_width = Z95 * math.sqrt(variance / games)
    floor = 1.0 / (4.0 * games)
    low = elo_from_score(min(max(score - half_width, floor), 1.0 - floor))
    high = elo_from_score(min(max(score + half_width, floor), 1.0 - floor))
    return EloEstimate(
        diff=elo_from_score(score) + 0.0,  # no "-0.0" in reports
        ci95=(high - low) / 2.0,
        low=low,
        high=high,
        score=score,
        games=games,
    )


def fit_ratings(
    points: np.ndarray, games: np.ndarray, prior_games: float = 1.0, iterations: int = 10_000, tolerance: float = 1e-10
) -> np.ndarray:
    """Bradley-Terry Elo ratings (mean 0) from a round-robin table.

    points[i, j]: points player i scored against player j (win 1, draw 1/2).
    games[i, j]:  games played between i and j (symmetric; the diagonal is ignored).
    """
    points = np.asarray(points, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    count = points.shape[0]
    if points.shape != (count, count) or games.shape != (count, count):
        raise ValueError(f"points {points.shape} and games {games.shape} must both be square tables of one size")
    if not np.allclose(games, games.T):
        raise ValueError("games table must be symmetric: games[i, j] == games[j, i]")
    if np.any(points < 0) or np.any(points > games + 1e-9):
        raise ValueError("points[i, j] must lie in [0, games[i, j]]")
    if prior_games <= 0 and count > 1:
        raise ValueError(f"prior_games must be > 0 to keep unbeaten players finite, got {prior_games}")
    games = games * (1.0 - np.eye(count))
    # Reference player with strength 1: `prior_games` virtual draws against each player.
    won = points.sum(axis=1) - np.diag(points) + 0.5 * prior_games
    strength = np.ones(count)
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1) + prior_games / (strength + 1.0)
        updated = won / denominator
        updated /= math.exp(np.log(updated).mean())  # fix the scale's free constant
        converged = np.max(np.abs(np.log(updated) - np.log(strength))) < tolerance
        strength = updated
        if converged:
            break
    ratings = 400.0 * np.log10(strength)
    return ratings - ratings.mean()
