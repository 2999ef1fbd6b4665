"""Text forms of squares, move sequences and boards, both directions.

- Squares: `a1`..`h8`, columns a-h left to right, rows 1-8 top to bottom; either case.
- Transcripts: concatenated squares (`f5d6c3d3c4`), either case; passes implicit (inferred when
  the side to move has no move) or explicit as `pa`, `ps` or `--`.
- Board text (GGF / Edax / FFO): 64 characters a1..h8 row by row (`-` or `.` empty, `X` or `*`
  black, `O` white; whitespace ignored) followed by the side to move (`X`/`*`/`B` or `O`/`W`).

Every parse error is a `NotationError` that names the bad token and its position.
"""

from __future__ import annotations

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState, IllegalMoveError
from alphazero.othello.squares import (  # noqa: F401 - part of this module's interface: the text form of one square
    COLUMNS, PASS_TOKENS, NotationError, action_name, parse_action, parse_square, square_name,
)


def parse_transcript(text: str, start: GameState | None = None) -> list[int]:
    """Actions of a transcript replayed from `start` (the standard start by default).

    Forced passes are inserted where the side to move has no move; an explicit pass is accepted
    only where it is forced. Whitespace between (or inside) moves is ignored. Raises
    NotationError naming the token, where it starts in `text` as given (`character N`, or `line
    L, character N` in a text of several lines: a file's lines read whole) and its ply.
    """
    state = start or GameState.start()
    # Every non-space character with its offset in `text`, so an error names the place a person
    # can find in what they wrote, not in a copy with the spaces taken out.
    characters = [(offset, char) for offset, char in enumerate(text) if not char.isspace()]
    several_lines = "\n" in text.rstrip()
    actions: list[int] = []
    for index in range(0, len(characters), 2):
        pair = characters[index : index + 2]
        token = "".join(char for _, char in pair)

        def where() -> str:  # built only for an error: a long text has many tokens
            return f"{_place(text, pair[0][0], several_lines)} (ply {len(actions) + 1})"

        if len(token) < 2:
            raise NotationError(f"dangling character {token!r} at {where()}: moves are two characters like f5")
        try:
            action = parse_action(token)
        except NotationError:
            action = parse_action(token, where())  # raises again, now saying where
        if action != PASS and state.must_pass():
            actions.append(PASS)
            state = state.play(PASS)
        if state.is_over():
            raise NotationError(f"move {token!r} at {where()} comes after the end of the game")
        try:
            state = state.play(action)
        except IllegalMoveError as err:
            raise NotationError(f"illegal move {token!r} at {where()}: {err}") from None
        actions.append(action)
    return actions


def _place(text: str, offset: int, several_lines: bool) -> str:
    """`character N` (0-based) in a one-line text; `line L, character N` (L from 1, N from 0 in
    that line) in a text of several lines."""
    if not several_lines:
        return f"character {offset}"
    line_start = text.rfind("\n", 0, offset) + 1
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, character {offset - line_start}"


def format_transcript(actions, explicit_passes: bool = False) -> str:
    """`f5d6c3...`; passes are dropped unless `explicit_passes` (then written `pa`)."""
    parts = []
    for action in actions:
        if action == PASS:
            if explicit_passes:
                parts.append("pa")
        else:
            parts.append(square_name(int(action)))
    return "".join(parts)


_BLACK_CHARS = "X*x"
_WHITE_CHARS = "Oo"
_EMPTY_CHARS = "-."


def parse_board_text(text: str) -> GameState:
    """64 squares plus side to move (see module docstring) -> GameState."""
    compact = "".join(text.split())
    if len(compact) != 65:
        raise NotationError(
            f"board text has {len(compact)} non-space characters; expected 64 squares and the side to move"
        )
    black = white = 0
    for index, char in enumerate(compact[:64]):
        if char in _BLACK_CHARS:
            black |= 1 << index
        elif char in _WHITE_CHARS:
            white |= 1 << index
        elif char not in _EMPTY_CHARS:
            raise NotationError(
                f"bad board character {char!r} at square {index} ({square_name(index)}): expected -, X, * or O"
            )
    side = compact[64]
    if side in "X*Bb":
        black_to_move = True
    elif side in "OoWw":
        black_to_move = False
    else:
        raise NotationError(f"bad side to move {side!r} after the 64 squares: expected X, *, B, O or W")
    return GameState(black, white, black_to_move)


def format_board_text(state: GameState, black: str = "X", white: str = "O", empty: str = "-") -> str:
    """The inverse of `parse_board_text`: 64 characters, a space, the side to move."""
    chars = []
    for index in range(64):
        owner = state.square(index)
        chars.append(black if owner == 0 else white if owner == 1 else empty)
    return "".join(chars) + " " + (black if state.black_to_move else white)


def format_margin(black_margin: int | None) -> str:
    """A game's result from Black's disc margin (empties to the winner): `Black +8`, `White +12`,
    `draw`, or `unfinished` for None (the game listing and the review print it alike)."""
    if black_margin is None:
        return "unfinished"
    if black_margin == 0:
        return "draw"
    return f"Black +{black_margin}" if black_margin > 0 else f"White +{-black_margin}"
