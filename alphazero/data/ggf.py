"""GGF, the Generic Game Format of the GGS game server's archives: read and write Othello games.

A file holds any number of games, each `(;PROP[value]PROP[value]...;)`, separated by whitespace.
Properties (https://www.skatgame.net/mburo/ggsa/ggf):
- `GM[Othello]`, `PC` place, `DT` date, `PB`/`PW` players, `RB`/`RW` ratings, `TI`/`TB`/`TW` clocks,
  `TY` game type (`8`, `8k` komi, `s8r19` synchro from a random 19-disc start, ...).
- `BO[8 <64 squares> <side>]`: start position, `-` empty, `*` black, `O` white; side `*` or `O`.
  Missing `BO` means the standard start.
- `B[move/eval/time]`, `W[...]`: moves in order (`d3`, `D3`, `pass` or `PA`); the evaluation and
  the time are optional (`B[d3//0.01]`, `W[f4/-16.47/0.24]`).
- `RE[+8.500]` or `RE[-3.000:r]`: the result for black (the first colour) including komi, with an
  optional flag `:r` resigned, `:t` time out, `:s` mutually agreed score. `RE[?]` (how the NBoard
  GUI sends a game in progress) means no result yet: `result` None.
- `KM` komi, `KB`/`KW` the komi bids. As in Go, the komi is credited to white: a finished game's
  result is black's disc margin minus KM (the sample komi game: margin +8, `KM[-0.500]`,
  `RE[+8.500]`).

Reading returns one `GameRecord` per game (passes explicit; a pass a file leaves out is inserted
where the side to move has none). `metadata` holds every property as its raw string under its GGF
key (unknown properties are kept, not rejected: GGF is extensible and GGS adds properties over
time), the per-move `/eval/time` annotations as `move_annotations` (aligned with `actions`, "" for
none), and parsed conveniences: `black_player`, `white_player`, `result` (float), `result_flag`,
`komi`. `black_margin` is the replayed final disc difference (empties to the winner) for a game
that is over; a game that stops earlier (resignation, time out, agreed score) keeps
`black_margin=None` and its `result` in the metadata. For a finished game without a flag the
recorded result must equal the replayed margin minus komi, else the file is rejected.

Every error is a `GgfError` naming the source, the game number (1-based), the character offset
and, for moves, the ply.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from alphazero.atomic import write_text_atomic
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import NotationError, format_board_text, parse_board_text, parse_square, square_name
from alphazero.othello.record import GameRecord


class GgfError(ValueError):
    """Text that is not valid GGF Othello; the message names the game number and character offset."""


GAME_START = "(;"
GAME_END = ";)"
MOVE_KEYS = ("B", "W")
PASS_WORDS = ("pass", "pa", "ps")
RESULT_FLAGS = ("r", "t", "s")
UNKNOWN_RESULT = "?"  # RE[?]: no result yet (NBoard sends the game in progress so)
_KEY = re.compile(r"[A-Z]+")
_RESULT = re.compile(r"\s*([+-]?\d+(?:\.\d*)?)\s*(?::\s*([a-z]))?\s*")
# Written first, in this order, when present; other properties follow in their recorded order.
_HEADER_ORDER = ("GM", "PC", "DT", "PB", "PW", "RB", "RW", "TI", "TB", "TW", "TY", "RE", "KM", "KB", "KW")


@dataclass(frozen=True)
class Property:
    key: str
    value: str
    offset: int  # character offset of the key in the source text


@dataclass(frozen=True)
class RawGame:
    """One game's properties in file order, before any interpretation."""

    number: int  # 1-based position in the file
    offset: int  # character offset of its `(;`
    properties: tuple[Property, ...]


def _error(source: str, game: int, offset: int, message: str) -> GgfError:
    return GgfError(f"{source}: game {game} at character {offset}: {message}")


