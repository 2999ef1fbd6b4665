"""The exact endgame solver inside the search (`MCTSConfig.endgame_solve_empties`)."""

import random

import numpy as np
import pytest
from mcts_testing import HashEvaluator, RecordingEvaluator, random_endgame, solve

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import NO_EXACT_SCORE, BatchedSearch
from alphazero.mcts.tree import EXPANDED, ROOT, SOLVED, TERMINAL
from alphazero.othello.bitboard import make_move
from alphazero.solver.solver import SearchOptions, Solver

# Opened nodes solved from endgame_solve_empties when opened, and none further out (not the
# default's 17; no revisit band, whatever the default).
ONE_REACH = {"endgame_wld_empties": 0, "endgame_revisit_empties": 0}


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
    cfg = MCTSConfig(simulations=1, endgame_solve_empties=12, **ONE_REACH, temperature_plies=0)
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
    cfg = MCTSConfig(simulations=60, endgame_solve_empties=8, **ONE_REACH, temperature_plies=0)
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
    cfg = MCTSConfig(simulations=40, endgame_solve_empties=6, **ONE_REACH, temperature_plies=0, tree_reuse=False)
    search, result = _search(cfg, states, HashEvaluator(5))
    for b, state in enumerate(states):
        root = search.tree.nodes[b, ROOT]
        assert root["proven"]
        assert root["exact_value"] == solve(state.player, state.opponent) == result.root_value[b]
        child = make_move(np.uint64(state.player), np.uint64(state.opponent), int(result.action[b]))
        assert -solve(int(child[0]), int(child[1])) == root["exact_value"]


def test_off_solves_nothing():
    states = endgames(3, 6, 3)
    cfg = MCTSConfig(simulations=30, endgame_solve_empties=0, endgame_wld_empties=0)
    search, result = _search(cfg, states)
    assert (result.exact_score == NO_EXACT_SCORE).all()
    statuses = search.tree.nodes["status"][:, : search.tree.next_free.max()]
    assert not (statuses == SOLVED).any()


@pytest.mark.parametrize("search_solved_roots", [True, False])
def test_advancing_into_a_solved_child_starts_a_fresh_tree(search_solved_roots):
    states = endgames(5, 9, 2)
    cfg = MCTSConfig(simulations=40, endgame_solve_empties=8, **ONE_REACH, temperature_plies=0,
                     search_solved_roots=search_solved_roots)
    search, result = _search(cfg, states)
    search.advance(result.action)
    assert (search.tree.next_free == 0).all()
    after = [state.play(int(a)) for state, a in zip(states, result.action)]
    positions = np.array([[s.player, s.opponent] for s in after], dtype=np.uint64)
    again = search.search(positions, np.full(len(after), 51), add_noise=False)
    assert (again.exact_score != NO_EXACT_SCORE).all()
    if search_solved_roots:
        assert (search.tree.nodes["status"][:, ROOT] == 1).all()  # the fresh root was evaluated: EXPANDED
    else:
        assert (search.tree.next_free == 0).all()  # solved, not searched: nothing was opened


@pytest.mark.parametrize("root_policy", ["puct", "gumbel"])
@pytest.mark.parametrize("add_noise", [True, False])
def test_a_solved_root_is_answered_by_the_solver_without_simulations_or_evaluations(root_policy, add_noise):
    states = endgames(31, 9, 4) + endgames(32, 12, 2)  # all within reach
    cfg = MCTSConfig(simulations=50, endgame_solve_empties=12, **ONE_REACH, root_policy=root_policy, gumbel_sample_plies=30)
    evaluator = RecordingEvaluator(HashEvaluator(2))
    search = BatchedSearch(cfg, evaluator, len(states), seed=3)
    search.tree.next_free[:] = 7  # as if trees were kept from earlier moves: a solved root empties its tree
    positions = np.array([[s.player, s.opponent] for s in states], dtype=np.uint64)
    result = search.search(positions, np.full(len(states), 5), add_noise=add_noise)
    assert evaluator.batches == []
    assert (search.tree.next_free == 0).all()
    assert (result.simulations == 0).all() and (result.visits == 0).all() and (result.reused_visits == 0).all()
    reference = Solver(table_bits=12)
    for b, state in enumerate(states):
        exact = reference.solve(state.player, state.opponent)
        assert result.exact_score[b] == exact.score and result.root_value[b] == np.sign(exact.score)
        child = make_move(np.uint64(state.player), np.uint64(state.opponent), int(result.action[b]))
        assert -reference.solve(int(child[0]), int(child[1])).score == exact.score
        expected = np.zeros(65, dtype=np.float32)
        expected[int(result.action[b])] = 1.0
        assert np.array_equal(result.policy[b], expected)  # the policy target: the solver's move


