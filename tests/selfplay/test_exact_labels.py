"""Exact labels after the game (selfplay.exact_label_empties): every position of a finished game
with at most that many empties gets perfect play's win/loss/draw as value target, checked against
the slow full-width minimax of tests/solver/reference.py."""

import numpy as np
import pytest

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch
from alphazero.selfplay import games
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.games import SelfPlayRunner
from alphazero.validation import ConfigValueError
from tests.solver.reference import minimax

SEARCH_REACH = 6  # the search solves its roots from here: the labels must cover 7..LABEL themselves
LABEL = 10  # the slow reference's reach


def _runner(label_empties, solve_empties=SEARCH_REACH, exact_value_targets=True):
    config = MCTSConfig(simulations=8, endgame_solve_empties=solve_empties, endgame_wld_empties=0)
    search = BatchedSearch(config, UniformEvaluator(), 2, seed=5)
    return SelfPlayRunner(search, np.random.default_rng(5), random_opening_plies=2,
                          exact_value_targets=exact_value_targets, exact_label_empties=label_empties)


def _outcome(state):
    return int(np.sign(minimax(state.player, state.opponent)))


def test_off_by_default():
    assert SelfPlayConfig().exact_label_empties == 0


def test_every_position_below_the_threshold_is_labelled_with_perfect_play():
    runner = _runner(LABEL)
    records = runner.play(4)
    labelled = 0
    for record in records:
        for state, action, exact in zip(record.states()[:-1], record.actions, record.exact_values):
            if action == 64 or state.empties() > LABEL:
                assert np.isnan(exact), (state.empties(), action)
            else:
                assert exact == _outcome(state), state.empties()
                labelled += state.empties() > SEARCH_REACH
    # the labels reached beyond the search's own solved roots, and the counters say how many
    assert labelled > 0
    assert runner.labelled_positions >= labelled
    assert runner.label_seconds > 0


def test_labels_agree_with_the_search_where_it_solved():
    """The search's exact roots (from SEARCH_REACH) are not solved again and not changed."""
    plain = _runner(0).play(3)
    labelled = _runner(LABEL).play(3)
    for a, b in zip(plain, labelled):
        np.testing.assert_array_equal(a.actions, b.actions)  # labelling after the game changes no move
        solved = ~np.isnan(a.exact_values)
        assert solved.any()
        np.testing.assert_array_equal(a.exact_values[solved], b.exact_values[solved])


def test_a_solve_that_gives_up_keeps_the_outcome(monkeypatch):
    """A position beyond the node limit keeps NaN (the game's outcome), never a guess."""
    monkeypatch.setattr(games, "LABEL_NODE_LIMIT", 3)
    runner = _runner(LABEL, solve_empties=0)
    records = runner.play(3)
    unlabelled = 0
    for record in records:
        for state, action, exact in zip(record.states()[:-1], record.actions, record.exact_values):
            if np.isnan(exact):
                unlabelled += action != 64 and state.empties() <= LABEL
            else:
                assert exact == _outcome(state)
    assert unlabelled > 0  # the deeper positions gave up


@pytest.mark.parametrize("value", [-1, 31])
def test_config_refuses_a_threshold_out_of_range(value):
    with pytest.raises(ConfigValueError, match="selfplay.exact_label_empties"):
        SelfPlayConfig(exact_label_empties=value)


def test_config_refuses_labels_without_exact_value_targets():
    with pytest.raises(ConfigValueError, match="exact_value_targets=false"):
        SelfPlayConfig(exact_label_empties=18, exact_value_targets=False)
    with pytest.raises(ValueError, match="needs exact_value_targets"):
        _runner(LABEL, exact_value_targets=False)
