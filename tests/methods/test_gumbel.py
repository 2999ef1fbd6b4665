"""mcts.root_policy=gumbel: Gumbel root search with sequential halving (Danihelka et al. 2022).

The improved policy and the move are checked against a slow numpy reference of the paper's
formulas (completedQ with v_mix, sigma, softmax) read from real searched trees; the visit counts
against an independent reference of the halving schedule."""

import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcts"))
from mcts_reference import Node, ReferenceSearch  # noqa: E402
from mcts_testing import HashEvaluator, action_values, random_endgame, random_position  # noqa: E402
from test_mcts_search import WHITE_MUST_PASS, midgame_positions  # noqa: E402

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.gumbel import considered_visits_sequence, halving_table
from alphazero.mcts.search import BatchedSearch
from alphazero.mcts.tree import ROOT
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, legal_action_mask_batch, make_move
from alphazero.othello.game import GameState
from alphazero.selfplay.games import SelfPlayRunner


def gumbel_config(**overrides):
    base = dict(simulations=32, root_policy="gumbel", temperature_plies=0, endgame_solve_empties=0)
    base.update(overrides)
    return MCTSConfig(**base)


# ---- references ---------------------------------------------------------------------------------

def reference_halving_counts(m: int, n: int) -> list[int]:
    """Final visit counts, largest first, of sequential halving over m actions and n simulations:
    ceil(log2 m) phases planned; each phase gives every survivor max(1, n // (phases * survivors))
    visits (the best first, one round at a time), then keeps the better half (at least 2), until
    the budget is spent (mid-round if need be)."""
    if m <= 1:
        return [n]
    phases = math.ceil(math.log2(m))
    counts, survivors, used = [0] * m, m, 0
    while used < n:
        for _ in range(max(1, n // (phases * survivors))):
            for i in range(survivors):
                if used < n:
                    counts[i] += 1
                    used += 1
        survivors = max(2, survivors // 2)
    return counts


def root_actions(position) -> list[int]:
    mask = legal_action_mask_batch(np.asarray(position, dtype=np.uint64).reshape(1, 2))[0]
    return [int(a) for a in np.flatnonzero(mask)]


def reference_root(tree, b, raw_value, c_visit=50.0, c_scale=1.0):
    """The paper's quantities at game b's root, slowly: actions, logits, N, completedQ in [0, 1]
    and sigma(completedQ), from the tree's children and the root's raw network value."""
    root = tree.nodes[b, ROOT]
    actions = root_actions((root["player"], root["opponent"]))
    prior = np.array([tree.edges["prior"][b, ROOT, a] for a in actions], dtype=np.float64)
    visits = np.zeros(len(actions))
    q = np.zeros(len(actions))
    for i, a in enumerate(actions):
        child = tree.edges["child"][b, ROOT, a]
        if child >= 0 and tree.nodes["visits"][b, child] > 0:
            node = tree.nodes[b, child]
            visits[i] = node["visits"]
            q[i] = -node["exact_value"] if node["proven"] else -node["value_sum"] / node["visits"]
    prior = np.maximum(prior, np.finfo(np.float32).tiny)
    seen = visits > 0
    # Appendix D: v_mix = (v + sum N / sum_{N>0} pi * sum_{N>0} pi q) / (1 + sum N)
    if seen.any():
        v_mix = (raw_value + visits.sum() * (prior[seen] * q[seen]).sum() / prior[seen].sum()) / (1 + visits.sum())
    else:
        v_mix = raw_value
    completed = (np.where(seen, q, v_mix) + 1) / 2
    sigma = (c_visit + visits.max()) * c_scale * completed
    return actions, np.log(prior), visits, completed, sigma


def reference_improved_policy(tree, b, raw_value, **scales):
    actions, logits, _, _, sigma = reference_root(tree, b, raw_value, **scales)
    z = logits + sigma
    p = np.exp(z - z.max())
    out = np.zeros(65)
    out[actions] = p / p.sum()
    return out


# ---- the schedule ---------------------------------------------------------------------------------

@pytest.mark.parametrize("m, n, expected", [
    (4, 16, [6, 6, 2, 2]),
    (4, 32, [12, 12, 4, 4]),
    (3, 20, [9, 8, 3]),
    (2, 10, [5, 5]),
    (1, 7, [7]),
    (16, 16, [1] * 16),
    (16, 100, [28, 28, 10, 10, 4, 4, 4, 4] + [1] * 8),
])
def test_reference_schedule_known_cases(m, n, expected):
    assert reference_halving_counts(m, n) == expected


@pytest.mark.parametrize("m", range(1, 17))
@pytest.mark.parametrize("n", [1, 5, 16, 32, 50, 100])
def test_the_schedule_table_visits_as_the_reference(m, n):
    sequence = considered_visits_sequence(m, n)
    assert len(sequence) == n
    # Simulation k goes to an action with sequence[k] visits: replay it, best-ranked first.
    counts = [0] * m
    for target in sequence:
        counts[counts.index(target)] += 1
    assert sorted(counts, reverse=True) == reference_halving_counts(m, n)
    assert np.array_equal(halving_table(16, n)[m], sequence)


@pytest.mark.parametrize("m_max, n, leaves", [(4, 16, 1), (4, 32, 1), (16, 50, 1), (16, 16, 1), (8, 40, 4)])
def test_search_visits_follow_the_halving_schedule(m_max, n, leaves):
    positions = midgame_positions(6, seed=21)
    cfg = gumbel_config(simulations=n, gumbel_considered_actions=m_max, leaves_per_step=leaves)
    search = BatchedSearch(cfg, HashEvaluator(), len(positions), seed=4)
    result = search.search(positions, np.zeros(len(positions), dtype=np.int64), add_noise=True)
    for b in range(len(positions)):
        m = min(m_max, len(root_actions(positions[b])))
        got = sorted(result.visits[b][result.visits[b] > 0].tolist(), reverse=True)
        assert got == [c for c in reference_halving_counts(m, n) if c > 0], (b, m)
        # The visited actions are the top m by g + logits.
        score = search.root_rule.gumbel_noise[b] + np.log(np.maximum(search.tree.edges["prior"][b, ROOT], 1e-38))
        legal = root_actions(positions[b])
        top = sorted(legal, key=lambda a: (-score[a], a))[:m]
        assert set(np.flatnonzero(result.visits[b])) <= set(top)
        assert set(np.flatnonzero(search.root_rule.considered[b])) == set(top)


def reference_sequence(m: int, n: int) -> list[int]:
    """The visit count (in this search) the action of each simulation must have, in the same
    plain terms as `reference_halving_counts`."""
    if m <= 1:
        return list(range(n))
    phases = math.ceil(math.log2(m))
    counts, survivors, out = [0] * m, m, []
    while len(out) < n:
        for _ in range(max(1, n // (phases * survivors))):
            for i in range(survivors):
                out.append(counts[i])
                counts[i] += 1
        survivors = max(2, survivors // 2)
    return out[:n]


class GumbelReference(ReferenceSearch):
    """The pure-Python reference search with the Gumbel root, g = 0 (no noise): the root's walks
    follow sequential halving over the top-m actions by logits, everything below is its PUCT."""

    def _evaluate(self, nodes):
        values = super()._evaluate(nodes)
        for node, value in zip(nodes, values):
            node.raw = value
        return values

    def _root_stats(self):
        root, cfg = self.root, self.cfg
        logits, q, n = {}, {}, {}
        for a in root.actions:
            logits[a] = math.log(max(root.prior[a], 1.1754943508222875e-38))
            child = root.children.get(a)
            n[a] = child.visits if child is not None else 0
            if n[a]:
                q[a] = -child.exact if child.proven else -child.value_sum / child.visits
        seen = [a for a in root.actions if n[a]]
        total = sum(n.values())
        v_mix = root.raw
        if seen:
            p = {a: max(root.prior[a], 1.1754943508222875e-38) for a in seen}
            v_mix = (root.raw + total * sum(p[a] * q[a] for a in seen) / sum(p.values())) / (1 + total)
        scale = (cfg.gumbel_c_visit + max(n.values())) * cfg.gumbel_c_scale
        sigma = {a: scale * ((q[a] if n[a] else v_mix) + 1) / 2 for a in root.actions}
        return logits, n, sigma

    def _puct(self, node):
        if node is not self.root:
            return super()._puct(node)
        logits, _, sigma = self._root_stats()
        target = self._sequence[self._k]
        self._k += 1
        action = max((a for a in self._considered if self._local[a] == target), key=lambda a: (logits[a] + sigma[a], -a))
        self._local[action] += 1
        return action

    def search(self, player, opponent):
        if self.root is None or (self.root.player, self.root.opponent) != (player, opponent):
            self.root = Node(player, opponent)
            (value,) = self._evaluate([self.root])
            self.root.visits, self.root.value_sum = 1, value
        root = self.root
        m = min(self.cfg.gumbel_considered_actions, len(root.actions))
        order = sorted(root.actions, key=lambda a: (-math.log(max(root.prior[a], 1.1754943508222875e-38)), a))
        self._considered = order[:m]
        self._local = {a: 0 for a in root.actions}
        self._sequence, self._k = reference_sequence(m, self.cfg.simulations), 0
        visits, root_value, action, reused = super().search(player, opponent)
        logits, _, sigma = self._root_stats()
        z = np.array([logits[a] + sigma[a] for a in root.actions])
        policy = np.zeros(65)
        policy[root.actions] = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        return visits, root_value, action, reused, policy

    def _choose(self, visits):
        root = self.root
        logits, n, sigma = self._root_stats()

        def rank(a):
            child = root.children.get(a)
            if not self.cfg.solver or child is None or not child.proven:
                return 1
            return 2 if child.exact < 0 else 0 if child.exact > 0 else 1

        most = max(self._local[a] for a in self._considered)
        candidates = [a for a in self._considered if self._local[a] == most]

        def key(a):
            if rank(a) == 2 and n[a]:
                tier = 3
            elif a in candidates and rank(a) == 1:
                tier = 2
            elif n[a] and rank(a) == 1:
                tier = 1
            else:
                tier = 0 if a in candidates else -1
            return tier, logits[a] + sigma[a], -a

        return max(root.actions, key=key)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position_seed=st.integers(0, 10**6), plies=st.integers(0, 56),
       knobs=st.fixed_dictionaries({
           "simulations": st.integers(1, 48),
           "gumbel_considered_actions": st.integers(1, 16),
           "gumbel_c_visit": st.sampled_from([0.0, 5.0, 50.0]),
           "gumbel_c_scale": st.sampled_from([0.1, 1.0]),
           "c_puct": st.sampled_from([0.5, 1.5]),
           "leaves_per_step": st.integers(1, 4),
           "solver": st.booleans(),
           "tree_reuse": st.booleans(),
       }), salt=st.integers(0, 1000))
def test_gumbel_search_matches_the_pure_python_reference(position_seed, plies, knobs, salt):
    state = random_position(random.Random(position_seed), plies)
    if state is None:
        return
    cfg = gumbel_config(reuse_capacity=4.0, **knobs)
    evaluator = HashEvaluator(salt)
    fast, slow = BatchedSearch(cfg, evaluator, 1), GumbelReference(cfg, evaluator)
    player, opponent = state.player, state.opponent
    for move in range(3):
        result = fast.search(np.array([[player, opponent]], dtype=np.uint64), np.array([move]), add_noise=False)
        visits, root_value, action, reused, policy = slow.search(player, opponent)
        np.testing.assert_array_equal(result.visits[0], visits, err_msg=f"move {move}")
        assert result.reused_visits[0] == reused
        assert result.root_value[0] == pytest.approx(root_value, abs=1e-6)
        np.testing.assert_allclose(result.policy[0], policy, atol=2e-6, err_msg=f"move {move}")
        assert result.action[0] == action, f"move {move}"
        fast.advance(result.action)
        slow.advance(action)
        player, opponent = (int(x) for x in make_move(np.uint64(player), np.uint64(opponent), action))
        if GameState(player, opponent).is_over():
            break


# ---- targets and moves against the reference ------------------------------------------------------

@pytest.mark.parametrize("noise", [False, True])
def test_improved_policy_and_move_match_the_reference(noise):
    positions = midgame_positions(8, seed=33)
    evaluator = HashEvaluator(salt=2)
    cfg = gumbel_config(simulations=24, gumbel_considered_actions=4)
    search = BatchedSearch(cfg, evaluator, len(positions), seed=9)
    ply = np.zeros(len(positions), dtype=np.int64)
    for _ in range(2):  # a fresh search, then one on the reused trees of the moves played
        result = search.search(positions, ply, add_noise=noise)
        _, raw = evaluator(positions)
        for b in range(len(positions)):
            legal = root_actions(positions[b])
            expected = reference_improved_policy(search.tree, b, float(raw[b]))
            np.testing.assert_allclose(result.policy[b], expected, atol=2e-6)
            assert result.policy[b].sum() == pytest.approx(1.0, abs=1e-5)
            assert np.all(result.policy[b][np.setdiff1d(np.arange(65), legal)] == 0)
            # The move: among the considered actions most visited in this search, the best
            # g + logits + sigma.
            actions, logits, visits, _, sigma = reference_root(search.tree, b, float(raw[b]))
            local = search.root_rule.local_visits[b, actions]
            g = search.root_rule.gumbel_noise[b, actions]
            if not noise:
                assert np.all(g == 0)
            score = np.where(local == local.max(), g + logits + sigma, -np.inf)
            assert result.action[b] == actions[int(np.argmax(score))]
            assert search.root_rule.considered[b, result.action[b]]
        search.advance(result.action)
        positions = np.array([make_move(p[0], p[1], int(a)) for p, a in zip(positions, result.action)],
                             dtype=np.uint64)
        assert legal_action_mask_batch(positions).any(axis=1).all()


def test_without_noise_the_search_is_deterministic_whatever_the_seed():
    positions = midgame_positions(5, seed=8)
    ply = np.zeros(5, dtype=np.int64)
    results = [BatchedSearch(gumbel_config(), HashEvaluator(), 5, seed=seed).search(positions, ply, add_noise=False)
               for seed in (0, 1, 99)]
    for other in results[1:]:
        np.testing.assert_array_equal(other.visits, results[0].visits)
        np.testing.assert_array_equal(other.policy, results[0].policy)
        np.testing.assert_array_equal(other.action, results[0].action)


def test_with_noise_the_seed_matters_and_each_game_uses_its_own_stream():
    positions = midgame_positions(4, seed=8)
    ply = np.zeros(4, dtype=np.int64)
    a = BatchedSearch(gumbel_config(), HashEvaluator(), 4, seed=0).search(positions, ply, add_noise=True)
    b = BatchedSearch(gumbel_config(), HashEvaluator(), 4, seed=50).search(positions, ply, add_noise=True)
    assert not np.array_equal(a.visits, b.visits)
    # Game 2 of a batch seeded 0 replays as game 0 of a one-game batch seeded 2.
    alone = BatchedSearch(gumbel_config(), HashEvaluator(), 1, seed=2).search(positions[2:3], ply[:1], add_noise=True)
    np.testing.assert_array_equal(alone.visits[0], a.visits[2])
    np.testing.assert_array_equal(alone.policy[0], a.policy[2])


# ---- special roots --------------------------------------------------------------------------------

def test_a_single_legal_move_gets_every_visit_and_the_whole_target():
    rng = random.Random(3)
    while True:
        state = random_position(rng, rng.randint(20, 50))
        if state is not None and len(state.legal_actions()) == 1 and state.legal_actions()[0] != PASS:
            break
    search = BatchedSearch(gumbel_config(simulations=16), HashEvaluator(), 1)
    result = search.search(np.array([state.as_array()], dtype=np.uint64), np.zeros(1, dtype=np.int64))
    (only,) = state.legal_actions()
    assert result.visits[0, only] == 16 and result.visits[0].sum() == 16
    assert result.policy[0, only] == pytest.approx(1.0) and result.action[0] == only


def test_a_forced_pass_is_searched_as_the_only_action():
    search = BatchedSearch(gumbel_config(simulations=8), HashEvaluator(), 1)
    result = search.search(np.array([WHITE_MUST_PASS.as_array()], dtype=np.uint64), np.zeros(1, dtype=np.int64))
    assert result.action[0] == PASS and result.visits[0, PASS] == 8 and result.policy[0, PASS] == pytest.approx(1.0)


def _endgames(seed, empties, count):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        state = random_endgame(rng, rng.choice(empties))
        if state is not None:
            values = action_values(state.player, state.opponent)
            if len(set(values.values())) >= 2:
                cases.append((state, values))
    return cases


def test_a_root_the_endgame_solver_solves_plays_its_best_move():
    cases = _endgames(5, [6, 7, 8], 8)
    cfg = gumbel_config(simulations=8, endgame_solve_empties=8)
    search = BatchedSearch(cfg, HashEvaluator(), len(cases), seed=1)
    positions = np.array([s.as_array() for s, _ in cases], dtype=np.uint64)
    result = search.search(positions, np.full(len(cases), 55), add_noise=True)
    for (state, values), action, score in zip(cases, result.action, result.exact_score):
        assert values[int(action)] == max(values.values())
        solution = search.endgame_solver.solve(int(state.player), int(state.opponent))
        assert action == solution.best_move and score == solution.score


def test_proven_root_children_steer_the_move_with_the_mcts_solver():
    """Endgame solver off: the tree's own proofs. A proven win is always played, and a proven loss
    only when every tried action is one."""
    cases = _endgames(11, [3, 4, 5], 24)
    cfg = gumbel_config(simulations=200, solver=True)
    search = BatchedSearch(cfg, UniformEvaluator(), len(cases), seed=2)
    positions = np.array([s.as_array() for s, _ in cases], dtype=np.uint64)
    result = search.search(positions, np.full(len(cases), 58), add_noise=True)
    tree = search.tree
    played_proven_win = 0
    for b, (state, values) in enumerate(cases):
        children = tree.edges["child"][b, ROOT]
        proven = {a: -tree.nodes["exact_value"][b, c] for a, c in enumerate(children)
                  if c >= 0 and tree.nodes["proven"][b, c]}
        for a, v in proven.items():
            assert v == values[a]  # proofs are right
        action = int(result.action[b])
        if any(v > 0 for v in proven.values()):
            assert proven.get(action, 0) > 0
            played_proven_win += 1
        if proven.get(action, 0) < 0:
            tried = [a for a, c in enumerate(children) if c >= 0]
            assert all(proven.get(a, 0) < 0 for a in tried)
    assert played_proven_win >= 5


# ---- end to end -----------------------------------------------------------------------------------

@pytest.mark.parametrize("simulations", [16, 32])
def test_search_from_the_start_position_with_a_network(simulations):
    from alphazero.engine.factory import build_evaluator
    from alphazero.nn.checkpoint import build_network
    from alphazero.nn.config import model_preset

    evaluator = build_evaluator(build_network(model_preset("tiny")), device="cpu", threads=1)
    search = BatchedSearch(MCTSConfig(simulations=simulations, root_policy="gumbel"), evaluator, 2, seed=0)
    start = np.array([[START_BLACK, START_WHITE]] * 2, dtype=np.uint64)
    result = search.search(start, np.zeros(2, dtype=np.int64), add_noise=True)
    legal = root_actions(start[0])
    assert result.visits.sum(axis=1).tolist() == [simulations] * 2
    assert set(result.action.tolist()) <= set(legal)
    np.testing.assert_allclose(result.policy.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(result.policy[:, np.setdiff1d(np.arange(65), legal)] == 0)
    _, raw = evaluator(start)
    np.testing.assert_allclose(result.policy[0], reference_improved_policy(search.tree, 0, float(raw[0])), atol=2e-6)


class _Spy(BatchedSearch):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.policies = []

    def search(self, positions, ply, active=None, add_noise=True, simulations=None):
        result = super().search(positions, ply, active=active, add_noise=add_noise, simulations=simulations)
        self.policies.append((result.policy[0].copy(), result.visits[0].copy(), add_noise))
        return result


def test_selfplay_records_the_improved_policy_as_the_target():
    search = _Spy(gumbel_config(simulations=12, gumbel_considered_actions=4), HashEvaluator(), 1, seed=3)
    records = SelfPlayRunner(search, np.random.default_rng(0), random_opening_plies=2).play(2)
    targets = np.concatenate([r.policies[r.actions != PASS] for r in records]).astype(np.float32)
    assert len(targets) == len(search.policies)
    improved = np.array([p for p, _, _ in search.policies])
    shares = np.array([v / v.sum() for _, v, _ in search.policies])
    assert all(noise for _, _, noise in search.policies)
    np.testing.assert_allclose(targets, improved, atol=1e-3)  # float16 storage
    assert np.abs(improved - shares).max() > 0.05  # not the visit distribution
    for record in records:
        assert record.final_state().is_over()


def test_config_checks_the_gumbel_keys():
    with pytest.raises(ValueError, match="mcts.root_policy"):
        MCTSConfig(root_policy="alphazero")
    with pytest.raises(ValueError, match="mcts.gumbel_considered_actions"):
        MCTSConfig(gumbel_considered_actions=0)
    with pytest.raises(ValueError, match="mcts.gumbel_c_visit"):
        MCTSConfig(gumbel_c_visit=-1.0)
    with pytest.raises(ValueError, match="mcts.gumbel_sample_plies"):
        MCTSConfig(gumbel_sample_plies=-1)
    assert MCTSConfig().root_policy == "puct"


# ---- gumbel_sample_plies: the self-play move drawn by visit counts ---------------------------------

def _copies_search(games, seed, ply, add_noise=True, **overrides):
    """One midgame position searched in `games` slots (each with its own stream)."""
    position = midgame_positions(1, seed=21)
    positions = np.repeat(position, games, axis=0)
    cfg = gumbel_config(simulations=16, gumbel_considered_actions=4, **overrides)
    search = BatchedSearch(cfg, HashEvaluator(salt=5), games, seed=seed)
    return search.search(positions, np.full(games, ply, dtype=np.int64), add_noise=add_noise)


def test_before_the_sampled_plies_the_move_is_drawn_by_visit_counts():
    games = 4000
    sampled = _copies_search(games, seed=7, ply=3, gumbel_sample_plies=4)
    winner = _copies_search(games, seed=7, ply=3, gumbel_sample_plies=0)
    # The draw comes after the search: the same trees, targets and halving winners either way.
    np.testing.assert_array_equal(sampled.visits, winner.visits)
    np.testing.assert_array_equal(sampled.policy, winner.policy)
    assert np.mean(sampled.action != winner.action) > 0.05
    assert all(sampled.visits[b, a] > 0 for b, a in enumerate(sampled.action))
    # Each game draws by its own visit shares, so the moves' frequencies follow the games' mean
    # visit shares (binomial noise, 5 standard deviations).
    shares = sampled.visits / sampled.visits.sum(axis=1, keepdims=True)
    expected = shares.mean(axis=0)
    frequency = np.bincount(sampled.action, minlength=65) / games
    tolerance = 5 * np.sqrt(expected * (1 - expected) / games) + 1e-3
    assert np.all(np.abs(frequency - expected) <= tolerance), (frequency, expected)
    # The halving winner (about a draw from the improved policy) is far from that distribution.
    winners = np.bincount(winner.action, minlength=65) / games
    assert np.abs(winners - expected).max() > 0.1


def test_a_low_temperature_draws_the_most_visited_move():
    result = _copies_search(300, seed=3, ply=0, gumbel_sample_plies=1, temperature=0.02)
    most = result.visits.max(axis=1, keepdims=True)
    assert all(result.visits[b, a] == most[b, 0] for b, a in enumerate(result.action))
    assert (result.visits == most).sum(axis=1).max() > 1  # ties exist, and either may be drawn


def test_from_the_sampled_plies_on_and_outside_self_play_the_move_is_the_halving_winner():
    winner = _copies_search(200, seed=11, ply=4, gumbel_sample_plies=0)
    np.testing.assert_array_equal(_copies_search(200, seed=11, ply=4, gumbel_sample_plies=4).action, winner.action)
    np.testing.assert_array_equal(
        _copies_search(200, seed=11, ply=0, gumbel_sample_plies=4, temperature=0.0).action,
        _copies_search(200, seed=11, ply=0, gumbel_sample_plies=0).action)
    arena = _copies_search(50, seed=11, ply=0, add_noise=False, gumbel_sample_plies=0)
    np.testing.assert_array_equal(
        _copies_search(50, seed=11, ply=0, add_noise=False, gumbel_sample_plies=60).action, arena.action)
    assert len(set(arena.action.tolist())) == 1  # no noise, no draw: every copy plays the same move


def test_selfplay_openings_spread_with_sampled_plies():
    """The defect the switch fixes: with a sharp policy every self-play game opens the same way."""
    def openings(sample_plies):
        cfg = gumbel_config(simulations=8, gumbel_considered_actions=4, gumbel_sample_plies=sample_plies,
                            temperature_plies=0)
        search = BatchedSearch(cfg, SharpEvaluator(), 8, seed=1)
        records = SelfPlayRunner(search, np.random.default_rng(0)).play(16)
        return {tuple(int(a) for a in r.actions[:6]) for r in records}
    assert len(openings(6)) > 2 * len(openings(0))


class SharpEvaluator:
    """A network sure of its move: 0.97 of the prior on the lowest legal square, value 0."""

    def __call__(self, positions):
        mask = legal_action_mask_batch(positions).astype(np.float32)
        priors = mask * 0.03 / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        first = mask.argmax(axis=1)
        priors[np.arange(len(positions)), first] += 0.97
        return priors / priors.sum(axis=1, keepdims=True), np.zeros(len(positions), dtype=np.float32)
