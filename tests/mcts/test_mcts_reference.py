"""The numba search against the pure-Python reference (mcts_reference.py): identical visits, values,
moves and reused visits over several moves, for random positions, budgets and settings."""

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcts_reference import ReferenceSearch
from mcts_testing import HashEvaluator, random_endgame, random_position

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.search import BatchedSearch
from alphazero.othello.bitboard import make_move
from alphazero.othello.game import GameState


def compare_over_moves(state, cfg, salt, moves):
    evaluator = HashEvaluator(salt)
    fast = BatchedSearch(cfg, evaluator, 1)
    slow = ReferenceSearch(cfg, evaluator)
    player, opponent = state.player, state.opponent
    for move in range(moves):
        result = fast.search(np.array([[player, opponent]], dtype=np.uint64), np.array([move]), add_noise=False)
        visits, root_value, action, reused = slow.search(player, opponent)
        np.testing.assert_array_equal(result.visits[0], visits, err_msg=f"move {move}")
        assert result.root_value[0] == root_value, f"move {move}"
        assert result.action[0] == action, f"move {move}"
        assert result.reused_visits[0] == reused, f"move {move}"
        fast.advance(result.action)
        slow.advance(action)
        next_p, next_o = make_move(np.uint64(player), np.uint64(opponent), action)
        player, opponent = int(next_p), int(next_o)
        if GameState(player, opponent).is_over():
            break


search_settings = st.fixed_dictionaries(
    {
        "simulations": st.integers(1, 48),
        "c_puct": st.sampled_from([0.0, 0.5, 1.5, 3.0]),
        "fpu_reduction": st.sampled_from([-0.2, 0.0, 0.25, 1.0]),
        "virtual_loss": st.sampled_from([0.0, 1.0, 2.5]),
        "leaves_per_step": st.integers(1, 5),
        "solver": st.booleans(),
        "tree_reuse": st.booleans(),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position_seed=st.integers(0, 10**6), plies=st.integers(0, 50), knobs=search_settings,
       salt=st.integers(0, 1000))
def test_batched_search_matches_the_reference_search(position_seed, plies, knobs, salt):
    state = random_position(random.Random(position_seed), plies)
    if state is None:
        return
    cfg = MCTSConfig(temperature_plies=0, reuse_capacity=4.0, endgame_solve_empties=0, **knobs)
    compare_over_moves(state, cfg, salt, moves=3)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position_seed=st.integers(0, 10**6), empties=st.integers(2, 9), knobs=search_settings)
def test_batched_search_matches_the_reference_search_in_endgames(position_seed, empties, knobs):
    """Endgames exercise finished games inside the tree, proofs and collisions on proven nodes."""
    state = random_endgame(random.Random(position_seed), empties)
    if state is None:
        return
    cfg = MCTSConfig(temperature_plies=0, reuse_capacity=4.0, endgame_solve_empties=0, **knobs)
    compare_over_moves(state, cfg, salt=position_seed, moves=3)
