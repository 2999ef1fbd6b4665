"""Text pictures of a game for people: the board, the score line, the AI's evaluation, the result.

Plain ASCII by default, so output reads the same in a pipe, a log or a test. Colour (ANSI) is an
option for terminals, and `color_wanted` turns it off when the stream is not a TTY or NO_COLOR is
set (https://no-color.org).

Board legend (plain):   X black   O white   . empty   + legal move for the side to move
                        [X] the last move   x / o  discs it flipped (lower case)
Every line is non-empty, so the picture can be sent inside a GTP response (a blank line ends one).
"""

from __future__ import annotations

import math
import os

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, GameState
from alphazero.othello.notation import COLUMNS, action_name

LEGEND = "X black  O white  + legal move  [ ] last move  x o flipped by it"

_RESET = "\033[0m"
_STYLES = {
    "black": "\033[1;97m",  # bold bright white on the terminal's dark background
    "white": "\033[1;33m",  # bold yellow
    "legal": "\033[32m",  # green
    "flipped": "\033[35m",  # magenta
    "last": "\033[1;31m",  # bold red brackets
    "empty": "\033[90m",  # dark grey
}


def color_wanted(stream) -> bool:
    """Colour only for an interactive terminal that did not opt out (NO_COLOR, TERM=dumb)."""
    if "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _paint(text: str, style: str, color: bool) -> str:
    return f"{_STYLES[style]}{text}{_RESET}" if color else text


def side_name(color: int) -> str:
    return "Black" if color == BLACK else "White"


def render_board(
    state: GameState,
    last_action: int | None = None,
    flipped: int = 0,
    show_legal: bool = True,
    color: bool = False,
) -> str:
    """The board with coordinates; `last_action` is bracketed and the discs in `flipped` (a
    bitboard) are drawn in lower case (or in colour)."""
    legal = 0 if not show_legal or state.is_over() else state.legal_moves_bits()
    marked = last_action if last_action is not None and last_action != PASS else -1
    lines = ["    " + " ".join(COLUMNS)]
    for row in range(8):
        # Each cell is preceded by a separator; the last move's separators become [ and ].
        parts = [f"{row + 1:>2} "]
        for col in range(8):
            square = row * 8 + col
            if square == marked:
                opening = "["
            elif square - 1 == marked and col > 0:
                opening = "]"
            else:
                opening = " "
            parts.append(_paint(opening, "last", color) if opening != " " else opening)
            parts.append(_cell(state, square, legal, flipped, color))
        parts.append(_paint("]", "last", color) if marked == row * 8 + 7 else "")
        lines.append("".join(parts).rstrip())
    return "\n".join(lines)


def _cell(state: GameState, square: int, legal: int, flipped: int, color: bool) -> str:
    owner = state.square(square)
    bit = 1 << square
    if owner == -1:
        if legal & bit:
            return _paint("+", "legal", color)
        return _paint(".", "empty", color)
    letter = "X" if owner == BLACK else "O"
    if flipped & bit:
        return _paint(letter, "flipped", color) if color else letter.lower()
    return _paint(letter, "black" if owner == BLACK else "white", color)


def render_score_line(state: GameState) -> str:
    """`Black (X) 12  White (O) 9  - White to move` (or `- game over`)."""
    black, white = state.disc_counts()
    if state.is_over():
        turn = "game over"
    else:
        turn = f"{side_name(state.color_to_move)} to move"
    return f"Black (X) {black}  White (O) {white}  - {turn}"


def render_result(state: GameState) -> str:
    """The announcement at the end: winner and score, empties counted for the winner (WTHOR rule)."""
    margin = state.black_margin()
    black, white = state.disc_counts()
    final_black = (64 + margin) // 2
    final_white = 64 - final_black
    empties = 64 - black - white
    squares = "1 empty square goes" if empties == 1 else f"{empties} empty squares go"
    note = f" ({squares} to the winner)" if empties and margin else ""
    if margin > 0:
        return f"Game over: Black wins {final_black}-{final_white}{note}."
    if margin < 0:
        return f"Game over: White wins {final_white}-{final_black}{note}."
    return f"Game over: draw {black}-{white}."


def render_analysis(infos, limit: int = 5) -> str:
    """The AI's top moves: visit share and value, one per line, most visited first."""
    lines = ["move  visits  value  win%"]
    for info in list(infos)[:limit]:
        if math.isnan(info.value):
            value, win = "   n/a", "  n/a"
        else:
            value, win = f"{info.value:+6.2f}", f"{100 * info.win_probability:5.1f}"
        lines.append(f"{action_name(info.action):<5} {100 * info.share:5.1f}% {value} {win}")
    return "\n".join(lines)


def render_move(who: str, action: int, flipped: int) -> str:
    """`Black (you) plays f5 (flips e5).` / `White (AI) passes.`"""
    if action == PASS:
        return f"{who} passes."
    squares = [action_name(s) for s in range(64) if flipped >> s & 1]
    return f"{who} plays {action_name(action)} (flips {' '.join(squares)})."
