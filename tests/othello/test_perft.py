"""Perft: leaf counts of the game tree pin move generation, flips and pass handling all at once."""

import json
import random

import numpy as np
import pytest

from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, legal_moves, make_move, squares_of
from alphazero.othello.notation import parse_board_text
from alphazero.othello.perft import perft, perft_reference
from conftest import FIXTURES

PERFT = {int(depth): count for depth, count in json.loads((FIXTURES / "perft.json").read_text())["perft"].items()}


@pytest.mark.parametrize("depth", range(1, 10))
def test_perft_from_start_matches_published_counts(depth):
    assert perft(START_BLACK, START_WHITE, depth) == PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [10, 11])
def test_perft_depth_10_and_11_match_published_counts(depth):
    assert perft(START_BLACK, START_WHITE, depth) == PERFT[depth]


def test_perft_of_depth_zero_is_one_leaf():
    assert perft(START_BLACK, START_WHITE, 0) == 1
    assert perft_reference(START_BLACK, START_WHITE, 0) == 1


@pytest.mark.parametrize("depth", range(1, 8))
def test_bulk_counting_perft_equals_plain_perft_from_start(depth):
    assert perft(START_BLACK, START_WHITE, depth) == perft_reference(START_BLACK, START_WHITE, depth)


def _random_position(seed, plies):
    """A position `plies` random plies from the start (passes played when forced)."""
    rng = random.Random(seed)
    player, opponent = START_BLACK, START_WHITE
    for _ in range(plies):
        moves = squares_of(legal_moves(player, opponent))
        if not moves:
            if legal_moves(opponent, player) == 0:
                break
            moves = [PASS]
        # numba hands uint64 results back as Python ints; re-wrap them so that the next call is
        # typed uint64 (a Python int above 2**63 would be typed differently from one below).
        player, opponent = (np.uint64(b) for b in make_move(player, opponent, rng.choice(moves)))
    return player, opponent


@pytest.mark.parametrize("seed,plies", [(1, 20), (2, 30), (3, 40), (4, 50), (5, 54), (6, 57)])
def test_bulk_counting_perft_equals_plain_perft_from_midgame_positions(seed, plies):
    player, opponent = _random_position(seed, plies)
    for depth in range(1, 6):
        assert perft(player, opponent, depth) == perft_reference(player, opponent, depth), depth


def test_finished_game_is_one_leaf_at_every_depth():
    # Black fills every square: white has no disc and nobody can move.
    full_black = np.uint64(0xFFFFFFFFFFFFFFFF)
    for depth in range(1, 5):
        assert perft(full_black, np.uint64(0), depth) == 1
        assert perft_reference(full_black, np.uint64(0), depth) == 1


def test_forced_pass_counts_as_a_ply():
    # White (to move) has b1 only, black a1: white cannot flank anything and must pass; black then
    # has exactly one move, c1, which takes white's last disc and ends the game.
    state = parse_board_text("XO" + "-" * 62 + " O")
    assert state.must_pass()
    player, opponent = np.uint64(state.player), np.uint64(state.opponent)
    assert [perft(player, opponent, d) for d in range(1, 5)] == [1, 1, 1, 1]
    assert [perft_reference(player, opponent, d) for d in range(1, 5)] == [1, 1, 1, 1]
    after_pass = [np.uint64(b) for b in make_move(player, opponent, PASS)]
    assert squares_of(legal_moves(*after_pass)) == [2]
