"""The GTP protocol for Othello: one command line in, one response out, no I/O of its own.

`GTPEngine.handle(line)` implements GTP version 2 framing (optional numeric id echoed as `=12`/`?12`,
responses ending with a blank line, `#` comments and blank lines ignored, control characters
dropped) and the Othello dialect that GRhino (`gtp-rhino`) and Edax speak:

- Vertices `a1`..`h8` in either case; colours `b`/`black`/`w`/`white` in any case.
- `genmove` answers in upper case like GRhino (`= F5`), and `PASS` when the side must pass (GTP
  compares moves case-insensitively; GRhino itself says `pass`). At the end of the game it answers
  `PASS` and changes nothing, as GRhino does.
- `play` accepts `pass` (also `pa`, `ps`, `--`) only when the pass is forced. Since GRhino's
  dialect never sends passes, a move by the colour that is not on move is accepted when the side on
  move has no legal move: that side's pass is inferred and recorded with the move. `genmove` for
  the colour not on move works the same way. `undo` takes back one `play`/`genmove` together with
  the pass it implied.
- `final_score` is `B+n`, `W+n` or `0` with the empty squares going to the winner; before the end
  of the game it fails with `cannot score`, as GRhino's does.
- `time_settings main byo_yomi stones` and `time_left colour seconds stones` turn into a thinking
  budget per `genmove` (see `move_time_budget`); without them the chooser's own limit applies.
- Also `komi` (accepted and ignored, for controllers written for Go) and `reg_genmove` (a move
  without playing it).

Anything malformed gets `? <reason>` and leaves the game exactly as it was: every command computes
its new state first and commits it only when nothing can fail any more.
"""

from __future__ import annotations

import math
import re
import sys
import traceback
from dataclasses import dataclass, field
from importlib import metadata

from alphazero.bounded_lines import read_line
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, WHITE, GameState
from alphazero.othello.notation import NotationError, action_name, parse_action
from alphazero.play.choosers import MoveChooser
from alphazero.play.render import render_board, render_score_line

PROTOCOL_VERSION = "2"
ENGINE_NAME = "AlphaZero-Othello"
GAME_NAME = "Othello"
BOARD_SIZE = 8
MAX_LINE_CHARS = 4096  # GTP commands are short; longer lines are refused, never parsed
_ECHO_CHARS = 40  # how much of a bad token an error message repeats

_COLORS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}
_ID = re.compile(r"[0-9]+")
# GTP 2.2: control characters other than HT and LF are removed; HT becomes a space.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


class GTPError(Exception):
    """A command that fails; the message becomes the `? ...` response."""


def engine_version() -> str:
    try:
        return metadata.version("alphazero-othello")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def _quote(token: str) -> str:
    """A user token for an error message, cut short so a huge token cannot flood the reply."""
    if len(token) > _ECHO_CHARS:
        token = token[:_ECHO_CHARS] + "..."
    return repr(token)


def _color_name(color: int) -> str:
    return "black" if color == BLACK else "white"


def clean_line(line: str) -> str:
    """GTP preprocessing: drop control characters, tabs to spaces, cut the `#` comment."""
    line = _CONTROL.sub("", line.replace("\t", " "))
    return line.split("#", 1)[0].strip()


def format_response(success: bool, command_id: str | None, text: str = "") -> str:
    """`=id text` or `?id text`, then the blank line that ends a response. A result starting with a
    newline (a board) begins on its own line; blank lines inside are dropped so they cannot end
    the response early."""
    prefix = ("=" if success else "?") + (command_id or "")
    body = "\n".join(line.rstrip() for line in text.split("\n") if line.strip())
    if body:
        prefix += "\n" if text.startswith("\n") else " "
    return f"{prefix}{body}\n\n"


# ----------------------------------------------------------------------------------------------
# Time control


@dataclass(frozen=True)
class TimeControl:
    """GTP `time_settings`: Canadian byo-yomi. byo_yomi_time > 0 with 0 stones means no limit."""

    main_time: float
    byo_yomi_time: float
    byo_yomi_stones: int

    @property
    def unlimited(self) -> bool:
        return self.byo_yomi_time > 0 and self.byo_yomi_stones == 0


@dataclass(frozen=True)
class Clock:
    """GTP `time_left`: seconds left in the current period; stones to play in it (0 = main time)."""

    seconds: float
    stones: int


