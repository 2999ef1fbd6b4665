"""Symmetry augmentation: round trips, and positions-then-encode == encode-then-transform-planes."""

import numpy as np
import pytest
import torch

from alphazero.nn.augment import (
    all_symmetries,
    augment_positions,
    random_symmetries,
    transform_planes,
    transform_policies,
)
from alphazero.nn.encoding import encode_positions, encode_positions_and_mask
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_square
from alphazero.othello.symmetry import INVERSE, NUM_SYMMETRIES


def random_policies(count, seed=0):
    policies = np.random.default_rng(seed).random((count, 65)).astype(np.float32)
    return policies / policies.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("symmetry", range(NUM_SYMMETRIES))
def test_applying_a_symmetry_then_its_inverse_restores_positions_and_policies(positions, symmetry):
    policies = random_policies(len(positions))
    moved_positions, moved_policies = augment_positions(positions, policies, symmetry)
    back_positions, back_policies = augment_positions(moved_positions, moved_policies, INVERSE[symmetry])
    np.testing.assert_array_equal(back_positions, positions)
    np.testing.assert_array_equal(back_policies, policies)


@pytest.mark.parametrize("symmetry", range(NUM_SYMMETRIES))
def test_encoding_a_transformed_position_equals_transforming_its_planes(positions, symmetry):
    moved_positions, _ = augment_positions(positions, random_policies(len(positions)), symmetry)
    expected = encode_positions(moved_positions)
    planes = encode_positions(positions)
    np.testing.assert_array_equal(transform_planes(planes, symmetry), expected)
    np.testing.assert_array_equal(transform_planes(torch.from_numpy(planes), symmetry).numpy(), expected)


def test_per_sample_symmetries_agree_between_positions_planes_and_torch(positions):
    symmetries = random_symmetries(len(positions), np.random.default_rng(3))
    policies = random_policies(len(positions))
    moved_positions, moved_policies = augment_positions(positions, policies, symmetries)
    np.testing.assert_array_equal(transform_planes(encode_positions(positions), symmetries), encode_positions(moved_positions))
    np.testing.assert_array_equal(transform_policies(torch.from_numpy(policies), symmetries).numpy(), moved_policies)


def test_legal_moves_move_with_the_policy(positions):
    symmetries = random_symmetries(len(positions), np.random.default_rng(5))
    _, mask = encode_positions_and_mask(positions)
    moved_positions, moved_mask = augment_positions(positions, mask, symmetries)
    np.testing.assert_array_equal(moved_mask, encode_positions_and_mask(moved_positions)[1])


def test_pass_probability_is_fixed_by_every_symmetry():
    policy = np.zeros(65, dtype=np.float32)
    policy[PASS] = 1.0
    _, policies = all_symmetries(GameState.start().as_array(), policy)
    assert (policies[:, PASS] == 1).all() and (policies[:, :64] == 0).all()


def test_every_image_of_a_legal_move_is_legal_in_the_image_position():
    policy = np.zeros(65, dtype=np.float32)
    policy[parse_square("d3")] = 1.0
    positions, policies = all_symmetries(GameState.start().as_array(), policy)
    assert len({int(np.argmax(row)) for row in policies}) == NUM_SYMMETRIES  # d3 is on no symmetry axis
    for position, row in zip(positions, policies):
        state = GameState.from_player_opponent(int(position[0]), int(position[1]), True)
        assert state.is_legal(int(np.argmax(row)))


def test_out_of_range_symmetry_is_rejected():
    with pytest.raises(ValueError, match="symmetry 8 out of range"):
        transform_policies(np.zeros((2, 65)), np.array([0, 8]))
