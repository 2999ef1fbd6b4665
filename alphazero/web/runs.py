"""A training run's directory as the run viewer sees it: its latest self-play games and its curves.

Games come from the replay shards (`<run>/replay/shard-*.npz`, read and checked by
alphazero.replay.shard; shards are written once and renamed into place, so a shard listed is a
whole one), newest first; each ply carries the search's policy and root value. Curves come from
the TensorBoard events in `<run>/tb` (read as `python -m alphazero.train.plots` reads them). Both
are read afresh on every request, so the page follows a run that is still writing; a decoded
shard is cached by name (shards never change once written).
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np

from alphazero.othello.bitboard import PASS
from alphazero.othello.notation import action_name, format_board_text
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord
from alphazero.replay.buffer import list_shards
from alphazero.replay.shard import ShardError, read_shard
from alphazero.web.positions import InputError

MAX_LISTED_GAMES = 40
MAX_CACHED_SHARDS = 64
ELO_PREFIX = "elo/"
EXTRA_CURVE_PREFIXES = ("eval/score_vs_", ELO_PREFIX)


class RunReader:
    def __init__(self):
        self._shards: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()

    @staticmethod
    def check_run(run_dir: str | Path) -> Path:
        """`run_dir` as a Path, or InputError saying why it is not a run directory."""
        path = Path(str(run_dir)).expanduser()
        if not str(run_dir).strip():
            raise InputError("no run directory given: start with --run DIR or type one in")
        if not path.is_dir():
            raise InputError(f"run directory {str(path)!r} does not exist")
        if not (path / "replay").is_dir() and not (path / "tb").is_dir():
            raise InputError(f"{str(path)!r} is not a run directory: it has neither replay/ nor tb/")
        return path

    def _shard(self, run: Path, name: str):
        key = (str(run.resolve()), name)
        with self._lock:
            data = self._shards.get(key)
        if data is None:
            data = read_shard(run / "replay" / name)
            with self._lock:
                if len(self._shards) >= MAX_CACHED_SHARDS:
                    self._shards.pop(next(iter(self._shards)))
                self._shards[key] = data
        return data

    def games(self, run_dir: str | Path, limit: int = MAX_LISTED_GAMES) -> dict:
        """The run's newest games (at most `limit`), newest first, and shards that could not be read."""
        run = self.check_run(run_dir)
        names = list_shards(run / "replay")
        games, problems = [], []
        for name in reversed(names):
            if len(games) >= limit:
                break
            try:
                data = self._shard(run, name)
            except (ShardError, OSError) as err:
                problems.append(str(err))
                continue
            created = data.metadata.get("created")
            per_game = data.metadata.get("games", [])
            for index in reversed(range(data.num_games)):
                if len(games) >= limit:
                    break
                plies = int(data.action_offsets[index + 1] - data.action_offsets[index])
                meta = per_game[index] if index < len(per_game) else {}
                games.append({
                    "id": f"{name}:{index}", "shard": name, "index": index, "plies": plies,
                    "black_margin": int(data.black_margin[index]), "created": created,
                    "meta": {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool))},
                })
        return {"run": str(run), "shards": len(names), "games": games, "problems": problems}

    def game(self, run_dir: str | Path, game_id: str) -> dict:
        """One game of the run, ply by ply: the moves, the search's policy and root value."""
        record = self.record(run_dir, game_id)
        policies = record.policies.astype(np.float32)
        values = record.root_values if record.root_values is not None else np.full(len(record.actions), np.nan)
        start = record.start
        return {
            "id": game_id,
            "start": None if start == GameState.start() else format_board_text(start),
            "moves": ["pa" if a == PASS else action_name(int(a)) for a in record.actions],
            "policies": [{action_name(a) if a != PASS else "pa": round(float(p[a]), 4) for a in np.flatnonzero(p > 0)} for p in policies],
            "root_values": [None if math.isnan(v) else round(float(v), 4) for v in values],
            "black_margin": record.black_margin,
            "meta": {k: v for k, v in record.metadata.items() if isinstance(v, (str, int, float, bool))},
        }

    def record(self, run_dir: str | Path, game_id: str) -> GameRecord:
        """One game of the run (`SHARD:INDEX`, as `games` lists them) as its GameRecord."""
        run = self.check_run(run_dir)
        name, _, index_text = str(game_id).rpartition(":")
        if name not in list_shards(run / "replay"):
            raise InputError(f"no shard {name!r} in {run / 'replay'} (it may have been pruned)")
        try:
            index = int(index_text)
        except ValueError:
            raise InputError(f"bad game id {str(game_id)[:60]!r}: expected SHARD:INDEX") from None
        try:
            data = self._shard(run, name)
        except (ShardError, OSError) as err:  # ShardError is a ValueError: caught apart from the id's
            raise InputError(str(err)) from None
        if not 0 <= index < data.num_games:
            raise InputError(f"shard {name} holds {data.num_games} games; there is no game {index}")
        return data.to_records()[index]

    def curves(self, run_dir: str | Path) -> dict:
        """The run's curves from its TensorBoard events, by what their values measure, so that each
        group shares one axis: {"elo": {tag: [[step, value], ...]}, "scores": {...} (0..1), "losses": {...}}."""
        from alphazero.train.plots import FIGURES, read_scalars

        run = self.check_run(run_dir)
        tb = run / "tb"
        empty = {"elo": {}, "scores": {}, "losses": {}}
        if not tb.is_dir():
            return {**empty, "message": f"{tb} does not exist yet: no curves"}
        scalars = read_scalars(tb)
        if not scalars:  # TensorBoard's reader skips what it cannot parse without a word
            files = sorted(p.name for p in tb.glob("events.out.tfevents.*"))
            message = (f"no curves could be read from {len(files)} event file(s) in {tb} (damaged, or nothing logged yet)"
                       if files else f"{tb} holds no event files yet: no curves")
            return {**empty, "message": message}
        strength_tags = [t for t in FIGURES["strength"] if t in scalars]
        strength_tags += sorted(t for t in scalars if t.startswith(EXTRA_CURVE_PREFIXES) and t not in strength_tags)
        loss_tags = [t for t in FIGURES["losses"] if t in scalars and t.startswith("loss/")]
        group = lambda tags: {t: [[int(s), float(v)] for s, v in scalars[t] if math.isfinite(v)] for t in tags}  # noqa: E731
        return {"elo": group([t for t in strength_tags if t.startswith(ELO_PREFIX)]),
                "scores": group([t for t in strength_tags if not t.startswith(ELO_PREFIX)]),
                "losses": group(loss_tags), "message": None}
