"""The games of a replay directory, numbered 1..N in the order their shards were written.

Numbering reads only each shard's small header (`read_shard_counts`), so finding game K of a
long run reads one whole shard, not all of them. A shard whose header cannot be read holds no
numbers (a warning names it): the numbers are those of the games a reader can give back.
"""

from __future__ import annotations

import bisect
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from alphazero.othello.record import GameRecord
from alphazero.replay.buffer import list_shards
from alphazero.replay.export import ggf_properties
from alphazero.replay.shard import ShardError, read_shard, read_shard_counts

log = logging.getLogger(__name__)


class CatalogError(ValueError):
    """A directory without replay shards, or a game number it does not hold; one line."""


@dataclass(frozen=True)
class NumberedGame:
    number: int  # 1-based, in shard order
    record: GameRecord  # metadata: the worker's, plus GGF properties (PB/PW: the network, DT: the shard's time)
    shard: Path
    index_in_shard: int  # 0-based
    created: float | None  # the shard's write time (seconds since the epoch)


def replay_directory(run_dir: str | os.PathLike) -> Path:
    """`RUN_DIR/replay`, or RUN_DIR itself when it holds the shards; CatalogError otherwise."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise CatalogError(f"no directory at {run_dir}")
    if list_shards(run_dir):
        return run_dir
    replay = run_dir / "replay"
    if not replay.is_dir():
        raise CatalogError(f"{run_dir} has no replay/ directory: is it a training run directory?")
    return replay


class Catalog:
    """The shards of one replay directory and how many games each holds."""

    def __init__(self, directory: str | os.PathLike, warn: Callable[[str], None] | None = None):
        self.directory = Path(directory)
        self.warn = warn or log.warning  # told about each shard left out, in one line
        self.shards: list[str] = []
        self.first_number: list[int] = []  # number of each shard's first game
        total = 0
        for name in list_shards(self.directory):
            try:
                games, _ = read_shard_counts(self.directory / name)
            except FileNotFoundError:
                continue  # pruned since the listing
            except ShardError as error:
                self.warn(f"skipping unreadable replay shard: {error}")
                continue
            self.shards.append(name)
            self.first_number.append(total + 1)
            total += games
        self.total = total

    def number(self, text_or_number) -> int:
        """A game number from the user's K: 1..N, or -1..-N counted from the newest."""
        number = int(text_or_number)
        if self.total == 0:
            raise CatalogError(f"{self.directory} holds no games yet")
        resolved = self.total + 1 + number if number < 0 else number
        if not 1 <= resolved <= self.total:
            raise CatalogError(f"no game {number} in {self.directory}: it holds games 1..{self.total} (or -1..-{self.total} from the newest)")
        return resolved

    def games(self, first: int = 1, last: int | None = None) -> Iterator[NumberedGame]:
        """Games `first`..`last` (1-based, inclusive; default: to the newest), oldest first,
        reading only the shards that hold them."""
        last = self.total if last is None else last
        if first > last:
            return
        start = max(0, bisect.bisect_right(self.first_number, first) - 1)
        for position in range(start, len(self.shards)):
            base = self.first_number[position]
            if base > last:
                break
            path = self.directory / self.shards[position]
            try:
                data = read_shard(path)
            except FileNotFoundError:
                self.warn(f"replay shard {path} was deleted while being read (pruned by a running training?)")
                continue
            except ShardError as error:
                self.warn(f"skipping unreadable replay shard: {error}")
                continue
            created = data.metadata.get("created")
            for index, record in enumerate(data.to_records()):
                number = base + index
                if first <= number <= last:
                    record.metadata = {**record.metadata, **ggf_properties(record.metadata, created)}
                    yield NumberedGame(number, record, path, index, created)

    def newest(self, count: int | None) -> Iterator[NumberedGame]:
        """The newest `count` games (all of them for None), oldest first."""
        first = 1 if count is None else max(1, self.total - count + 1)
        return self.games(first)
