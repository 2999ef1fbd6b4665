"""The supervised training set built from WTHOR: (position, expert move, outcome, margin) rows,
stored as memory-mapped `.npy` files in a directory with a `manifest.json`.

One row per decision of a usable WTHOR game (see `alphazero.data.wthor` for which games are
usable and how unfinished games are treated: their outcome is the recorded score):

  positions  uint64[N, 2]  (player, opponent) bitboards, the side to move first
  moves      uint8[N]      the square the expert played (0..63; never a pass)
  values     float32[N]    outcome from the side to move's view: +1 win, 0 draw, -1 loss
                           (with `dedup`, the mean over the merged occurrences)
  margins    float32[N]    final disc margin from the side to move's view / 64, in [-1, 1]
                           (empties to the winner; the mean over merged occurrences with `dedup`)
  counts     uint32[N]     how many game positions the row stands for (1 without `dedup`)
  game       int32[N]      the row's game: a row of `game_actions.npy` (with `dedup`: of its first
                           occurrence in database order)
  ply        uint8[N]      index of the row's decision in that game's actions

with `dedup` also the occurrences each row stands for (version 3), in row order, `counts[i]` of
them for row i:

  occurrence_game  int32[sum(counts)]  the game of each occurrence
  occurrence_ply   uint8[sum(counts)]  the index of its decision in that game

and, shared by the splits, `game_actions.npy` uint8[G, MAX_PLIES]: every game of the database
with explicit passes (64), 255 after its end. `history(split, rows, K)` turns (game, ply) into the
previous K actions that history-reading networks (model=seed_cnn_rnn) take; 5 bytes a row and
7 MB for the table, so it is always built.

KataGo's auxiliary targets (alphazero.nn.auxiliary: the final score and the final ownership, from
the side to move's view) are not stored: `SupervisedSplit.final_boards` gives each row's final
boards at batch time from each occurrence's game, replayed to its end once when the dataset is
loaded (`game_final_boards`, ~0.2 s for the whole database), and alphazero.pretrain.batches
turns them into targets. A row's final board is its game's last board, the colour to move in the
row's position first (black moves at even plies: passes are explicit in the actions). A row merged by `dedup` averages over its occurrences: the score target
is the distribution of their final scores, the ownership target the mean of their ownerships
(the losses are linear in the target, so this is the loss the un-merged rows would give). An
unfinished game's last board is not its end: its score target is the recorded score (which
`wthor` has checked equals the count where the record stops, so it is even) and its ownership is
unknown (masked out).

Decisions made here, on purpose:
- Forced passes are skipped: the side to move had no choice, so there is no move to predict.
- One orientation is stored. Symmetry augmentation (the 8 board symmetries) is applied by the
  trainer at sampling time (`alphazero.othello.symmetry`), which keeps the files 8x smaller and
  lets every epoch see fresh orientations.
- Train and validation are split by year (`split="year"`, default: 2018 validates, everything
  else trains), so validation games are never seen in training, though common opening positions
  occur in both. `split="random5"` is the protocol of Liskowski et al. 2018 as we read it:
  de-duplicate over the whole database (`dedup` implied: one row per (position, move)), then hold
  out a random 5% of the distinct positions (seed `split_seed`), all rows of a held-out position
  together, so no position is in both splits. Identity is exact, not up to symmetry.
- `dedup` merges identical (position, move) rows within a split (exact match, not up to
  symmetry), averaging their outcomes and margins and recording the count.
- `winner_moves_only` keeps the moves of the side that did not lose (a draw keeps both sides).

The manifest records the format version, the options and a fingerprint (name, size, sha256) of
every input `.wtb` file; `ensure_dataset` rebuilds only when one of them changed. Array files are
written to temporary names and renamed, and the manifest is written last (also atomically) and
removed first on a rebuild, so a directory with a manifest always holds a complete dataset.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from alphazero.atomic import write_atomic
from alphazero.data.wthor import WthorReplay, read_wthor_directory, replay_database, wtb_paths
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, legal_moves, make_move
from alphazero.othello.history import history_windows

log = logging.getLogger(__name__)

FORMAT = "alphazero-wthor-supervised"
# 2: game/ply per row and game_actions.npy (the move history); 1 is read without them.
# 3: with dedup, each row's occurrences (the auxiliary targets' average); 2 is read without
#    auxiliary targets (and rebuilt by ensure_dataset).
VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
MANIFEST = "manifest.json"
SPLITS = ("train", "validation")
SPLIT_KINDS = ("year", "random5")
RANDOM_HOLDOUT = 0.05
MARGIN_SCALE = 64.0
GAME_ACTIONS = "game_actions.npy"
NO_ACTION = 255  # game_actions after a game's end
ARRAY_DTYPES = {
    "positions": np.uint64,
    "moves": np.uint8,
    "values": np.float32,
    "margins": np.float32,
    "counts": np.uint32,
    "game": np.int32,
    "ply": np.uint8,
}
HISTORY_ARRAYS = ("game", "ply")  # absent from version-1 datasets
OCCURRENCE_DTYPES = {"occurrence_game": np.int32, "occurrence_ply": np.uint8}  # dedup, version 3
AUXILIARY_VERSION = 3  # the first version whose rows all lead to their occurrences' final boards


@dataclass(frozen=True)
class DatasetOptions:
    """What goes into the dataset; part of the manifest (a change triggers a rebuild).

    years:              only games of these years (None: every year present).
    validation_years:   years whose games form the validation split.
    winner_moves_only:  keep only the moves of the side that did not lose (draws keep both).
    dedup:              merge identical (position, move) rows within each split.
    include_unfinished: keep usable games that stop before the end (outcome = recorded score).
    split:              "year" (validation_years validate) or "random5" (module doc; implies
                        dedup, ignores validation_years).
    split_seed:         the seed of the random5 hold-out.
    """

    years: tuple[int, ...] | None = None
    validation_years: tuple[int, ...] = (2018,)
    winner_moves_only: bool = False
    dedup: bool = False
    include_unfinished: bool = True
    split: str = "year"
    split_seed: int = 0

    def __post_init__(self):
        if self.split not in SPLIT_KINDS:
            raise ValueError(f"dataset split must be one of {', '.join(SPLIT_KINDS)}, got {self.split!r}")
        if self.split == "random5":
            object.__setattr__(self, "dedup", True)
        # Normalise so that options compare equal to their manifest (JSON) form.
        if self.years is not None:
            object.__setattr__(self, "years", tuple(sorted(int(y) for y in self.years)))
        object.__setattr__(self, "validation_years", tuple(sorted(int(y) for y in self.validation_years)))

    def to_json(self) -> dict:
        out = asdict(self)
        out["years"] = list(self.years) if self.years is not None else None
        out["validation_years"] = list(self.validation_years)
        return out


@njit(cache=True)
def game_final_boards(game_actions):
    """Replay every game of a `game_actions` table (uint8[G, T], explicit passes, NO_ACTION after
    the end) to its last recorded action.

    Returns black uint64[G] and white uint64[G], the discs of each colour on that last board, and
    finished bool[G], whether neither side can move there (the game's true end; an unfinished
    WTHOR game stops earlier)."""
    count = game_actions.shape[0]
    black = np.empty(count, dtype=np.uint64)
    white = np.empty(count, dtype=np.uint64)
    finished = np.empty(count, dtype=np.bool_)
    for g in range(count):
        player, opponent = START_BLACK, START_WHITE
        black_to_move = True
        for t in range(game_actions.shape[1]):
            action = game_actions[g, t]
            if action == NO_ACTION:
                break
            player, opponent = make_move(player, opponent, np.int64(action))
            black_to_move = not black_to_move
        black[g] = player if black_to_move else opponent
        white[g] = opponent if black_to_move else player
        finished[g] = legal_moves(player, opponent) == 0 and legal_moves(opponent, player) == 0
    return black, white, finished


@dataclass(frozen=True)
class GameFinals:
    """Every game's last board (`game_final_boards`), shared by the splits of a dataset."""

    black: np.ndarray
    white: np.ndarray
    finished: np.ndarray

    @classmethod
    def of(cls, game_actions: np.ndarray) -> "GameFinals":
        return cls(*game_final_boards(np.ascontiguousarray(game_actions)))

    def from_side_to_move(self, game: np.ndarray, ply: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(final boards uint64[n, 2] of the decisions (game, ply) from the side to move's view:
        the final discs of the colour to move at that ply, then the other colour's; finished
        bool[n]). Black moves at even plies (passes are explicit)."""
        game = np.asarray(game, dtype=np.int64)
        black_to_move = (np.asarray(ply) % 2) == 0
        black, white = self.black[game], self.white[game]
        boards = np.stack([np.where(black_to_move, black, white), np.where(black_to_move, white, black)], axis=1)
        return boards, self.finished[game]


@dataclass
class OccurrenceFinals:
    """The final boards behind a set of rows, one per occurrence (a row merged by dedup has
    several; any other row one, its own decision).

    boards:   uint64[m, 2] each occurrence's final board from its side to move's view (the final
              discs of the colour to move in the row's position, then the other colour's).
    finished: bool[m] whether that board is the game's end (False: an unfinished WTHOR game, whose
              board is where the record stops and whose recorded score is that board's count).
    row:      int64[m] which of the asked rows each occurrence belongs to (nondecreasing; every
              row has at least one).
    """

    boards: np.ndarray
    finished: np.ndarray
    row: np.ndarray


@dataclass
class SupervisedSplit:
    """One split's arrays (memory-mapped when loaded with mmap=True); shapes in the module doc."""

    positions: np.ndarray
    moves: np.ndarray
    values: np.ndarray
    margins: np.ndarray
    counts: np.ndarray
    game: np.ndarray | None = None  # None in a version-1 dataset
    ply: np.ndarray | None = None
    game_actions: np.ndarray | None = None  # the dataset's shared table
    occurrence_game: np.ndarray | None = None  # with dedup (version 3): the occurrences of the rows
    occurrence_ply: np.ndarray | None = None
    occurrence_start: np.ndarray | None = None  # int64[N]: row i's first occurrence (cumulated counts)
    finals: GameFinals | None = None  # every game's last board (version 3)

    def __len__(self) -> int:
        return len(self.moves)

    def final_boards(self, rows: np.ndarray) -> OccurrenceFinals:
        """The final boards of `rows`' occurrences (module doc: each occurrence's game replayed to
        its last recorded action); alphazero.pretrain.batches turns them into the targets."""
        if self.finals is None:
            raise ValueError(
                f"this dataset (version < {AUXILIARY_VERSION}) has no auxiliary targets; rebuild it (version {VERSION}) to train "
                "networks with a score or ownership head (model.score_head / model.ownership_head)"
            )
        rows = np.asarray(rows, dtype=np.int64)
        if self.occurrence_game is None:  # one occurrence per row: the row's own decision
            boards, finished = self.finals.from_side_to_move(self.game[rows], self.ply[rows])
            return OccurrenceFinals(boards, finished, np.arange(len(rows)))
        counts = np.asarray(self.counts[rows], dtype=np.int64)
        owner = np.repeat(np.arange(len(rows)), counts)
        first = np.cumsum(counts) - counts
        index = np.repeat(self.occurrence_start[rows], counts) + (np.arange(len(owner)) - first[owner])
        boards, finished = self.finals.from_side_to_move(self.occurrence_game[index], self.occurrence_ply[index])
        return OccurrenceFinals(boards, finished, owner)

    def history(self, rows: np.ndarray, length: int) -> np.ndarray:
        """uint8[len(rows), length]: the `length` actions before each row's position, oldest
        first, HISTORY_PAD before the game's first move (alphazero.othello.history)."""
        if self.game is None or self.game_actions is None:
            raise ValueError(f"this dataset (version 1) has no move history; rebuild it (version {VERSION}) to train or score a history-reading network")
        return history_windows(self.game_actions, np.asarray(self.game[rows]), np.asarray(self.ply[rows]), length)


@dataclass
class SupervisedDataset:
    directory: Path
    manifest: dict
    splits: dict[str, SupervisedSplit] = field(default_factory=dict)

    @property
    def train(self) -> SupervisedSplit:
        return self.splits["train"]

    @property
    def validation(self) -> SupervisedSplit:
        return self.splits["validation"]


@njit(cache=True)
def expand_positions(actions, num_plies, black_margin, selected):
    """Every decision of the selected games as rows (forced passes skipped).

    Args:
      actions:      int16[G, T] games with explicit passes (as from `wthor.replay_games`).
      num_plies:    int16[G] valid plies per game.
      black_margin: int8[G] final black margin per game.
      selected:     bool[G] which games to expand.
    Returns:
      positions uint64[N, 2] (player, opponent), moves uint8[N], side-to-move margins int8[N],
      game int32[N] the source game of each row.
    """
    total = 0
    for g in range(actions.shape[0]):
        if selected[g]:
            for t in range(num_plies[g]):
                if actions[g, t] != PASS:
                    total += 1
    positions = np.empty((total, 2), dtype=np.uint64)
    moves = np.empty(total, dtype=np.uint8)
    margins = np.empty(total, dtype=np.int8)
    games = np.empty(total, dtype=np.int32)
    row = 0
    for g in range(actions.shape[0]):
        if not selected[g]:
            continue
        player, opponent = START_BLACK, START_WHITE
        black_to_move = True
        for t in range(num_plies[g]):
            action = actions[g, t]
            if action != PASS:
                positions[row, 0] = player
                positions[row, 1] = opponent
                moves[row] = action
                margins[row] = black_margin[g] if black_to_move else -black_margin[g]
                games[row] = g
                row += 1
            player, opponent = make_move(player, opponent, action)
            black_to_move = not black_to_move
    return positions, moves, margins, games


@njit(cache=True)
def decision_plies(actions, num_plies, selected):
    """uint8[N]: for each row of `expand_positions` (same arguments, same order), the index of its
    decision in its game's actions (passes counted), so that actions[game, :ply] is its history."""
    total = 0
    for g in range(actions.shape[0]):
        if selected[g]:
            for t in range(num_plies[g]):
                if actions[g, t] != PASS:
                    total += 1
    plies = np.empty(total, dtype=np.uint8)
    row = 0
    for g in range(actions.shape[0]):
        if selected[g]:
            for t in range(num_plies[g]):
                if actions[g, t] != PASS:
                    plies[row] = t
                    row += 1
    return plies


def game_action_table(actions: np.ndarray) -> np.ndarray:
    """uint8[G, T] of int16 replay actions (-1 after the end becomes NO_ACTION)."""
    return np.where(actions < 0, NO_ACTION, actions).astype(np.uint8)


def _rows(positions, moves, margins, games=None, plies=None) -> dict[str, np.ndarray]:
    rows = {
        "positions": positions,
        "moves": moves,
        "values": np.sign(margins).astype(np.float32),
        "margins": (margins.astype(np.float32) / MARGIN_SCALE),
        "counts": np.ones(len(moves), dtype=np.uint32),
    }
    if games is not None:
        rows["game"], rows["ply"] = games, plies
    return rows


def random_holdout(positions: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    """bool[N]: rows whose position is among a random `fraction` of the distinct positions
    (exact identity), all rows of one position on the same side. `positions` must be sorted by
    position (as `deduplicate` leaves them)."""
    if len(positions) == 0:
        return np.zeros(0, dtype=bool)
    new_position = np.ones(len(positions), dtype=bool)
    new_position[1:] = (positions[1:, 0] != positions[:-1, 0]) | (positions[1:, 1] != positions[:-1, 1])
    position_id = np.cumsum(new_position) - 1
    distinct = int(position_id[-1]) + 1
    held = np.zeros(distinct, dtype=bool)
    held[np.random.default_rng([seed, 5]).choice(distinct, size=int(round(fraction * distinct)), replace=False)] = True
    return held[position_id]


def deduplicate(rows: dict[str, np.ndarray], with_occurrences: bool = False):
    """Merge rows with the same (position, move): mean value and margin, summed counts; any other
    array (game, ply) is taken from the group's first row in the input order.

    Rows come out sorted by (player, opponent, move); training samples them at random anyway.
    With `with_occurrences`, returns (merged rows, occurrences): occurrences["occurrence_game"] and
    ["occurrence_ply"] list the (game, ply) of every input row grouped by merged row, in merged
    row order (row i's are the counts[i] after those of rows < i); the input rows must then each
    stand for one decision (counts 1) and carry game and ply.
    """
    positions, moves = rows["positions"], rows["moves"]
    if with_occurrences and np.any(rows["counts"] != 1):
        raise ValueError("deduplicate(with_occurrences=True) needs rows of one decision each (counts 1)")
    if len(moves) == 0:
        return (rows, _occurrences(rows, slice(None))) if with_occurrences else rows
    order = np.lexsort((moves, positions[:, 1], positions[:, 0]))
    p0, p1, mv = positions[order, 0], positions[order, 1], moves[order]
    new_group = np.ones(len(order), dtype=bool)
    new_group[1:] = (p0[1:] != p0[:-1]) | (p1[1:] != p1[:-1]) | (mv[1:] != mv[:-1])
    starts = np.flatnonzero(new_group)
    counts = np.add.reduceat(rows["counts"][order], starts).astype(np.uint32)
    weights = rows["counts"][order].astype(np.float64)

    def mean(values):
        return (np.add.reduceat(values[order] * weights, starts) / counts).astype(np.float32)

    merged = {
        "positions": positions[order[starts]],
        "moves": mv[starts],
        "values": mean(rows["values"]),
        "margins": mean(rows["margins"]),
        "counts": counts,
    }
    for name in rows.keys() - merged.keys():
        merged[name] = rows[name][order[starts]]  # lexsort is stable: the first occurrence
    return (merged, _occurrences(rows, order)) if with_occurrences else merged


def _occurrences(rows: dict[str, np.ndarray], order) -> dict[str, np.ndarray]:
    return {"occurrence_game": rows["game"][order], "occurrence_ply": rows["ply"][order]}


def select_rows(rows: dict[str, np.ndarray], occurrences: dict[str, np.ndarray], keep: np.ndarray):
    """(rows[keep], their occurrences): the subset of a deduplicated split with its occurrence
    lists, still in row order."""
    counts = rows["counts"].astype(np.int64)
    keep_occurrence = np.repeat(keep, counts)
    return {k: v[keep] for k, v in rows.items()}, {k: v[keep_occurrence] for k, v in occurrences.items()}


def input_fingerprint(wthor_dir: str | os.PathLike) -> list[dict]:
    """Name, size and sha256 of every `WTH_*.wtb` file: what the dataset was built from."""
    out = []
    for path in wtb_paths(wthor_dir):
        data = path.read_bytes()
        out.append({"file": path.name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    return out


def _array_path(directory: Path, split: str, name: str) -> Path:
    return directory / f"{split}_{name}.npy"


def build_dataset(wthor_dir: str | os.PathLike, out_dir: str | os.PathLike, options: DatasetOptions = DatasetOptions(), progress: bool = True) -> dict:
    """Read, validate and expand the WTHOR games into `out_dir`; returns the manifest written."""
    started = time.perf_counter()
    replay = replay_database(read_wthor_directory(wthor_dir, options.years, progress=progress))
    return write_dataset(replay, out_dir, options, input_fingerprint(wthor_dir), progress=progress, started=started)


def write_dataset(
    replay: WthorReplay,
    out_dir: str | os.PathLike,
    options: DatasetOptions = DatasetOptions(),
    inputs: list[dict] | None = None,
    progress: bool = True,
    started: float | None = None,
) -> dict:
    """Expand the usable games of `replay` into the dataset files and the manifest in `out_dir`.

    `inputs` is the fingerprint recorded in the manifest (see `input_fingerprint`); the replay
    must come from the games that `options.years` selects.
    """
    from tqdm import tqdm

    started = time.perf_counter() if started is None else started
    database = replay.database
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MANIFEST).unlink(missing_ok=True)  # no manifest = no dataset until the build ends

    steps = tqdm(total=1 + 2 * len(SPLITS), desc="WTHOR dataset", unit="step", disable=not progress)
    steps.set_postfix_str("expanding positions")
    selected = replay.usable.copy()
    if options.years is not None:
        selected &= np.isin(database.year, np.array(options.years, dtype=np.uint16))
    if not options.include_unfinished:
        selected &= replay.game_over
    positions, moves, margins, games = expand_positions(replay.actions, replay.num_plies, replay.black_margin, selected)
    plies = decision_plies(replay.actions, replay.num_plies, selected)
    keep = margins >= 0 if options.winner_moves_only else np.ones(len(moves), dtype=bool)
    table = game_action_table(replay.actions)
    write_atomic(out_dir / GAME_ACTIONS, lambda handle: np.save(handle, table))
    steps.update()

    if options.split == "random5":
        # De-duplicate over the whole database first, then hold out distinct positions.
        everything, occurrences = deduplicate(_rows(positions[keep], moves[keep], margins[keep], games[keep], plies[keep]), with_occurrences=True)
        held = random_holdout(everything["positions"], RANDOM_HOLDOUT, options.split_seed)
        parts = [("train", select_rows(everything, occurrences, ~held)), ("validation", select_rows(everything, occurrences, held))]
    else:
        is_validation = np.isin(database.year[games], np.array(options.validation_years, dtype=np.uint16))
        parts = [("train", keep & ~is_validation), ("validation", keep & is_validation)]

    split_info = {}
    for split, part in parts:
        steps.set_postfix_str(f"{split}: rows")
        occurrences = {}
        if isinstance(part, tuple):
            rows, occurrences = part
            source_rows = int(rows["counts"].sum())
        else:
            rows = _rows(positions[part], moves[part], margins[part], games[part], plies[part])
            source_rows = int(part.sum())
            if options.dedup:
                rows, occurrences = deduplicate(rows, with_occurrences=True)
        steps.update()
        steps.set_postfix_str(f"{split}: writing")
        dtypes = {**ARRAY_DTYPES, **OCCURRENCE_DTYPES}
        for name, array in {**rows, **occurrences}.items():
            array = np.ascontiguousarray(array, dtype=dtypes[name])
            write_atomic(_array_path(out_dir, split, name), lambda handle, a=array: np.save(handle, a))
        split_games = np.unique(rows["game"]) if options.split == "random5" else np.unique(games[part])
        split_info[split] = {
            "rows": int(len(rows["moves"])),
            "positions": source_rows,
            "games": int(len(split_games)),
            "years": sorted({int(y) for y in np.unique(database.year[split_games])}),
        }
        steps.update()
    steps.close()

    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "options": options.to_json(),
        "inputs": inputs,
        "games": replay.counts(),
        "splits": split_info,
        "arrays": {name: np.dtype(dtype).name for name, dtype in (ARRAY_DTYPES | (OCCURRENCE_DTYPES if options.dedup else {})).items()},
        "margin_scale": MARGIN_SCALE,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    text = json.dumps(manifest, indent=2)
    write_atomic(out_dir / MANIFEST, lambda handle: handle.write(text.encode()))
    return manifest


def read_manifest(directory: str | os.PathLike) -> dict | None:
    """The dataset's manifest, or None when it is missing or unreadable (a damaged cache is then
    rebuilt by `ensure_dataset`, like a missing one)."""
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return manifest if isinstance(manifest, dict) else None


def is_current(manifest: dict | None, wthor_dir: str | os.PathLike, options: DatasetOptions) -> bool:
    """True when `manifest` describes a dataset built by this code from these inputs and options."""
    return (
        manifest is not None
        and manifest.get("format") == FORMAT
        and manifest.get("version") == VERSION
        and manifest.get("options") == options.to_json()
        and manifest.get("inputs") == input_fingerprint(wthor_dir)
    )


def load_dataset(directory: str | os.PathLike, mmap: bool = True) -> SupervisedDataset:
    """Open a built dataset; arrays are read-only memory maps unless mmap=False."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    if manifest is None or manifest.get("format") != FORMAT:
        raise FileNotFoundError(f"no supervised dataset in {directory} (missing, unreadable or foreign {MANIFEST}); build it with build_dataset")
    version = manifest.get("version")
    if version not in READABLE_VERSIONS:
        raise ValueError(f"{directory / MANIFEST}: dataset version {version}, this code reads versions {READABLE_VERSIONS}: rebuild it")
    game_actions = np.load(directory / GAME_ACTIONS, mmap_mode="r" if mmap else None) if version >= 2 else None
    finals = GameFinals.of(game_actions) if version >= AUXILIARY_VERSION else None
    with_occurrences = version >= AUXILIARY_VERSION and manifest.get("options", {}).get("dedup", False)
    splits = {}
    for split in SPLITS:
        arrays = {"game_actions": game_actions, "finals": finals}
        for name, dtype in ARRAY_DTYPES.items():
            if version < 2 and name in HISTORY_ARRAYS:
                continue
            arrays[name] = _load_array(directory, split, name, dtype, manifest["splits"][split]["rows"], mmap)
        if with_occurrences:
            counts = np.asarray(arrays["counts"], dtype=np.int64)
            for name, dtype in OCCURRENCE_DTYPES.items():
                arrays[name] = _load_array(directory, split, name, dtype, int(counts.sum()), mmap)
            arrays["occurrence_start"] = np.cumsum(counts) - counts
        splits[split] = SupervisedSplit(**arrays)
    return SupervisedDataset(directory, manifest, splits)


def _load_array(directory: Path, split: str, name: str, dtype, expected: int, mmap: bool) -> np.ndarray:
    path = _array_path(directory, split, name)
    array = np.load(path, mmap_mode="r" if mmap else None)
    if array.dtype != dtype or len(array) != expected:
        raise ValueError(f"{path}: {array.dtype}[{len(array)}], the manifest expects {np.dtype(dtype).name}[{expected}]")
    return array


def ensure_dataset(
    wthor_dir: str | os.PathLike, out_dir: str | os.PathLike, options: DatasetOptions = DatasetOptions(), progress: bool = True
) -> SupervisedDataset:
    """Load the dataset in `out_dir`, building it first if it is missing or out of date, and again
    if its files are damaged: the directory is a cache of the WTHOR games, so a truncated array or
    a garbled manifest (a disk filled or a copy cut short) is rebuilt, not refused."""
    if is_current(read_manifest(out_dir), wthor_dir, options):
        try:
            return load_dataset(out_dir)
        except (ValueError, OSError) as error:
            log.warning("the dataset in %s is damaged (%s); rebuilding it from %s", out_dir, error, wthor_dir)
    build_dataset(wthor_dir, out_dir, options, progress=progress)
    return load_dataset(out_dir)
