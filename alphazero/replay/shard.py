"""One replay shard: a `.npz` file holding whole self-play games and their training samples.

A shard is the unit that self-play workers hand to the trainer. It is written once, atomically
(`name.tmp` in the same directory, flush + fsync, `os.replace`, fsync of the directory), so a
reader either sees a complete file or none; a crash leaves at most a `.tmp` file, which readers
never open. A crc32 over every array, stored inside the file, lets a reader tell bit rot or a
foreign file from a shard; `read_shard` validates shapes and value ranges too and raises
`ShardError` naming the file and the problem.

Arrays (P training positions, G games, T plies in all, Q forced passes, T = P + Q):

  per position (the training samples, in game order, then ply order)
    positions         uint64[P, 2]   (player, opponent) before the move
    policies          float16[P, 65] search visit distribution: the policy target
    outcomes          int8[P]        value target from the side to move's view: +1 / 0 / -1, the
                                     game's result, or the position's exact result where the
                                     record has one (GameRecord.exact_values)
    ply               int16[P]       plies since the game's start position (passes count)
  per game
    start_black       uint64[G]      start position (usually the standard start)
    start_white       uint64[G]
    start_black_to_move bool[G]
    black_margin      int16[G]       black's final disc difference, empties to the winner
    has_root_values   bool[G]        False where the record had no root values (stored as NaN)
    action_offsets    int64[G + 1]   game g's plies are actions[action_offsets[g]:action_offsets[g+1]]
    position_offsets  int64[G + 1]   the same for the per-position arrays
    exact_mask        bool[P]        True where the value target is the position's exact result
                                     (optional: a shard written before it existed reads as all False)
    policy_mask       bool[P]        False where the policy is no training target (GameRecord.
                                     policy_mask; optional: an older shard reads as all True)
  per game, optional (a shard written before they existed reads as the default)
    has_exact_values  bool[G]        True where the record carried exact_values (default False)
  per ply
    actions           int16[T]       0..64, passes explicit
    root_values       float16[T]     search value of each root, side to move's view
  per forced pass
    pass_policies     float16[Q, 65] the record's policy at its pass plies, kept so that a shard
                                     gives back exactly the GameRecords it was written from
    pass_exact_values float16[Q]     the record's exact value at its pass plies (NaN where none;
                                     optional, default NaN), for the same reason
  bookkeeping
    header            int64[4]       FORMAT_VERSION, G, P, T: cheap to read without the rest
    metadata          uint8[...]     UTF-8 JSON: {"format", "created", "games": [per-game dicts], ...}
    checksum          uint32[1]      crc32 over the name, dtype, shape and bytes of every other array

Forced passes are not training samples: when the side to move has no move the only legal action
is PASS, so the policy target carries no information and the value target repeats the one of the
next position from the other side. Every pass in a GameRecord is forced (a pass is legal only when
no square is), so "skip the plies whose action is PASS" is exactly "skip forced passes".
Positions are derived from the record by replaying its actions in a numba kernel that also checks
every move is legal, so a shard never holds a position the rules cannot reach.

The auxiliary (score, ownership) targets need each position's final board; it is derived the same
way, by replaying the game to its last action (`ShardData.position_final_boards`), so no array
holds it and shards written before the targets existed yield them too. A game whose last position
is not the end of the game, or whose end disagrees with its `black_margin`, has no such target
(its rows are masked out): self-play only writes games played to the end (no resignation, no
adjudication; games in play when a run stops are continued, not written; the endgame solver's
exact values leave the game to be played out), so the mask guards against records from elsewhere.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from alphazero.atomic import write_atomic
from alphazero.fault_hooks import fault_point
from alphazero.othello.bitboard import NUM_ACTIONS, PASS, final_margin, is_game_over, is_legal, make_move
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord

FORMAT_VERSION = 1
TMP_SUFFIX = ".tmp"

# name -> (dtype, trailing shape); the leading dimension is checked against the header.
_SCHEMA = {
    "positions": (np.uint64, (2,)),
    "policies": (np.float16, (NUM_ACTIONS,)),
    "outcomes": (np.int8, ()),
    "ply": (np.int16, ()),
    "start_black": (np.uint64, ()),
    "start_white": (np.uint64, ()),
    "start_black_to_move": (np.bool_, ()),
    "black_margin": (np.int16, ()),
    "has_root_values": (np.bool_, ()),
    "action_offsets": (np.int64, ()),
    "position_offsets": (np.int64, ()),
    "actions": (np.int16, ()),
    "root_values": (np.float16, ()),
    "pass_policies": (np.float16, (NUM_ACTIONS,)),
    "header": (np.int64, ()),
    "metadata": (np.uint8, ()),
}
# Arrays added after format 1 was in use: written by every new shard, optional on read (an older
# shard reads as `default` everywhere). name -> (dtype, default, what a row is: "positions",
# "games" or "passes").
_OPTIONAL = {
    "exact_mask": (np.bool_, False, "positions"),
    "policy_mask": (np.bool_, True, "positions"),
    "has_exact_values": (np.bool_, False, "games"),
    "pass_exact_values": (np.float16, np.nan, "passes"),
}
_CHECKSUM = "checksum"


class ShardError(ValueError):
    """A shard file that cannot be read back as the games written into it."""


@dataclass
class ShardData:
    """The arrays of one shard (see the module docstring for shapes), plus its decoded metadata."""

    positions: np.ndarray
    policies: np.ndarray
    outcomes: np.ndarray
    ply: np.ndarray
    start_black: np.ndarray
    start_white: np.ndarray
    start_black_to_move: np.ndarray
    black_margin: np.ndarray
    has_root_values: np.ndarray
    action_offsets: np.ndarray
    position_offsets: np.ndarray
    actions: np.ndarray
    root_values: np.ndarray
    pass_policies: np.ndarray
    metadata: dict
    path: Path | None = None
    exact_mask: np.ndarray | None = None
    policy_mask: np.ndarray | None = None
    has_exact_values: np.ndarray | None = None
    pass_exact_values: np.ndarray | None = None
    # (final, complete) of `position_final_boards` when the reader's replay already found them;
    # derived, never stored.
    final_boards_of_replay: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        rows = {"positions": len(self.outcomes), "games": len(self.black_margin), "passes": len(self.pass_policies)}
        for name, (dtype, default, axis) in _OPTIONAL.items():
            if getattr(self, name) is None:
                setattr(self, name, np.full(rows[axis], default, dtype=dtype))

    def position_root_values(self) -> np.ndarray:
        """float32[P]: each training position's root search value (side to move's view), NaN for
        games recorded without root values."""
        is_pass = self.actions == PASS
        values = self.root_values.astype(np.float32)
        values[np.repeat(~self.has_root_values, np.diff(self.action_offsets))] = np.nan
        return values[~is_pass]

    def position_final_boards(self) -> tuple[np.ndarray, np.ndarray]:
        """(final uint64[P, 2], complete bool[P]): each training position's final board from the
        side to move's view (the final discs of the colour to move, then the other colour's), and
        whether it is the true end of the game (game over, margin equal to `black_margin`); rows
        where it is not carry no auxiliary target. Derived by replaying the games, so every shard
        has it whatever its age: the same numba pass that `read_shard` checks the positions with,
        whose result is kept, so a shard read with `verify_positions` is replayed once."""
        if self.final_boards_of_replay is None:
            start_player = np.where(self.start_black_to_move, self.start_black, self.start_white)
            start_opponent = np.where(self.start_black_to_move, self.start_white, self.start_black)
            _, _, final, complete, _, _ = _replay_games(start_player, start_opponent, self.start_black_to_move, self.actions,
                                                        self.action_offsets, self.black_margin, self.num_positions)
            self.final_boards_of_replay = (final, complete)
        return self.final_boards_of_replay

    @property
    def num_games(self) -> int:
        return len(self.black_margin)

    @property
    def num_positions(self) -> int:
        return len(self.outcomes)

    @property
    def num_plies(self) -> int:
        return len(self.actions)

    def to_records(self) -> list[GameRecord]:
        """The GameRecords this shard was written from (root values come back rounded to float16)."""
        records = []
        pass_row = 0
        game_metadata = self.metadata.get("games", [{}] * self.num_games)
        for game in range(self.num_games):
            first, last = self.action_offsets[game], self.action_offsets[game + 1]
            actions = self.actions[first:last].copy()
            is_pass = actions == PASS
            policies = np.empty((len(actions), NUM_ACTIONS), dtype=np.float16)
            policies[~is_pass] = self.policies[self.position_offsets[game] : self.position_offsets[game + 1]]
            passes = int(is_pass.sum())
            policies[is_pass] = self.pass_policies[pass_row : pass_row + passes]
            pass_row += passes
            root_values = self.root_values[first:last].astype(np.float32) if self.has_root_values[game] else None
            exact_values = None
            if self.has_exact_values[game]:
                exact_values = np.full(len(actions), np.nan, dtype=np.float32)
                game_positions = slice(self.position_offsets[game], self.position_offsets[game + 1])
                exact_values[~is_pass] = np.where(self.exact_mask[game_positions], self.outcomes[game_positions], np.nan)
                exact_values[is_pass] = self.pass_exact_values[pass_row - passes : pass_row]
            position_mask = self.policy_mask[self.position_offsets[game] : self.position_offsets[game + 1]]
            policy_mask = None
            if not position_mask.all():
                policy_mask = np.ones(len(actions), dtype=np.bool_)
                policy_mask[~is_pass] = position_mask
            start = GameState(int(self.start_black[game]), int(self.start_white[game]), bool(self.start_black_to_move[game]))
            records.append(
                GameRecord(
                    start=start,
                    actions=actions,
                    policies=policies,
                    root_values=root_values,
                    black_margin=int(self.black_margin[game]),
                    metadata=dict(game_metadata[game]),
                    exact_values=exact_values,
                    policy_mask=policy_mask,
                )
            )
        return records

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array as stored on disk, metadata and header included, checksum excluded."""
        out = {name: getattr(self, name) for name in _SCHEMA if name not in ("header", "metadata")}
        out.update({name: getattr(self, name) for name in _OPTIONAL})
        out["header"] = np.array([FORMAT_VERSION, self.num_games, self.num_positions, self.num_plies], dtype=np.int64)
        out["metadata"] = np.frombuffer(json.dumps(self.metadata, sort_keys=True).encode("utf-8"), dtype=np.uint8)
        return out


