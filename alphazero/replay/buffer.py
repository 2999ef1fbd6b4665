"""The replay buffer: a directory of shards on disk, a window of the newest positions in memory.

Self-play workers each own a `ShardWriter` and drop whole-game shards into the directory; the
trainer owns a `ReplayBuffer` over the same directory, calls `refresh()` to pick up new shards and
`sample()` to draw training batches. No locks: a shard appears atomically under a name no other
writer can produce, and everything the buffer holds is a function of the files on disk, so a
restarted trainer sees exactly the buffer it left.

Ordering and the window. Shards are ordered by file name, `shard-{seq:010d}-{writer}.npz`, where
`seq` is the writer's clock in microseconds (strictly increasing per writer), so name order is
creation order up to clock skew between processes. The window is the most recent
`window_positions` positions in that order, the oldest shard in it possibly only in part. A shard
that arrives late (a slow writer, a name that sorts before shards already loaded) is inserted in
name order, never appended out of order: that is what makes a fresh buffer over the same files
agree with a long-running one. Positions never re-enter the window once out of it (adding a shard
only adds positions after any given one), so shards that leave are dropped from memory for good.

Counters. `total_games` / `total_positions` count every shard ever admitted, including those that
`prune()` deleted: prune records what it deletes in `pruned.json` (written atomically before any
file goes), and a restart finishes an interrupted prune by deleting the files it lists. A prune
locks the directory and adds to the ledger on disk, not to its own copy, so two buffers pruning
one directory count each shard once.
"""

from __future__ import annotations

import bisect
import contextlib
import fcntl
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alphazero.atomic import fsync_directory, write_json_atomic
from alphazero.othello.bitboard import NUM_ACTIONS
from alphazero.othello.record import GameRecord
from alphazero.othello.symmetry import ACTION_MAP, INVERSE, NUM_SYMMETRIES, transform_positions
from alphazero.replay.shard import TMP_SUFFIX, ShardData, ShardError, read_shard, read_shard_counts, write_shard

log = logging.getLogger(__name__)

SHARD_NAME = re.compile(r"^shard-(\d{10,})-([A-Za-z0-9_]+)\.npz$")
WRITER_ID = re.compile(r"^[A-Za-z0-9_]+$")
QUARANTINE_DIR = "quarantine"
PRUNE_LEDGER = "pruned.json"
DEFAULT_STALE_TMP_SECONDS = 600.0


def shard_name(sequence: int, writer_id: str) -> str:
    return f"shard-{sequence:010d}-{writer_id}.npz"


def list_shards(directory: Path) -> list[str]:
    """Names of the complete shards in `directory`, in order (`.tmp` files are never listed)."""
    try:
        names = [entry.name for entry in os.scandir(directory) if entry.is_file()]
    except FileNotFoundError:
        return []
    return sorted(name for name in names if SHARD_NAME.match(name))


def remove_stale_tmp_files(directory: Path, older_than_seconds: float) -> list[Path]:
    """Delete `*.tmp` files left by writers that crashed mid-write.

    Only files older than `older_than_seconds` go: a younger one may belong to a live writer
    that is about to rename it (a shard write takes well under a second).
    """
    removed = []
    now = time.time()
    for entry in os.scandir(directory):
        if entry.name.endswith(TMP_SUFFIX) and entry.is_file():
            try:
                if now - entry.stat().st_mtime >= older_than_seconds:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
            except FileNotFoundError:
                pass
    if removed:
        log.info("removed %d stale temporary file(s) from %s: %s", len(removed), directory, [p.name for p in removed])
    return removed


class ReplayDirectoryError(ValueError):
    """A replay directory that cannot hold shards: it, or its `quarantine/`, is not a directory."""


def _make_replay_directory(directory: Path) -> None:
    """Create `directory` (and parents) unless it is there; refuse, naming it, a file in the way
    of it or of its `quarantine/` (found now rather than at the first unreadable shard, mid-run)."""
    for path in (directory, directory / QUARANTINE_DIR):
        if path.exists() and not path.is_dir():
            raise ReplayDirectoryError(
                f"{path} is a file, not a directory: the replay buffer keeps its shards there (unreadable ones in "
                f"{QUARANTINE_DIR}/); move the file away"
            )
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ReplayDirectoryError(f"replay directory {directory} cannot be created: a file is in the way on its path") from None


