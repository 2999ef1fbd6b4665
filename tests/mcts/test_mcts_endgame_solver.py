"""The exact endgame solver inside the search (`MCTSConfig.endgame_solve_empties`)."""

import random

import numpy as np
import pytest
from mcts_testing import HashEvaluator, random_endgame, solve

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import NO_EXACT_SCORE, BatchedSearch
from alphazero.mcts.tree import ROOT, SOLVED, TERMINAL
from alphazero.othello.bitboard import make_move
from alphazero.solver.solver import SearchOptions, Solver


def endgames(seed, empties, count):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = random_endgame(rng, empties)
        if state is not None:
            found.append(state)
    return found


def _search(config, states, evaluator=None):
    search = BatchedSearch(config, evaluator or UniformEvaluator(), len(states), seed=1)
    positions = np.array([[s.player, s.opponent] for s in states], dtype=np.uint64)
    return search, search.search(positions, np.full(len(states), 50), add_noise=False)


@pytest.mark.parametrize("empties", [1, 4, 8, 12])
def test_root_within_reach_plays_an_exact_best_move_at_one_simulation(empties):
    states = endgames(empties, empties, 6)
    cfg = MCTSConfig(simulations=1, endgame_solve_empties=12, temperature_plies=0)
    _, result = _search(cfg, states)
    reference = Solver(table_bits=12)
    for b, state in enumerate(states):
        exact = reference.solve(state.player, state.opponent)
        assert result.exact_score[b] == exact.score
        assert result.root_value[b] == np.sign(exact.score)
        child = make_move(np.uint64(state.player), np.uint64(state.opponent), int(result.action[b]))
        assert -reference.solve(int(child[0]), int(child[1])).score == exact.score


def test_opened_nodes_within_reach_are_solved_with_their_exact_result():
    states = endgames(7, 10, 4)  # root at 10 empties, solving from 8: the children are searched
    cfg = MCTSConfig(simulations=60, endgame_solve_empties=8, temperature_plies=0)
    search, result = _search(cfg, states, HashEvaluator(3))
    assert (result.exact_score == NO_EXACT_SCORE).all()
    tree = search.tree
    solved = 0
    for b in range(len(states)):
        for node in range(1, tree.next_free[b]):
            record = tree.nodes[b, node]
            player, opponent = int(record["player"]), int(record["opponent"])
            empties = 64 - bin(player | opponent).count("1")
            if empties <= 8 and record["status"] != TERMINAL:
                assert record["status"] == SOLVED and record["proven"]
                assert record["exact_value"] == solve(player, opponent)
                solved += 1
            elif empties > 8:
                assert record["status"] != SOLVED
    assert solved > 20


def test_root_one_beyond_reach_is_proven_by_the_tree():
    states = endgames(11, 7, 5)
    cfg = MCTSConfig(simulations=40, endgame_solve_empties=6, temperature_plies=0, tree_reuse=False)
    search, result = _search(cfg, states, HashEvaluator(5))
    for b, state in enumerate(states):
        root = search.tree.nodes[b, ROOT]
        assert root["proven"]
        assert root["exact_value"] == solve(state.player, state.opponent) == result.root_value[b]
        child = make_move(np.uint64(state.player), np.uint64(state.opponent), int(result.action[b]))
        assert -solve(int(child[0]), int(child[1])) == root["exact_value"]


def test_off_solves_nothing():
    states = endgames(3, 6, 3)
    cfg = MCTSConfig(simulations=30, endgame_solve_empties=0)
    search, result = _search(cfg, states)
    assert (result.exact_score == NO_EXACT_SCORE).all()
    statuses = search.tree.nodes["status"][:, : search.tree.next_free.max()]
    assert not (statuses == SOLVED).any()


def test_advancing_into_a_solved_child_starts_a_fresh_tree():
    states = endgames(5, 9, 2)
    cfg = MCTSConfig(simulations=40, endgame_solve_empties=8, temperature_plies=0)
    search, result = _search(cfg, states)
    search.advance(result.action)
    assert (search.tree.next_free == 0).all()
    after = [state.play(int(a)) for state, a in zip(states, result.action)]
    positions = np.array([[s.player, s.opponent] for s in after], dtype=np.uint64)
    again = search.search(positions, np.full(len(after), 51), add_noise=False)
    assert (again.exact_score != NO_EXACT_SCORE).all()
    assert (search.tree.nodes["status"][:, ROOT] == 1).all()  # the fresh root was evaluated: EXPANDED


def _solved_by_empties(search):
    """{empties: set of statuses} over every non-terminal, non-root node of every tree."""
    seen = {}
    tree = search.tree
    for b in range(tree.nodes.shape[0]):
        for node in range(1, tree.next_free[b]):
            record = tree.nodes[b, node]
            if record["status"] == TERMINAL:
                continue
            empties = 64 - bin(int(record["player"]) | int(record["opponent"])).count("1")
            seen.setdefault(empties, set()).add(int(record["status"]) == SOLVED)
    return seen


@pytest.mark.parametrize("exact, wld", [(6, 8), (9, 7)])
def test_wld_threshold_sets_which_opened_nodes_are_solved_and_exact_which_roots(exact, wld):
    states = endgames(21, 10, 4)
    cfg = MCTSConfig(simulations=80, endgame_solve_empties=exact, endgame_wld_empties=wld, temperature_plies=0)
    search, result = _search(cfg, states, HashEvaluator(3))
    seen = _solved_by_empties(search)
    assert min(seen) <= wld < max(seen)  # nodes on both sides of the threshold were opened
    for empties, solved in seen.items():
        assert solved == ({True} if empties <= wld else {False}), empties
    assert (result.exact_score == NO_EXACT_SCORE).all()  # roots at 10 empties: beyond both
    roots = endgames(22, 9, 3)
    _, result = _search(cfg, roots, HashEvaluator(3))
    assert ((result.exact_score != NO_EXACT_SCORE) == (9 <= exact)).all()


def test_solver_options_pick_the_solvers_switch_set():
    cfg = MCTSConfig(endgame_solve_empties=8, endgame_solver_options="off")
    search = BatchedSearch(cfg, UniformEvaluator(), 1, seed=1)
    assert search.endgame_solver.options == SearchOptions.off()
    with pytest.raises(ValueError, match="endgame_solver_options"):
        MCTSConfig(endgame_solver_options="fastest")
    with pytest.raises(ValueError, match="endgame_wld_empties"):
        MCTSConfig(endgame_wld_empties=-1)
