"""One game at the terminal: people and AIs in any combination, driven by lines of input.

`PlaySession` owns the game (a start position plus the actions played) and talks only through two
callables, `read_line(prompt) -> str | None` (None = end of input) and `write(text)`, so scripted
sessions in tests run exactly the code a person at the keyboard does.

Rules the session keeps:
- A side with no legal move passes automatically, and the session says so; `pass` typed by a
  person is accepted only then (so in practice never needed).
- `undo` takes back the person's last move together with the replies after it (the AI's move,
  forced passes), so it is the person's turn again. It never goes back past the position the game
  was set up from (`--transcript`, `--board`, `--ggf`).
- Bad input never changes the game: it gets a message saying what was wrong and the legal moves.
- When the game ends by the rules the result is announced; with `save_prefix` the game is saved
  (GGF and transcript) at that moment.
"""

from __future__ import annotations

import datetime
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from alphazero.atomic import write_text_atomic
from alphazero.data.ggf import write_ggf
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, WHITE, GameState
from alphazero.othello.notation import NotationError, action_name, format_board_text, format_transcript, parse_action
from alphazero.othello.record import GameRecord
from alphazero.play.choosers import MoveChooser
from alphazero.play.render import (
    LEGEND,
    render_analysis,
    render_board,
    render_move,
    render_result,
    render_score_line,
    side_name,
)

HELP = """Commands:
  f5          play a move (column a-h, row 1-8; either case)
  hint        the AI's evaluation: its top moves with visit share and value
  undo        take back your last move and the reply to it
  board       show the board again
  save [FILE] save the game as FILE.ggf and FILE.txt (a transcript)
  pass        pass (only allowed when you have no move; the program passes for you anyway)
  quit        leave the game (end of input does the same)
  help        this text"""


@dataclass
class Seat:
    """Who plays one colour: a person at the terminal (`chooser` None) or an AI."""

    label: str
    chooser: MoveChooser | None = None

    @property
    def is_human(self) -> bool:
        return self.chooser is None


def game_record(start: GameState, actions: list[int], metadata: dict | None = None) -> GameRecord:
    """The session's game as a GameRecord (result filled in when the game is over)."""
    state = start
    for action in actions:
        state = state.play(action)
    margin = state.black_margin() if state.is_over() else None
    return GameRecord(start=start, actions=list(actions), black_margin=margin, metadata=dict(metadata or {}))


def transcript_text(record: GameRecord) -> str:
    """The transcript file: `f5d6c3...` (passes implied), preceded by the start position's board
    text when the game did not start from the standard position."""
    moves = format_transcript(record.actions)
    if record.start == GameState.start():
        return moves + "\n"
    return format_board_text(record.start) + "\n" + moves + "\n"


def save_game(prefix: str | os.PathLike, record: GameRecord) -> list[Path]:
    """Write PREFIX.ggf (via alphazero.data.ggf) and PREFIX.txt atomically; returns the paths.

    A prefix ending in .ggf or .txt is taken without that suffix, so `save game.ggf` does what
    was meant.
    """
    base = Path(prefix)
    if base.suffix.lower() in (".ggf", ".txt"):
        base = base.with_suffix("")
    ggf_path = base.with_name(base.name + ".ggf")
    text_path = base.with_name(base.name + ".txt")
    ggf_path.parent.mkdir(parents=True, exist_ok=True)
    write_ggf(ggf_path, [record])
    write_text_atomic(text_path, transcript_text(record))
    return [ggf_path, text_path]


def default_save_prefix() -> str:
    return datetime.datetime.now().strftime("othello-%Y%m%d-%H%M%S")