def _checked_writer_id(writer_id) -> str:
    writer_id = str(writer_id)
    if not WRITER_ID.match(writer_id):
        raise ValueError(f"writer id {writer_id!r} must be letters, digits or '_' (it becomes part of shard file names)")
    return writer_id


class ShardWriter:
    """Writes shards into `directory` under one writer id; one per self-play process.

    Sequence numbers are the wall clock in microseconds, bumped past the writer's previous shard
    when the clock stalls or steps back, so (sequence, writer id) is unique without any lock as
    long as writer ids are unique among live processes. A writer starting up deletes its own
    leftover `.tmp` files: with its id, nobody else can be writing them.
    """

    def __init__(self, directory: str | os.PathLike, writer_id):
        self.directory = Path(directory)
        self.writer_id = _checked_writer_id(writer_id)
        _make_replay_directory(self.directory)
        self._last_sequence = 0
        for name in os.listdir(self.directory):
            base = name[: -len(TMP_SUFFIX)] if name.endswith(TMP_SUFFIX) else name
            match = SHARD_NAME.match(base)
            if match and match.group(2) == self.writer_id:
                if name.endswith(TMP_SUFFIX):
                    (self.directory / name).unlink(missing_ok=True)
                else:
                    self._last_sequence = max(self._last_sequence, int(match.group(1)))

    def next_path(self) -> Path:
        self._last_sequence = max(time.time_ns() // 1000, self._last_sequence + 1)
        return self.directory / shard_name(self._last_sequence, self.writer_id)

    def write(self, records: list[GameRecord], extra_metadata: dict | None = None) -> ShardData:
        """Write `records` as one new shard; returns its data (with `.path` set)."""
        metadata = {"writer": self.writer_id, **(extra_metadata or {})}
        return write_shard(self.next_path(), records, metadata)


@dataclass
class Batch:
    """A training batch. positions: uint64[n, 2] (player, opponent); policies: float32[n, 65]
    summing to 1; values: float32[n], the value target for the side to move: the final result
    in {-1, 0, 1} (or the position's exact result), blended with the root search value when
    the buffer's `value_target_q_weight` > 0; symmetries: int64[n], the symmetry applied to each
    sample (0 = none); policy_mask: bool[n], False where the policy is no training target (the
    trainer skips its policy loss; None = every row has one); final_boards: uint64[n, 2], the
    game's final board from the side to move's view (its discs, then the opponent's), under the
    same symmetry as the position: the auxiliary score and ownership targets
    (alphazero.nn.auxiliary); aux_mask: bool[n], False where the final board is not the true end
    of the game (no auxiliary target; None = every row has one)."""

    positions: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    symmetries: np.ndarray
    policy_mask: np.ndarray | None = None
    final_boards: np.ndarray | None = None
    aux_mask: np.ndarray | None = None


@dataclass
class _Shard:
    """A shard the buffer knows of. `row` is the logical storage row of its first position while
    any of its positions are in memory, else NOT_LOADED."""

    NOT_LOADED = -1

    name: str
    num_games: int
    num_positions: int
    row: int = NOT_LOADED


# The per-row columns the buffer keeps in memory: name -> (dtype, trailing shape).
_COLUMNS = {
    "positions": (np.uint64, (2,)),
    "policies": (np.float16, (NUM_ACTIONS,)),
    "outcomes": (np.int8, ()),
    # The root search value q (side to move's view) for value targets that blend z and q: the
    # exact result where the position has one, the outcome where the game has no root values.
    "q_values": (np.float16, ()),
    # False where the row's policy is no training target (playout cap randomisation).
    "policy_mask": (np.bool_, ()),
    # The game's final board from the side to move's view (the auxiliary score and ownership
    # targets; 16 bytes a row), and whether it is the true end of the game (ShardData.position_final_boards).
    "final_boards": (np.uint64, (2,)),
    "aux_mask": (np.bool_, ()),
}


def _shard_columns(data: ShardData) -> dict[str, np.ndarray]:
    """The buffer's columns of every position of a shard."""
    q = data.position_root_values()
    q = np.where(data.exact_mask | np.isnan(q), data.outcomes.astype(np.float32), q)
    final_boards, complete = data.position_final_boards()
    return {"positions": data.positions, "policies": data.policies, "outcomes": data.outcomes,
            "q_values": q.astype(np.float16), "policy_mask": data.policy_mask,
            "final_boards": final_boards, "aux_mask": complete}


class _Rows:
    """Training samples of the newest shards, concatenated in shard-name order.

    Logical row r lives at index r - base of the arrays. Rows are appended at the end and dropped
    at the front only, so logical rows stay valid; the arrays are compacted (and grown) when
    appending would run past their end.
      columns: name -> array [capacity, ...] for each of `_COLUMNS` (positions uint64[., 2],
        policies float16[., 65], outcomes int8[.], q_values float16[.])
      begin, end: the logical rows held, [begin, end)
    """

    def __init__(self, first_row: int = 0):
        self.base = self.begin = self.end = first_row
        self.columns = {name: np.empty((0, *shape), dtype=dtype) for name, (dtype, shape) in _COLUMNS.items()}

    def __len__(self) -> int:
        return self.end - self.begin

    @property
    def positions(self) -> np.ndarray:
        return self.columns["positions"]

    @property
    def policies(self) -> np.ndarray:
        return self.columns["policies"]

    @property
    def outcomes(self) -> np.ndarray:
        return self.columns["outcomes"]

    def append(self, columns: dict[str, np.ndarray]) -> int:
        """Append rows (one array per column); returns the logical row of the first one."""
        count = len(columns["outcomes"])
        if self.end - self.base + count > len(self.columns["outcomes"]):
            self._reallocate(max(2 * (len(self) + count), 1024))
        start = self.end - self.base
        for name, array in self.columns.items():
            array[start : start + count] = columns[name]
        first = self.end
        self.end += count
        return first

    def take(self, first: int, last: int) -> dict[str, np.ndarray]:
        """The columns of logical rows [first, last) (views)."""
        held = self.physical(first, last)
        return {name: array[held] for name, array in self.columns.items()}

    def drop_before(self, row: int) -> None:
        self.begin = max(self.begin, min(row, self.end))

    def physical(self, first: int, last: int) -> slice:
        return slice(first - self.base, last - self.base)

    def _reallocate(self, capacity: int) -> None:
        held = self.physical(self.begin, self.end)
        count = len(self)
        for name, (dtype, shape) in _COLUMNS.items():
            array = np.empty((capacity, *shape), dtype=dtype)
            array[:count] = self.columns[name][held]
            self.columns[name] = array
        self.base = self.begin


class ReplayBuffer:
    """The trainer's view of a shard directory: counters, the window, uniform sampling.

    Args:
      directory: where shards live (created if missing), with `quarantine/` for bad ones.
      window_positions: K, how many of the most recent positions `sample` draws from.
      min_positions_to_sample: `sample` refuses to draw until the window holds this many.
      stale_tmp_seconds: `.tmp` files older than this are deleted on start (crashed writers).
      scan: load the shards already on disk now (`refresh()`); False suits a process that only
        writes (a self-play worker: `add_games` with a tiny window), and sees only its own shards.
      value_target_q_weight: w in [0, 1]; a sample's value target is (1 - w) * z + w * q, z the
        game's result and q the root search value, both from the side to move's view; an exact
        result (endgame solver) replaces both, and a game without root values uses z. 0 = z.
    Call `refresh()` to see shards written by other processes since.
    """

    def __init__(
        self,
        directory: str | os.PathLike,
        window_positions: int,
        min_positions_to_sample: int = 1,
        stale_tmp_seconds: float = DEFAULT_STALE_TMP_SECONDS,
        scan: bool = True,
        value_target_q_weight: float = 0.0,
    ):
        if not 0.0 <= value_target_q_weight <= 1.0:
            raise ValueError(f"value_target_q_weight must be in [0, 1], got {value_target_q_weight}")
        if window_positions <= 0:
            raise ValueError(f"window_positions must be positive, got {window_positions}")
        if min_positions_to_sample > window_positions:
            raise ValueError(f"min_positions_to_sample {min_positions_to_sample} exceeds window_positions {window_positions}")
        self.directory = Path(directory)
        self.window_positions = int(window_positions)
        self.value_target_q_weight = float(value_target_q_weight)
        self.min_positions_to_sample = max(1, int(min_positions_to_sample))
        self.quarantine_dir = self.directory / QUARANTINE_DIR
        _make_replay_directory(self.directory)
        self._shards: list[_Shard] = []  # every known shard on disk, in name order
        self._names: list[str] = []  # their names, for bisect
        self._rows = _Rows()
        self._ignored: set[str] = set()  # quarantined or pruned names
        self._writers: dict[str, ShardWriter] = {}
        self._pruned = {"games": 0, "positions": 0, "shards": 0, "last_pruned": []}
        remove_stale_tmp_files(self.directory, stale_tmp_seconds)
        self._load_prune_ledger()
        if scan:
            self.refresh()

    # ------------------------------------------------------------------ counters

    @property
    def total_games(self) -> int:
        """Games in every shard ever admitted, pruned ones included."""
        return self._pruned["games"] + sum(s.num_games for s in self._shards)

    @property
    def total_positions(self) -> int:
        return self._pruned["positions"] + sum(s.num_positions for s in self._shards)

    @property
    def window_size(self) -> int:
        """Positions `sample` currently draws from: min(K, positions on disk)."""
        return len(self._rows)

    @property
    def num_shards(self) -> int:
        return len(self._shards)

    @property
    def ready(self) -> bool:
        return self.window_size >= self.min_positions_to_sample

    def state_dict(self) -> dict:
        """A JSON-able summary that pins the buffer's contents: a buffer restarted over the same
        directory returns an equal dict (store it with a checkpoint to check a resume)."""
        window = [s for s in self._shards if s.row != _Shard.NOT_LOADED]
        return {
            "directory": str(self.directory),
            "window_positions": self.window_positions,
            "total_games": self.total_games,
            "total_positions": self.total_positions,
            "num_shards": self.num_shards,
            "window_size": self.window_size,
            "window_shards": [s.name for s in window],
            "first_window_shard_skipped_positions": (self._rows.begin - window[0].row) if window else 0,
        }

    # ------------------------------------------------------------------ adding and loading

    def add_games(self, records: list[GameRecord], writer_id, extra_metadata: dict | None = None) -> Path:
        """Write `records` as a new shard (atomically) and admit it; returns the shard's path."""
        writer_id = _checked_writer_id(writer_id)
        if writer_id not in self._writers:
            self._writers[writer_id] = ShardWriter(self.directory, writer_id)
        data = self._writers[writer_id].write(records, extra_metadata)
        self._admit([(data.path.name, data.num_games, data.num_positions, data)])
        return data.path

    def refresh(self) -> int:
        """Scan the directory for shards not seen yet and admit them; returns how many.

        New shards are read newest first: one whose name sorts before K positions of newer
        shards cannot enter the window, so only its header is read (for the counters). A shard
        that fails to read is moved to `quarantine/` with a warning, never raised.
        """
        known = set(self._names)
        new_names = [n for n in list_shards(self.directory) if n not in known and n not in self._ignored]
        if not new_names:
            return 0
        suffix_positions = np.cumsum([s.num_positions for s in reversed(self._shards)])[::-1].tolist() + [0]
        admitted = []
        newer_new_positions = 0
        for name in sorted(new_names, reverse=True):
            newer_known = suffix_positions[bisect.bisect_right(self._names, name)]
            path = self.directory / name
            try:
                if newer_known + newer_new_positions >= self.window_positions:
                    games, positions = read_shard_counts(path)
                    data = None
                else:
                    data = read_shard(path)
                    games, positions = data.num_games, data.num_positions
            except FileNotFoundError:
                continue  # pruned or quarantined by another process since the listing
            except ShardError as error:
                self._quarantine(path, error)
                continue
            admitted.append((name, games, positions, data))
            newer_new_positions += positions
        self._admit(admitted)
        return len(admitted)

    def _admit(self, shards: list[tuple[str, int, int, ShardData | None]]) -> None:
        """Insert shards (name, games, positions, data or None when outside the window) in name order."""
        if not shards:
            return
        shards = sorted(shards, key=lambda item: item[0])
        if self._names and shards[0][0] < self._names[-1]:
            self._insert_out_of_order(shards)
            return
        for name, games, positions, data in shards:
            shard = _Shard(name, games, positions)
            if data is not None:
                shard.row = self._rows.append(_shard_columns(data))
            self._shards.append(shard)
            self._names.append(name)
        self._trim_window()

    def _insert_out_of_order(self, shards) -> None:
        """Slow path for late shards: rebuild the window rows from memory in the merged order.

        Every row the new window needs is in memory: shards only ever leave the window, and a
        new shard read header-only lies outside it by construction (see `refresh`).
        """
        new_data = {name: data for name, _, _, data in shards}
        merged = sorted(self._shards + [_Shard(name, games, positions) for name, games, positions, _ in shards], key=lambda s: s.name)
        pieces = []  # (shard, columns): the newest rows of each shard, newest shard first
        needed = self.window_positions
        for shard in reversed(merged):
            take = min(needed, shard.num_positions)
            needed -= take
            if shard.name in new_data:
                data = new_data[shard.name]
                if take and data is None:
                    raise AssertionError(f"{shard.name} was read header-only but falls inside the window")
                if take:
                    pieces.append((shard, {name: column[-take:] for name, column in _shard_columns(data).items()}))
            elif take:
                last = shard.row + shard.num_positions
                if shard.row == _Shard.NOT_LOADED or last - take < self._rows.begin:
                    raise AssertionError(f"rows of {shard.name} left memory but are back in the window")
                pieces.append((shard, self._rows.take(last - take, last)))
            shard.row = _Shard.NOT_LOADED
        oldest_skipped = pieces[-1][0].num_positions - len(pieces[-1][1]["outcomes"]) if pieces else 0
        rows = _Rows(first_row=oldest_skipped)  # so that the oldest shard's first (dropped) row is 0
        for shard, columns in reversed(pieces):
            shard.row = rows.append(columns) - (shard.num_positions - len(columns["outcomes"]))
        self._rows = rows
        self._shards = merged
        self._names = [s.name for s in merged]
        self._trim_window()

    def _trim_window(self) -> None:
        """Drop rows (and forget shards) older than the newest K positions."""
        window_begin = self._rows.end - self.window_positions
        self._rows.drop_before(window_begin)
        for shard in self._shards:
            if shard.row != _Shard.NOT_LOADED and shard.row + shard.num_positions <= self._rows.begin:
                shard.row = _Shard.NOT_LOADED

    def _quarantine(self, path: Path, error: Exception) -> None:
        self.quarantine_dir.mkdir(exist_ok=True)
        target = self.quarantine_dir / path.name
        try:
            os.replace(path, target)
            fsync_directory(self.quarantine_dir)
            fsync_directory(self.directory)
            log.warning("quarantined replay shard %s -> %s: %s", path, target, error)
        except FileNotFoundError:
            log.warning("replay shard %s is unreadable (%s) and vanished before it could be quarantined", path, error)
        self._ignored.add(path.name)

    # ------------------------------------------------------------------ sampling

    def sample(self, batch_size: int, rng: np.random.Generator, augment: bool = True) -> Batch:
        """`batch_size` positions drawn uniformly (with replacement) from the window; with
        `augment`, each gets one of the 8 board symmetries at random, applied to the position
        and its policy alike, and to the final board (the auxiliary targets)."""
        if not self.ready:
            raise ValueError(
                f"replay window in {self.directory} holds {self.window_size} positions, fewer than "
                f"min_positions_to_sample={self.min_positions_to_sample}; add games or refresh() first"
            )
        rows = rng.integers(self._rows.begin - self._rows.base, self._rows.end - self._rows.base, size=batch_size)
        positions = self._rows.positions[rows]
        final_boards = self._rows.columns["final_boards"][rows]
        policies = self._rows.policies[rows].astype(np.float32)
        policies /= np.maximum(policies.sum(axis=1, keepdims=True), np.float32(1e-12))
        values = self._rows.outcomes[rows].astype(np.float32)
        if self.value_target_q_weight > 0.0:
            w = np.float32(self.value_target_q_weight)
            values = (1 - w) * values + w * self._rows.columns["q_values"][rows].astype(np.float32)
        if augment:
            symmetries = rng.integers(0, NUM_SYMMETRIES, size=batch_size)
            positions = transform_positions(positions, symmetries)
            final_boards = transform_positions(final_boards, symmetries)
            # out[s(a)] = in[a], i.e. out[b] = in[s^-1(b)]: a gather, so one vectorised call.
            policies = np.take_along_axis(policies, ACTION_MAP[INVERSE[symmetries]], axis=1)
        else:
            symmetries = np.zeros(batch_size, dtype=np.int64)
        policy_mask = self._rows.columns["policy_mask"][rows]
        aux_mask = self._rows.columns["aux_mask"][rows]
        return Batch(positions=positions, policies=policies, values=values, symmetries=symmetries, policy_mask=policy_mask,
                     final_boards=final_boards, aux_mask=aux_mask)

    # ------------------------------------------------------------------ pruning

    def prune(self, keep_positions: int | None = None) -> list[Path]:
        """Delete shards that lie entirely outside the newest `keep_positions` positions
        (default: the window); returns the deleted paths. The counters keep counting them."""
        keep = self.window_positions if keep_positions is None else int(keep_positions)
        if keep < self.window_positions:
            raise ValueError(f"keep_positions {keep} is smaller than the window ({self.window_positions}): pruning would change the window")
        newer = 0
        cut = len(self._shards)
        for index in range(len(self._shards) - 1, -1, -1):
            if newer >= keep:
                break
            newer += self._shards[index].num_positions
            cut = index
        doomed, kept = self._shards[:cut], self._shards[cut:]
        if not doomed:
            return []
        self._shards, self._names = kept, [s.name for s in kept]
        self._ignored.update(s.name for s in doomed)
        with _directory_lock(self.directory):
            self._catch_up_with_ledger()
            # A doomed shard already gone was pruned (and counted in the ledger) or quarantined by
            # another process over this directory since this one listed it: not ours to count.
            doomed = [s for s in doomed if (self.directory / s.name).exists()]
            if not doomed:
                return []
            self._pruned = {
                "games": self._pruned["games"] + sum(s.num_games for s in doomed),
                "positions": self._pruned["positions"] + sum(s.num_positions for s in doomed),
                "shards": self._pruned["shards"] + len(doomed),
                "last_pruned": [s.name for s in doomed],
            }
            self._write_prune_ledger()
            removed = []
            for shard in doomed:
                path = self.directory / shard.name
                path.unlink(missing_ok=True)
                removed.append(path)
            fsync_directory(self.directory)
        return removed

    def _catch_up_with_ledger(self) -> None:
        """Take the counts from the ledger on disk (finishing its deletes), not from this buffer's
        copy: another buffer over the directory may have pruned since, and adding to a stale copy
        would drop its shards from the counters for good. Called with the directory locked. A
        ledger damaged since this buffer read it is rewritten from this buffer's copy, not obeyed."""
        if not (self.directory / PRUNE_LEDGER).exists():
            return
        try:
            self._load_prune_ledger()
        except PruneLedgerError as error:
            log.warning("%s; rewriting it from this buffer's counts", error)

    def _write_prune_ledger(self) -> None:
        path = self.directory / PRUNE_LEDGER
        write_json_atomic(path, self._pruned, indent=None, temp_path=path.with_name(path.name + TMP_SUFFIX))

    def _load_prune_ledger(self) -> None:
        """Read the pruned counts and finish a prune that was interrupted between ledger and unlink."""
        path = self.directory / PRUNE_LEDGER
        if not path.exists():
            return
        self._pruned = read_prune_ledger(path)
        for name in self._pruned["last_pruned"]:
            (self.directory / name).unlink(missing_ok=True)
        self._ignored.update(self._pruned["last_pruned"])


@contextlib.contextmanager
def _directory_lock(directory: Path):
    """An exclusive flock on `directory` itself, held by a prune from reading the ledger to its
    last unlink, so two buffers pruning one directory count each shard once."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class PruneLedgerError(ValueError):
    """A `pruned.json` that is not a ledger this buffer wrote: refused rather than guessed at,
    because its counts feed `total_games` / `total_positions` and its names are files to delete."""


_LEDGER_COUNTS = ("games", "positions", "shards")


def read_prune_ledger(path: Path) -> dict:
    """The ledger at `path`, checked: non-negative integer counts, and `last_pruned` naming only
    shard files (a damaged name such as `../x` or `notes.txt` must never reach `unlink`).
    Raises PruneLedgerError naming the file and the problem."""
    expected = "expected JSON with games, positions, shards (integers >= 0) and last_pruned (shard file names)"
    try:
        ledger = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PruneLedgerError(f"{path}: not a prune ledger ({error}); {expected}") from None
    if not isinstance(ledger, dict):
        raise PruneLedgerError(f"{path}: not a prune ledger (a JSON {type(ledger).__name__}, not an object); {expected}")
    missing = [key for key in (*_LEDGER_COUNTS, "last_pruned") if key not in ledger]
    if missing:
        raise PruneLedgerError(f"{path}: not a prune ledger (no {', '.join(missing)}); {expected}")
    for key in _LEDGER_COUNTS:
        value = ledger[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PruneLedgerError(f"{path}: not a prune ledger ({key} is {value!r}); {expected}")
    names = ledger["last_pruned"]
    if not isinstance(names, list) or not all(isinstance(name, str) and SHARD_NAME.match(name) for name in names):
        raise PruneLedgerError(f"{path}: not a prune ledger (last_pruned {str(names)[:200]} is not a list of shard file names); {expected}")
    return {key: ledger[key] for key in (*_LEDGER_COUNTS, "last_pruned")}
