"""What must hold in a run directory after any crash, and what must never go backwards across one.

`verify_run_dir(run_dir, expect, before)` reads everything a run keeps on disk and returns a
`Verdict`: how many files it checked, the problems found (empty = consistent) and how many
finished games were lost relative to `before` (the `Snapshot` of the previous verified state).

Consistent means:
  - every replay shard reads back with full validation (checksum, shapes, games replayed), every
    game in it is finished (no partial game), no game appears twice, nothing was quarantined;
  - every checkpoint file loads with weights_only=True; every `net-*.pt` builds a network;
    `best.json` parses and the network it names carries the same id;
  - the counters of `latest.pt` match the data: samples = steps x batch, training never ran ahead
    of the replay ratio, every finished iteration's games are on disk, its best id is at most
    the published one, the Elo ladder's ids rise.
After a run that ended cleanly (exit 0) also: no temp file of an interrupted write is left in
`checkpoints/` or `replay/` (a resume tidies them), and `best.pt` holds the network best.json names.
Never backwards (vs `before`): every shard that existed still exists (or was pruned by the
ledger) and loads, the buffer's game count, best.json's id, latest.pt's step and worker-restart
count, and every promoted network still loads.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alphazero.nn.checkpoint import CheckpointError, load_checkpoint, load_network
from alphazero.othello.bitboard import PASS, is_game_over, make_move
from alphazero.replay.buffer import PRUNE_LEDGER, QUARANTINE_DIR, list_shards, read_prune_ledger
from alphazero.replay.shard import ShardError, read_shard

NETWORK_FILE = re.compile(r"^net-(\d{6})\.pt$")


@dataclass(frozen=True)
class Expectations:
    """The config values the counters are checked against (those of the run's preset)."""

    batch_size: int = 32
    replay_ratio: float = 4.0
    games_per_iteration: int = 8


@dataclass
class Snapshot:
    """The state of a verified run directory that later states are compared with."""

    shards: dict = field(default_factory=dict)  # shard name -> games in it
    total_games: int = 0
    best_id: int = -1
    networks: tuple = ()  # net-*.pt names
    step: int = 0
    iteration: int = 0
    worker_restarts: int = 0


@dataclass
class Verdict:
    files_checked: int
    problems: list
    games_lost: int
    snapshot: Snapshot

    @property
    def ok(self) -> bool:
        return not self.problems


def _game_finished_flags(data) -> np.ndarray:
    """bool[G]: whether each game of a shard ends in a finished position."""
    flags = np.zeros(data.num_games, dtype=bool)
    for game in range(data.num_games):
        first, last = int(data.position_offsets[game]), int(data.position_offsets[game + 1])
        if last == first:
            continue
        # The last stored position is before the last non-pass move; play it and any passes after it.
        player, opponent = data.positions[last - 1]
        actions = data.actions[data.action_offsets[game] : data.action_offsets[game + 1]]
        non_pass = np.flatnonzero(actions != PASS)
        for action in actions[non_pass[-1] :]:
            player, opponent = (np.uint64(bits) for bits in make_move(player, opponent, np.int64(action)))
        flags[game] = is_game_over(player, opponent)
    return flags


def _check_replay(replay_dir: Path, problems: list) -> tuple[dict, int, int]:
    """(shard name -> games) of the readable shards, files checked, positions in them."""
    shards, checked, positions = {}, 0, 0
    seen_games = {}
    for name in list_shards(replay_dir):
        checked += 1
        try:
            data = read_shard(replay_dir / name)
        except (ShardError, OSError) as error:
            problems.append(f"replay shard {name} does not load: {error}")
            continue
        shards[name] = data.num_games
        positions += data.num_positions
        unfinished = np.flatnonzero(~_game_finished_flags(data))
        if len(unfinished):
            problems.append(f"replay shard {name}: game(s) {unfinished.tolist()} end in an unfinished position (a partial game)")
        for game in range(data.num_games):
            moves = data.actions[data.action_offsets[game] : data.action_offsets[game + 1]]
            key = (int(data.start_black[game]), int(data.start_white[game]), moves.tobytes())
            if key in seen_games:
                problems.append(f"replay shard {name} game {game} duplicates {seen_games[key]} (same moves)")
            else:
                seen_games[key] = f"{name} game {game}"
    quarantine = replay_dir / QUARANTINE_DIR
    if quarantine.is_dir() and any(quarantine.iterdir()):
        problems.append(f"shards were quarantined as unreadable: {sorted(p.name for p in quarantine.iterdir())}")
    return shards, checked, positions


def _pruned(replay_dir: Path) -> dict:
    """The replay's prune ledger, read (and checked) as the buffer reads it; empty where none."""
    path = replay_dir / PRUNE_LEDGER
    if not path.exists():
        return {"games": 0, "positions": 0, "shards": 0, "last_pruned": []}
    return read_prune_ledger(path)


def _load(path: Path, problems: list, network: bool = False):
    try:
        checkpoint = load_checkpoint(path)
        if network:
            load_network(path)
        return checkpoint
    except (CheckpointError, OSError, RuntimeError) as error:
        problems.append(f"checkpoint {path.name} does not load: {error}")
        return None


def verify_run_dir(run_dir, expect: Expectations = Expectations(), before: Snapshot | None = None, ended_cleanly: bool = False) -> Verdict:
    """Check `run_dir` (see the module docstring); `before` enables the never-backwards checks,
    `ended_cleanly` the tidiness checks."""
    run_dir = Path(run_dir)
    problems: list[str] = []
    replay_dir, checkpoint_dir = run_dir / "replay", run_dir / "checkpoints"
    shards, files_checked, positions = _check_replay(replay_dir, problems)
    pruned = _pruned(replay_dir)
    total_games = pruned["games"] + sum(shards.values())
    total_positions = pruned["positions"] + positions

    checkpoints = {}
    for path in sorted(checkpoint_dir.glob("*.pt")):
        files_checked += 1
        checkpoints[path.name] = _load(path, problems, network=bool(NETWORK_FILE.match(path.name)))
    networks = tuple(sorted(name for name in checkpoints if NETWORK_FILE.match(name)))

    best_id = -1
    pointer_path = checkpoint_dir / "best.json"
    if pointer_path.exists():
        files_checked += 1
        try:
            pointer = json.loads(pointer_path.read_text())
            best_id = int(pointer["id"])
            target = checkpoints.get(pointer["file"])
            if target is None:
                problems.append(f"best.json names {pointer['file']}, which is missing or does not load")
            elif target.extra.get("network_id") != best_id:
                problems.append(f"best.json says network #{best_id} but {pointer['file']} holds #{target.extra.get('network_id')}")
            if f"net-{best_id:06d}.pt" not in networks:
                problems.append(f"best.json names network #{best_id} but net-{best_id:06d}.pt is missing")
        except (ValueError, KeyError, TypeError) as error:
            problems.append(f"best.json is unusable: {error}")
    elif checkpoints or shards:
        problems.append("checkpoints/best.json is missing although the run has files")

    if ended_cleanly:
        for directory in (checkpoint_dir, replay_dir):
            leftovers = sorted(p.name for p in directory.glob("*.tmp")) if directory.is_dir() else []
            if leftovers:
                problems.append(f"temp files of interrupted writes left in {directory.name}/ after a clean run: {leftovers}")
        best_copy = checkpoints.get("best.pt")
        if best_copy is not None and best_id >= 0 and best_copy.extra.get("network_id") != best_id:
            problems.append(f"best.pt holds network #{best_copy.extra.get('network_id')} but best.json names #{best_id}")

    state = checkpoints.get("latest.pt").extra if checkpoints.get("latest.pt") is not None else None
    step = iteration = restarts = 0
    if state is not None:
        step, iteration, restarts = int(state["step"]), int(state["iteration"]), int(state.get("worker_restarts", 0))
        if state["samples_trained"] != step * expect.batch_size:
            problems.append(f"latest.pt: samples_trained {state['samples_trained']} != step {step} x batch {expect.batch_size}")
        allowed = math.floor(expect.replay_ratio * total_positions / expect.batch_size)
        if step > allowed:
            problems.append(f"latest.pt: step {step} is ahead of the data ({total_positions} positions allow {allowed} steps)")
        if total_games < iteration * expect.games_per_iteration:
            problems.append(f"latest.pt: iteration {iteration} but only {total_games} games on disk (< {iteration} x {expect.games_per_iteration})")
        if best_id >= 0 and state["best_id"] > best_id:
            problems.append(f"latest.pt: best_id {state['best_id']} is ahead of best.json's {best_id}")
        ladder_ids = [entry[0] for entry in state.get("elo_ladder", [])]
        if ladder_ids != sorted(set(ladder_ids)):
            problems.append(f"latest.pt: Elo ladder ids {ladder_ids} do not rise")

    games_lost = 0
    if before is not None:
        gone = set(pruned["last_pruned"])
        for name, games in before.shards.items():
            if name not in shards and name not in gone:
                games_lost += games
                problems.append(f"replay shard {name} ({games} games) existed before and is now missing or unreadable")
        if total_games < before.total_games:
            games_lost = max(games_lost, before.total_games - total_games)
            problems.append(f"the buffer's game count went down: {before.total_games} -> {total_games}")
        if best_id < before.best_id:
            problems.append(f"best.json's id went down: {before.best_id} -> {best_id}")
        for name in before.networks:
            if name not in networks:
                problems.append(f"promoted network {name} is gone or no longer loads")
        if state is not None and step < before.step:
            problems.append(f"latest.pt's step went down: {before.step} -> {step}")
        if state is not None and restarts < before.worker_restarts:
            problems.append(f"latest.pt's worker_restarts went down: {before.worker_restarts} -> {restarts}")

    snapshot = Snapshot(shards, total_games, best_id, networks, step, iteration, restarts)
    return Verdict(files_checked, problems, games_lost, snapshot)