class PlaySession:
    """A game between two seats from `start` (after `setup_actions`), run by `run()`.

    read_line:   prompt -> the next input line, or None at end of input.
    write:       text -> shows it (a newline is added).
    advisor:     the AI asked by `hint` (default: the first AI seat; one without an evaluation says so).
    color:       ANSI colour in the board picture.
    delay:       seconds to wait after each AI move, so AI-vs-AI games can be watched.
    save_prefix: save the game there (GGF + transcript) when it ends.
    """

    def __init__(
        self,
        black: Seat,
        white: Seat,
        read_line: Callable[[str], str | None],
        write: Callable[[str], None],
        start: GameState | None = None,
        setup_actions: list[int] | tuple[int, ...] = (),
        advisor: MoveChooser | None = None,
        color: bool = False,
        delay: float = 0.0,
        save_prefix: str | None = None,
        metadata: dict | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.seats = {BLACK: black, WHITE: white}
        self.read_line = read_line
        self.write = write
        self.start = start or GameState.start()
        self.states = [self.start]
        self.actions: list[int] = []
        for action in setup_actions:
            self._push(int(action))
        self.setup_length = len(self.actions)
        if advisor is None:
            advisor = next((seat.chooser for seat in (black, white) if seat.chooser is not None), None)
        self.advisor = advisor
        self.color = color
        self.delay = delay
        self.save_prefix = save_prefix
        self.metadata = dict(metadata or {})
        self.sleep = sleep
        self.finished_announced = False
        self.saved_paths: list[Path] = []
        self._shown_at = -1  # len(actions) when the board was last shown

    # -- game state ----------------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self.states[-1]

    def _push(self, action: int) -> None:
        self.states.append(self.states[-1].play(action))
        self.actions.append(action)

    def _truncate(self, length: int) -> None:
        del self.actions[length:]
        del self.states[length + 1 :]

    def record(self) -> GameRecord:
        metadata = {"black_player": self.seats[BLACK].label, "white_player": self.seats[WHITE].label, **self.metadata}
        return game_record(self.start, self.actions, metadata)

    def _has_human(self) -> bool:
        return any(seat.is_human for seat in self.seats.values())

    def _label(self, color: int) -> str:
        return f"{side_name(color)} ({self.seats[color].label})"

    # -- output --------------------------------------------------------------------------------

    def show_board(self) -> None:
        last = self.actions[-1] if self.actions else None
        flipped = self.states[-2].flipped_by(last) if last is not None else 0
        self.write(render_board(self.state, last_action=last, flipped=flipped, color=self.color))
        self.write(render_score_line(self.state))
        self._shown_at = len(self.actions)

    def _legal_text(self) -> str:
        return " ".join(action_name(a) for a in self.state.legal_actions())

    # -- the loop ------------------------------------------------------------------------------

    def run(self) -> GameRecord:
        """Play until the game ends (and, with a person present, until they quit) or input ends."""
        self.write(f"Black: {self.seats[BLACK].label}   White: {self.seats[WHITE].label}")
        if self._has_human():
            self.write(LEGEND + "   (type help for commands)")
        while True:
            state = self.state
            if state.is_over():
                if not self.finished_announced:
                    self._announce_end()
                if not self._has_human():
                    return self.record()
                if not self._prompt_human("Game over. save [file], undo, quit? "):
                    return self.record()
                continue
            color = state.color_to_move
            seat = self.seats[color]
            if state.must_pass():
                who = "You have" if seat.is_human else f"{self._label(color)} has"
                self.write(f"{who} no legal move: {side_name(color)} passes.")
                self._push(PASS)
                continue
            if not seat.is_human:
                if not self._play_ai(color):
                    return self.record()
                if not self._has_human():
                    self.show_board()
                continue
            if self._shown_at != len(self.actions):
                self.show_board()
            if not self._prompt_human(f"{self._label(color)} to move: "):
                return self.record()

    def _announce_end(self) -> None:
        self.finished_announced = True
        if self._shown_at != len(self.actions):
            self.show_board()
        self.write(render_result(self.state))
        if self.save_prefix:
            self._save(self.save_prefix)

    def _play_ai(self, color: int) -> bool:
        """Ask the AI for its move and play it; False when the AI failed (the game is saved)."""
        seat = self.seats[color]
        state = self.state
        try:
            action = seat.chooser.choose(state)
            if not state.is_legal(action):
                raise ValueError(f"it chose {action}, which is not legal here (legal: {self._legal_text()})")
        except Exception as err:
            self.write(f"The AI playing {side_name(color)} ({seat.label}) failed: {type(err).__name__}: {err}")
            self._save(self.save_prefix or default_save_prefix())
            return False
        self.write(render_move(self._label(color), action, state.flipped_by(action)))
        self._push(action)
        if self.delay > 0:
            self.sleep(self.delay)
        return True

    def _prompt_human(self, prompt: str) -> bool:
        """Read and carry out one command; False when the session should end (quit, end of input)."""
        line = self.read_line(prompt)
        if line is None:
            self.write("End of input: leaving the game." if not self.state.is_over() else "Bye.")
            return False
        return self.handle_command(line)

    # -- commands ------------------------------------------------------------------------------

    def handle_command(self, line: str) -> bool:
        """Carry out one line typed by the person to move; False means quit."""
        words = line.strip().split()
        if not words:
            self.write("Type a move like f5, or help.")
            return True
        word = words[0].lower()
        if word in ("quit", "exit", "q"):
            self.write("Leaving the game." if not self.state.is_over() else "Bye.")
            return False
        if word in ("help", "?", "h"):
            self.write(HELP)
        elif word == "board":
            self.show_board()
        elif word == "undo":
            self._undo()
        elif word == "hint":
            self._hint()
        elif word == "save":
            self._save(" ".join(words[1:]) if len(words) > 1 else (self.save_prefix or default_save_prefix()))
        elif len(words) > 1:
            self.write(f"Unexpected words after {words[0]!r}: type one move (like f5) or one command; help lists them.")
        else:
            self._human_move(words[0])
        return True

    def _human_move(self, token: str) -> None:
        state = self.state
        if state.is_over():
            self.write(f"The game is over; {token!r} cannot be played. Commands: save, undo, quit.")
            return
        try:
            action = parse_action(token)
        except NotationError:
            shown = token if len(token) <= 20 else token[:20] + "..."
            self.write(
                f"{shown!r} is neither a move nor a command: moves are a column a-h and a row 1-8 (like f5). "
                f"Legal moves: {self._legal_text()}. Type help for commands."
            )
            return
        if action == PASS and not state.must_pass():
            self.write(f"You cannot pass: you have legal moves ({self._legal_text()}).")
            return
        if not state.is_legal(action):
            owner = state.square(action)
            why = "is already taken" if owner != -1 else "flips no disc"
            self.write(f"{action_name(action)} {why}. Legal moves: {self._legal_text()}.")
            return
        color = state.color_to_move
        self.write(render_move(self._label(color), action, state.flipped_by(action)))
        self._push(action)

    def _undo(self) -> None:
        """Back to just before the last move a person made (after the setup position)."""
        target = None
        for index in range(len(self.actions) - 1, self.setup_length - 1, -1):
            mover = self.states[index].color_to_move
            if self.seats[mover].is_human and self.actions[index] != PASS:
                target = index
                break
        if target is None:
            self.write("Nothing to undo: you have not moved since the game was set up.")
            return
        undone = self.actions[target:]
        self._truncate(target)
        self.finished_announced = False
        for seat in self.seats.values():
            if seat.chooser is not None:
                seat.chooser.new_game()  # a kept search tree belongs to a line that no longer exists
        names = " ".join(action_name(a) for a in undone)
        self.write(f"Took back {names}.")
        self.show_board()

    def _hint(self) -> None:
        state = self.state
        if state.is_over():
            self.write("The game is over: no hints.")
            return
        advisor = self.advisor
        if advisor is None:
            self.write("No hints: no AI here can explain its moves (use a network: --checkpoint PATH).")
            return
        infos = advisor.analyse(state)
        if not infos:
            self.write(f"No hints: {advisor.name} gives no evaluation of its moves (use a network: --checkpoint PATH).")
            return
        self.write(f"{advisor.name} thinks (value and win% for {side_name(state.color_to_move)}):")
        self.write(render_analysis(infos))

    def _save(self, prefix: str) -> None:
        try:
            paths = save_game(prefix, self.record())
        except Exception as err:  # a bad path must not end the game: say why and carry on
            self.write(f"Could not save to {prefix!r}: {type(err).__name__}: {err}")
            return
        self.saved_paths = paths
        self.write("Saved " + " and ".join(str(p) for p in paths) + ".")