SAFETY_FRACTION = 0.8  # of the computed share: leaves room for process and pipe latency
SAFETY_SECONDS = 0.05
MIN_BUDGET_SECONDS = 0.01


def move_time_budget(control: TimeControl | None, clock: Clock | None, empties: int) -> float | None:
    """Seconds to think about one move, or None when there is no time limit.

    In byo-yomi (stones > 0) the period is shared evenly by the stones it must hold. In main time the
    remaining time is shared by the moves this side still expects to play (half the empties, since
    the sides alternate), plus the byo-yomi allowance of one stone if there is one. Without a
    `time_left` report yet, the clock is full: main time if any, else the first byo-yomi period.
    """
    if control is None or control.unlimited:
        return None
    if control.main_time <= 0 and control.byo_yomi_time <= 0:
        return None  # 0 0 0: GTP leaves this undefined; treat as "no limit" rather than "no time"
    if clock is None:
        if control.main_time > 0:
            clock = Clock(control.main_time, 0)
        else:
            clock = Clock(control.byo_yomi_time, control.byo_yomi_stones)
    if clock.stones > 0:
        share = clock.seconds / clock.stones
    else:
        own_moves_left = max(1, (empties + 1) // 2)
        share = clock.seconds / own_moves_left
        if control.byo_yomi_time > 0 and control.byo_yomi_stones > 0:
            share += control.byo_yomi_time / control.byo_yomi_stones
    return max(MIN_BUDGET_SECONDS, share * SAFETY_FRACTION - SAFETY_SECONDS)


# ----------------------------------------------------------------------------------------------
# The engine


@dataclass
class _Move:
    """One `play` or `genmove`: the state before it and the actions it added (a pass it implied,
    then the move)."""

    before: GameState
    actions: tuple[int, ...]


@dataclass
class GTPEngine:
    """Protocol state and command handlers; `handle(line) -> response or None` is the whole API.

    chooser:  the AI asked by `genmove`.
    state:    the current position; `history` the moves that led to it from `start`.
    finished: set by `quit`; the caller's loop stops reading after it.
    """

    chooser: MoveChooser
    name: str = ENGINE_NAME
    version: str = field(default_factory=engine_version)
    start: GameState = field(default_factory=GameState.start)
    state: GameState = field(init=False)
    history: list[_Move] = field(default_factory=list, init=False)
    time_control: TimeControl | None = field(default=None, init=False)
    clocks: dict = field(default_factory=dict, init=False)
    finished: bool = field(default=False, init=False)
    log: object = field(default=None, repr=False)  # a stream for internal-error tracebacks

    def __post_init__(self):
        self.state = self.start
        self._handlers = {
            "protocol_version": self.cmd_protocol_version,
            "name": self.cmd_name,
            "version": self.cmd_version,
            "known_command": self.cmd_known_command,
            "list_commands": self.cmd_list_commands,
            "quit": self.cmd_quit,
            "boardsize": self.cmd_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": self.cmd_komi,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "reg_genmove": self.cmd_reg_genmove,
            "undo": self.cmd_undo,
            "showboard": self.cmd_showboard,
            "final_score": self.cmd_final_score,
            "time_settings": self.cmd_time_settings,
            "time_left": self.cmd_time_left,
            "set_game": self.cmd_set_game,
            "list_games": self.cmd_list_games,
        }

    # -- framing -------------------------------------------------------------------------------

    def handle(self, line: str, truncated: bool = False) -> str | None:
        """The response to one input line (None for blank and comment lines).

        `truncated` says the caller cut an over-long line: it is refused, never parsed (its id, if
        the part kept begins with one, is still echoed).
        """
        text = clean_line(line)
        if not text:
            return None
        tokens = text.split()
        command_id = tokens.pop(0) if _ID.fullmatch(tokens[0]) else None
        if truncated or len(line) > MAX_LINE_CHARS:
            return format_response(False, command_id, f"line too long (limit {MAX_LINE_CHARS} characters)")
        if not tokens:
            return format_response(False, command_id, "missing command after the id")
        command, args = tokens[0].lower(), tokens[1:]
        handler = self._handlers.get(command)
        if handler is None:
            return format_response(False, command_id, f"unknown command {_quote(tokens[0])}")
        try:
            return format_response(True, command_id, handler(args))
        except GTPError as err:
            return format_response(False, command_id, str(err))
        except Exception as err:  # a bug or a failing AI must not take the engine (and the game) down
            if self.log is not None:
                traceback.print_exc(file=self.log)
            return format_response(False, command_id, f"internal error in {command}: {type(err).__name__}: {err}")

    # -- argument parsing ----------------------------------------------------------------------

    @staticmethod
    def _expect(args: list[str], count: int, usage: str) -> None:
        if len(args) != count:
            raise GTPError(f"syntax error: expected '{usage}', got {len(args)} argument(s)")

    @staticmethod
    def _color(token: str) -> int:
        color = _COLORS.get(token.lower())
        if color is None:
            raise GTPError(f"syntax error: invalid color {_quote(token)} (expected b, black, w or white)")
        return color

    @staticmethod
    def _number(token: str, what: str, integer: bool = False) -> float:
        try:
            value = int(token) if integer else float(token)
        except ValueError:
            kind = "an integer" if integer else "a number"
            raise GTPError(f"syntax error: {what} must be {kind}, got {_quote(token)}") from None
        if value != value or value in (float("inf"), float("-inf")) or value < 0:
            raise GTPError(f"syntax error: {what} must be a finite number >= 0, got {_quote(token)}")
        return value

    # -- rules helpers -------------------------------------------------------------------------

    def _position_for(self, color: int, command: str) -> tuple[GameState, tuple[int, ...]]:
        """The state in which `color` moves next, with the pass that must be inferred to get there.

        The colour not on move may move only when the side on move is forced to pass (GRhino's
        dialect never sends that pass).
        """
        state = self.state
        if state.is_over():
            raise GTPError("illegal move: the game is over")
        if color == state.color_to_move:
            return state, ()
        if state.must_pass():
            return state.play(PASS), (PASS,)
        to_move = _color_name(state.color_to_move)
        legal = " ".join(action_name(a) for a in state.legal_actions())
        raise GTPError(
            f"illegal move: {to_move} is to move and has legal moves ({legal}), so {_color_name(color)} cannot {command} now"
        )

    def _commit(self, before: GameState, actions: tuple[int, ...], after: GameState) -> None:
        self.history.append(_Move(before, actions))
        self.state = after

    def _time_budget(self, color: int, state: GameState) -> float | None:
        return move_time_budget(self.time_control, self.clocks.get(color), state.empties())

    def _generate(self, color: int, commit: bool) -> str:
        if self.state.is_over():
            return "PASS"
        state, inferred = self._position_for(color, "move")
        if state.must_pass():
            action = PASS
        else:
            action = int(self.chooser.choose(state, seconds=self._time_budget(color, state)))
            if not state.is_legal(action):
                legal = " ".join(action_name(a) for a in state.legal_actions())
                raise GTPError(f"internal error: the AI ({self.chooser.name}) chose {action}, not one of the legal moves {legal}")
        if commit:
            self._commit(self.state, inferred + (action,), state.play(action))
        return "PASS" if action == PASS else action_name(action).upper()

    # -- commands ------------------------------------------------------------------------------

    def cmd_protocol_version(self, args):
        return PROTOCOL_VERSION

    def cmd_name(self, args):
        return self.name

    def cmd_version(self, args):
        return self.version

    def cmd_known_command(self, args):
        self._expect(args, 1, "known_command <command>")
        return "true" if args[0].lower() in self._handlers else "false"

    def cmd_list_commands(self, args):
        return "\n".join(self._handlers)

    def cmd_quit(self, args):
        self.finished = True
        return ""

    def cmd_boardsize(self, args):
        self._expect(args, 1, "boardsize <size>")
        size = self._number(args[0], "the board size", integer=True)
        if size != BOARD_SIZE:
            raise GTPError("unacceptable size")
        self._reset()
        return ""

    def cmd_clear_board(self, args):
        self._reset()
        return ""

    def _reset(self):
        self.chooser.new_game()  # first: if the AI fails here, the game is still untouched
        self.state = self.start
        self.history.clear()
        self.clocks.clear()

    def cmd_komi(self, args):
        """Accepted and ignored: Othello has no komi (controllers written for Go send one)."""
        self._expect(args, 1, "komi <value>")
        try:
            komi = float(args[0])
        except ValueError:
            komi = math.nan
        if not math.isfinite(komi):
            raise GTPError(f"syntax error: komi must be a finite number, got {_quote(args[0])}")
        return ""

    def cmd_play(self, args):
        self._expect(args, 2, "play <color> <move>")
        color = self._color(args[0])
        try:
            action = parse_action(args[1])
        except NotationError:
            raise GTPError(f"syntax error: invalid move {_quote(args[1])} (expected a1..h8 or pass)") from None
        state, inferred = self._position_for(color, "play")
        if not state.is_legal(action):
            legal = " ".join(action_name(a) for a in state.legal_actions())
            if action == PASS:
                raise GTPError(f"illegal move: {_color_name(color)} cannot pass with legal moves ({legal})")
            raise GTPError(f"illegal move: {action_name(action)} is not legal for {_color_name(color)} (legal: {legal})")
        self._commit(self.state, inferred + (action,), state.play(action))
        return ""

    def cmd_genmove(self, args):
        self._expect(args, 1, "genmove <color>")
        return self._generate(self._color(args[0]), commit=True)

    def cmd_reg_genmove(self, args):
        """Like genmove, but the move is not played (used by regression tools)."""
        self._expect(args, 1, "reg_genmove <color>")
        return self._generate(self._color(args[0]), commit=False)

    def cmd_undo(self, args):
        if not self.history:
            raise GTPError("cannot undo: no moves have been played")
        self.chooser.new_game()  # its kept search tree belongs to a line that is being taken back
        self.state = self.history.pop().before
        return ""

    def cmd_showboard(self, args):
        last, flipped = self._last_move_marks()
        board = render_board(self.state, last_action=last, flipped=flipped)
        return "\n" + board + "\n" + render_score_line(self.state)

    def _last_move_marks(self) -> tuple[int | None, int]:
        """The last action and the discs it flipped (bitboard), for the board picture."""
        if not self.history:
            return None, 0
        move = self.history[-1]
        before = move.before
        for action in move.actions[:-1]:  # an inferred pass
            before = before.play(action)
        return move.actions[-1], before.flipped_by(move.actions[-1])

    def cmd_final_score(self, args):
        if not self.state.is_over():
            raise GTPError(f"cannot score: the game is not over ({_color_name(self.state.color_to_move)} to move)")
        margin = self.state.black_margin()
        if margin > 0:
            return f"B+{margin}"
        if margin < 0:
            return f"W+{-margin}"
        return "0"

    def cmd_time_settings(self, args):
        self._expect(args, 3, "time_settings <main_time> <byo_yomi_time> <byo_yomi_stones>")
        main_time = self._number(args[0], "main_time")
        byo_yomi_time = self._number(args[1], "byo_yomi_time")
        stones = int(self._number(args[2], "byo_yomi_stones", integer=True))
        self.time_control = TimeControl(main_time, byo_yomi_time, stones)
        self.clocks.clear()
        return ""

    def cmd_time_left(self, args):
        self._expect(args, 3, "time_left <color> <time> <stones>")
        color = self._color(args[0])
        seconds = self._number(args[1], "time")
        stones = int(self._number(args[2], "stones", integer=True))
        self.clocks[color] = Clock(seconds, stones)
        return ""

    def cmd_set_game(self, args):
        if len(args) < 1:
            raise GTPError("syntax error: expected 'set_game <game>'")
        if " ".join(args).lower() != GAME_NAME.lower():
            raise GTPError(f"unsupported game {_quote(' '.join(args))} (only {GAME_NAME})")
        return ""

    def cmd_list_games(self, args):
        return GAME_NAME


def serve(engine: GTPEngine, stdin=None, stdout=None) -> int:
    """The GTP main loop: read lines, answer each, stop at `quit` or end of input. Returns 0."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    while not engine.finished:
        read = read_line(stdin, MAX_LINE_CHARS)
        if read is None:
            break
        raw, truncated = read
        response = engine.handle(raw.decode("utf-8", errors="replace"), truncated=truncated)
        if response is None:
            continue
        try:
            stdout.write(response)
            stdout.flush()
        except BrokenPipeError:
            break  # the controller went away: nothing left to answer
    return 0
