"""Export the newest self-play games of a replay directory as GGF, for viewers and other engines.

Kept apart from the buffer so that training never imports the GGF code.
"""

from __future__ import annotations

import logging
import os
from datetime import datetime, timezone
from pathlib import Path

from alphazero.data.ggf import write_ggf
from alphazero.othello.record import GameRecord
from alphazero.replay.buffer import list_shards
from alphazero.replay.shard import ShardError, read_shard

log = logging.getLogger(__name__)


def ggf_properties(game_metadata: dict, created: float | None) -> dict:
    """GGF header properties for a self-play game: both players are the network that played it."""
    network = game_metadata.get("network_id", game_metadata.get("network", "unknown"))
    player = f"alphazero-{network}"
    properties = {"PB": player, "PW": player, "PC": "alphazero-selfplay"}
    if created is not None:
        properties["DT"] = datetime.fromtimestamp(created, timezone.utc).strftime("%Y.%m.%d_%H:%M:%S.UTC")
    return properties


def newest_games(directory: str | os.PathLike, count: int) -> list[GameRecord]:
    """The `count` most recent games in shard-name order, oldest first. Unreadable shards are
    skipped with a warning (the trainer's buffer quarantines them; an exporter only reads)."""
    directory = Path(directory)
    collected: list[list[GameRecord]] = []
    remaining = count
    for name in reversed(list_shards(directory)):
        if remaining <= 0:
            break
        try:
            data = read_shard(directory / name)
        except FileNotFoundError:
            continue  # pruned since the listing
        except ShardError as error:
            log.warning("skipping unreadable replay shard: %s", error)
            continue
        records = data.to_records()[-remaining:]
        created = data.metadata.get("created")
        for record in records:
            record.metadata = {**record.metadata, **ggf_properties(record.metadata, created)}
        collected.append(records)
        remaining -= len(records)
    return [record for records in reversed(collected) for record in records]


def export_ggf(directory: str | os.PathLike, out_path: str | os.PathLike, last_n_games: int) -> int:
    """Write the newest `last_n_games` games of a replay directory to a GGF file (atomically),
    one game per line, oldest first; returns how many were written."""
    if last_n_games <= 0:
        raise ValueError(f"last_n_games must be positive, got {last_n_games}")
    records = newest_games(directory, last_n_games)
    write_ggf(out_path, records, place="alphazero-selfplay")
    return len(records)
