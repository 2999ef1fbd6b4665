"""The gate's sequential test: its pentanomial LLR is the constrained maximum likelihood ratio
(checked against a slow brute-force search), the gate loop and the vectorised simulation of it
agree at the shipped caps, and the Elo step it records for a promotion is not inflated by the
selection (a fixed 0.55-over-40-games gate does neither)."""

import math

import numpy as np
import pytest

from alphazero.arena.elo import estimate_elo, score_from_elo
from alphazero.arena.gate_power import GATE_PAIRS, simulate_gates
from alphazero.arena.sprt import PAIR_SCORES, SPRT, RoundResult, pentanomial_llr, run_sequential
from alphazero.train.config import ArenaConfig

TEST = SPRT(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.1)
S0, S1 = score_from_elo(0.0), score_from_elo(50.0)


def reference_log_likelihood(counts, mean: float) -> float:
    """max sum_i n_i log p_i over distributions p on PAIR_SCORES with this mean (counts of zero
    taken as 1e-3), by brute force: a grid over the three free probabilities p(LD), p(WL+DD),
    p(WD) (p(LL) and p(WW) then follow from the two constraints), zoomed on its best point until
    the grid is finer than 1e-12. The log-likelihood is concave and the feasible set convex, so
    the zoom closes in on the maximum; no use of the closed form the LLR is computed with."""
    counts = np.where(np.asarray(counts, dtype=float) == 0, 1e-3, np.asarray(counts, dtype=float))
    centre, half = np.array([0.25, 0.25, 0.25]), 0.5
    axis = np.linspace(-1.0, 1.0, 21)
    best_value = -math.inf
    while half > 1e-12:
        grid = np.stack(np.meshgrid(*(centre[k] + half * axis for k in range(3)), indexing="ij"), axis=-1).reshape(-1, 3)
        p_ww = mean - grid @ PAIR_SCORES[1:4]
        p_ll = 1.0 - grid.sum(axis=1) - p_ww
        probabilities = np.column_stack([p_ll, grid, p_ww])
        feasible = np.all(probabilities > 0, axis=1)
        values = np.full(len(grid), -math.inf)
        values[feasible] = np.log(probabilities[feasible]) @ counts
        index = int(np.argmax(values))
        if values[index] > best_value:
            best_value = values[index]
        centre = grid[index]
        half *= 0.5
    return best_value


def reference_llr(counts, s0: float, s1: float) -> float:
    return reference_log_likelihood(counts, s1) - reference_log_likelihood(counts, s0)


@pytest.mark.parametrize("counts", [
    [3, 10, 40, 7, 0],  # a round of 60 pairs, no WW
    [12, 8, 48, 11, 21],  # a lineage match of experiments/warmstart-medium-selfplay
    [0, 0, 20, 0, 0],  # every pair split
    [0, 0, 0, 0, 20],  # every pair won twice
    [5, 0, 0, 0, 0],
    [1, 2, 3, 4, 5],
    [2, 0, 9, 0, 9],
])
def test_the_llr_is_the_constrained_maximum_likelihood_ratio(counts):
    assert TEST.llr(counts) == pytest.approx(reference_llr(counts, S0, S1), abs=1e-6)


def test_the_llr_of_many_gates_at_once_is_each_gates_own():
    rng = np.random.default_rng(0)
    counts = rng.multinomial(40, GATE_PAIRS.probabilities(30.0), size=(3, 4))
    together = pentanomial_llr(counts, S0, S1)
    assert together.shape == (3, 4)
    for index in np.ndindex(3, 4):
        assert together[index] == pytest.approx(TEST.llr(counts[index]), rel=1e-12, abs=1e-12)


def test_wald_bounds_and_the_llr_sign():
    assert TEST.lower == pytest.approx(math.log(0.1 / 0.95)) and TEST.upper == pytest.approx(math.log(0.9 / 0.05))
    assert TEST.llr([0, 0, 0, 0, 0]) == 0.0
    assert TEST.llr([5, 5, 20, 10, 20]) > 0 > TEST.llr([10, 10, 20, 5, 5])
    assert TEST.decision([0, 2, 10, 8, 30]) == "H1" and TEST.decision([30, 8, 10, 2, 0]) == "H0"
    assert TEST.decision([4, 2, 8, 2, 5]) is None
    assert math.isfinite(TEST.llr([0, 0, 0, 0, 40])) and math.isfinite(TEST.llr([0, 0, 40, 0, 0]))


