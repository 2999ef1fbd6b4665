"""A log of finished arena games, so a killed match resumes at the game, not at the match.

A match against a slow engine (GRhino level 5 thinks for minutes per game) can outlast a
session; without this, a kill throws away every game of the match in progress. Each game is
appended as one JSON line the moment it ends (flushed and fsynced), keyed by the two player names,
the opening and which player had black. A restarted match with the same players and openings takes
those games as played and plays only the rest.

A line is trusted only after its moves replay legally from the opening to the end of the game and
reach the recorded result; a torn last line (a kill mid-write) or a damaged one is reported on
stderr with its line number and ignored, so that game is simply played again.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from alphazero.atomic import append_json_line
from alphazero.othello.game import GameState, IllegalMoveError
from alphazero.othello.notation import NotationError, format_transcript, parse_transcript

GameKey = tuple[str, bool]  # (opening transcript, player A has black)


class GameLog:
    """Append-only JSON lines of finished games (see the module doc)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._reported: set[int] = set()  # damaged lines already warned about (a ladder reads the log once a pairing)

    def finished_games(self, player_a: str, player_b: str, identity_a: str = "", identity_b: str = "") -> dict[GameKey, list[int]]:
        """The logged games between `player_a` (as A) and `player_b`: key -> actions (opening
        included). Later lines win over earlier ones for the same key. A game logged with another
        identity for either player (`Player.identity`: another network under the same name) is
        not theirs and is played again; a line without identities (logged before they were
        recorded) is taken on its names."""
        if not self.path.exists():
            return {}
        out: dict[GameKey, list[int]] = {}
        others = 0
        for number, line in numbered_lines(self.path):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if row["player_a"] != player_a or row["player_b"] != player_b:
                    continue
                if not (same_identity(row.get("identity_a"), identity_a) and same_identity(row.get("identity_b"), identity_b)):
                    others += 1
                    continue
                key, actions = _checked_game(row)
            except (ValueError, KeyError, TypeError, IllegalMoveError, NotationError) as err:
                if number not in self._reported:
                    self._reported.add(number)
                    print(f"warning: {self.path}:{number}: unusable game record ignored, the game will be played again ({line_problem(err)})",
                          file=sys.stderr)
                continue
            out[key] = actions
        if others:
            print(
                f"warning: {self.path}: {others} logged games of {player_a} vs {player_b} were played by another network "
                "under the same name (its checkpoint differs): they will be played again; name=LABEL in a player spec "
                "or another --games-log keeps both", file=sys.stderr,
            )
        return out

    def append(self, player_a: str, player_b: str, opening, a_is_black: bool, actions, black_margin: int,
               identity_a: str = "", identity_b: str = "") -> None:
        """Record one finished game (durable when this returns)."""
        row = {
            "player_a": player_a,
            "player_b": player_b,
            "opening": format_transcript(opening, explicit_passes=True),
            "a_is_black": bool(a_is_black),
            "moves": format_transcript(actions, explicit_passes=True),
            "black_margin": int(black_margin),
        }
        row.update({key: value for key, value in (("identity_a", identity_a), ("identity_b", identity_b)) if value})
        append_json_line(self.path, row)


def same_identity(logged, current: str) -> bool:
    """Whether a logged player identity can be the current player's: equal, or either unknown."""
    if logged is not None and not isinstance(logged, str):
        raise TypeError(f"an identity must be text, got {logged!r}")
    return not logged or not current or logged == current


def line_problem(err: Exception) -> str:
    """What is wrong with a log line, in words: a KeyError's text is only the key (`'player_b'`)."""
    return f"no field {err}" if isinstance(err, KeyError) else str(err)


def numbered_lines(path: Path) -> list[tuple[int, str | bytes]]:
    """(line number, text) of a JSON-lines log, each line decoded on its own: a line that is not
    UTF-8 (a flipped byte) comes back as its bytes, which `json.loads` then refuses with that line's
    number, instead of one decode error, naming no file, for the whole log."""
    out = []
    for number, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
        try:
            out.append((number, raw.decode("utf-8")))
        except UnicodeDecodeError:
            out.append((number, raw))
    return out


def _checked_game(row: dict) -> tuple[GameKey, list[int]]:
    opening = parse_transcript(row["opening"]) if row["opening"] not in ("", "-") else []
    actions = parse_transcript(row["moves"])
    if actions[: len(opening)] != opening:
        raise ValueError(f"moves {row['moves']!r} do not start with the opening {row['opening']!r}")
    state = GameState.start()
    for action in actions:
        state = state.play(action)
    if not state.is_over():
        raise ValueError(f"the game {row['moves']!r} is not finished")
    if state.black_margin() != int(row["black_margin"]):
        raise ValueError(f"the moves end {state.black_margin():+d} for black, the record says {int(row['black_margin']):+d}")
    if not isinstance(row["a_is_black"], bool):
        raise ValueError(f"a_is_black must be true or false, got {row['a_is_black']!r}")
    return (format_transcript(opening, explicit_passes=True), row["a_is_black"]), actions