def split_games(text: str, source: str = "<string>") -> list[RawGame]:
    """Tokenise `text` into games of `KEY[value]` properties; checks the brackets only."""
    games = []
    position = 0
    length = len(text)
    while True:
        while position < length and text[position].isspace():
            position += 1
        if position >= length:
            return games
        number = len(games) + 1
        if not text.startswith(GAME_START, position):
            raise _error(source, number, position, f"expected {GAME_START!r} to open a game, found {text[position:position + 10]!r}")
        start = position
        position += len(GAME_START)
        properties = []
        while True:
            while position < length and text[position].isspace():
                position += 1
            if position >= length:
                raise _error(source, number, start, f"the game opened here is never closed with {GAME_END!r} (end of text)")
            if text.startswith(GAME_END, position):
                position += len(GAME_END)
                break
            if text.startswith(GAME_START, position):
                raise _error(source, number, start, f"the game opened here is not closed with {GAME_END!r} before the next game at character {position}")
            key_match = _KEY.match(text, position)
            if key_match is None:
                raise _error(source, number, position, f"expected a property name (capital letters) or {GAME_END!r}, found {text[position:position + 10]!r}")
            key_offset = position
            position = key_match.end()
            if position >= length or text[position] != "[":
                raise _error(source, number, position, f"property {key_match.group()} has no '[' value")
            close = text.find("]", position + 1)
            if close < 0:
                raise _error(source, number, position, f"the '[' of property {key_match.group()} is never closed with ']'")
            value = text[position + 1 : close]
            if "[" in value:
                raise _error(source, number, position + 1 + value.index("["), f"'[' inside the value of {key_match.group()} (unbalanced brackets)")
            properties.append(Property(key_match.group(), value, key_offset))
            position = close + 1
        games.append(RawGame(number, start, tuple(properties)))


def _parse_board(prop: Property, source: str, game: int) -> GameState:
    parts = prop.value.split(None, 1)
    if len(parts) != 2 or parts[0] != "8":
        raise _error(source, game, prop.offset, f"BO[{prop.value[:12]}...] must start with the board size 8")
    try:
        return parse_board_text(parts[1])
    except NotationError as err:
        raise _error(source, game, prop.offset, f"bad BO board: {err}") from None


def _parse_move(value: str) -> tuple[str, str]:
    """`d3//0.01` -> ("d3", "//0.01"): the move token and its raw `/eval/time` annotation."""
    token, slash, rest = value.partition("/")
    return token.strip(), (slash + rest)


def parse_result(text: str) -> tuple[float, str]:
    """`+8.500` -> (8.5, ""), `-3.000:r` -> (-3.0, "r"); raises ValueError if malformed."""
    match = _RESULT.fullmatch(text)
    if match is None or (match.group(2) or "") not in ("",) + RESULT_FLAGS:
        raise ValueError(f"result {text!r} is not [+-]number with an optional :r, :t or :s flag")
    return float(match.group(1)), match.group(2) or ""


def _record_from_raw(raw: RawGame, source: str) -> GameRecord:
    number = raw.number
    metadata: dict = {"source": "ggf", "file": source, "game_number": number}
    start = GameState.start()
    moves: list[Property] = []
    for prop in raw.properties:
        if prop.key in MOVE_KEYS:
            moves.append(prop)
            continue
        if prop.key in metadata:
            raise _error(source, number, prop.offset, f"property {prop.key} appears twice")
        metadata[prop.key] = prop.value
        if prop.key == "BO":
            start = _parse_board(prop, source, number)
    if metadata.get("GM", "Othello").strip().lower() != "othello":
        raise _error(source, number, raw.offset, f"GM[{metadata['GM']}] is not an Othello game")
    komi = 0.0
    if "KM" in metadata:
        try:
            komi = float(metadata["KM"])
        except ValueError:
            komi = math.nan
        if not math.isfinite(komi):  # inf and nan parse as floats but make every result meaningless
            raise _error(source, number, raw.offset, f"KM[{metadata['KM']}] is not a finite number")

    state = start
    actions: list[int] = []
    annotations: list[str] = []
    for prop in moves:
        token, annotation = _parse_move(prop.value)
        ply = len(actions) + 1
        where = f"ply {ply}, {prop.key}[{prop.value}]"
        if token.lower() in PASS_WORDS:
            action = PASS
        else:
            try:
                action = parse_square(token)
            except NotationError:
                raise _error(source, number, prop.offset, f"{where}: {token!r} is not a square a1..h8 or pass") from None
        mover_is_black = prop.key == "B"
        if mover_is_black != state.black_to_move:
            if action != PASS and state.must_pass():
                actions.append(PASS)  # the file left out a forced pass
                annotations.append("")
                state = state.play(PASS)
                ply += 1
            else:
                side = "black" if state.black_to_move else "white"
                raise _error(source, number, prop.offset, f"{where}: {prop.key} moves but {side} is to move")
        if state.is_over():
            raise _error(source, number, prop.offset, f"{where}: move after the end of the game")
        if not state.is_legal(action):
            legal = " ".join("pass" if a == PASS else square_name(a) for a in state.legal_actions())
            raise _error(source, number, prop.offset, f"{where}: illegal move; legal: {legal}")
        actions.append(action)
        annotations.append(annotation)
        state = state.play(action)

    result, flag = None, ""
    if "RE" in metadata and metadata["RE"].strip() != UNKNOWN_RESULT:
        try:
            result, flag = parse_result(metadata["RE"])
        except ValueError as err:
            raise _error(source, number, raw.offset, str(err)) from None
    black_margin = state.black_margin() if state.is_over() else None
    if black_margin is not None and result is not None and not flag and abs(result - (black_margin - komi)) > 1e-6:
        raise _error(
            source, number, raw.offset,
            f"RE[{metadata['RE']}] disagrees with the final position: black margin {black_margin} - komi {komi}",
        )
    metadata.update(
        black_player=metadata.get("PB", ""),
        white_player=metadata.get("PW", ""),
        result=result,
        result_flag=flag,
        komi=komi,
        move_annotations=annotations,
    )
    return GameRecord(start=start, actions=np.array(actions, dtype=np.int16), black_margin=black_margin, metadata=metadata)


