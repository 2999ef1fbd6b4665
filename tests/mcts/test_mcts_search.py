"""BatchedSearch behaviour: budgets, legality, reuse, noise, batching, capacity, edge positions."""

import random

import numpy as np
import pytest
from mcts_testing import HashEvaluator, RecordingEvaluator, random_position, tree_problems

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch
from alphazero.mcts.tree import NO_ACTION, ROOT, UNVISITED
from alphazero.othello.bitboard import (
    PASS,
    START_BLACK,
    START_WHITE,
    is_game_over_batch,
    legal_action_mask_batch,
    make_move_batch,
)
from alphazero.othello.notation import parse_board_text

WIPEOUT = parse_board_text("XO------" "--O-----" "-XX-----" + "-" * 40 + " X")  # c1 wins at once, d1 not
WHITE_MUST_PASS = parse_board_text("XO" + "-" * 62 + " O")


def midgame_positions(count, seed, plies=(8, 40)):
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = random_position(rng, rng.randint(*plies))
        if state is not None and len(state.legal_actions()) >= 2:
            states.append(state)
    return np.array([s.as_array() for s in states], dtype=np.uint64)


def config(**overrides):
    base = dict(simulations=64, temperature_plies=0)
    base.update(overrides)
    return MCTSConfig(**base)


def test_visits_sum_to_the_budget_on_legal_actions_only_and_policy_is_their_distribution():
    positions = midgame_positions(6, seed=1)
    search = BatchedSearch(config(simulations=50), HashEvaluator(), 6)
    result = search.search(positions, np.zeros(6, dtype=np.int64), add_noise=True)
    legal = legal_action_mask_batch(positions)
    assert result.visits.dtype == np.int32 and result.policy.dtype == np.float32
    np.testing.assert_array_equal(result.visits.sum(axis=1), 50)
    np.testing.assert_array_equal(result.reused_visits, 0)
    assert not result.visits[~legal].any() and not result.policy[~legal].any()
    np.testing.assert_allclose(result.policy, result.visits / 50, rtol=1e-6)
    assert all(legal[b, result.action[b]] for b in range(6))
    assert np.all(np.abs(result.root_value) <= 1)
    for b in range(6):
        assert tree_problems(search.tree, b, exact_visits=True) == []


def test_searching_the_same_position_again_adds_the_budget_to_the_reused_visits():
    positions = midgame_positions(3, seed=2)
    search = BatchedSearch(config(simulations=40, reuse_capacity=2.0), HashEvaluator(), 3)
    first = search.search(positions, np.zeros(3, dtype=np.int64), add_noise=False)
    second = search.search(positions, np.zeros(3, dtype=np.int64), add_noise=False)
    np.testing.assert_array_equal(second.reused_visits, first.visits.sum(axis=1))
    np.testing.assert_array_equal(second.visits.sum(axis=1), 80)
    assert np.all(second.visits >= first.visits)


def test_tree_reuse_keeps_the_played_subtree_and_its_visits():
    positions = midgame_positions(4, seed=3)
    search = BatchedSearch(config(simulations=60), HashEvaluator(), 4)
    first = search.search(positions, np.zeros(4, dtype=np.int64), add_noise=False)
    tree = search.tree
    kept = []
    for b in range(4):
        child = tree.edges["child"][b, ROOT, first.action[b]]
        kept.append({a: int(tree.nodes["visits"][b, tree.edges["child"][b, child, a]])
                     for a in range(65) if tree.edges["child"][b, child, a] != UNVISITED})
    search.advance(first.action)
    after = make_move_batch(positions, first.action)
    second = search.search(after, np.ones(4, dtype=np.int64), add_noise=False)
    for b in range(4):
        child_visits = int(first.visits[b, first.action[b]])
        assert second.reused_visits[b] == child_visits - 1  # the child's own evaluation was its first visit
        assert second.visits[b].sum() == 60 + child_visits - 1
        assert all(second.visits[b, a] >= v for a, v in kept[b].items())
        assert tree_problems(search.tree, b, exact_visits=True) == []


def test_without_tree_reuse_every_search_starts_fresh():
    positions = midgame_positions(2, seed=4)
    search = BatchedSearch(config(simulations=30, tree_reuse=False), HashEvaluator(), 2)
    first = search.search(positions, np.zeros(2, dtype=np.int64))
    search.advance(first.action)
    second = search.search(make_move_batch(positions, first.action), np.ones(2, dtype=np.int64))
    np.testing.assert_array_equal(second.reused_visits, 0)
    np.testing.assert_array_equal(second.visits.sum(axis=1), 30)


