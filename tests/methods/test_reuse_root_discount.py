"""mcts.reuse_root_visit_discount, and fresh root noise on a reused root (self-play)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcts"))
from mcts_testing import HashEvaluator  # noqa: E402
from test_mcts_search import midgame_positions  # noqa: E402

import alphazero.mcts.puct_root as puct_root_module
from alphazero.engine.factory import play_config
from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.search import BatchedSearch
from alphazero.mcts.tree import ROOT

GAMES, SIMS = 4, 40


def _searched_then_advanced(discount, add_noise=True):
    """A search, the most visited move played and advanced, then the reused root searched again."""
    positions = midgame_positions(GAMES, seed=11)
    cfg = MCTSConfig(simulations=SIMS, temperature_plies=0, reuse_root_visit_discount=discount)
    search = BatchedSearch(cfg, HashEvaluator(), GAMES, seed=3)
    ply = np.zeros(GAMES, dtype=np.int64)
    first = search.search(positions, ply, add_noise=add_noise)
    search.advance(first.action)
    children = search.tree.edges["child"][:, ROOT]
    carried = np.array([search.tree.visits[b, children[b][children[b] >= 0]].sum() for b in range(GAMES)])
    from alphazero.othello.bitboard import make_move_batch
    after = make_move_batch(positions, first.action)
    return search, after, ply, carried


def test_discount_zero_gives_a_reused_root_a_fresh_budget():
    search, after, ply, carried = _searched_then_advanced(0.0)
    assert carried.min() > 0  # there was something to drop
    result = search.search(after, ply, add_noise=True)
    np.testing.assert_array_equal(result.reused_visits, 0)
    np.testing.assert_array_equal(result.visits.sum(axis=1), SIMS)
    np.testing.assert_array_equal(search.tree.visits[:, ROOT], SIMS + 1)  # its evaluation + the budget


def test_a_fractional_discount_scales_each_child_down():
    search, after, ply, _ = _searched_then_advanced(0.5)
    children = search.tree.edges["child"][:, ROOT].copy()
    before = np.where(children >= 0, np.take_along_axis(search.tree.visits, np.maximum(children, 0), axis=1), 0)
    result = search.search(after, ply, add_noise=True)
    np.testing.assert_array_equal(result.reused_visits, (before // 2).sum(axis=1))
    np.testing.assert_array_equal(result.visits.sum(axis=1), SIMS + (before // 2).sum(axis=1))


def test_discount_one_and_searches_without_noise_keep_the_reused_visits():
    for discount, noise in ((1.0, True), (0.0, False)):
        search, after, ply, carried = _searched_then_advanced(discount, add_noise=noise)
        result = search.search(after, ply, add_noise=noise)
        np.testing.assert_array_equal(result.reused_visits, carried)


def test_a_reused_root_gets_fresh_noise_each_search(monkeypatch):
    seen = []
    real = puct_root_module.add_root_noise

    def spy(tree, active, alpha, fraction, rng_states, saved_prior):
        real(tree, active, alpha, fraction, rng_states, saved_prior)
        seen.append((saved_prior.copy(), tree.edges["prior"][:, ROOT].copy()))

    monkeypatch.setattr(puct_root_module, "add_root_noise", spy)
    search, after, ply, carried = _searched_then_advanced(1.0)
    assert carried.min() > 0
    search.search(after, ply, add_noise=True)
    (clean_1, noisy_1), (clean_2, noisy_2) = seen
    assert not np.allclose(noisy_2, clean_2)  # the reused root's priors were noised ...
    np.testing.assert_array_equal(search.tree.edges["prior"][:, ROOT], clean_2)  # ... and restored after
    assert not np.allclose(noisy_2 - clean_2, 0)


def test_playing_settings_keep_noise_and_reuse_off():
    cfg = play_config(MCTSConfig(reuse_root_visit_discount=0.0))
    assert cfg.noise_fraction == 0 and not cfg.tree_reuse


def test_discount_out_of_range_names_the_key():
    with pytest.raises(ValueError, match="mcts.reuse_root_visit_discount"):
        MCTSConfig(reuse_root_visit_discount=1.5)


@pytest.mark.parametrize("discount", [0.0, 0.3])
def test_self_play_with_a_discount_plays_legal_games_and_drops_unlinked_nodes(discount):
    from alphazero.selfplay.games import SelfPlayRunner

    cfg = MCTSConfig(simulations=16, reuse_root_visit_discount=discount)
    search = BatchedSearch(cfg, HashEvaluator(), 2, seed=1)
    records = SelfPlayRunner(search, np.random.default_rng(1), random_opening_plies=2).play(3)
    for record in records:
        assert record.final_state().is_over()
    # After the next compaction every kept node is linked from its parent.
    tree = search.tree
    for b in range(2):
        for node in range(1, int(tree.next_free[b])):
            parent = tree.nodes["parent"][b, node]
            assert tree.edges["child"][b, parent, tree.nodes["action_from_parent"][b, node]] == node