# ----------------------------------------------------------------------------------------------
# Records -> arrays


@njit(cache=True)
def _replay_games(start_player, start_opponent, start_black_to_move, actions, action_offsets, black_margin, num_positions):
    """Replay every game's actions from its start: the positions before its non-pass plies and
    where the game ended, in one pass (the shard's reader checks the stored positions against the
    first, the replay buffer takes the auxiliary targets from the second).

    Args:
      start_player, start_opponent: uint64[G] the side to move's and the other side's discs;
        start_black_to_move: bool[G].
      actions: int16[T] all games' plies, concatenated; action_offsets: int64[G + 1].
      black_margin: int[G] each game's recorded final margin (black's view, empties to the winner).
      num_positions: P, the number of non-pass plies.
    Returns:
      positions uint64[P, 2], ply int16[P];
      final uint64[P, 2]: each position's final board from its side to move's view (the discs at
        the end of the game of the colour to move in the position, then the other colour's);
      complete bool[P]: True where the game's last position is game over and its margin equals
        the game's `black_margin`, i.e. the final board is the true end of the game;
      and (game, ply) of the first illegal action, or (-1, -1).
    """
    positions = np.empty((num_positions, 2), dtype=np.uint64)
    ply = np.empty(num_positions, dtype=np.int16)
    final = np.zeros((num_positions, 2), dtype=np.uint64)
    complete = np.zeros(num_positions, dtype=np.bool_)
    row = 0
    for game in range(len(start_player)):
        player = start_player[game]
        opponent = start_opponent[game]
        first = action_offsets[game]
        last = action_offsets[game + 1]
        game_rows = row
        for t in range(first, last):
            action = np.int64(actions[t])
            if action < 0 or action > PASS or not is_legal(player, opponent, action):
                return positions, ply, final, complete, game, t - first
            if action != PASS:
                positions[row, 0] = player
                positions[row, 1] = opponent
                ply[row] = t - first
                row += 1
            player, opponent = make_move(player, opponent, action)
        # After (last - first) plies the side to move is the starting side when that count is even.
        end_mover_is_start = (last - first) % 2 == 0
        end_mover_is_black = start_black_to_move[game] == end_mover_is_start
        margin = final_margin(player, opponent)
        black = margin if end_mover_is_black else -margin
        ok = is_game_over(player, opponent) and black == black_margin[game]
        for r in range(game_rows, row):
            if (last - first - ply[r]) % 2 == 0:  # the position's mover is the one to move at the end
                final[r, 0] = player
                final[r, 1] = opponent
            else:
                final[r, 0] = opponent
                final[r, 1] = player
            complete[r] = ok
    return positions, ply, final, complete, -1, -1


