"""GameRecords as a few flat numpy arrays: what travels through Ray's object store, and what a
stopped worker saves of the games it still had in play (`save_games` / `load_games`).

Unlike a replay shard, a packed game need not be finished (`black_margin` may be None) and keeps
its per-ply arrays exactly as they were, NaN included.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from alphazero.atomic import write_atomic
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord

# What reading a damaged .npz raises: a truncated or overwritten file is no zip at all
# (zipfile.BadZipFile, which is not an OSError), a torn array ends early (EOFError), and mangled
# arrays or metadata fail while unpacking (IndexError, TypeError, KeyError, ValueError).
UNREADABLE = (OSError, ValueError, KeyError, IndexError, TypeError, EOFError, zipfile.BadZipFile)


def pack_games(records: list[GameRecord]) -> dict:
    """GameRecords as a few flat numpy arrays (plies of all games concatenated, with offsets) and
    one small list of per-game metadata dicts; `unpack_games` gives the records back."""
    lengths = np.array([len(r) for r in records], dtype=np.int64)
    offsets = np.zeros(len(records) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])

    def column(name, dtype, width=None):
        parts = [getattr(r, name) for r in records]
        present = np.array([p is not None for p in parts], dtype=bool)
        shape = (0,) if width is None else (0, width)
        filled = [p if p is not None else np.full((len(r),) + shape[1:], np.nan, dtype=dtype) for p, r in zip(parts, records)]
        return (np.concatenate(filled).astype(dtype, copy=False) if filled else np.zeros(shape, dtype=dtype)), present

    policies, has_policies = column("policies", np.float16, 65)
    root_values, has_root_values = column("root_values", np.float32)
    exact_values, has_exact_values = column("exact_values", np.float32)
    policy_mask, has_policy_mask = column("policy_mask", np.bool_)
    return {
        "start_black": np.array([r.start.black for r in records], dtype=np.uint64),
        "start_white": np.array([r.start.white for r in records], dtype=np.uint64),
        "start_black_to_move": np.array([r.start.black_to_move for r in records], dtype=bool),
        "black_margin": np.array([0 if r.black_margin is None else r.black_margin for r in records], dtype=np.int16),
        "has_margin": np.array([r.black_margin is not None for r in records], dtype=bool),
        "offsets": offsets,
        "actions": np.concatenate([r.actions for r in records]).astype(np.int16) if records else np.zeros(0, np.int16),
        "policies": policies,
        "has_policies": has_policies,
        "root_values": root_values,
        "has_root_values": has_root_values,
        "exact_values": exact_values,
        "has_exact_values": has_exact_values,
        "policy_mask": policy_mask,
        "has_policy_mask": has_policy_mask,
        "metadata": [dict(r.metadata) for r in records],
    }


def unpack_games(packed: dict) -> list[GameRecord]:
    """The GameRecords `pack_games` packed (equal arrays, metadata and start positions)."""
    records = []
    offsets = packed["offsets"]
    for g in range(len(offsets) - 1):
        plies = slice(int(offsets[g]), int(offsets[g + 1]))
        records.append(
            GameRecord(
                start=GameState(int(packed["start_black"][g]), int(packed["start_white"][g]), bool(packed["start_black_to_move"][g])),
                actions=packed["actions"][plies].copy(),
                policies=packed["policies"][plies].copy() if packed["has_policies"][g] else None,
                root_values=packed["root_values"][plies].copy() if packed["has_root_values"][g] else None,
                black_margin=int(packed["black_margin"][g]) if packed["has_margin"][g] else None,
                metadata=dict(packed["metadata"][g]),
                exact_values=packed["exact_values"][plies].copy() if packed["has_exact_values"][g] else None,
                policy_mask=packed["policy_mask"][plies].copy() if packed["has_policy_mask"][g] else None,
            )
        )
    return records


def save_games(path: str | os.PathLike, records: list[GameRecord]) -> None:
    """Write `records` to `path` atomically (one .npz; metadata as JSON)."""
    packed = pack_games(records)
    metadata = json.dumps(packed.pop("metadata"), default=lambda value: value.item() if hasattr(value, "item") else str(value))
    metadata = np.frombuffer(metadata.encode("utf-8"), dtype=np.uint8)
    write_atomic(Path(path), lambda handle: np.savez(handle, metadata=metadata, **packed))


def load_games(path: str | os.PathLike) -> list[GameRecord]:
    """The records `save_games` wrote; ValueError naming the file if it cannot be read."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            packed = {name: archive[name] for name in archive.files}
        packed["metadata"] = json.loads(packed["metadata"].tobytes().decode("utf-8"))
        return unpack_games(packed)
    except UNREADABLE as error:
        raise ValueError(f"{path}: not a file of saved games ({type(error).__name__}: {error})") from error


def count_games(path: str | os.PathLike) -> int:
    """Games in a `save_games` file (0 if it cannot be read)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            return len(archive["offsets"]) - 1
    except UNREADABLE:
        return 0
