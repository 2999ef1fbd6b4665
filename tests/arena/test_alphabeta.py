"""Alpha-beta: exact at the end (vs brute force), equal to plain minimax at fixed depth,
deterministic, symmetric evaluation, and stronger than random and greedy."""

import numpy as np
import pytest

from alphazero.arena.alphabeta import INFINITY, TERMINAL_UNIT, best_move, best_moves_batch, evaluate, negamax
from alphazero.arena.match import play_match
from alphazero.arena.players import AlphaBetaPlayer, GreedyPlayer, RandomPlayer
from alphazero.othello.bitboard import PASS
from alphazero.othello.symmetry import transform_bitboard

from tests.arena.helpers import random_game_states, solve

STATES = random_game_states(40, seed=21)
ENDGAMES = [s for s in STATES if s.empties() <= 6][::3]
MIDGAMES = [s for s in STATES if 20 <= s.empties() <= 50][::40]


def _arrays(state):
    return np.uint64(state.player), np.uint64(state.opponent)


def _minimax(state, depth):
    """Plain fixed-depth negamax with the same evaluation, passes not counting as plies."""
    if state.is_over():
        margin = state.black_margin() if state.black_to_move else -state.black_margin()
        return margin * TERMINAL_UNIT
    if state.must_pass():
        return -_minimax(state.play(PASS), depth)
    if depth == 0:
        return int(evaluate(*_arrays(state)))
    return max(-_minimax(state.play(action), depth - 1) for action in state.legal_actions())


def test_endgame_search_score_equals_brute_force_margin_with_up_to_6_empties():
    assert len(ENDGAMES) >= 30 and any(s.must_pass() for s in STATES if s.empties() <= 6)
    for state in ENDGAMES:
        action, score = best_move(*_arrays(state), 1, 6)
        exact = solve(state)
        assert score == exact * TERMINAL_UNIT, state
        assert state.is_legal(int(action))
        assert -solve(state.play(int(action))) == exact, "the chosen move must reach the optimal margin"


def test_fixed_depth_alpha_beta_equals_plain_minimax():
    assert len(MIDGAMES) >= 10
    for state in MIDGAMES:
        for depth in (1, 2, 3):
            assert negamax(*_arrays(state), depth, -INFINITY, INFINITY) == _minimax(state, depth), (state, depth)


def test_search_is_deterministic_and_batch_equals_single_calls():
    positions = np.array([s.as_array() for s in STATES[::25]], dtype=np.uint64)
    actions, scores = best_moves_batch(positions, 3, 8)
    again, _ = best_moves_batch(positions, 3, 8)
    assert (actions == again).all()
    for row, action, score in zip(positions, actions, scores):
        assert best_move(row[0], row[1], 3, 8) == (action, score)


def test_evaluation_is_invariant_under_the_board_symmetries():
    for state in STATES[::50]:
        player, opponent = _arrays(state)
        value = evaluate(player, opponent)
        for symmetry in range(8):
            # numba hands uint64 results back as Python ints: re-wrap before calling a kernel.
            image = np.uint64(transform_bitboard(player, symmetry)), np.uint64(transform_bitboard(opponent, symmetry))
            assert evaluate(*image) == value


def test_evaluation_stays_below_the_smallest_proven_win():
    for state in STATES[::7]:
        assert abs(evaluate(*_arrays(state))) < 2 * TERMINAL_UNIT


@pytest.mark.parametrize("opponent", [RandomPlayer(seed=5), GreedyPlayer()], ids=lambda p: p.name)
def test_depth_2_beats_random_and_greedy(opponent):
    result = play_match(AlphaBetaPlayer(depth=2), opponent, num_pairs=8, seed=3)
    assert result.score >= 0.8, result.summary()


def test_depth_4_beats_depth_1():
    result = play_match(AlphaBetaPlayer(depth=4), AlphaBetaPlayer(depth=1), num_pairs=8, seed=4)
    assert result.score > 0.6, result.summary()


def test_bad_depth_is_rejected():
    with pytest.raises(ValueError, match="depth"):
        AlphaBetaPlayer(depth=0)
