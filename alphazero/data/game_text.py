"""One game from the text a person has at hand: a GGF game, a transcript, or a board and a transcript.

The forms, told apart by their first character:
- GGF (`(;GM[Othello]...;)`, alphazero.data.ggf): game `number` of the text;
- a transcript (`f5d6c3...`, alphazero.othello.notation) from the standard start;
- board text (64 squares and the side to move) followed by a transcript: the transcript files
  that `python -m alphazero.play --save` and the web board write (`play.session.transcript_text`).
  No transcript starts with a board character, so the first character decides.

Every error is a `GameTextError` of one line that names the source and where in it: GGF's game
and character offset, the board's bad square, the transcript's line and character (as written,
spaces and line breaks counted) and its ply.
"""

from __future__ import annotations

from alphazero.data.ggf import GgfError, parse_ggf
from alphazero.othello.game import GameState
from alphazero.othello.notation import NotationError, parse_board_text, parse_transcript
from alphazero.othello.record import GameRecord

BOARD_CHARACTERS = "-.XxOo*"  # the squares of board text; no move starts with one


class GameTextError(ValueError):
    """Text that holds no readable game; the message names the source and where the problem is."""


def parse_game_text(text: str, number: int = 1, source: str = "<text>") -> GameRecord:
    """The game in `text` (see the module doc) as a GameRecord: passes explicit (the forced ones a
    transcript leaves out inserted), `black_margin` set when the game is over, `metadata["source"]`
    naming `source`. `number` picks a game of a GGF text (1-based); other texts hold one game."""
    stripped = text.strip()
    if not stripped:
        raise GameTextError(f"{source}: no game in it: expected a transcript (f5d6c3...), a board (64 squares and X/O) "
                            "followed by moves, or GGF")
    # GGF when it looks like GGF anywhere or the file says so by its name: a garbled GGF file is
    # then refused by the GGF parser naming its line, not read as a transcript ("bad square 'ga'").
    if stripped.startswith("(;") or "(;GM[" in stripped or source.lower().endswith(".ggf"):
        return _ggf_game(text, number, source)
    if number != 1:
        raise GameTextError(f"{source}: holds one game (a transcript, not GGF); there is no game {number}")
    start, moves = GameState.start(), text
    if stripped[0] in BOARD_CHARACTERS:
        start, moves = _board_then_moves(text, source)
    try:
        actions = parse_transcript(moves, start)
    except NotationError as err:
        raise GameTextError(f"{source}: {err}") from None
    return _record(start, actions, {"source": "transcript", "file": source})


def _ggf_game(text: str, number: int, source: str) -> GameRecord:
    try:
        records = parse_ggf(text, source=source)
    except GgfError as err:
        raise GameTextError(str(err)) from None
    if not 1 <= number <= len(records):
        raise GameTextError(f"{source}: holds {len(records)} GGF game(s); there is no game {number}")
    return records[number - 1]


def _board_then_moves(text: str, source: str) -> tuple[GameState, str]:
    """The board of the first 65 non-space characters, and the text after it with the board's
    characters blanked (not cut), so the transcript's errors name places in `text` itself."""
    seen = 0
    for offset, char in enumerate(text):
        if not char.isspace():
            seen += 1
            if seen == 65:
                break
    else:
        offset = len(text)
    board, rest = text[: offset + 1], text[offset + 1:]
    try:
        start = parse_board_text(board)
    except NotationError as err:
        raise GameTextError(f"{source}: board: {err}") from None
    blank = "".join(char if char == "\n" else " " for char in board)
    return start, blank + rest


def _record(start: GameState, actions: list[int], metadata: dict) -> GameRecord:
    state = start
    for action in actions:
        state = state.play(action)
    return GameRecord(start=start, actions=actions, black_margin=state.black_margin() if state.is_over() else None,
                      metadata=metadata)
