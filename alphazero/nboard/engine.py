"""The NBoard protocol (version 2), as the NBoard GUI, Edax and NTest speak it, on our AI.

NBoard starts the engine and talks over stdin/stdout, one command a line (the protocol page of
NBoard and NTest; docs/frontends.md lists the mapping):

  nboard 2           -> `set myname NAME`: the session starts.
  set depth N        -> the search budget: N x `simulations_per_depth` simulations per search (an
                        MCTS has no depth; this keeps NBoard's depth slider monotone in strength).
                        Answers `set myname NAMEN`, as NTest does.
  set game GGF       the position at the end of the game (alphazero.data.ggf reads it).
  set contempt N     accepted and kept; it changes nothing (it steers an opening book, and we have none).
  move F5[/eval/time] or bare F5 (NBoard 1.1): the move is played (PA = pass; a forced pass the
                     GUI leaves out is inferred, as in GTP).
  go                 -> `status NAME is thinking`, `nodestats SIMS SECONDS`, one `search` line for the
                        chosen move, `=== F5/EVAL/SECONDS`, then `status` (cleared). The board is not
                        changed: NBoard sends `move` when the move is played.
  hint N             -> `status ...`, then a `search PV EVAL 0 DEPTH freeform` line for each of the N
                        most visited moves, then `status`. We have no opening book, so no `book` lines.
  ping N             -> stops a search in progress (its answer still comes first), then `pong N`.
  learn              -> `learned` (no book to add the game to).
  quit               the engine exits.

EVAL is from the side to move's view: the exact final disc margin when the endgame solver has
solved the position (DEPTH is then `100%`), else 50 x the search's value, i.e. the win
probability minus 50 in percent (+50 certain win, 0 even), on a scale comparable to a disc margin.

Searches run in a worker thread, so a command arriving while the engine thinks is read at once:
every command first stops the search in progress (which still sends its answer) and then runs;
that is what makes `ping` answer promptly. Garbage (an unknown command, a malformed argument, an
illegal move, a bad GGF) changes nothing: it is answered with a `status` line saying what was wrong
(which NBoard shows in its status bar) and logged to stderr; the engine never stops on it.
"""

from __future__ import annotations

import math
import sys
import threading
import traceback
from typing import Callable

from alphazero.bounded_lines import read_line
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import NotationError, parse_action, square_name

PROTOCOL_VERSION = 2
DEFAULT_SIMULATIONS_PER_DEPTH = 50
MAX_DEPTH = 60
MAX_LINE_CHARS = 65_536  # a long game's GGF is about 1 KB; longer lines are refused, never parsed
_ECHO_CHARS = 40


def move_text(action: int) -> str:
    """`F5`, or `PA` for a pass: how NBoard writes moves."""
    return "PA" if action == PASS else square_name(action).upper()


def evaluation(value: float, exact_score: int | None = None) -> float:
    """The number NBoard shows for a move: the exact disc margin if known, else 50 x value."""
    if exact_score is not None:
        return float(exact_score)
    return 0.0 if math.isnan(value) else 50.0 * value


def _quote(token: str) -> str:
    return repr(token if len(token) <= _ECHO_CHARS else token[:_ECHO_CHARS] + "...")


class NBoardError(ValueError):
    """A command that cannot be carried out; the message becomes a `status` line."""


