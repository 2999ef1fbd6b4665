"""The game a review is asked for, from what the command line names.

- a file: GGF (`--game N` picks one of several), or a transcript, or a board followed by a
  transcript (what `python -m alphazero.play --save` and the web board write): `alphazero.data.game_text`;
- a training run directory or its `replay/` directory: game `--game K` of the run's replay as
  `python -m alphazero.games` numbers them (1 the oldest on disk, -1 the newest, the default);
- one replay shard (`shard-...npz`): its game `--game K` (1-based; -1 the last);
- the moves themselves (`f5d6c3...`, or a board and moves, quoted) when no such file exists.

Every problem is a `SourceError` of one line naming the file (and, from the readers, the line,
character or game).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from alphazero.data.game_text import BOARD_CHARACTERS, GameTextError, parse_game_text
from alphazero.games.catalog import Catalog, CatalogError, replay_directory
from alphazero.othello.notation import COLUMNS
from alphazero.othello.record import GameRecord
from alphazero.replay.shard import ShardError, read_records

SHARD_SUFFIX = ".npz"
# What moves or a board typed on the command line are made of: anything else is a file name.
GAME_TEXT_CHARACTERS = set(COLUMNS + COLUMNS.upper() + "12345678" + BOARD_CHARACTERS + "BbWwPpSs" + string.whitespace)


class SourceError(ValueError):
    """No game could be read from what was named; one line saying which and why."""


@dataclass(frozen=True)
class LoadedGame:
    record: GameRecord
    label: str  # what the game is, for the review's header: `games.ggf game 2 of 3`, `the moves given`, ...


def load_game(spec: str, number: int | None = None, warn: Callable[[str], None] | None = None) -> LoadedGame:
    """The game `spec` names (module doc); `number` is `--game` (None: the default of that kind of
    source). `warn` hears about replay shards left out as unreadable. Every reader checks each
    move's legality as it reads (a shard's games are replayed when it is read), so a game
    returned is legal throughout."""
    path = Path(spec)
    try:
        if path.is_dir():
            return _replay_game(path, number, warn)
        if path.is_file() and path.suffix == SHARD_SUFFIX:
            return _shard_game(path, number)
        if path.is_file():
            text = path.read_text(encoding="latin-1")  # GGF archives are latin-1; any byte reads, so bad ones are named where they are
            record = parse_game_text(text, 1 if number is None else number, source=str(path))
            games = f" game {number}" if number is not None else ""
            return LoadedGame(record, f"{path}{games}")
    except OSError as err:
        raise SourceError(f"{spec}: cannot read it: {err.strerror or err}") from None
    except (GameTextError, CatalogError) as err:
        raise SourceError(str(err)) from None
    if path.exists():
        raise SourceError(f"{spec}: neither a file nor a directory")
    if spec.strip() and set(spec) <= GAME_TEXT_CHARACTERS:
        try:
            record = parse_game_text(spec, 1 if number is None else number, source="the moves given")
        except GameTextError as err:
            raise SourceError(str(err)) from None
        return LoadedGame(record, "the moves given")
    raise SourceError(f"{spec}: no such file or directory (and not moves like f5d6c3)")


def _replay_game(path: Path, number: int | None, warn) -> LoadedGame:
    catalog = Catalog(replay_directory(path), warn=warn)
    wanted = catalog.number(-1 if number is None else number)
    game = next(catalog.games(wanted, wanted), None)
    if game is None:
        raise SourceError(f"{path}: game {wanted}'s replay shard could not be read")
    return LoadedGame(game.record, f"{path} game {wanted} of {catalog.total} ({game.shard.name})")


def _shard_game(path: Path, number: int | None) -> LoadedGame:
    try:
        records = read_records(path)
    except ShardError as err:
        raise SourceError(str(err)) from None
    wanted = 1 if number is None else number
    index = wanted - 1 if wanted > 0 else len(records) + wanted
    if wanted == 0 or not 0 <= index < len(records):
        raise SourceError(f"{path}: holds games 1..{len(records)} (or -1..-{len(records)} from the last); there is no game {wanted}")
    return LoadedGame(records[index], f"{path} game {index + 1} of {len(records)}")
