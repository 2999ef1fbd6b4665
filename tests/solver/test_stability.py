"""Stable discs (the stability cut-off's bound): no sequence of legal moves flips one of them."""

import numpy as np

from alphazero.othello import bitboard as bb
from alphazero.solver.stability import EDGE_STABLE, stable_count, stable_discs
from tests.solver.reference import child, random_position


def _reachable(player, opponent, seen):
    """Every position reachable by legal play from (player, opponent), as (black-ish, white-ish)
    pairs in the root's colours: (discs of the root's side to move, discs of the other)."""

    def walk(p, o, root_to_move):
        key = (p, o, root_to_move)
        if key in seen:
            return
        seen.add(key)
        moves = bb.squares_of(bb.legal_moves(np.uint64(p), np.uint64(o)))
        if not moves:
            if bb.legal_moves(np.uint64(o), np.uint64(p)) != 0:
                walk(o, p, not root_to_move)
            return
        for square in moves:
            walk(*child(p, o, square), not root_to_move)

    walk(player, opponent, True)
    return [(p, o) if root else (o, p) for p, o, root in seen]


def test_stable_discs_never_flip_in_any_continuation():
    total = 0
    for seed in range(40):
        player, opponent = random_position(300 + seed, 6 + seed % 3)
        mine = int(stable_discs(np.uint64(player), np.uint64(opponent)))
        theirs = int(stable_discs(np.uint64(opponent), np.uint64(player)))
        assert mine & ~player == 0 and theirs & ~opponent == 0
        total += bin(mine).count("1") + bin(theirs).count("1")
        for root_side, other_side in _reachable(player, opponent, set()):
            assert root_side & mine == mine, seed
            assert other_side & theirs == theirs, seed
    assert total > 100  # the bound is not vacuous on these endgames


def test_full_board_and_empty_edges():
    everything = np.uint64(0xFFFFFFFFFFFFFFFF)
    assert stable_count(everything, np.uint64(0)) == 64
    checker = np.uint64(0xAA55AA55AA55AA55)
    assert stable_count(checker, ~checker) == 32  # a full board: nothing can change
    assert stable_count(bb.START_BLACK, bb.START_WHITE) == 0
    # One edge line: a corner with nothing else is stable; an inner edge disc between empties is not.
    assert EDGE_STABLE[0b00000001, 0] == 0b00000001
    assert EDGE_STABLE[0b00010000, 0] == 0
    assert EDGE_STABLE[0b11111111, 0] == 0b11111111
    assert EDGE_STABLE[0b00000111, 0b00001000] == 0b00000111
