"""Edax .obf test files: one position per line with the known scores of its moves.

    <64 squares> <X|O>; <move>:<score>; <move>:<score>; ...

e.g. `--XXXXX--OOO...OOOOO-- X; G8:+18; H1:+12; ...`: squares a1..h8 (`-` empty, `X` black, `O`
white), the side to move, then moves (`PS` = pass) with their exact scores for the side to move,
best first. Empty lines and lines starting with `%` or `#` are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import NotationError, action_name, parse_board_text, parse_square


class ObfError(ValueError):
    """A line that is not in the format; the message names the file, the line and what was wrong."""


@dataclass(frozen=True)
class ObfPosition:
    line: int  # 1-based line number in its file
    text: str  # the board text (squares and side to move)
    state: GameState
    move_scores: dict[int, int]  # action -> exact score for the side to move; may be empty

    @property
    def best_score(self) -> int | None:
        return max(self.move_scores.values()) if self.move_scores else None

    @property
    def best_moves(self) -> set[int]:
        best = self.best_score
        return {move for move, score in self.move_scores.items() if score == best}


def parse_line(text: str, where: str, line: int) -> ObfPosition:
    fields = [field.strip() for field in text.split(";")]
    try:
        state = parse_board_text(fields[0])
    except NotationError as err:
        raise ObfError(f"{where}: {err}") from None
    move_scores: dict[int, int] = {}
    for field in fields[1:]:
        if not field:
            continue
        move_text, sep, score_text = field.partition(":")
        if not sep:
            raise ObfError(f"{where}: move field {field!r} has no ':'; expected e.g. G8:+18")
        try:
            move = PASS if move_text.strip().lower() in ("ps", "pa", "pass") else parse_square(move_text)
            score = int(score_text)
        except (NotationError, ValueError):
            raise ObfError(f"{where}: bad move field {field!r}; expected a square and a signed score, e.g. G8:+18") from None
        if not -64 <= score <= 64:
            raise ObfError(f"{where}: score {score} in {field!r} is outside -64..64")
        move_scores[move] = score
    return ObfPosition(line, fields[0], state, move_scores)


def read_obf(path) -> list[ObfPosition]:
    """Every position of an .obf file; ObfError (file and line named) on a missing file or bad line."""
    try:
        with open(path, encoding="ascii") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        raise ObfError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ObfError(f"{path}: cannot read: {err}") from None
    positions = []
    for number, text in enumerate(lines, start=1):
        if not text.strip() or text.lstrip().startswith(("%", "#")):
            continue
        positions.append(parse_line(text, f"{path}:{number}", number))
    return positions


def check_result(position: ObfPosition, best_move: int, score: int, wld: bool) -> str | None:
    """None if the result agrees with the file, else what disagrees."""
    expected = position.best_score
    if expected is None:
        return None
    if wld:
        if (score > 0) - (score < 0) != (expected > 0) - (expected < 0):
            return f"outcome {score:+d} has not the sign of the file's best score {expected:+d}"
        return None
    if score != expected:
        return f"score {score:+d} but the file's best score is {expected:+d}"
    if best_move >= 0 and best_move not in position.best_moves:
        moves = " ".join(sorted(action_name(m) for m in position.best_moves))
        return f"move {action_name(best_move)} is not one of the file's best moves ({moves})"
    return None