@pytest.mark.parametrize("root_policy", ["puct", "gumbel"])
def test_solved_roots_leave_the_other_games_of_the_batch_as_a_search_of_them_alone(root_policy):
    solved, unsolved = endgames(41, 8, 1)[0], endgames(42, 16, 1)[0]
    cfg = MCTSConfig(simulations=48, endgame_solve_empties=10, **ONE_REACH, root_policy=root_policy)
    both = BatchedSearch(cfg, HashEvaluator(4), 2, seed=10)
    alone = BatchedSearch(cfg, HashEvaluator(4), 1, seed=11)  # game 1's stream: seed + 1
    together = both.search(np.array([[solved.player, solved.opponent], [unsolved.player, unsolved.opponent]],
                                    dtype=np.uint64), np.array([30, 30]), add_noise=True)
    by_itself = alone.search(np.array([[unsolved.player, unsolved.opponent]], dtype=np.uint64), np.array([30]),
                             add_noise=True)
    assert together.simulations.tolist() == [0, 48] and together.exact_score[1] == NO_EXACT_SCORE
    for name in ("policy", "visits", "root_value", "action", "simulations"):
        assert np.array_equal(getattr(together, name)[1], getattr(by_itself, name)[0]), name


def test_search_solved_roots_still_runs_the_simulations_and_plays_the_solvers_move():
    states = endgames(51, 10, 4)
    cfg = MCTSConfig(simulations=40, endgame_solve_empties=12, **ONE_REACH, temperature_plies=0, search_solved_roots=True)
    evaluator = RecordingEvaluator(HashEvaluator(6))
    search = BatchedSearch(cfg, evaluator, len(states), seed=1)
    positions = np.array([[s.player, s.opponent] for s in states], dtype=np.uint64)
    result = search.search(positions, np.full(len(states), 50), add_noise=False)
    assert (result.simulations == 40).all() and (result.visits.sum(axis=1) == 40).all()
    assert len(evaluator.batches) > 0
    reference = Solver(table_bits=12)
    for b, state in enumerate(states):
        child = make_move(np.uint64(state.player), np.uint64(state.opponent), int(result.action[b]))
        assert -reference.solve(int(child[0]), int(child[1])).score == result.exact_score[b]
    with pytest.raises(ValueError, match="search_solved_roots"):
        MCTSConfig(search_solved_roots="yes")


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
    cfg = MCTSConfig(simulations=80, endgame_solve_empties=exact, endgame_wld_empties=wld, endgame_revisit_empties=0,
                     temperature_plies=0)
    search, result = _search(cfg, states, HashEvaluator(3))
    seen = _solved_by_empties(search)
    assert min(seen) <= wld < max(seen)  # nodes on both sides of the threshold were opened
    for empties, solved in seen.items():
        assert solved == ({True} if empties <= wld else {False}), empties
    assert (result.exact_score == NO_EXACT_SCORE).all()  # roots at 10 empties: beyond both
    roots = endgames(22, 9, 3)
    _, result = _search(cfg, roots, HashEvaluator(3))
    assert ((result.exact_score != NO_EXACT_SCORE) == (9 <= exact)).all()


def test_the_default_solves_roots_from_20_and_opened_nodes_from_17_and_0_turns_both_off():
    default = MCTSConfig()
    assert (default.endgame_solve_empties, default.leaf_solve_empties) == (20, 17)
    assert (default.leaf_revisit_empties, default.endgame_revisit_visits) == (0, 3)  # no revisit band
    off = MCTSConfig(endgame_solve_empties=0)  # the default endgame_wld_empties (17) is not used
    assert off.leaf_solve_empties == 0 and off.leaf_revisit_empties == 0
    assert BatchedSearch(off, UniformEvaluator(), 1).endgame_solver is None
    states = endgames(61, 9, 2)
    _, result = _search(MCTSConfig(simulations=20, endgame_solve_empties=0, endgame_wld_empties=12), states)
    assert (result.exact_score == NO_EXACT_SCORE).all() and (result.simulations == 20).all()


