"""A search is a transaction: an evaluator that raises half-way leaves trees and random streams as a
fresh search object's, and the step kernels never hand a leaf another step's batch row."""

import random

import numpy as np
import pytest
from mcts_testing import HashEvaluator, random_position, tree_problems
from search_doubles import FlakyEvaluator

from alphazero.mcts.config import ROOT_POLICIES, MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.kernels import backup, expand, select_leaves
from alphazero.mcts.search import ROOT_RULES, BatchedSearch
from alphazero.mcts.tree import NO_ACTION, PENDING, allocate_tree, prepare_roots, record_root_values
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, is_game_over_batch, make_move_batch

GAMES = 4


def midgame_positions(count, seed):
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = random_position(rng, rng.randint(10, 30))
        if state is not None and len(state.legal_actions()) >= 3:
            states.append(state)
    return np.array([s.as_array() for s in states], dtype=np.uint64)


def assert_same_results(got, expected):
    for name in ("policy", "visits", "root_value", "action", "reused_visits", "exact_score", "simulations"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)


def play_along(searches, positions, ply, moves, add_noise=True):
    """Search and play `moves` moves with every search object on the same games; every object must
    return exactly the first one's results and keep sound trees."""
    active = ~is_game_over_batch(positions)
    for _ in range(moves):
        results = [search.search(positions, ply, active, add_noise=add_noise) for search in searches]
        for search, result in zip(searches[1:], results[1:]):
            assert_same_results(result, results[0])
        for search in searches:
            for b in np.flatnonzero(active):
                assert tree_problems(search.tree, b, exact_visits=False) == []
            search.advance(np.where(active, results[0].action, NO_ACTION))
        positions = np.where(active[:, None], make_move_batch(positions, np.where(active, results[0].action, PASS)),
                             positions)
        ply = ply + active
        active &= ~is_game_over_batch(positions)
    return positions, ply


@pytest.mark.parametrize("root_policy, leaves, forced", [("puct", 1, 0.0), ("puct", 3, 2.0), ("gumbel", 1, 0.0),
                                                         ("gumbel", 4, 0.0)])
def test_after_an_evaluator_error_searches_give_exactly_a_fresh_trees_results(root_policy, leaves, forced):
    cfg = MCTSConfig(simulations=40, leaves_per_step=leaves, root_policy=root_policy, forced_playouts_k=forced,
                     temperature_plies=4, gumbel_sample_plies=2, endgame_solve_empties=0)
    positions = midgame_positions(GAMES, seed=31)
    ply = np.zeros(GAMES, dtype=np.int64)
    flaky = BatchedSearch(cfg, FlakyEvaluator(inner=HashEvaluator(), fail_on=4), GAMES, seed=7)
    with pytest.raises(RuntimeError, match="evaluator failed on call 4"):
        flaky.search(positions, ply, add_noise=True)
    fresh = BatchedSearch(cfg, HashEvaluator(), GAMES, seed=7)
    # The same positions again, six moves of self-play with tree reuse, then other positions.
    play_along([fresh, flaky], positions, ply, moves=7)
    play_along([fresh, flaky], midgame_positions(GAMES, seed=32), ply, moves=3, add_noise=False)


@pytest.mark.parametrize("root_policy", ROOT_POLICIES)
def test_an_error_in_a_search_of_a_reused_tree_empties_only_the_active_games_trees(root_policy):
    cfg = MCTSConfig(simulations=30, leaves_per_step=2, root_policy=root_policy, temperature_plies=6,
                     endgame_solve_empties=0)
    positions = midgame_positions(GAMES, seed=33)
    ply = np.zeros(GAMES, dtype=np.int64)
    evaluator = FlakyEvaluator(inner=HashEvaluator(), fail_on=0)
    flaky = BatchedSearch(cfg, evaluator, GAMES, seed=3)
    fresh = BatchedSearch(cfg, HashEvaluator(), GAMES, seed=3)
    positions, ply = play_along([fresh, flaky], positions, ply, moves=2)

    active = np.array([True, False, True, True])
    bystander = flaky.tree.nodes[1].copy(), int(flaky.tree.next_free[1])
    evaluator.fail_on = evaluator.calls + 3  # the third step of the next search
    with pytest.raises(RuntimeError, match="evaluator failed"):
        flaky.search(positions, ply, active, add_noise=True)
    np.testing.assert_array_equal(flaky.tree.next_free[active], 0)
    assert int(flaky.tree.next_free[1]) == bystander[1]
    np.testing.assert_array_equal(flaky.tree.nodes[1], bystander[0])

    fresh.reset(np.flatnonzero(active))  # its trees as the failed search must have left them
    play_along([fresh, flaky], positions, ply, moves=5)