def test_a_root_that_differs_from_the_given_position_is_reset_automatically():
    positions = midgame_positions(2, seed=5)
    other = midgame_positions(2, seed=6)
    search = BatchedSearch(config(simulations=30), HashEvaluator(), 2)
    search.search(positions, np.zeros(2, dtype=np.int64))
    fresh = BatchedSearch(config(simulations=30), HashEvaluator(), 2)
    moved = search.search(other, np.zeros(2, dtype=np.int64), add_noise=False)
    expected = fresh.search(other, np.zeros(2, dtype=np.int64), add_noise=False)
    np.testing.assert_array_equal(moved.visits, expected.visits)
    np.testing.assert_array_equal(moved.reused_visits, 0)


def test_advance_with_an_untried_or_illegal_action_empties_the_tree_and_rejects_non_actions():
    positions = midgame_positions(2, seed=7)
    search = BatchedSearch(config(simulations=20), HashEvaluator(), 2)
    search.search(positions, np.zeros(2, dtype=np.int64))
    illegal = int(np.flatnonzero(~legal_action_mask_batch(positions)[0])[0])
    with pytest.raises(ValueError, match="action 99 of game 1 is not an action"):
        search.advance(np.array([illegal, 99]))
    assert search.tree.next_free[0] > 0  # rejected calls change nothing
    search.advance(np.array([illegal, NO_ACTION]))
    assert search.tree.next_free[0] == 0 and search.tree.next_free[1] > 0


def test_reset_forgets_selected_trees():
    positions = midgame_positions(3, seed=8)
    search = BatchedSearch(config(simulations=10), HashEvaluator(), 3)
    search.search(positions, np.zeros(3, dtype=np.int64))
    search.reset(1)
    np.testing.assert_array_equal(search.tree.next_free == 0, [False, True, False])
    search.reset()
    assert not search.tree.next_free.any()


def test_batched_games_match_the_same_games_searched_one_by_one():
    """Noise, temperature sampling, tree reuse and virtual loss included: per-game streams."""
    for leaves in (1, 3):
        cfg = MCTSConfig(simulations=40, leaves_per_step=leaves, temperature_plies=2, reuse_capacity=0.5)
        positions = midgame_positions(5, seed=9)
        active = np.array([True, True, False, True, True])
        batch = BatchedSearch(cfg, HashEvaluator(), 5, seed=11)
        singles = [BatchedSearch(cfg, HashEvaluator(), 1, seed=11 + b) for b in range(5)]
        ply = np.zeros(5, dtype=np.int64)
        for _ in range(4):
            together = batch.search(positions, ply, active)
            for b in range(5):
                if not active[b]:
                    assert together.action[b] == NO_ACTION and not together.visits[b].any()
                    continue
                alone = singles[b].search(positions[b:b + 1], ply[b:b + 1])
                np.testing.assert_array_equal(together.visits[b], alone.visits[0])
                np.testing.assert_array_equal(together.policy[b], alone.policy[0])
                assert together.root_value[b] == alone.root_value[0]
                assert together.action[b] == alone.action[0]
                singles[b].advance(alone.action)
            batch.advance(together.action)
            positions = np.where(active[:, None], make_move_batch(positions, np.where(active, together.action, PASS)),
                                 positions)
            ply += 1
            active &= ~is_game_over_batch(positions)


def test_dirichlet_noise_touches_only_the_root_only_when_asked_and_is_undone():
    positions = midgame_positions(3, seed=10)
    clean = HashEvaluator()
    seen = {"root_differs": 0, "calls": 0}

    def inspect(_):
        tree = search.tree
        seen["calls"] += 1
        for b in range(3):
            used = int(tree.next_free[b])
            nodes = [n for n in range(used) if tree.nodes["status"][b, n] == 1]  # EXPANDED
            priors, _ = clean(np.stack([tree.nodes["player"][b, nodes], tree.nodes["opponent"][b, nodes]], axis=1))
            for index, node in enumerate(nodes):
                if node == ROOT:
                    seen["root_differs"] += not np.array_equal(tree.edges["prior"][b, ROOT], priors[index])
                else:
                    np.testing.assert_array_equal(tree.edges["prior"][b, node], priors[index])

    for add_noise in (False, True):
        seen.update(root_differs=0, calls=0)
        search = BatchedSearch(config(simulations=20), RecordingEvaluator(clean, on_call=inspect), 3, seed=3)
        search.search(positions, np.zeros(3, dtype=np.int64), add_noise=add_noise)
        expected = 3 * (seen["calls"] - 1) if add_noise else 0  # the first call evaluates the roots
        assert seen["root_differs"] == expected
        root_priors, _ = clean(positions)
        np.testing.assert_array_equal(search.tree.edges["prior"][:, ROOT], root_priors)


