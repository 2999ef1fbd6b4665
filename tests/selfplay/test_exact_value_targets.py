"""Self-play records the endgame solver's exact results as value targets (selfplay.exact_value_targets)."""

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch
from alphazero.replay.shard import encode_shard
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.games import SelfPlayRunner
from alphazero.solver.solver import Solver

REACH = 10


def _records(exact_value_targets, games=3):
    config = MCTSConfig(simulations=8, endgame_solve_empties=REACH)
    search = BatchedSearch(config, UniformEvaluator(), 2, seed=4)
    runner = SelfPlayRunner(search, np.random.default_rng(4), random_opening_plies=2,
                            exact_value_targets=exact_value_targets)
    return runner.play(games)


def test_switch_is_on_by_default():
    assert SelfPlayConfig().exact_value_targets


def test_solved_positions_carry_their_exact_result():
    solver = Solver(table_bits=14)
    for record in _records(True):
        states = record.states()[:-1]
        for state, action, exact in zip(states, record.actions, record.exact_values):
            if action == 64 or state.empties() > REACH:
                assert np.isnan(exact)
            else:
                assert exact == solver.solve(state.player, state.opponent).outcome
        # both sides play perfectly from the first solved position: the game ends as it said
        first = np.flatnonzero(~np.isnan(record.exact_values))[0]
        mover_is_black = states[first].black_to_move
        assert record.exact_values[first] == np.sign(record.black_margin) * (1 if mover_is_black else -1)


def test_exact_values_replace_the_outcome_as_value_target_in_the_shard():
    record = _records(True, games=1)[0]
    plain = encode_shard([record])
    # Pretend the solver said the opposite of the game's result in the last solved positions: the
    # shard must take the record's exact values, not the game's outcome.
    flipped = record.exact_values.copy()
    known = ~np.isnan(flipped)
    flipped[known] = -flipped[known]
    record.exact_values = flipped
    data = encode_shard([record])
    non_pass = record.actions != 64
    expected = np.where(np.isnan(flipped), np.nan, flipped)[non_pass]
    solved = ~np.isnan(expected)
    assert solved.any()
    np.testing.assert_array_equal(data.outcomes[solved], expected[solved].astype(np.int8))
    np.testing.assert_array_equal(data.outcomes[~solved], plain.outcomes[~solved])


def test_switch_off_records_no_exact_values():
    assert all(record.exact_values is None for record in _records(False, games=1))
