"""Gating by a sequential probability ratio test on game pairs, and an Elo step that selection
does not inflate.

A fixed match ("promote at 0.55 over 40 games") is a poor gate: an equal-strength candidate passes
about one time in three, and a real +35 Elo one fails 43% of the time. A sequential test states its
error rates instead, and spends games only while the result is unclear. Hypotheses, in logistic
Elo of the candidate over the best network (expected score s = 1 / (1 + 10 ** (-elo / 400))):

    H0: elo <= elo0   (not better: keep the best)     accepted wrongly with probability <= beta
    H1: elo >= elo1   (better: promote)                accepted wrongly with probability <= alpha

After each round of paired games the log-likelihood ratio of H1 to H0 is compared with Wald's
bounds, log(beta / (1 - alpha)) below and log((1 - beta) / alpha) above; between them, another
round is played, up to a cap (a truncated test: at the cap the best is kept, so the cap lowers the
power below 1 - beta; `alphazero.arena.gate_power` measures what a configured gate really does).

The unit of the test is the pair, not the game. The arena plays every opening twice with the
colours swapped, and the two games of a pair are not independent: an opening that wins for black
tends to win for black in both, so a pair often ends 1-1 whoever is stronger. Scoring the games as
independent trinomial results overstates the noise of the score (and the stated error rates do not
hold when the games are correlated). So each pair is one outcome with five values, the candidate's
points over its two games: 0, 1/2, 1, 3/2 or 2 (LL, LD, WL or DD, WD, WW), a *pentanomial* result,
and the LLR is the generalised SPRT that Fishtest uses for it (Michel Van den Bergh, "A
generalised SPRT" and "Maximum likelihood estimation for the multinomial with a given expectation
value"): with the pairs' empirical distribution p_i over the per-game scores x_i = 0, 1/4, 1/2,
3/4, 1 and N pairs,

    LLR = N * sum_i p_i * log(p1_i / p0_i),

where p_s is the distribution closest to p (maximum likelihood) among those whose mean is s:
p_s,i = p_i / (1 + lambda (x_i - s)), with lambda the root of sum_i p_i (x_i - s) / (1 + lambda
(x_i - s)) = 0 in (-1 / (1 - s), 1 / s). A count of zero is replaced by 1e-3 (Fishtest's
regularisation), so an all-win or all-draw start still has every mean in reach and a finite LLR.

Selection bias. A promoted candidate is, by construction, one whose games went well: the Elo
difference measured on the games that decided its promotion overstates its strength (a winner's
curse), and adding those steps up makes `elo/best` drift upwards even when no network is better
than the last. So the step recorded for a promotion comes from a separate confirmation match
(fresh openings) played after the decision, whose result the decision never saw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from alphazero.arena.elo import score_from_elo

# A pair's score per game, by its pentanomial category (the candidate's points over the two games
# of a pair, halved): LL, LD, WL or DD, WD, WW.
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
# What an empty category counts as (Fishtest's): keeps the constrained maximum likelihood defined.
EMPTY_CATEGORY = 1e-3
# Safeguarded Newton steps for lambda: quadratic convergence from 0 reaches double precision in a
# handful; a bisection step (when Newton leaves the bracket) halves the bracket.
_LAMBDA_STEPS = 60
_LAMBDA_TOLERANCE = 1e-13


def pentanomial_llr(counts, s0: float, s1: float) -> np.ndarray:
    """Generalised SPRT log-likelihood ratio of mean score s1 against s0 (per game, in (0, 1)).

    Args:
      counts: [..., 5] pairs per category (LL, LD, WL+DD, WD, WW), any leading shape (many
        simulated gates at once).
    Returns:
      [...] the LLR; 0 where no pair was played.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.shape[-1:] != (5,):
        raise ValueError(f"pentanomial counts need 5 categories in the last axis, got shape {counts.shape}")
    if np.any(counts < 0):
        raise ValueError("pentanomial counts must be >= 0")
    played = counts.sum(axis=-1) > 0
    regularised = np.where(counts == 0, EMPTY_CATEGORY, counts)
    total = regularised.sum(axis=-1)
    empirical = regularised / total[..., None]
    # log(p1_i / p0_i) = log(1 + lambda0 (x_i - s0)) - log(1 + lambda1 (x_i - s1))
    log_ratio = np.log1p(_lambda(empirical, s0)[..., None] * (PAIR_SCORES - s0)) - np.log1p(
        _lambda(empirical, s1)[..., None] * (PAIR_SCORES - s1))
    return np.where(played, total * (empirical * log_ratio).sum(axis=-1), 0.0)


