"""The text form of one square or action: `a1`..`h8` (columns a-h left to right, rows 1-8 top to
bottom, either case) and `pass`.

It sits below `game.py` (whose illegal-move messages name squares) and `notation.py` (transcripts
and boards, which need `GameState`), so neither has to import the other back.
"""

from __future__ import annotations

from alphazero.othello.bitboard import PASS

COLUMNS = "abcdefgh"
PASS_TOKENS = ("pa", "ps", "--")


class NotationError(ValueError):
    """Text that does not follow the notation; the message names the token and its position."""


def square_name(square: int) -> str:
    if not 0 <= square < 64:
        raise ValueError(f"square index {square} is outside 0..63")
    return f"{COLUMNS[square % 8]}{square // 8 + 1}"


def action_name(action: int) -> str:
    """`f5` for a square, `pass` for action 64."""
    return "pass" if action == PASS else square_name(action)


def parse_square(token: str, where: str = "") -> int:
    """`f5`/`F5` -> 37. Raises NotationError naming `token` (and `where`, if given)."""
    text = token.strip().lower()
    if len(text) == 2 and text[0] in COLUMNS and text[1] in "12345678":
        return (int(text[1]) - 1) * 8 + COLUMNS.index(text[0])
    at = f" at {where}" if where else ""
    raise NotationError(f"bad square {token!r}{at}: expected a column a-h and a row 1-8, e.g. f5")


def parse_action(token: str, where: str = "") -> int:
    """A square or a pass word (`pass`, `pa`, `ps`, `--`)."""
    if token.strip().lower() in PASS_TOKENS + ("pass",):
        return PASS
    return parse_square(token, where)