def test_solver_options_pick_the_solvers_switch_set():
    cfg = MCTSConfig(endgame_solve_empties=8, endgame_solver_options="off")
    search = BatchedSearch(cfg, UniformEvaluator(), 1, seed=1)
    assert search.endgame_solver.options == SearchOptions.off()
    with pytest.raises(ValueError, match="endgame_solver_options"):
        MCTSConfig(endgame_solver_options="fastest")
    with pytest.raises(ValueError, match="endgame_wld_empties"):
        MCTSConfig(endgame_wld_empties=-1)


def test_probes_keep_the_solves_within_their_node_limit_and_leave_the_rest_to_the_network():
    """`endgame_probe_empties`/`endgame_probe_nodes`: an opened node beyond the solve reach but
    within the probe reach is solved unless the solve passes the node limit, then evaluated like a
    node beyond reach; nodes within the solve reach are always solved; the nodes a probe settles
    carry their exact result; a limit no probe reaches solves every node a full reach would."""
    states = endgames(31, 10, 4)  # roots at 10 empties, beyond the exact reach of 8: searched

    def run(probe, probe_nodes):
        cfg = MCTSConfig(simulations=60, endgame_solve_empties=8, **ONE_REACH, endgame_probe_empties=probe,
                         endgame_probe_nodes=probe_nodes, temperature_plies=0)
        evaluator = RecordingEvaluator(HashEvaluator(3))
        search, result = _search(cfg, states, evaluator)
        evaluated = 64 - np.bitwise_count(evaluator.positions[:, 0] | evaluator.positions[:, 1])
        return search, result, evaluated, _solved_by_empties(search)

    full9 = MCTSConfig(simulations=60, endgame_solve_empties=8, endgame_wld_empties=9, endgame_revisit_empties=0,
                       temperature_plies=0)
    _, reach9 = _search(full9, states, HashEvaluator(3))
    _, huge, evaluated_huge, seen_huge = run(9, 10**9)
    assert (evaluated_huge > 9).all() and seen_huge[9] == {True}
    assert (huge.visits == reach9.visits).all()

    _, _, evaluated_none, seen_none = run(9, 1)  # every probe passes one node: none is kept
    assert (evaluated_none == 9).any() and seen_none[9] == {False} and seen_none[8] == {True}

    search, _, evaluated_some, seen_some = run(9, 60)
    assert (evaluated_some == 9).any() and seen_some[9] == {True, False} and seen_some[8] == {True}
    assert not (evaluated_some <= 8).any()
    tree = search.tree
    for b in range(len(states)):
        for node in range(1, tree.next_free[b]):
            record = tree.nodes[b, node]
            if record["status"] == SOLVED:
                assert record["exact_value"] == solve(int(record["player"]), int(record["opponent"]))


def test_probes_are_checked_and_only_reach_beyond_the_solve_reach():
    with pytest.raises(ValueError, match="endgame_probe_empties"):
        MCTSConfig(endgame_probe_empties=-1)
    with pytest.raises(ValueError, match="endgame_probe_nodes"):
        MCTSConfig(endgame_probe_nodes=0)
    assert MCTSConfig(endgame_solve_empties=16, endgame_wld_empties=14, endgame_revisit_empties=0,
                      endgame_probe_empties=16).leaf_probe_empties == 16
    assert MCTSConfig(endgame_solve_empties=16, endgame_wld_empties=14, endgame_revisit_empties=0,
                      endgame_probe_empties=14).leaf_probe_empties == 0
    assert MCTSConfig(endgame_solve_empties=0, endgame_probe_empties=16).leaf_probe_empties == 0
    assert MCTSConfig(endgame_probe_empties=20).with_endgame_reach(12).leaf_probe_empties == 0


@pytest.mark.parametrize("root_empties, probe, leaves_per_step, visits",
                         [(10, 0, 1, 2), (10, 0, 4, 2), (11, 10, 1, 2), (10, 0, 1, 3), (10, 0, 4, 3)])