def test_split_pairs_are_evidence_of_equal_strength_where_independent_games_would_not_be():
    """Pairs of one win and one loss each are what equal players produce when the opening decides
    the pair: 40 of them are strong evidence against +50 Elo. The same 40 wins and 40 losses
    shuffled into 10 LL, 20 WL and 10 WW pairs (each game independent) are far weaker."""
    assert TEST.llr([0, 0, 40, 0, 0]) < TEST.lower
    assert TEST.lower < TEST.llr([10, 0, 20, 0, 10]) < 0


def round_of(rng, elo: float, pairs: int) -> RoundResult:
    """A round of `pairs` pairs from the gate model, with the games behind them (a split pair is
    a draw-draw with the model's odds, else a win and a loss)."""
    counts = rng.multinomial(pairs, GATE_PAIRS.probabilities(elo))
    draw = GATE_PAIRS.draw_rate
    both_drawn = (1 - GATE_PAIRS.split_share) * draw * draw / GATE_PAIRS.equal()[2]
    drawn_splits = int(rng.binomial(counts[2], both_drawn))
    wins = counts[2] - drawn_splits + counts[3] + 2 * counts[4]
    draws = counts[1] + 2 * drawn_splits + counts[3]
    losses = 2 * counts[0] + counts[1] + counts[2] - drawn_splits
    return RoundResult(int(wins), int(draws), int(losses), tuple(int(c) for c in counts))


@pytest.mark.parametrize("elo", [0.0, 50.0])
def test_the_gate_loop_and_its_simulation_agree_at_the_shipped_caps(elo):
    """run_sequential (what a training run's gate runs, round by round) and simulate_gates (how
    test_gate_power checks the presets, thousands of gates at once) promote alike, with the
    default gate's round size and cap: a check of the simulation, at a cap a preset ships."""
    shipped = ArenaConfig()
    test = SPRT(shipped.sprt_elo0, shipped.sprt_elo1, shipped.sprt_alpha, shipped.sprt_beta)
    rng = np.random.default_rng(1)
    trials = 500
    looped = [run_sequential(test, lambda _: round_of(rng, elo, shipped.pairs), shipped.rounds()) for _ in range(trials)]
    promoted = np.mean([gate.decision == "H1" for gate in looped])
    simulated = simulate_gates(test, shipped.pairs, shipped.rounds(), GATE_PAIRS.probabilities(elo), gates=20_000, seed=2)
    spread = math.sqrt(simulated.promoted * (1 - simulated.promoted) / trials)
    assert abs(promoted - simulated.promoted) < 3.5 * spread + 0.005
    assert abs(np.mean([gate.games for gate in looped]) - simulated.games) < 0.1 * simulated.games
    assert all(gate.games == 2 * shipped.pairs * gate.rounds and sum(gate.pairs) == shipped.pairs * gate.rounds for gate in looped)


def test_a_fixed_threshold_gate_promotes_an_equal_network_far_more_often_than_the_test():
    """What the test replaces: 0.55 over 40 games lets an equal candidate through about 1 in 4."""
    rng = np.random.default_rng(2)
    fixed = np.mean([(lambda r: (r.wins + 0.5 * r.draws) / 40 >= 0.55)(round_of(rng, 0.0, 20)) for _ in range(2000)])
    assert fixed > 0.2


def test_steps_measured_on_fresh_games_do_not_drift_where_selected_ones_do():
    """Candidates exactly as strong as the best, through the default gate: the decision games of
    the promoted ones show a large gain (the winner's curse), their confirmation games none."""
    shipped = ArenaConfig()
    test = SPRT(shipped.sprt_elo0, shipped.sprt_elo1, shipped.sprt_alpha, shipped.sprt_beta)
    rng = np.random.default_rng(3)
    selected, confirmed = [], []
    for _ in range(1500):
        decided = run_sequential(test, lambda _: round_of(rng, 0.0, shipped.pairs), shipped.rounds())
        if decided.decision == "H1":
            selected.append(estimate_elo(decided.wins, decided.draws, decided.losses).diff)
            fresh = round_of(rng, 0.0, shipped.elo_pairs)
            confirmed.append(estimate_elo(fresh.wins, fresh.draws, fresh.losses).diff)
    assert len(selected) >= 20
    assert np.mean(selected) > 40
    assert abs(np.mean(confirmed)) < 3 * np.std(confirmed) / math.sqrt(len(confirmed)) + 5
