"""The input planes: layout, meaning on hand-made positions, and the device-side unpacking."""

import numpy as np
import pytest
import torch

from alphazero.nn.encoding import (
    NUM_PLANES,
    PLANE_LEGAL,
    PLANE_ONES,
    PLANE_OPPONENT,
    PLANE_PLAYER,
    encode_positions,
    encode_positions_and_mask,
    pack_positions_and_mask,
    planes_from_packed,
)
from alphazero.othello.bitboard import PASS, legal_action_mask_batch
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_square

from .helpers import FORCED_PASS_TEXT, board


def squares_set(plane: np.ndarray) -> set[int]:
    return {int(i) for i in np.flatnonzero(plane.reshape(64))}


def test_start_position_planes_show_black_discs_white_discs_and_blacks_four_moves():
    planes, mask = encode_positions_and_mask(GameState.start().as_array()[None])
    assert planes.shape == (1, NUM_PLANES, 8, 8) and planes.dtype == np.float32
    assert squares_set(planes[0, PLANE_PLAYER]) == {parse_square("d5"), parse_square("e4")}
    assert squares_set(planes[0, PLANE_OPPONENT]) == {parse_square("d4"), parse_square("e5")}
    expected_moves = {parse_square(s) for s in ("d3", "c4", "f5", "e6")}
    assert squares_set(planes[0, PLANE_LEGAL]) == expected_moves
    assert (planes[0, PLANE_ONES] == 1).all()
    assert set(np.flatnonzero(mask[0])) == expected_moves


def test_plane_cell_row_col_is_square_row_times_8_plus_col():
    # Player on h1 (square 7) and a8 (square 56): row 0 col 7 and row 7 col 0.
    planes = encode_positions(board("-------X" + "-" * 48 + "X-------" + " X")[None])
    assert planes[0, PLANE_PLAYER, 0, 7] == 1 and planes[0, PLANE_PLAYER, 7, 0] == 1
    assert planes[0, PLANE_PLAYER].sum() == 2


def test_planes_are_from_the_side_to_moves_view():
    state = GameState.start().play(parse_square("d3"))  # white to move now
    planes = encode_positions(state.as_array()[None])
    assert squares_set(planes[0, PLANE_PLAYER]) == set(np.flatnonzero([state.square(i) == 1 for i in range(64)]))
    assert squares_set(planes[0, PLANE_OPPONENT]) == set(np.flatnonzero([state.square(i) == 0 for i in range(64)]))


def test_forced_pass_has_empty_legal_plane_and_only_pass_in_the_mask():
    planes, mask = encode_positions_and_mask(board(FORCED_PASS_TEXT)[None])
    assert planes[0, PLANE_LEGAL].sum() == 0
    assert np.flatnonzero(mask[0]).tolist() == [PASS]


def test_mask_matches_the_engines_legal_action_mask(positions):
    _, mask = encode_positions_and_mask(positions)
    np.testing.assert_array_equal(mask, legal_action_mask_batch(positions))


def test_player_and_opponent_planes_reproduce_the_bitboards(positions):
    planes = encode_positions(positions)
    weights = (np.uint64(1) << np.arange(64, dtype=np.uint64))
    for plane, column in ((PLANE_PLAYER, 0), (PLANE_OPPONENT, 1)):
        bits = planes[:, plane].reshape(-1, 64).astype(bool)
        rebuilt = np.array([np.bitwise_or.reduce(weights[row]) if row.any() else 0 for row in bits], dtype=np.uint64)
        np.testing.assert_array_equal(rebuilt, positions[:, column])


def test_device_unpacking_equals_the_numba_encoding(positions):
    packed, mask = pack_positions_and_mask(positions)
    planes = planes_from_packed(torch.from_numpy(packed.view(np.int64)))
    np.testing.assert_array_equal(planes.numpy(), encode_positions(positions))
    np.testing.assert_array_equal(mask, encode_positions_and_mask(positions)[1])


def test_high_bit_squares_survive_the_signed_int64_view():
    everything = np.array([[0xFFFFFFFF00000000, 0x00000000FFFFFFFF]], dtype=np.uint64)
    packed, _ = pack_positions_and_mask(everything)
    planes = planes_from_packed(torch.from_numpy(packed.view(np.int64)))
    assert squares_set(planes[0, PLANE_PLAYER].numpy()) == set(range(32, 64))
    assert squares_set(planes[0, PLANE_OPPONENT].numpy()) == set(range(32))


def test_empty_batch_gives_empty_planes():
    planes, mask = encode_positions_and_mask(np.zeros((0, 2), dtype=np.uint64))
    assert planes.shape == (0, NUM_PLANES, 8, 8) and mask.shape == (0, 65)


@pytest.mark.parametrize("bad", [np.zeros((3, 2), dtype=np.int64), np.zeros((3, 3), dtype=np.uint64), np.zeros(2, dtype=np.uint64)])
def test_wrong_dtype_or_shape_is_rejected_with_the_shape_named(bad):
    with pytest.raises(ValueError, match=r"uint64\[N, 2\]"):
        encode_positions(bad)