def _non_pass_plies_before(is_pass: np.ndarray) -> np.ndarray:
    """int64[T + 1]: how many non-pass plies precede each ply index (and the end)."""
    return np.concatenate([[0], np.cumsum(~is_pass)]).astype(np.int64)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"metadata value {value!r} of type {type(value).__name__} is not JSON-serialisable")


def encode_shard(records: list[GameRecord], extra_metadata: dict | None = None) -> ShardData:
    """Turn finished GameRecords into shard arrays; raises ValueError naming the bad record.

    Each record needs `policies` (the search targets) and `black_margin` (the outcome).
    """
    if not records:
        raise ValueError("a shard needs at least one game")
    for index, record in enumerate(records):
        if record.policies is None:
            raise ValueError(f"record {index} has no policies: the replay buffer stores search visit distributions")
        if record.black_margin is None:
            raise ValueError(f"record {index} has no black_margin: only finished games go into the replay buffer")
        if not -64 <= record.black_margin <= 64:
            raise ValueError(f"record {index} has black_margin {record.black_margin}, expected -64..64")
        policies = record.policies
        if not np.isfinite(policies).all() or (policies < 0).any():
            raise ValueError(f"record {index} has a negative or non-finite policy entry")

    lengths = np.array([len(r.actions) for r in records], dtype=np.int64)
    action_offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    actions = np.concatenate([r.actions for r in records]).astype(np.int16)
    is_pass = actions == PASS
    starts = [r.start for r in records]
    start_black = np.array([s.black for s in starts], dtype=np.uint64)
    start_white = np.array([s.white for s in starts], dtype=np.uint64)
    start_black_to_move = np.array([s.black_to_move for s in starts], dtype=np.bool_)
    start_player = np.where(start_black_to_move, start_black, start_white)
    start_opponent = np.where(start_black_to_move, start_white, start_black)

    num_positions = int((~is_pass).sum())
    black_margin = np.array([r.black_margin for r in records], dtype=np.int16)
    positions, ply, final, complete, bad_game, bad_ply = _replay_games(start_player, start_opponent, start_black_to_move, actions,
                                                                       action_offsets, black_margin, num_positions)
    if bad_game >= 0:
        action = int(actions[action_offsets[bad_game] + bad_ply])
        raise ValueError(f"record {bad_game} ply {bad_ply}: action {action} is not legal there")

    position_offsets = _non_pass_plies_before(is_pass)[action_offsets]

    all_policies = np.concatenate([r.policies for r in records]).astype(np.float16)
    game_of_ply = np.repeat(np.arange(len(records)), lengths)
    mover_is_black = start_black_to_move[game_of_ply] ^ ((np.arange(len(actions)) - action_offsets[game_of_ply]) % 2 == 1)
    black_outcome = np.sign(black_margin).astype(np.int8)[game_of_ply]
    outcomes = np.where(mover_is_black, black_outcome, -black_outcome).astype(np.int8)
    exact = np.concatenate(
        [r.exact_values if r.exact_values is not None else np.full(len(r.actions), np.nan, np.float32) for r in records]
    )
    outcomes = np.where(np.isnan(exact), outcomes, np.nan_to_num(exact)).astype(np.int8)[~is_pass]
    exact_mask = ~np.isnan(exact[~is_pass])
    has_exact_values = np.array([r.exact_values is not None for r in records], dtype=np.bool_)
    policy_mask = np.concatenate(
        [r.policy_mask if r.policy_mask is not None else np.ones(len(r.actions), np.bool_) for r in records]
    )[~is_pass]

    has_root_values = np.array([r.root_values is not None for r in records], dtype=np.bool_)
    root_values = np.concatenate(
        [r.root_values if r.root_values is not None else np.full(len(r.actions), np.nan, np.float32) for r in records]
    ).astype(np.float16)

    metadata = dict(extra_metadata or {})
    metadata.update(format=FORMAT_VERSION, created=time.time())
    metadata["games"] = [json.loads(json.dumps(r.metadata, default=_json_default)) for r in records]
    return ShardData(
        positions=positions,
        policies=all_policies[~is_pass],
        outcomes=outcomes,
        ply=ply,
        start_black=start_black,
        start_white=start_white,
        start_black_to_move=start_black_to_move,
        black_margin=black_margin,
        has_root_values=has_root_values,
        action_offsets=action_offsets,
        position_offsets=position_offsets,
        actions=actions,
        root_values=root_values,
        pass_policies=all_policies[is_pass],
        metadata=metadata,
        exact_mask=exact_mask,
        policy_mask=policy_mask,
        has_exact_values=has_exact_values,
        pass_exact_values=exact[is_pass].astype(np.float16),
        final_boards_of_replay=(final, complete),
    )