def _lambda(empirical: np.ndarray, s: float) -> np.ndarray:
    """The root lambda of sum_i p_i d_i / (1 + lambda d_i) = 0, d_i = x_i - s, in the open
    interval where every 1 + lambda d_i > 0. The sum falls strictly from +inf to -inf over it
    (every p_i > 0 after the regularisation), so the root is unique: Newton from 0, kept inside
    the shrinking bracket by bisection."""
    if not 0.0 < s < 1.0:
        raise ValueError(f"a mean score must lie in (0, 1), got {s}")
    deviation = PAIR_SCORES - s
    # The interval's ends (where a 1 + lambda d_i vanishes), pulled in by a hair so that a step
    # landing on one stays finite; the root lies much further in (every p_i >= 1e-3 / N).
    low = np.full(empirical.shape[:-1], -(1.0 - 1e-12) / (1.0 - s))
    high = np.full(empirical.shape[:-1], (1.0 - 1e-12) / s)
    lam = np.zeros(empirical.shape[:-1])
    for _ in range(_LAMBDA_STEPS):
        denominator = 1.0 + lam[..., None] * deviation
        value = (empirical * deviation / denominator).sum(axis=-1)
        slope = -(empirical * deviation**2 / denominator**2).sum(axis=-1)
        low = np.where(value > 0, lam, low)
        high = np.where(value > 0, high, lam)
        newton = lam - value / slope
        # lam is now an end of the bracket, so a converged Newton step lands on it: ends included.
        inside = (newton >= low) & (newton <= high)
        updated = np.where(inside, newton, 0.5 * (low + high))
        if np.all(np.abs(updated - lam) <= _LAMBDA_TOLERANCE * np.maximum(1.0, np.abs(lam))):
            return updated
        lam = updated
    return lam


@dataclass(frozen=True)
class SPRT:
    """The test's hypotheses (Elo) and error rates."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.1

    def __post_init__(self):
        if not self.elo1 > self.elo0:
            raise ValueError(f"SPRT needs elo1 > elo0, got elo0={self.elo0}, elo1={self.elo1}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT {name} must be in (0, 0.5), got {value}")

    @property
    def lower(self) -> float:
        """Accept H0 (keep the best) at or below this LLR."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 (promote) at or above this LLR."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, pairs) -> float:
        """Log-likelihood ratio of H1 to H0 after these pairs (5 counts: LL, LD, WL+DD, WD, WW;
        0 before any pair)."""
        return float(pentanomial_llr(pairs, score_from_elo(self.elo0), score_from_elo(self.elo1)))

    def decision(self, pairs) -> str | None:
        """"H1" (promote), "H0" (keep the best) or None (play on)."""
        llr = self.llr(pairs)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def describe(self) -> str:
        return f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"


@dataclass(frozen=True)
class RoundResult:
    """One round of paired games from the candidate's view: its games (for the log) and its pairs
    by pentanomial category (for the test)."""

    wins: int
    draws: int
    losses: int
    pairs: tuple[int, int, int, int, int]


@dataclass
class SequentialResult:
    """A sequential gate's games and verdict, counted from the candidate's view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    pairs: list = field(default_factory=lambda: [0] * 5)  # pentanomial counts: LL, LD, WL+DD, WD, WW
    rounds: int = 0
    llr: float = 0.0
    decision: str = "H0"  # H1: promote; H0: keep the best (also when the cap was reached)
    truncated: bool = False  # the cap was reached before a bound
    results: list = field(default_factory=list)  # each round's own RoundResult

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5


def run_sequential(test: SPRT, play_round: Callable[[int], RoundResult], max_rounds: int) -> SequentialResult:
    """Rounds of `play_round(round_index) -> RoundResult` until `test` decides or `max_rounds`
    were played (then H0, truncated)."""
    result = SequentialResult()
    for index in range(max_rounds):
        played = play_round(index)
        result.results.append(played)
        result.wins += played.wins
        result.draws += played.draws
        result.losses += played.losses
        result.pairs = [total + count for total, count in zip(result.pairs, played.pairs)]
        result.rounds += 1
        result.llr = test.llr(result.pairs)
        verdict = "H1" if result.llr >= test.upper else "H0" if result.llr <= test.lower else None
        if verdict is not None:
            result.decision = verdict
            return result
    result.decision, result.truncated = "H0", True
    return result