def parse_ggf(text: str, source: str = "<string>") -> list[GameRecord]:
    """All games of a GGF text as GameRecords (see the module docstring)."""
    return [_record_from_raw(raw, source) for raw in split_games(text, source)]


def read_ggf(path: str | os.PathLike) -> list[GameRecord]:
    path = Path(path)
    return parse_ggf(path.read_text(encoding="latin-1"), source=str(path))


# ------------------------------------------------------------------------------------------------
# Writing


def _ggs_date(now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)
    return now.strftime("%Y.%m.%d_%H:%M:%S.UTC")


def _board_value(state: GameState) -> str:
    text = format_board_text(state, black="*", white="O", empty="-")
    squares, side = text[:64], text[-1]
    rows = " ".join(squares[i : i + 8] for i in range(0, 64, 8))
    return f"8 {rows} {side}"


def _clean(value) -> str:
    """A property value with the characters GGF cannot hold inside brackets removed."""
    return str(value).replace("[", "(").replace("]", ")")


def format_ggf(record: GameRecord, place: str = "alphazero") -> str:
    """One game as a single GGF line `(;GM[Othello]...;)` that `parse_ggf` and GGS viewers read.

    Properties recorded in `record.metadata` under GGF keys (as `parse_ggf` leaves them) are
    written back; PB/PW fall back to `black_player`/`white_player`, RE is computed from
    `black_margin` (minus komi) when the metadata has none, BO is always the record's start position.
    Per-move `/eval/time` annotations are written from `metadata["move_annotations"]` when present.
    """
    meta = record.metadata
    props: dict[str, str] = {"GM": "Othello", "PC": _clean(meta.get("PC", place)), "DT": _clean(meta.get("DT", _ggs_date()))}
    props["PB"] = _clean(meta.get("PB", meta.get("black_player", "black")))
    props["PW"] = _clean(meta.get("PW", meta.get("white_player", "white")))
    props["TY"] = _clean(meta.get("TY", "8"))
    for key, value in meta.items():
        if _KEY.fullmatch(key) and key not in MOVE_KEYS and key not in ("BO", "GM") and key not in props:
            props[key] = _clean(value)
    if "RE" not in props and record.black_margin is not None:
        props["RE"] = f"{record.black_margin - float(meta.get('komi', 0.0)):+.3f}"
    ordered = [k for k in _HEADER_ORDER if k in props] + [k for k in props if k not in _HEADER_ORDER]
    parts = [GAME_START] + [f"{k}[{props[k]}]" for k in ordered] + [f"BO[{_board_value(record.start)}]"]

    annotations = meta.get("move_annotations")
    if annotations is not None and len(annotations) != len(record.actions):
        annotations = None
    black_to_move = record.start.black_to_move
    for ply, action in enumerate(record.actions):
        move = "pass" if action == PASS else square_name(int(action))
        note = _clean(annotations[ply]) if annotations is not None else ""
        parts.append(f"{'B' if black_to_move else 'W'}[{move}{note}]")
        black_to_move = not black_to_move
    parts.append(GAME_END)
    return "".join(parts)


def write_ggf(path: str | os.PathLike, records, place: str = "alphazero") -> None:
    """Write games one per line, atomically (temp file in the same directory + os.replace).

    The file is latin-1 like the GGS archives (and `read_ggf`); characters outside it become `?`.
    """
    path = Path(path)
    text = "".join(format_ggf(record, place) + "\n" for record in records)
    write_text_atomic(path, text, encoding="latin-1", errors="replace")