def test_without_noise_and_temperature_the_seed_does_not_matter():
    positions = midgame_positions(3, seed=12)
    results = [BatchedSearch(config(), HashEvaluator(), 3, seed=seed).search(positions, np.zeros(3), add_noise=False)
               for seed in (0, 99)]
    np.testing.assert_array_equal(results[0].visits, results[1].visits)
    noisy = [BatchedSearch(config(), HashEvaluator(), 3, seed=seed).search(positions, np.zeros(3), add_noise=True)
             for seed in (0, 99)]
    assert not np.array_equal(noisy[0].visits, noisy[1].visits)


def test_temperature_samples_early_and_plays_the_most_visited_move_later():
    positions = np.tile(midgame_positions(1, seed=13), (200, 1))
    cfg = MCTSConfig(simulations=30, temperature=1.0, temperature_plies=10)
    early = BatchedSearch(cfg, HashEvaluator(), 200, seed=5).search(positions, np.zeros(200), add_noise=False)
    late = BatchedSearch(cfg, HashEvaluator(), 200, seed=5).search(positions, np.full(200, 10), add_noise=False)
    visits = early.visits[0]
    assert len(set(early.action.tolist())) > 1
    assert set(early.action.tolist()) <= set(np.flatnonzero(visits).tolist())
    np.testing.assert_array_equal(late.action, np.argmax(visits))  # argmax: lowest index among ties


def test_finished_games_raise_and_inactive_games_are_neither_searched_nor_evaluated():
    over = parse_board_text("X" * 64 + " O").as_array()
    playing = np.array([START_BLACK, START_WHITE], dtype=np.uint64)
    search = BatchedSearch(config(simulations=10), UniformEvaluator(), 2)
    with pytest.raises(ValueError, match=r"games \[1\] are over"):
        search.search(np.array([playing, over]), np.zeros(2))
    recorder = RecordingEvaluator(UniformEvaluator())
    search = BatchedSearch(config(simulations=10), recorder, 2)
    result = search.search(np.array([over, playing]), np.zeros(2), active=np.array([False, True]))
    assert result.action[0] == NO_ACTION and not result.visits[0].any() and result.root_value[0] == 0
    assert result.visits[1].sum() == 10
    assert search.tree.next_free[0] == 0
    assert len(recorder.positions) == 11  # the root and one leaf per simulation, all from game 1


def test_forced_pass_is_an_ordinary_action():
    search = BatchedSearch(config(simulations=25), UniformEvaluator(), 1)
    result = search.search(WHITE_MUST_PASS.as_array()[None], np.zeros(1))
    assert result.action[0] == PASS and result.visits[0, PASS] == 25 and result.policy[0, PASS] == 1.0
    assert result.root_value[0] == -1.0  # after the pass black wipes white out: proven loss
    search.advance(result.action)
    after = make_move_batch(WHITE_MUST_PASS.as_array()[None], result.action)
    assert search.search(after, np.ones(1)).action[0] == 2  # c1


def test_finished_games_inside_the_tree_are_scored_exactly_not_evaluated():
    rng = random.Random(14)
    from mcts_testing import random_endgame

    states = [s for s in (random_endgame(rng, 3) for _ in range(40)) if s is not None][:6]
    positions = np.array([s.as_array() for s in states], dtype=np.uint64)
    recorder = RecordingEvaluator(UniformEvaluator())
    search = BatchedSearch(config(simulations=200, solver=False, endgame_solve_empties=0), recorder, len(states))
    search.search(positions, np.zeros(len(states)))
    assert not is_game_over_batch(recorder.positions).any()
    tree = search.tree
    terminal = tree.nodes["status"] == 2
    assert terminal.any()
    for b, node in zip(*np.nonzero(terminal)):
        assert tree.nodes["value_sum"][b, node] == tree.nodes["visits"][b, node] * tree.nodes["exact_value"][b, node]


