"""Drive an external Othello engine that speaks GTP (Go Text Protocol) in a subprocess.

Only the commands every GTP Othello engine understands are required: `boardsize 8`, `clear_board`,
`play <color> <vertex>`, `genmove <color>`, `final_score`, `quit`; `showboard` is used when present
to check the engine's coordinates against ours.

Engine quirks handled here (measured on GRhino 0.16.1, `/usr/games/gtp-rhino`):
- `play <color> pass` is rejected ("syntax error"). A controller never sends passes: the engine
  skips a side that has no move by itself, so the next `play`/`genmove` is simply for the other colour.
- `genmove <color>` answers `= pass` (lower case) whenever that colour is not on move in the engine's
  game, so a pass must be checked against our own rules (see `GTPPlayer`), not trusted.
- Moves come back upper case (`= E6`); `final_score` is `B+10` / `W+4` / `0` with empties given
  to the winner, the same rule as `GameState.black_margin`.
- `time_settings` is accepted and ignored; strength is set on the command line (`-l 1..5`).
- `-r 0 -b 0` (no evaluation noise, no opening book) makes it deterministic from a given position;
  otherwise its book picks at random.

Every failure is a `GTPError` naming the engine, the command and what came back (or its stderr and
exit code when it died), because a stuck match is otherwise impossible to diagnose. Each answer has
the engine's `timeout` (the arena's `gtp:...,timeout=SECONDS`), except the first, which also waits
for the engine to start and gets at least STARTUP_TIMEOUT.
"""

from __future__ import annotations

import collections
import math
import queue
import shlex
import subprocess
import threading
import time

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, WHITE, GameState
from alphazero.othello.notation import NotationError, parse_square, square_name

DEFAULT_TIMEOUT = 60.0
# The engine's first answer also waits for the engine to start: loading a network and compiling
# its search (ours: a minute or more on a fresh install, numba compiling its kernels) is not a
# slow answer, so the first one may take up to this long whatever the per-command limit.
STARTUP_TIMEOUT = 300.0
COLOR_NAMES = {BLACK: "black", WHITE: "white"}
# Bounds on what an engine's output may make us hold: a broken engine printing without end (a
# line with no newline, or line after line with no answer in them) fails its command instead of
# filling memory until the time limit. A real answer is a few lines (showboard: about ten).
MAX_LINE_CHARS = 64 * 1024
MAX_ANSWER_LINES = 1000


class GTPError(RuntimeError):
    """The engine rejected a command, answered garbage, timed out or died."""


