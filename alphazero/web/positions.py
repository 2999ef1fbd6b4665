"""Games as the page holds them, checked and described: a start position, explicit moves, the text.

The page keeps a game as `start` (board text, or null for the standard start) and `moves` (a list
of `f5`-style tokens with every pass explicit as `pa`), and sends both with each request; the
server keeps no game state, so a reload, two tabs or a restarted server lose nothing. Every input
goes through the notation and GGF readers, whose errors name the bad token and where it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from alphazero.data.game_text import GameTextError, parse_game_text
from alphazero.data.ggf import format_ggf
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, GameState
from alphazero.othello.notation import (
    NotationError,
    action_name,
    format_board_text,
    parse_action,
    parse_board_text,
    parse_transcript,
)
from alphazero.othello.record import GameRecord
from alphazero.play.session import game_record, transcript_text

MAX_TEXT_CHARS = 200_000  # a pasted GGF file of a few hundred games; more is refused unread


class InputError(ValueError):
    """Input from the page that is not a game or a move; the message says what and where."""


@dataclass
class Game:
    start: GameState
    actions: list[int]

    def states(self) -> list[GameState]:
        states = [self.start]
        for action in self.actions:
            states.append(states[-1].play(action))
        return states

    @property
    def state(self) -> GameState:
        return self.states()[-1]

    def tokens(self) -> list[str]:
        return ["pa" if a == PASS else action_name(a) for a in self.actions]

    def with_forced_passes(self) -> "Game":
        """The game with the pass of a side that has no move played, so the position shown always
        has a side that can move (or is the end)."""
        state = self.state
        if state.must_pass():
            return Game(self.start, self.actions + [PASS])
        return self

    def record(self, black: str = "black", white: str = "white") -> GameRecord:
        return game_record(self.start, self.actions, {"black_player": black, "white_player": white})


def parse_start(text: str | None) -> GameState:
    if text is None or not str(text).strip():
        return GameState.start()
    try:
        return parse_board_text(str(text))
    except NotationError as err:
        raise InputError(f"start position: {err}") from None


def game_from_request(start: str | None, moves) -> Game:
    """The game the page sent: `moves` a list of tokens (or one transcript string), each checked
    for legality from `start`; forced passes the list leaves out are inserted."""
    state = parse_start(start)
    if moves is None:
        moves = []
    if isinstance(moves, str):
        text = moves
    elif isinstance(moves, list) and all(isinstance(m, str) for m in moves):
        text = "".join(m.strip() for m in moves)
    else:
        raise InputError("moves must be a list of moves like ['f5', 'd6'] or a transcript string")
    try:
        actions = parse_transcript(text, state)
    except NotationError as err:
        raise InputError(f"moves: {err}") from None
    return Game(state, actions).with_forced_passes()


def play_move(game: Game, token: str) -> Game:
    """`game` after the move `token` by the side to move; InputError (naming the legal moves) if
    it is not a move or not legal."""
    state = game.state
    if state.is_over():
        raise InputError(f"the game is over: {token!r} cannot be played")
    try:
        action = parse_action(str(token))
    except NotationError as err:
        raise InputError(str(err)) from None
    if not state.is_legal(action):
        legal = " ".join(action_name(a) for a in state.legal_actions())
        raise InputError(f"illegal move {action_name(action)}: legal moves are {legal}")
    return Game(game.start, game.actions + [action]).with_forced_passes()


def game_from_text(text: str, number: int = 1) -> Game:
    """A pasted game to load on the board: read as the review (and the review command) reads it
    (`record_from_text`: GGF game `number`, a transcript, or board text then a transcript, the
    files play and this page save), so both tabs accept the same texts with the same messages."""
    record = record_from_text(text, number)
    return Game(record.start, [int(action) for action in record.actions]).with_forced_passes()


def record_from_text(text, number: int = 1) -> GameRecord:
    """A pasted or uploaded game to review, read as the review command reads a file
    (alphazero.data.game_text: GGF game `number`, a transcript, or a board then a transcript), so
    the page's messages are the command's: they name the move or the GGF game and character."""
    text = str(text or "")
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"the game's text is {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,}")
    try:
        return parse_game_text(text, number, source="the game given")
    except GameTextError as err:
        raise InputError(str(err)) from None


def describe(game: Game) -> dict:
    """What the page draws: the board, legal moves, whose move, the plies, the record texts."""
    states = game.states()
    state = states[-1]
    black, white = state.disc_counts()
    plies = []
    for index, action in enumerate(game.actions):
        before = states[index]
        plies.append({
            "move": "pa" if action == PASS else action_name(action),
            "color": "black" if before.color_to_move == BLACK else "white",
            "flipped": [] if action == PASS else [action_name(s) for s in range(64) if before.flipped_by(action) >> s & 1],
        })
    over = state.is_over()
    record = game.record()
    return {
        "start": None if game.start == GameState.start() else format_board_text(game.start),
        "moves": game.tokens(),
        "plies": plies,
        "board": board_rows(state),
        "to_move": None if over else ("black" if state.color_to_move == BLACK else "white"),
        "legal": [] if over else [action_name(a) for a in state.legal_actions() if a != PASS],
        "black_discs": black,
        "white_discs": white,
        "empties": state.empties(),
        "over": over,
        "result": result_text(state) if over else None,
        "transcript": transcript_text(record),
        "ggf": format_ggf(record) + "\n",
    }


def board_rows(state: GameState) -> list[str]:
    """Eight strings of eight characters, row 1 first: X black, O white, - empty."""
    text = format_board_text(state)[:64]
    return [text[row * 8:(row + 1) * 8] for row in range(8)]


def result_text(state: GameState) -> str:
    margin = state.black_margin()
    black, white = state.disc_counts()
    if margin > 0:
        return f"Black wins by {margin} ({black}-{white}, empties to the winner)"
    if margin < 0:
        return f"White wins by {-margin} ({black}-{white}, empties to the winner)"
    return f"Draw ({black}-{white})"