@pytest.mark.parametrize("leaves", [1, 4])
def test_trees_never_outgrow_their_capacity_over_many_reused_searches(leaves):
    cfg = MCTSConfig(simulations=30, reuse_capacity=0.3, leaves_per_step=leaves)
    positions = midgame_positions(4, seed=15, plies=(4, 10))
    search = BatchedSearch(cfg, HashEvaluator(), 4, seed=2)
    ply = np.zeros(4, dtype=np.int64)
    active = np.ones(4, dtype=bool)
    for move in range(14):
        for _ in range(2):  # searching twice grows the tree past the headroom: it gets trimmed
            result = search.search(positions, ply, active)
            assert np.all(search.tree.next_free <= cfg.node_capacity)
            np.testing.assert_array_equal(result.visits.sum(axis=1)[active], 30 + result.reused_visits[active])
        for b in np.flatnonzero(active):
            assert tree_problems(search.tree, b, exact_visits=False) == []
        search.advance(result.action)
        positions = np.where(active[:, None], make_move_batch(positions, np.where(active, result.action, PASS)),
                             positions)
        ply += 1
        active &= ~is_game_over_batch(positions)


def test_virtual_loss_spreads_the_leaves_of_one_step_over_different_lines():
    positions = np.array([[START_BLACK, START_WHITE]], dtype=np.uint64)
    recorder = RecordingEvaluator(UniformEvaluator())
    search = BatchedSearch(config(simulations=8, leaves_per_step=4), recorder, 1)
    result = search.search(positions, np.zeros(1), add_noise=False)
    assert [len(batch) for batch in recorder.batches] == [1, 4, 4]
    np.testing.assert_array_equal(result.visits[0, [19, 26, 37, 44]], 2)


def test_search_finds_an_immediate_wipeout():
    search = BatchedSearch(config(simulations=20), UniformEvaluator(), 1)
    result = search.search(WIPEOUT.as_array()[None], np.zeros(1), add_noise=False)
    assert result.action[0] == 2  # c1 captures both white discs
    assert result.root_value[0] == 1.0  # proven by the solver


def test_evaluator_output_of_the_wrong_shape_is_reported():
    def broken(positions):
        return np.zeros((len(positions), 64), dtype=np.float32), np.zeros(len(positions), dtype=np.float32)

    search = BatchedSearch(config(), broken, 1)
    with pytest.raises(ValueError, match=r"evaluator returned priors \(1, 64\)"):
        search.search(np.array([[START_BLACK, START_WHITE]], dtype=np.uint64), np.zeros(1))


def test_inputs_of_the_wrong_shape_are_reported():
    search = BatchedSearch(config(), UniformEvaluator(), 2)
    with pytest.raises(ValueError, match=r"positions must have shape \(2, 2\)"):
        search.search(np.zeros((3, 2), dtype=np.uint64), np.zeros(3))
    with pytest.raises(ValueError, match=r"ply must have shape \(2,\)"):
        search.search(np.tile([START_BLACK, START_WHITE], (2, 1)), np.zeros(3))


def test_tree_field_properties_are_views_of_the_node_and_edge_records():
    search = BatchedSearch(config(simulations=10), UniformEvaluator(), 2)
    search.search(np.tile(np.array([START_BLACK, START_WHITE], dtype=np.uint64), (2, 1)), np.zeros(2))
    tree = search.tree
    assert tree.visits.shape == (2, tree.capacity) and tree.children.shape == (2, tree.capacity, 65)
    assert np.shares_memory(tree.visits, tree.nodes) and np.shares_memory(tree.prior, tree.edges)
    assert tree.visits[0, ROOT] == 11 and tree.value_sum[0, ROOT] == 0.0
    np.testing.assert_array_equal(np.flatnonzero(tree.children[0, ROOT] != UNVISITED), [19, 26, 37, 44])


def test_simulations_count_this_calls_walks_not_the_visits_a_reused_tree_carries():
    positions = midgame_positions(3, seed=16)
    active = np.array([True, False, True])
    search = BatchedSearch(config(simulations=40, reuse_capacity=2.0), HashEvaluator(), 3)
    first = search.search(positions, np.zeros(3, dtype=np.int64), active)
    np.testing.assert_array_equal(first.simulations, [40, 0, 40])
    search.advance(first.action)
    after = np.where(active[:, None], make_move_batch(positions, np.where(active, first.action, PASS)), positions)
    second = search.search(after, np.ones(3, dtype=np.int64), active, simulations=25)
    assert second.reused_visits[active].min() > 0  # the played child's visits were carried over
    assert second.simulations.dtype == np.int32
    np.testing.assert_array_equal(second.simulations, [25, 0, 25])
    np.testing.assert_array_equal(second.visits.sum(axis=1), second.simulations + second.reused_visits)