def test_gtp_style_retry_after_an_error_plays_the_move_a_fresh_search_plays():
    """A caller that reports the error and searches the same position again (GTP's genmove)
    gets exactly the move a search object that never failed plays."""
    cfg = MCTSConfig(simulations=64, temperature_plies=0, endgame_solve_empties=0)
    positions = midgame_positions(1, seed=34)
    for fail_on in (1, 2, 5, 9):
        flaky = BatchedSearch(cfg, FlakyEvaluator(inner=HashEvaluator(), fail_on=fail_on), 1)
        with pytest.raises(RuntimeError):
            flaky.search(positions, np.zeros(1), add_noise=False)
        again = flaky.search(positions, np.zeros(1), add_noise=False)
        expected = BatchedSearch(cfg, HashEvaluator(), 1).search(positions, np.zeros(1), add_noise=False)
        assert_same_results(again, expected)


def test_every_root_policy_has_a_root_rule():
    assert set(ROOT_RULES) == set(ROOT_POLICIES)
    for policy in ROOT_POLICIES:
        search = BatchedSearch(MCTSConfig(simulations=8, root_policy=policy), UniformEvaluator(), 2)
        assert isinstance(search.root_rule, ROOT_RULES[policy])


def _one_root_tree():
    """A tree of one game whose root (the start position) is evaluated, and the step buffers."""
    tree = allocate_tree(1, 8)
    active = np.ones(1, dtype=np.bool_)
    buffers = dict(leaf_node=np.zeros((1, 1), dtype=np.int32), leaf_slot=np.zeros((1, 1), dtype=np.int32),
                   eval_positions=np.zeros((1, 2), dtype=np.uint64), eval_game=np.zeros(1, dtype=np.int32),
                   eval_node=np.zeros(1, dtype=np.int32))
    positions = np.array([[START_BLACK, START_WHITE]], dtype=np.uint64)
    count = prepare_roots(tree, positions, active, 8, np.zeros(8, dtype=np.int32), buffers["eval_positions"],
                          buffers["eval_game"], buffers["eval_node"])
    priors, values = UniformEvaluator()(buffers["eval_positions"][:count])
    expand(tree, buffers["eval_game"], buffers["eval_node"], priors, count, True)
    record_root_values(tree, buffers["eval_game"], buffers["eval_node"], values, count)
    return tree, active, buffers


def _select(tree, active, buffers, root_action):
    return select_leaves(tree, active, 1, 1.5, 0.25, 1.0, np.array([[root_action]], dtype=np.int32), 0.0, 0, 0, 2,
                         buffers["leaf_node"], buffers["leaf_slot"], buffers["eval_positions"], buffers["eval_game"],
                         buffers["eval_node"])


def test_a_pending_node_no_walk_of_this_step_opened_is_evaluated_not_given_a_stale_row():
    tree, active, buffers = _one_root_tree()
    assert _select(tree, active, buffers, 19) == 1  # opens action 19's node, as a step that then failed
    node = int(buffers["leaf_node"][0, 0])
    assert tree.nodes["status"][0, node] == PENDING
    tree.nodes["in_flight"][0] = 0
    buffers["leaf_slot"][:] = 5  # a row of another step's batch
    count = _select(tree, active, buffers, 19)  # the next step's walk ends on the same PENDING node
    assert count == 1, "the stale node must go to the evaluator"
    assert buffers["leaf_slot"][0, 0] == 0 and buffers["eval_node"][0] == node
    priors, values = UniformEvaluator()(buffers["eval_positions"][:count])
    expand(tree, buffers["eval_game"], buffers["eval_node"], priors, count, True)
    backup(tree, active, 1, buffers["leaf_node"], buffers["leaf_slot"], values, True)
    assert tree.nodes["visits"][0, node] == 1 and tree.nodes["value_sum"][0, node] == values[0]


def test_backup_refuses_a_batch_row_past_the_end_of_the_values():
    tree, active, buffers = _one_root_tree()
    _select(tree, active, buffers, 19)
    buffers["leaf_slot"][0, 0] = 3
    with pytest.raises(IndexError, match="past the end of the values"):
        backup(tree, active, 1, buffers["leaf_node"], buffers["leaf_slot"], np.zeros(1, dtype=np.float32), True)