# ----------------------------------------------------------------------------------------------
# Arrays <-> file


def _checksum(arrays: dict[str, np.ndarray]) -> int:
    """crc32 over every array's name, dtype, shape and bytes, in name order."""
    crc = 0
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        crc = zlib.crc32(f"{name}:{array.dtype.str}:{array.shape};".encode(), crc)
        crc = zlib.crc32(array.data.cast("B") if array.size else b"", crc)
    return crc


def save_shard(path: str | os.PathLike, data: ShardData) -> Path:
    """Write `data` to `path` atomically: `path.tmp`, fsync, rename, fsync the directory.

    Refuses to overwrite an existing shard: shard names are unique by construction, so an
    existing file means two writers share an id.
    """
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"shard {path} already exists; writer ids must be unique")
    arrays = data.arrays()
    arrays[_CHECKSUM] = np.array([_checksum(arrays)], dtype=np.uint32)
    write_atomic(
        path, lambda handle: np.savez_compressed(handle, **arrays),
        temp_path=path.with_name(path.name + TMP_SUFFIX), before_rename=lambda tmp: fault_point("shard_write", tmp),
    )
    data.path = path
    return path


def write_shard(path: str | os.PathLike, records: list[GameRecord], extra_metadata: dict | None = None) -> ShardData:
    """Encode `records` and write them as one shard at `path`; returns what was written."""
    data = encode_shard(records, extra_metadata)
    save_shard(path, data)
    return data