def test_revisit_band_nodes_are_evaluated_when_opened_and_solved_when_a_walk_comes_back(root_empties, probe,
                                                                                        leaves_per_step, visits):
    """`endgame_revisit_empties`: an opened node beyond the solve reach (8) and within the band (9)
    is evaluated once by the network when opened; the walk that makes its `endgame_revisit_visits`-th
    visit ends there and it is solved with its exact result, letting go of any children it had
    grown (at the second visit it has none); a node visited less stays as the search left it.
    Nodes within reach are solved when opened, and probes (here each one giving up at once) reach
    only beyond the band."""
    states = endgames(41 + root_empties, root_empties, 6)
    cfg = MCTSConfig(simulations=80, endgame_solve_empties=8, endgame_wld_empties=0, endgame_revisit_empties=9,
                     endgame_revisit_visits=visits, endgame_probe_empties=probe, endgame_probe_nodes=1,
                     leaves_per_step=leaves_per_step, temperature_plies=0)
    assert (cfg.leaf_solve_empties, cfg.leaf_revisit_empties, cfg.leaf_probe_empties) == (8, 9, probe)
    evaluator = RecordingEvaluator(HashEvaluator(3))
    search, result = _search(cfg, states, evaluator)
    assert (result.visits.sum(axis=1) == 80).all()
    evaluated = evaluator.positions
    evaluated_empties = 64 - np.bitwise_count(evaluated[:, 0] | evaluated[:, 1])
    assert not (evaluated_empties <= 8).any()
    tree = search.tree
    band = {"short": 0, "solved": 0}
    band_positions = []
    for b in range(len(states)):
        for node in range(1, tree.next_free[b]):
            record = tree.nodes[b, node]
            player, opponent = int(record["player"]), int(record["opponent"])
            empties = 64 - bin(player | opponent).count("1")
            parent = record["parent"]
            if tree.edges[b, parent, record["action_from_parent"]]["child"] != node:
                continue  # let go of by a solved parent
            if record["status"] == TERMINAL:
                continue
            if empties <= 8:
                assert record["status"] == SOLVED and record["exact_value"] == solve(player, opponent)
            elif empties == 9:
                band_positions.append((player, opponent))
                children = tree.edges[b, node]["child"]
                if record["status"] == SOLVED:
                    assert record["proven"] and record["visits"] >= visits and (children == -1).all()
                    assert record["exact_value"] == solve(player, opponent)
                    band["solved"] += 1
                else:
                    assert record["status"] == EXPANDED
                    if not record["proven"]:  # (`expand` proves a node with a wipe-out reply on the spot)
                        assert record["visits"] < visits
                        assert (children != -1).sum() == record["visits"] - 1  # one child opened a visit
                        band["short"] += 1
            else:
                assert record["status"] != SOLVED  # probes giving up at one node settle nothing
    assert band["short"] >= 3 and band["solved"] >= 3, band
    # every band node was evaluated by the network exactly once, when it was opened
    band_evaluated = sorted(map(tuple, evaluated[evaluated_empties == 9].tolist()))
    assert band_evaluated == sorted(band_positions)


def test_revisit_band_is_checked_and_lies_beyond_the_solve_reach():
    with pytest.raises(ValueError, match="endgame_revisit_empties"):
        MCTSConfig(endgame_revisit_empties=-1)
    with pytest.raises(ValueError, match="endgame_revisit_visits"):
        MCTSConfig(endgame_revisit_visits=1)
    assert MCTSConfig(endgame_solve_empties=18, endgame_wld_empties=17, endgame_revisit_empties=18).leaf_revisit_empties == 18
    assert MCTSConfig(endgame_solve_empties=18, endgame_wld_empties=17, endgame_revisit_empties=17).leaf_revisit_empties == 0
    assert MCTSConfig(endgame_solve_empties=0, endgame_revisit_empties=16).leaf_revisit_empties == 0
    assert MCTSConfig(endgame_revisit_empties=19).with_endgame_reach(12).leaf_revisit_empties == 0
    assert MCTSConfig().leaf_revisit_empties == 0  # off by default
    assert MCTSConfig(endgame_solve_empties=16, endgame_wld_empties=14, endgame_revisit_empties=16,
                      endgame_probe_empties=16).leaf_probe_empties == 0
