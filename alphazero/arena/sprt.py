"""Gating by a sequential probability ratio test, and an Elo step that selection does not inflate.

A fixed match ("promote at 0.55 over 40 games") is a poor gate: an equal-strength candidate passes
about one time in three, and a real +35 Elo one fails 43% of the time. A sequential test states its
error rates instead, and spends games only while the result is unclear. Hypotheses, in Elo of the
candidate over the best network:

    H0: elo <= elo0   (not better: keep the best)     accepted wrongly with probability <= beta
    H1: elo >= elo1   (better: promote)                accepted wrongly with probability <= alpha

After each round of paired games the log-likelihood ratio of H1 to H0 is compared with Wald's
bounds, log(beta / (1 - alpha)) below and log((1 - beta) / alpha) above; between them, another
round is played, up to a cap (a truncated test: at the cap the best is kept). The LLR is the
generalised SPRT's normal approximation under the logistic Elo model (as Fishtest computes it for
trinomial results): with N games of mean score m and per-game score variance v,

    LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v),   s_i = 1 / (1 + 10 ** (-elo_i / 400)).

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

from alphazero.arena.elo import score_from_elo


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

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """Log-likelihood ratio of H1 to H0 after these results (0 before any game)."""
        games = wins + draws + losses
        if games == 0:
            return 0.0
        mean = (wins + 0.5 * draws) / games
        variance = (wins * (1.0 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / games
        # Floor: a perfect (or all-draw) start would give a zero variance; a quarter of a game's
        # worth keeps the ratio finite, as elo.estimate_elo does.
        variance = max(variance, 1.0 / (4.0 * games))
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return games * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)

    def decision(self, wins: int, draws: int, losses: int) -> str | None:
        """"H1" (promote), "H0" (keep the best) or None (play on)."""
        llr = self.llr(wins, draws, losses)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def describe(self) -> str:
        return f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"


@dataclass
class SequentialResult:
    """A sequential gate's games and verdict, counted from the candidate's view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    rounds: int = 0
    llr: float = 0.0
    decision: str = "H0"  # H1: promote; H0: keep the best (also when the cap was reached)
    truncated: bool = False  # the cap was reached before a bound
    results: list = field(default_factory=list)  # each round's own (wins, draws, losses)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5


def run_sequential(test: SPRT, play_round: Callable[[int], tuple[int, int, int]], max_rounds: int) -> SequentialResult:
    """Rounds of `play_round(round_index) -> (wins, draws, losses)` until `test` decides or
    `max_rounds` were played (then H0, truncated)."""
    result = SequentialResult()
    for index in range(max_rounds):
        wins, draws, losses = play_round(index)
        result.results.append((wins, draws, losses))
        result.wins += wins
        result.draws += draws
        result.losses += losses
        result.rounds += 1
        result.llr = test.llr(result.wins, result.draws, result.losses)
        verdict = test.decision(result.wins, result.draws, result.losses)
        if verdict is not None:
            result.decision = verdict
            return result
    result.decision, result.truncated = "H0", True
    return result