class GTPEngine:
    """One engine process and a synchronous command/response channel to it.

    `send` and `receive` are separate so that a caller can start `genmove` on several engines and
    collect the answers afterwards (the engines think in parallel); `command` does both.
    """

    def __init__(self, command: str | list[str], timeout: float = DEFAULT_TIMEOUT, name: str | None = None):
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty GTP engine command")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
            raise ValueError(f"GTP timeout must be a number of seconds > 0, got {timeout!r}")
        self.name = name or " ".join(self.argv)
        self.timeout = timeout
        # Bounded: an engine that prints without end blocks on its pipe instead of growing the queue.
        self._lines: queue.Queue = queue.Queue(maxsize=MAX_ANSWER_LINES)
        self._killed = threading.Event()  # set by kill(): the stdout reader drops lines from then on
        self._stderr: collections.deque = collections.deque(maxlen=40)
        self._pending: list[str] = []
        self._broken: str | None = None
        self._answered = False  # no answer yet: the first one waits for the start too (STARTUP_TIMEOUT)
        try:
            self.process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",  # bytes that are not UTF-8 show up in the error, not as a dead reader thread
                bufsize=1,
            )
        except OSError as err:
            raise GTPError(f"cannot start GTP engine {self.name!r}: {err}") from None
        self._stdout_pump = threading.Thread(target=self._pump, args=(self.process.stdout, self._put_line), daemon=True)
        self._stdout_pump.start()
        self._stderr_pump = threading.Thread(target=self._pump, args=(self.process.stderr, self._stderr.append), daemon=True)
        self._stderr_pump.start()

    @staticmethod
    def _pump(stream, sink):
        """Move lines from a pipe into `sink` (stdout: a queue read with a timeout); None marks EOF.
        A line is cut at MAX_LINE_CHARS (the rest is read and dropped), so no line is held whole."""
        while True:
            line = stream.readline(MAX_LINE_CHARS)
            if not line:
                break
            if not line.endswith("\n"):
                while (rest := stream.readline(MAX_LINE_CHARS)) and not rest.endswith("\n"):
                    pass
            sink(line.rstrip("\r\n"))
        sink(None)

    def _put_line(self, line) -> None:
        """Queue a line of stdout for `receive`; once the engine is killed, drop it. The queue is
        bounded, so a reader that blocked on a full queue after the engine failed (garbage without
        end) would otherwise wait forever, holding the pipe and up to MAX_ANSWER_LINES lines."""
        while not self._killed.is_set():
            try:
                self._lines.put(line, timeout=0.1)
                return
            except queue.Full:
                continue

    # ------------------------------------------------------------------------------------------
    # Raw protocol

    def send(self, command: str) -> None:
        if self._broken:
            raise GTPError(f"engine {self.name!r} is unusable after an earlier failure ({self._broken}); cannot send {command!r}")
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._fail(command, "the engine's input pipe is closed", [])
        self._pending.append(command)

    def receive(self, timeout: float | None = None) -> str:
        """The answer to the oldest command sent and not yet received; raises GTPError on '?'."""
        if not self._pending:
            raise GTPError(f"receive() on engine {self.name!r} with no command pending")
        command = self._pending.pop(0)
        waited = self.timeout if timeout is None else timeout
        if not self._answered:
            waited = max(waited, STARTUP_TIMEOUT)
        deadline = time.monotonic() + waited
        lines: list[str] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                starting = "" if self._answered else ", its first answer, which waits for the engine to start too"
                self._fail(
                    command,
                    f"no complete answer within {waited:g} s{starting} (a slow engine needs a longer limit: "
                    f"timeout=SECONDS in the arena's gtp: spec)",
                    lines,
                )
            if line is None:
                self._fail(command, "the engine closed its output (exited)", lines, exiting=True)
            if not lines and not line.strip():
                continue  # blank lines between answers
            if line.strip() == "" and lines:
                break
            lines.append(line)
            # Checked as the lines come, not once the blank line ends the answer: garbage may never end.
            if lines[0][:1] not in ("=", "?"):
                self._fail(command, "the answer does not start with '=' or '?'", lines)
            if len(lines) > MAX_ANSWER_LINES:
                self._fail(command, f"the answer runs past {MAX_ANSWER_LINES} lines with no blank line to end it", lines[:20] + ["..."])
        self._answered = True
        head = lines[0]
        # Strip the status character and an optional numeric id ("=12 text").
        first = head[1:].lstrip("0123456789").strip()
        text = "\n".join([first] + lines[1:]).strip("\n")
        if head[0] == "?":
            raise GTPError(f"engine {self.name!r} rejected {command!r}: {text!r}")
        return text

    def command(self, command: str, timeout: float | None = None) -> str:
        self.send(command)
        return self.receive(timeout)

    def _fail(self, command: str, reason: str, lines: list[str], exiting: bool = False):
        """Mark the channel unusable (it is out of step) and raise with everything we know."""
        self._broken = reason
        if exiting:  # output closed: give the process a moment to exit and its stderr to drain
            try:
                self.process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
        self._stderr_pump.join(timeout=0.5 if exiting else 0.05)
        exit_code = self.process.poll()
        status = f"exit code {exit_code}" if exit_code is not None else "still running"
        output = "\n".join(lines) if lines else "(nothing)"
        stderr = "\n".join(line for line in list(self._stderr) if line is not None) or "(nothing)"
        self.kill()
        raise GTPError(
            f"engine {self.name!r} failed on {command!r}: {reason} ({status}).\n"
            f"output:\n{output}\nstderr (last lines):\n{stderr}"
        )

    # ------------------------------------------------------------------------------------------
    # Othello commands

    def known_command(self, name: str) -> bool:
        return self.command(f"known_command {name}").strip().lower() == "true"

    def setup(self) -> None:
        self.command("boardsize 8")
        self.command("clear_board")

    def clear_board(self) -> None:
        self.command("clear_board")

    def play(self, color: int, action: int) -> None:
        """Tell the engine a move; passes are never sent (see module doc)."""
        if action == PASS:
            raise ValueError("passes are not sent to a GTP engine: it skips a side with no move by itself")
        self.command(f"play {COLOR_NAMES[color]} {square_name(action).upper()}")

    def send_genmove(self, color: int) -> None:
        self.send(f"genmove {COLOR_NAMES[color]}")

    def receive_genmove(self, timeout: float | None = None) -> int:
        """The engine's move as an action (64 for pass); raises GTPError on resign or garbage."""
        answer = self.receive(timeout)
        return parse_vertex(answer, self.name)

    def genmove(self, color: int, timeout: float | None = None) -> int:
        self.send_genmove(color)
        return self.receive_genmove(timeout)

    def final_score(self) -> int:
        """Black's final margin as the engine counts it (`B+10` -> 10, `W+4` -> -4, `0` -> 0)."""
        return parse_score(self.command("final_score"), self.name)

    def showboard(self) -> str:
        return self.command("showboard")

    def quit(self) -> None:
        """Ask the engine to exit; kill it if it does not within a second."""
        if self.process.poll() is None and not self._broken:
            try:
                self.command("quit", timeout=2.0)
            except GTPError:
                pass
        self.kill()

    def kill(self) -> None:
        self._killed.set()  # no one reads the lines now: let the stdout reader run on to EOF and end
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.quit()


