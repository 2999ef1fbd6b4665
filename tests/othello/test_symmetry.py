"""The 8 board symmetries: a dihedral group that commutes with the rules."""

import itertools
import random

import numpy as np
import pytest

from alphazero.othello import bitboard as bb
from alphazero.othello.symmetry import (
    ACTION_MAP,
    COMPOSE,
    INVERSE,
    NUM_SYMMETRIES,
    transform_action,
    transform_bitboard,
    transform_policy,
    transform_positions,
)

SYMMETRIES = range(NUM_SYMMETRIES)
U = np.uint64


def _random_positions(count, seed):
    """Positions along random games (uint64 pairs), passes included where forced."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        p, o = bb.START_BLACK, bb.START_WHITE
        while not bb.is_game_over(p, o) and len(out) < count:
            out.append((p, o))
            moves = bb.squares_of(bb.legal_moves(p, o)) or [bb.PASS]
            p, o = (U(b) for b in bb.make_move(p, o, rng.choice(moves)))
    return out


POSITIONS = _random_positions(600, seed=7)


def _t(bits, s):
    return U(transform_bitboard(U(bits), s))


def test_square_maps_are_bijections_that_fix_pass():
    for s in SYMMETRIES:
        assert sorted(ACTION_MAP[s, :64]) == list(range(64))
        assert ACTION_MAP[s, bb.PASS] == bb.PASS
        assert transform_action(bb.PASS, s) == bb.PASS


def test_symmetry_zero_is_the_identity():
    assert (ACTION_MAP[0] == np.arange(65)).all()
    for s in SYMMETRIES:
        assert COMPOSE[0, s] == s and COMPOSE[s, 0] == s


def test_the_eight_maps_are_distinct():
    assert len({tuple(row) for row in ACTION_MAP}) == 8


def test_composition_is_closed_and_matches_applying_one_after_the_other():
    for a, b in itertools.product(SYMMETRIES, SYMMETRIES):
        c = COMPOSE[a, b]
        assert 0 <= c < 8
        # "b after a": apply a, then b.
        assert (ACTION_MAP[c] == ACTION_MAP[b][ACTION_MAP[a]]).all()


def test_composition_is_associative():
    for a, b, c in itertools.product(SYMMETRIES, SYMMETRIES, SYMMETRIES):
        assert COMPOSE[COMPOSE[a, b], c] == COMPOSE[a, COMPOSE[b, c]]


def test_inverse_undoes_each_symmetry():
    for s in SYMMETRIES:
        assert COMPOSE[s, INVERSE[s]] == 0 and COMPOSE[INVERSE[s], s] == 0
        assert (ACTION_MAP[INVERSE[s]][ACTION_MAP[s]] == np.arange(65)).all()


def test_group_is_the_dihedral_group_of_order_8():
    def order(s):
        n, x = 1, s
        while x != 0:
            x, n = COMPOSE[x, s], n + 1
        return n

    orders = sorted(order(s) for s in SYMMETRIES)
    assert orders == [1, 2, 2, 2, 2, 2, 4, 4]  # D4: identity, 5 involutions, two quarter turns
    assert any(COMPOSE[a, b] != COMPOSE[b, a] for a, b in itertools.product(SYMMETRIES, SYMMETRIES))


def test_bitboard_transform_moves_each_square_like_the_action_map():
    for s in SYMMETRIES:
        for square in range(64):
            assert int(_t(1 << square, s)) == 1 << int(ACTION_MAP[s, square])


def test_bitboard_transforms_compose_like_the_table():
    rng = random.Random(3)
    for _ in range(50):
        bits = rng.getrandbits(64)
        for a, b in itertools.product(SYMMETRIES, SYMMETRIES):
            assert _t(_t(bits, a), b) == _t(bits, COMPOSE[a, b])


def test_start_position_is_symmetric_under_exactly_four_symmetries():
    fixed = [s for s in SYMMETRIES if _t(bb.START_BLACK, s) == bb.START_BLACK and _t(bb.START_WHITE, s) == bb.START_WHITE]
    assert len(fixed) == 4  # identity, 180-degree turn and the two diagonal reflections


def test_legal_moves_commute_with_every_symmetry():
    for p, o in POSITIONS:
        moves = bb.legal_moves(p, o)
        for s in SYMMETRIES:
            assert bb.legal_moves(_t(p, s), _t(o, s)) == _t(moves, s)


def test_flips_and_make_move_commute_with_every_symmetry():
    for p, o in POSITIONS[::3]:
        for square in bb.squares_of(bb.legal_moves(p, o)):
            flipped = bb.flips(p, o, square)
            after = bb.make_move(p, o, square)
            for s in SYMMETRIES:
                image = int(ACTION_MAP[s, square])
                assert bb.flips(_t(p, s), _t(o, s), image) == _t(flipped, s)
                assert bb.make_move(_t(p, s), _t(o, s), image) == (_t(after[0], s), _t(after[1], s))


def test_transform_positions_matches_the_scalar_transform():
    batch = np.array(POSITIONS[:64], dtype=np.uint64)
    symmetries = np.arange(64, dtype=np.int64) % 8
    out = transform_positions(batch, symmetries)
    for (p, o), s, row in zip(POSITIONS, symmetries, out):
        assert (int(row[0]), int(row[1])) == (int(_t(p, s)), int(_t(o, s)))


@pytest.mark.parametrize("symmetry", SYMMETRIES)
def test_transform_policy_round_trips_and_follows_the_board(symmetry):
    rng = np.random.default_rng(symmetry)
    policy = rng.random((3, 65)).astype(np.float32)
    moved = transform_policy(policy, symmetry)
    assert (transform_policy(moved, INVERSE[symmetry]) == policy).all()
    for a in range(65):
        assert (moved[:, ACTION_MAP[symmetry, a]] == policy[:, a]).all()
    # A policy that is 1 on the legal moves stays 1 exactly on the transformed position's moves.
    p, o = POSITIONS[40]
    mask = bb.legal_action_mask_batch(np.array([[p, o]], dtype=np.uint64))[0].astype(np.float32)
    image = bb.legal_action_mask_batch(np.array([[_t(p, symmetry), _t(o, symmetry)]], dtype=np.uint64))[0]
    assert (transform_policy(mask, symmetry) == image).all()