class NBoardEngine:
    """Protocol state and command handlers. `handle(line)` runs one command; replies go to `send`.

    chooser: the AI. A `SearchChooser` (it has `think`) answers `go` and `hint` with its search;
             any other MoveChooser answers `go` with its move and `hint` with a status line.
    send:    writes one reply line (the caller flushes); called from the worker thread too, under
             a lock, so lines never interleave.
    log:     a stream for diagnostics (stderr), never the protocol's stdout.
    """

    def __init__(self, chooser, send: Callable[[str], None], name: str = "AlphaZero",
                 simulations_per_depth: int = DEFAULT_SIMULATIONS_PER_DEPTH, seconds: float | None = None,
                 log=None):
        if simulations_per_depth < 1:
            raise ValueError(f"simulations_per_depth must be >= 1, got {simulations_per_depth}")
        self.chooser = chooser
        self._send = send
        self.name = name
        self.simulations_per_depth = simulations_per_depth
        self.seconds = seconds
        self.log = log
        self.state = GameState.start()
        self.depth: int | None = None
        self.contempt = 0
        self.version: int | None = None
        self.finished = False
        self._send_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self._handlers = {
            "nboard": self.cmd_nboard,
            "set": self.cmd_set,
            "move": self.cmd_move,
            "go": self.cmd_go,
            "hint": self.cmd_hint,
            "ping": self.cmd_ping,
            "learn": self.cmd_learn,
            "quit": self.cmd_quit,
        }

    # -- output --------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self._send_lock:
            self._send(line)

    def _diagnose(self, message: str) -> None:
        """A problem with the GUI's input: a status line for the person, a line in the log."""
        self.send(f"status {message}")
        if self.log is not None:
            print(f"alphazero.nboard: {message}", file=self.log, flush=True)

    # -- framing -------------------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Run one input line. Every command first stops (and waits for) a search in progress."""
        text = line.replace("\x00", "").strip()
        if not text:
            return
        self.stop_search()
        if len(text) > MAX_LINE_CHARS:
            self._diagnose(f"error: line too long ({len(text)} characters, limit {MAX_LINE_CHARS}); ignored")
            return
        command, _, rest = text.partition(" ")
        handler = self._handlers.get(command.lower())
        if handler is None and len(command) == 2 and not rest:
            handler, rest = self.cmd_move, command  # NBoard 1.1 sends a bare move
        if handler is None:
            self._diagnose(f"error: unknown command {_quote(command)}; ignored")
            return
        try:
            handler(rest.strip())
        except NBoardError as err:
            self._diagnose(f"error: {err}")
        except Exception as err:  # a bug or a failing AI must not take the engine (and the GUI's game) down
            if self.log is not None:
                traceback.print_exc(file=self.log)
            self._diagnose(f"error: internal error in {command}: {type(err).__name__}: {err}")

    # -- searches in the worker thread ---------------------------------------------------------

    def stop_search(self) -> None:
        """Stop a search in progress and wait until it has sent its answer."""
        worker = self._worker
        if worker is not None:
            self._stop.set()
            worker.join()
            self._worker = None
        self._stop.clear()

    def wait(self) -> None:
        """Wait for a search in progress to end by itself (tests, and the end of input)."""
        worker = self._worker
        if worker is not None:
            worker.join()
            self._worker = None

    @property
    def thinking(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def _start(self, job: Callable[[GameState], None]) -> None:
        state = self.state
        self.send(f"status {self.name} is thinking")

        def run():
            try:
                job(state)
            except Exception as err:
                if self.log is not None:
                    traceback.print_exc(file=self.log)
                self.send(f"status error: the search failed: {type(err).__name__}: {err}")
                return
            self.send("status")

        self._worker = threading.Thread(target=run, name="nboard-search", daemon=True)
        self._worker.start()

    def _think(self, state: GameState, search_solved_roots: bool = True):
        return self.chooser.think(state, seconds=self.seconds, should_stop=self._stop.is_set,
                                  search_solved_roots=search_solved_roots)

    def _search_line(self, variation: list[int], value: float, exact: int | None, simulations: int, share: float) -> str:
        pv = "".join(move_text(a) for a in variation) or "PA"
        depth = "100%" if exact is not None else str(len(variation))
        return (f"search {pv} {evaluation(value, exact):.2f} 0 {depth} "
                f"{simulations} simulations, {100 * share:.1f}% of visits")

    # -- commands ------------------------------------------------------------------------------

    def cmd_nboard(self, rest: str) -> None:
        try:
            version = int(rest)
        except ValueError:
            raise NBoardError(f"nboard: expected a protocol version number, got {_quote(rest)}") from None
        self.version = version
        self.send(f"set myname {self._myname()}")
        if version != PROTOCOL_VERSION:
            self._diagnose(f"warning: this engine speaks NBoard protocol {PROTOCOL_VERSION}, asked for {version}")

    def _myname(self) -> str:
        return f"{self.name}{self.depth}" if self.depth is not None else self.name

    def cmd_set(self, rest: str) -> None:
        what, _, value = rest.partition(" ")
        what, value = what.lower(), value.strip()
        if what == "depth":
            try:
                depth = int(value)
            except ValueError:
                raise NBoardError(f"set depth: expected an integer 1..{MAX_DEPTH}, got {_quote(value)}") from None
            if not 1 <= depth <= MAX_DEPTH:
                raise NBoardError(f"set depth: expected an integer 1..{MAX_DEPTH}, got {depth}")
            if hasattr(self.chooser, "set_limits"):
                self.chooser.set_limits(depth * self.simulations_per_depth, self.seconds)
            self.depth = depth
            self.send(f"set myname {self._myname()}")
        elif what == "game":
            self.state = self._game_position(value)  # a kept search tree follows by itself (SearchChooser._sync)
        elif what == "contempt":
            try:
                self.contempt = int(float(value))
            except (ValueError, OverflowError):  # OverflowError: inf and 1e999 have no integer
                raise NBoardError(f"set contempt: expected a finite number, got {_quote(value)}") from None
        else:
            self._diagnose(f"set {_quote(what)} is not known to this engine; ignored")

    @staticmethod
    def _game_position(text: str) -> GameState:
        from alphazero.data.ggf import GgfError, parse_ggf

        try:
            games = parse_ggf(text, source="set game")
        except GgfError as err:
            raise NBoardError(f"bad GGF, position unchanged: {err}") from None
        if len(games) != 1:
            raise NBoardError(f"set game: expected one GGF game, got {len(games)}; position unchanged")
        return games[0].final_state()

    def cmd_move(self, rest: str) -> None:
        token = rest.split("/", 1)[0].strip()
        try:
            action = parse_action(token)
        except NotationError:
            raise NBoardError(f"move: {_quote(token)} is not a move (a1..h8 or PA); position unchanged") from None
        state = self.state
        if state.is_over():
            raise NBoardError(f"move {token}: the game is over; position unchanged")
        if action != PASS and state.must_pass():
            state = state.play(PASS)  # the GUI left out a forced pass
        if not state.is_legal(action):
            legal = " ".join(move_text(a) for a in state.legal_actions())
            raise NBoardError(f"move {token} is illegal here (legal: {legal}); position unchanged")
        self.state = state.play(action)

    def cmd_go(self, rest: str) -> None:
        if self.state.is_over():
            raise NBoardError("go: the game is over")
        if not hasattr(self.chooser, "think"):
            self._start(self._go_without_search)
            return
        self._start(self._go)

    def _go(self, state: GameState) -> None:
        thought = self._think(state, search_solved_roots=False)  # a move to play: the solver's suffices
        if thought.action == PASS:
            self.send("=== PA")
            return
        self.send(f"nodestats {thought.simulations} {thought.seconds:.2f}")
        best = next((i for i, m in enumerate(thought.moves) if m.action == thought.action), None)
        if best is not None:
            info = thought.moves[best]
            exact = thought.exact_score
            value = thought.root_value if exact is not None else info.value
            self.send(self._search_line(thought.variations[best], value, exact, thought.simulations, info.share))
        eval_ = evaluation(thought.root_value, thought.exact_score)
        self.send(f"=== {move_text(thought.action)}/{eval_:.2f}/{thought.seconds:.2f}")

    def _go_without_search(self, state: GameState) -> None:
        action = PASS if state.must_pass() else int(self.chooser.choose(state))
        if not state.is_legal(action):
            raise RuntimeError(f"the AI ({self.chooser.name}) chose {action}, which is not legal")
        self.send(f"=== {move_text(action)}")

    def cmd_hint(self, rest: str) -> None:
        try:
            count = int(rest)
        except ValueError:
            raise NBoardError(f"hint: expected a number of moves, got {_quote(rest)}") from None
        if count < 1:
            raise NBoardError(f"hint: expected a number of moves >= 1, got {count}")
        if self.state.is_over():
            raise NBoardError("hint: the game is over")
        if not hasattr(self.chooser, "think"):
            raise NBoardError(f"hint: {self.chooser.name} gives no evaluation of its moves")
        self._start(lambda state: self._hint(state, count))

    def _hint(self, state: GameState, count: int) -> None:
        thought = self._think(state)
        self.send(f"nodestats {thought.simulations} {thought.seconds:.2f}")
        for index, info in enumerate(thought.moves[:count]):
            is_best = info.action == thought.action
            exact = thought.exact_score if is_best else None
            value = thought.root_value if exact is not None else info.value
            self.send(self._search_line(thought.variations[index], value, exact, thought.simulations, info.share))

    def cmd_ping(self, rest: str) -> None:
        token = rest.split()[0] if rest.split() else "0"
        try:
            number = int(token)
        except ValueError:
            self._diagnose(f"ping: expected a number, got {_quote(token)}; answering pong 0")
            number = 0
        self.send(f"pong {number}")

    def cmd_learn(self, rest: str) -> None:
        self.send("learned")

    def cmd_quit(self, rest: str) -> None:
        self.finished = True


def serve(engine: NBoardEngine, stdin=None) -> int:
    """The main loop: read lines (bounded), hand each to the engine, stop at `quit` or end of
    input (after the last search has answered). Returns 0."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    while not engine.finished:
        read = read_line(stdin, MAX_LINE_CHARS)
        if read is None:
            engine.wait()
            break
        raw, truncated = read
        if truncated:
            engine.stop_search()
            engine._diagnose(f"error: line too long (limit {MAX_LINE_CHARS} characters); ignored")
            continue
        engine.handle(raw.decode("utf-8", errors="replace"))
    engine.stop_search()
    return 0
