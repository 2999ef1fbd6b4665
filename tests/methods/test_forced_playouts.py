"""mcts.forced_playouts_k: KataGo's forced playouts at the self-play root and the policy target
pruning that takes them out again (Wu 2019, section 3.1), against a slow reference."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcts"))
from mcts_testing import HashEvaluator  # noqa: E402
from test_mcts_search import midgame_positions  # noqa: E402

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.puct_root import prune_forced_visits
from alphazero.mcts.search import BatchedSearch
from alphazero.mcts.tree import ROOT

GAMES, SIMS = 6, 80


def _search(forced_k, add_noise=True, noise_fraction=0.0, leaves=1, root_policy="puct", seed=5):
    positions = midgame_positions(GAMES, seed=seed)
    cfg = MCTSConfig(simulations=SIMS, temperature_plies=0, noise_fraction=noise_fraction,
                     forced_playouts_k=forced_k, leaves_per_step=leaves, root_policy=root_policy)
    search = BatchedSearch(cfg, HashEvaluator(), GAMES, seed=3)
    result = search.search(positions, np.zeros(GAMES, dtype=np.int64), add_noise=add_noise)
    return search, result


def reference_pruned(tree, b, visits, c_puct, k):
    """KataGo's pruning, literally: from each child but the most visited, take visits away one at
    a time (at most sqrt(k P N) of them) while its PUCT value stays below the most visited child's;
    then drop the children left with one visit."""
    v = visits[b].astype(np.int64)
    total = int(v.sum())
    best = int(np.argmax(v))
    sqrt_root = math.sqrt(float(tree.visits[b, ROOT]))

    def q(action):
        node = tree.nodes[b, tree.children[b, ROOT, action]]
        return -float(node["exact_value"]) if node["proven"] else -float(node["value_sum"]) / int(node["visits"])

    def puct(action, n):
        return q(action) + c_puct * float(tree.prior[b, ROOT, action]) * sqrt_root / (1 + n)

    out = v.copy()
    for action in np.flatnonzero(v):
        if action == best:
            continue
        floor = max(0, math.ceil(v[action] - math.sqrt(k * float(tree.prior[b, ROOT, action]) * total)))
        n = int(v[action])
        while n - 1 >= floor and puct(action, n - 1) < puct(best, int(v[best])):
            n -= 1
        out[action] = n if n > 1 else 0
    return out


@pytest.mark.parametrize("k", [0.5, 2.0, 8.0])
@pytest.mark.parametrize("leaves", [1, 4])
def test_policy_target_is_the_pruned_visits_of_the_reference(k, leaves):
    # Noise fraction 0: the priors the search used are the tree's, so the reference can read them.
    search, result = _search(k, leaves=leaves)
    assert (result.visits.sum(axis=1) == SIMS).all()  # the raw count is reported unchanged
    pruned_any = False
    for b in range(GAMES):
        expected = reference_pruned(search.tree, b, result.visits, 1.5, k)
        got = np.zeros_like(result.visits)
        prune_forced_visits(search.tree, np.ones(GAMES, dtype=np.bool_), result.visits, 1.5, k, got)
        np.testing.assert_array_equal(got[b], expected)
        np.testing.assert_allclose(result.policy[b], expected / expected.sum(), rtol=1e-6)
        assert result.policy[b].sum() == pytest.approx(1.0)
        assert expected[np.argmax(result.visits[b])] == result.visits[b].max()  # c* keeps every visit
        assert result.action[b] == np.argmax(expected)  # the move comes from the pruned visits
        pruned_any |= bool((expected < result.visits[b]).any())
    assert pruned_any


def test_forced_playouts_spread_the_root_visits():
    """Children the PUCT rule would starve get their sqrt(k P N) share: more root children are
    visited, and the low-prior ones more often."""
    _, plain = _search(0.0)
    _, forced = _search(2.0)
    assert (forced.visits > 0).sum() > (plain.visits > 0).sum()
    starved = (plain.visits <= 1) & (forced.visits > 0)
    assert starved.any()
    assert (forced.visits[starved] > plain.visits[starved]).any()


def test_pruning_gives_most_visited_child_more_target_weight_than_raw_visits():
    _, result = _search(2.0)
    raw_share = result.visits / result.visits.sum(axis=1, keepdims=True)
    best = np.argmax(result.visits, axis=1)
    rows = np.arange(GAMES)
    assert (result.policy[rows, best] >= raw_share[rows, best] - 1e-6).all()
    assert (result.policy[rows, best] > raw_share[rows, best]).any()


@pytest.mark.parametrize("root_policy", ["puct", "gumbel"])
def test_searches_without_noise_and_gumbel_roots_ignore_it(root_policy):
    """Arena, play and GTP search without noise: forced playouts change nothing there, nor under
    the Gumbel root (its sequential halving already decides every root visit)."""
    add_noise = root_policy == "gumbel"
    _, off = _search(0.0, add_noise=add_noise, root_policy=root_policy)
    _, on = _search(2.0, add_noise=add_noise, root_policy=root_policy)
    np.testing.assert_array_equal(on.visits, off.visits)
    np.testing.assert_array_equal(on.policy, off.policy)
    np.testing.assert_array_equal(on.action, off.action)


def test_with_root_noise_the_search_restores_the_clean_priors():
    search, _ = _search(2.0, noise_fraction=0.25)
    fresh = BatchedSearch(search.config, HashEvaluator(), GAMES, seed=3)
    fresh.search(midgame_positions(GAMES, seed=5), np.zeros(GAMES, dtype=np.int64), add_noise=False)
    np.testing.assert_array_equal(search.tree.prior[:, ROOT], fresh.tree.prior[:, ROOT])


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), True, "2"])
def test_bad_values_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="mcts.forced_playouts_k"):
        MCTSConfig(forced_playouts_k=bad)