def parse_vertex(text: str, engine: str = "engine") -> int:
    """`E6`/`e6` -> 44, `pass` -> 64; anything else (e.g. `resign`) raises GTPError."""
    token = text.strip()
    if token.lower() == "pass":
        return PASS
    try:
        return parse_square(token)
    except NotationError:
        raise GTPError(f"{engine!r} answered genmove with {token!r}: expected a square a1-h8 or 'pass'") from None


def parse_score(text: str, engine: str = "engine") -> int:
    token = text.strip().upper()
    if token in ("0", "DRAW"):
        return 0
    if len(token) >= 3 and token[0] in "BW" and token[1] == "+":
        try:
            value = int(token[2:])
        except ValueError:
            value = None
        if value is not None:
            return value if token[0] == "B" else -value
    raise GTPError(f"{engine!r} answered final_score with {text!r}: expected B+N, W+N or 0")


def parse_showboard(text: str) -> GameState | None:
    """The position in a `showboard` answer (rows `1`..`8` of `.`/`X`/`O` after a row label; an
    optional `Next move: Black|White` line), or None when the text is not in that shape."""
    black = white = 0
    rows_seen = set()
    black_to_move = True
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) >= 2 and tokens[0].lower() == "next" and "white" in line.lower():
            black_to_move = False
        if len(tokens) < 9 or tokens[0] not in "12345678" or len(tokens[0]) != 1:
            continue
        cells = tokens[1:9]
        if not all(cell in (".", "-", "X", "O", "*", "+") for cell in cells):
            continue
        row = int(tokens[0]) - 1
        rows_seen.add(row)
        for col, cell in enumerate(cells):
            if cell in ("X", "*"):
                black |= 1 << (row * 8 + col)
            elif cell == "O":
                white |= 1 << (row * 8 + col)
    if rows_seen != set(range(8)):
        return None
    return GameState(black, white, black_to_move)


def verify_board_convention(engine: GTPEngine) -> None:
    """Check that the engine's squares and colours are ours: after `clear_board` its board must be
    our start position, and after black c4 our position after c4 (the start is symmetric under the
    a1-h8 transpose, the c4 move is not). Engines without a parseable `showboard` are trusted.
    Leaves the engine at a cleared board."""
    engine.clear_board()
    if not engine.known_command("showboard"):
        return
    start = GameState.start()
    seen = parse_showboard(engine.showboard())
    if seen is not None:
        _compare_boards(engine, start, seen, "after clear_board")
        c4 = parse_square("c4")
        engine.play(BLACK, c4)
        seen = parse_showboard(engine.showboard())
        if seen is not None:
            _compare_boards(engine, start.play(c4), seen, "after play black C4")
    engine.clear_board()


def draw_board(state: GameState) -> str:
    """The position as a grid in the same shape as GRhino's `showboard` (X black, O white)."""
    lines = [f"Next move: {'Black' if state.black_to_move else 'White'}", "    a b c d e f g h"]
    for row in range(8):
        cells = []
        for col in range(8):
            owner = state.square(row * 8 + col)
            cells.append("X" if owner == BLACK else "O" if owner == WHITE else ".")
        lines.append(f"  {row + 1} " + " ".join(cells))
    return "\n".join(lines)


def _compare_boards(engine: GTPEngine, expected: GameState, seen: GameState, when: str) -> None:
    if (seen.black, seen.white, seen.black_to_move) != (expected.black, expected.white, expected.black_to_move):
        raise GTPError(
            f"engine {engine.name!r} does not share our board convention {when}: expected\n"
            f"{draw_board(expected)}\nbut its showboard is\n{engine.showboard()}"
        )
