"""What a configured gate really does: its chance to promote a candidate of a given strength, and
the games it spends, by simulating thousands of gates at once.

Wald's bounds hold for a test that may play forever. A gate stops at a cap (`arena.max_pairs`,
in whole rounds of `arena.pairs` pairs) and then keeps the best, so its power is lower than the
1 - beta it states, by how much depends on the cap, the round size and the noise of a pair. Only
a simulation of the configured gate says whether the promise holds; `tests/arena/test_gate_power.py`
runs it on every shipped preset that gates.

Pairs are simulated, not games: the gate's test scores a pair (one opening with both colours) as
one pentanomial outcome (`alphazero.arena.sprt`), and what makes a pair's outcome noisy is the
correlation of its two games. `PairModel` draws a pair as follows: with probability
`split_share` the opening decides it and the pair is split (1 point each, whoever is stronger);
otherwise its two games are independent, each a draw with probability `draw_rate` and a win or a
loss with equal odds. That is the distribution between equal networks; a candidate `elo` stronger
gets it exponentially tilted (p_i * exp(t * x_i), the least change of it in relative entropy) so
that its mean score per game is 1 / (1 + 10 ** (-elo / 400)). Both parameters were measured on
arena games between networks of one training lineage (experiments/gate-power/README.md):
`GATE_PAIRS` holds the values the shipped gates are checked with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.arena.elo import score_from_elo
from alphazero.arena.sprt import PAIR_SCORES, SPRT, pentanomial_llr


@dataclass(frozen=True)
class PairModel:
    """The outcome of a pair between two networks (see the module doc)."""

    draw_rate: float  # share of games drawn
    split_share: float  # share of pairs the opening decides 1-1 (the rest: two independent games)

    def __post_init__(self):
        if not 0.0 <= self.draw_rate < 1.0:
            raise ValueError(f"draw_rate must be in [0, 1), got {self.draw_rate}")
        if not 0.0 <= self.split_share < 1.0:
            raise ValueError(f"split_share must be in [0, 1), got {self.split_share}")

    def equal(self) -> np.ndarray:
        """[5] probabilities of LL, LD, WL+DD, WD, WW between equal networks."""
        draw, win = self.draw_rate, (1.0 - self.draw_rate) / 2.0
        independent = np.array([win * win, 2 * win * draw, 2 * win * win + draw * draw, 2 * win * draw, win * win])
        split = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
        return (1.0 - self.split_share) * independent + self.split_share * split

    def probabilities(self, elo: float) -> np.ndarray:
        """[5] probabilities of the categories for a candidate `elo` stronger (its mean score per
        game 1 / (1 + 10 ** (-elo / 400)))."""
        return tilted(self.equal(), score_from_elo(elo))


# The pairs of a gate between a candidate and the best network of a self-play run: draws at the
# rate of the warm-started runs' gates (5.3-5.6% small network, 7% medium; the lower end, since
# fewer draws mean noisier pairs), split pairs at the lower end of the 95% interval measured on
# 500 pairs of arena games between networks of one lineage (0.17, interval 0.10-0.24). Both from
# experiments/gate-power/README.md; the lower ends make the check conservative.
GATE_PAIRS = PairModel(draw_rate=0.05, split_share=0.10)


def tilted(probabilities: np.ndarray, mean: float) -> np.ndarray:
    """`probabilities` over PAIR_SCORES exponentially tilted to have this mean score per game."""
    if not 0.0 < mean < 1.0:
        raise ValueError(f"a mean score must lie in (0, 1), got {mean}")
    low, high = -200.0, 200.0
    for _ in range(200):  # bisection on t: the tilted mean rises with t
        middle = 0.5 * (low + high)
        weights = probabilities * np.exp(middle * (PAIR_SCORES - 0.5))
        if weights @ PAIR_SCORES / weights.sum() < mean:
            low = middle
        else:
            high = middle
    weights = probabilities * np.exp(0.5 * (low + high) * (PAIR_SCORES - 0.5))
    return weights / weights.sum()


@dataclass(frozen=True)
class GatePower:
    """Simulated gates of one configuration against candidates of one strength.

    promoted: share of gates that promoted (with its standard error); games: mean games a gate
    played (the confirmation games of a promotion not included); truncated: share that reached
    the cap undecided (and kept the best)."""

    elo: float
    gates: int
    promoted: float
    promoted_error: float
    games: float
    truncated: float


def simulate_gates(test: SPRT, pairs_per_round: int, max_rounds: int, probabilities: np.ndarray, gates: int,
                   seed: int, elo: float = float("nan")) -> GatePower:
    """`gates` gates of `test` over rounds of `pairs_per_round` pairs, at most `max_rounds` rounds
    (then the best is kept), with pairs drawn from `probabilities` ([5], LL..WW), all at once."""
    if pairs_per_round < 1 or max_rounds < 1 or gates < 1:
        raise ValueError(f"need pairs_per_round, max_rounds and gates >= 1, got {pairs_per_round}, {max_rounds}, {gates}")
    rng = np.random.default_rng(seed)
    s0, s1 = score_from_elo(test.elo0), score_from_elo(test.elo1)
    counts = np.zeros((gates, 5), dtype=np.int64)
    playing = np.ones(gates, dtype=bool)
    promoted = np.zeros(gates, dtype=bool)
    rounds = np.zeros(gates, dtype=np.int64)
    for _ in range(max_rounds):
        index = np.flatnonzero(playing)
        if index.size == 0:
            break
        counts[index] += rng.multinomial(pairs_per_round, probabilities, size=index.size)
        rounds[index] += 1
        llr = pentanomial_llr(counts[index], s0, s1)
        promoted[index[llr >= test.upper]] = True
        playing[index[(llr >= test.upper) | (llr <= test.lower)]] = False
    share = float(promoted.mean())
    return GatePower(elo=elo, gates=gates, promoted=share, promoted_error=float(np.sqrt(share * (1 - share) / gates)),
                     games=float(2 * pairs_per_round * rounds.mean()), truncated=float(playing.mean()))
