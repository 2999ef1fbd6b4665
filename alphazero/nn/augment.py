"""Symmetry augmentation of training pairs under the 8 board symmetries.

Othello's rules commute with the dihedral group D4, so (position, policy target, value target)
and (s(position), s(policy), value) are equally valid samples for every symmetry s. The value is
invariant; positions and policies move together; PASS (64) is fixed. Symmetry numbering and square
maps are alphazero.othello.symmetry's.

Two equivalent routes, pinned equal by the tests:
- `augment_positions`: transform the bitboards, then encode (cheapest: two 64-bit bit tricks).
- `transform_planes`: permute the squares of already encoded planes (numpy or torch).
"""

from __future__ import annotations

import numpy as np
import torch

from alphazero.othello.symmetry import ACTION_MAP, INVERSE, NUM_SYMMETRIES, transform_positions

# SOURCE_SQUARE[s, k]: the square whose content lands on square k under symmetry s, i.e.
# s^-1(k). Gathering with it moves every square's content to its image.
SOURCE_SQUARE = ACTION_MAP[INVERSE][:, :64]
# SOURCE_ACTION[s, a]: the same for the 65 actions (PASS maps to itself).
SOURCE_ACTION = ACTION_MAP[INVERSE]


def _symmetries_for(symmetries, count):
    symmetries = np.broadcast_to(np.asarray(symmetries, dtype=np.int64), (count,))
    if count and (symmetries.min() < 0 or symmetries.max() >= NUM_SYMMETRIES):
        bad = symmetries[(symmetries < 0) | (symmetries >= NUM_SYMMETRIES)][0]
        raise ValueError(f"symmetry {bad} out of range; expected 0..{NUM_SYMMETRIES - 1}")
    return np.ascontiguousarray(symmetries)


def random_symmetries(count: int, rng: np.random.Generator) -> np.ndarray:
    """int64[count] symmetries drawn uniformly from 0..7."""
    return rng.integers(0, NUM_SYMMETRIES, size=count, dtype=np.int64)


def transform_policies(policies, symmetries):
    """Per-row symmetry of [N, 65] per-action arrays: out[i, s_i(a)] = policies[i, a].

    Works on numpy arrays and torch tensors; `symmetries` is an int or int[N].
    """
    count = policies.shape[0]
    source = SOURCE_ACTION[_symmetries_for(symmetries, count)]  # [N, 65]
    if isinstance(policies, torch.Tensor):
        return torch.gather(policies, 1, torch.from_numpy(source).to(policies.device))
    return np.take_along_axis(np.asarray(policies), source, axis=1)


def augment_positions(positions: np.ndarray, policies, symmetries):
    """(positions', policies') with symmetries[i] applied to row i of uint64[N, 2] positions and
    [N, 65] policies (numpy or torch). `symmetries` is an int or int[N]."""
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    symmetries = _symmetries_for(symmetries, positions.shape[0])
    return transform_positions(positions, symmetries), transform_policies(policies, symmetries)


def transform_planes(planes, symmetries):
    """Per-sample symmetry of [N, C, 8, 8] planes (numpy or torch): every plane's square k
    content moves to square s_i(k), as if the position had been transformed before encoding."""
    count, channels = planes.shape[0], planes.shape[1]
    source = SOURCE_SQUARE[_symmetries_for(symmetries, count)]  # [N, 64]
    if isinstance(planes, torch.Tensor):
        index = torch.from_numpy(source).to(planes.device)[:, None, :].expand(count, channels, 64)
        return torch.gather(planes.reshape(count, channels, 64), 2, index).reshape(planes.shape)
    flat = np.asarray(planes).reshape(count, channels, 64)
    return np.take_along_axis(flat, source[:, None, :], axis=2).reshape(planes.shape)


def all_symmetries(position: np.ndarray, policy):
    """The 8 images of one (uint64[2] position, [65] policy) pair: (uint64[8, 2], [8, 65])."""
    symmetries = np.arange(NUM_SYMMETRIES)
    positions = np.repeat(np.asarray(position, dtype=np.uint64)[None], NUM_SYMMETRIES, axis=0)
    if isinstance(policy, torch.Tensor):
        policies = policy[None].expand(NUM_SYMMETRIES, -1)
    else:
        policies = np.repeat(np.asarray(policy)[None], NUM_SYMMETRIES, axis=0)
    return augment_positions(positions, policies, symmetries)