def _load_arrays(path: Path, names, optional=()) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = [name for name in names if name not in archive.files]
            if missing:
                raise ShardError(f"{path}: missing arrays {missing}; found {sorted(archive.files)}")
            return {name: archive[name] for name in list(names) + [n for n in optional if n in archive.files]}
    except ShardError:
        raise
    except FileNotFoundError:
        raise
    except Exception as error:  # zipfile, zlib, numpy format errors: all mean "not a readable shard"
        raise ShardError(f"{path}: unreadable ({type(error).__name__}: {error})") from error


def read_shard_counts(path: str | os.PathLike) -> tuple[int, int]:
    """(games, positions) of a shard from its small header alone, without checking the rest."""
    path = Path(path)
    header = _load_arrays(path, ["header"])["header"]
    if header.shape != (4,) or header.dtype != np.int64 or header[0] != FORMAT_VERSION:
        raise ShardError(f"{path}: header {header!r} is not a version-{FORMAT_VERSION} shard header")
    return int(header[1]), int(header[2])


def _check(condition: bool, path: Path, problem: str) -> None:
    if not condition:
        raise ShardError(f"{path}: {problem}")


def read_shard(path: str | os.PathLike, verify_positions: bool = True) -> ShardData:
    """Load and validate a shard; raises ShardError naming the file and the first problem found.

    Checks the checksum, every array's dtype and shape against the header, offsets, actions in
    0..64, policies finite and non-negative, outcomes in {-1, 0, 1}; with `verify_positions` it
    also replays the games and compares the stored positions (cheap: one numba pass).
    """
    path = Path(path)
    arrays = _load_arrays(path, list(_SCHEMA) + [_CHECKSUM], optional=_OPTIONAL)
    stored_crc = arrays.pop(_CHECKSUM)
    _check(stored_crc.shape == (1,) and stored_crc.dtype == np.uint32, path, f"checksum array has shape {stored_crc.shape}")
    actual_crc = _checksum(arrays)
    _check(int(stored_crc[0]) == actual_crc, path, f"checksum mismatch: stored {int(stored_crc[0]):#010x}, computed {actual_crc:#010x}")

    for name, (dtype, trailing) in _SCHEMA.items():
        array = arrays[name]
        _check(array.dtype == dtype, path, f"array {name!r} has dtype {array.dtype}, expected {np.dtype(dtype)}")
        _check(array.shape[1:] == trailing, path, f"array {name!r} has shape {array.shape}, expected (n, *{trailing})")
    header = arrays["header"]
    _check(header.shape == (4,) and header[0] == FORMAT_VERSION, path, f"header {header.tolist()} is not [{FORMAT_VERSION}, G, P, T]")
    games, num_positions, plies = (int(v) for v in header[1:])
    expected_lengths = {
        "positions": num_positions, "policies": num_positions, "outcomes": num_positions, "ply": num_positions,
        "start_black": games, "start_white": games, "start_black_to_move": games, "black_margin": games,
        "has_root_values": games, "action_offsets": games + 1, "position_offsets": games + 1,
        "actions": plies, "root_values": plies, "pass_policies": plies - num_positions,
    }  # fmt: skip
    rows = {"positions": num_positions, "games": games, "passes": plies - num_positions}
    for name, (dtype, _, axis) in _OPTIONAL.items():
        if name in arrays:
            _check(arrays[name].dtype == dtype and arrays[name].ndim == 1, path, f"array {name!r} has dtype {arrays[name].dtype} and shape {arrays[name].shape}, expected ({rows[axis]},) {np.dtype(dtype)}")
            expected_lengths[name] = rows[axis]
    for name, length in expected_lengths.items():
        _check(len(arrays[name]) == length, path, f"array {name!r} has {len(arrays[name])} rows, header says {length}")

    actions = arrays["actions"]
    out_of_range = actions[(actions < 0) | (actions > PASS)]
    if len(out_of_range):
        raise ShardError(f"{path}: action {int(out_of_range[0])} outside 0..64")
    is_pass = actions == PASS
    _check(int(is_pass.sum()) == plies - num_positions, path, f"{int(is_pass.sum())} passes but {plies - num_positions} pass policies")
    for name, total in (("action_offsets", plies), ("position_offsets", num_positions)):
        offsets = arrays[name]
        _check(offsets[0] == 0 and offsets[-1] == total and bool((np.diff(offsets) >= 0).all()), path, f"{name} not a partition of 0..{total}")
    _check(
        bool((_non_pass_plies_before(is_pass)[arrays["action_offsets"]] == arrays["position_offsets"]).all()),
        path,
        "position_offsets do not match the non-pass plies of each game",
    )
    for name in ("policies", "pass_policies"):
        policy = arrays[name]
        _check(bool(np.isfinite(policy).all() and (policy >= 0).all()), path, f"{name} has negative or non-finite entries")
    _check(bool(np.isin(arrays["outcomes"], (-1, 0, 1)).all()), path, "outcomes outside {-1, 0, 1}")
    _check(bool((np.abs(arrays["black_margin"].astype(np.int64)) <= 64).all()), path, "black_margin outside -64..64")
    try:
        metadata = json.loads(arrays.pop("metadata").tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ShardError(f"{path}: metadata is not UTF-8 JSON ({error})") from error
    _check(isinstance(metadata, dict) and len(metadata.get("games", ())) == games, path, f"metadata does not list {games} games")
    del arrays["header"]
    data = ShardData(metadata=metadata, path=path, **arrays)

    if verify_positions:
        start_player = np.where(data.start_black_to_move, data.start_black, data.start_white)
        start_opponent = np.where(data.start_black_to_move, data.start_white, data.start_black)
        replayed, replayed_ply, final, complete, bad_game, bad_ply = _replay_games(
            start_player, start_opponent, data.start_black_to_move, actions, data.action_offsets, data.black_margin, num_positions)
        if bad_game >= 0:
            action = int(actions[data.action_offsets[bad_game] + bad_ply])
            raise ShardError(f"{path}: game {bad_game} ply {bad_ply}: action {action} is not legal there")
        _check(np.array_equal(replayed, data.positions) and np.array_equal(replayed_ply, data.ply), path, "stored positions differ from the replayed games")
        data.final_boards_of_replay = (final, complete)
    return data


def read_records(path: str | os.PathLike) -> list[GameRecord]:
    """The GameRecords stored in a shard file."""
    return read_shard(path).to_records()
