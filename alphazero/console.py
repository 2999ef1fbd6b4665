"""What a long command shows a person while it works: progress on a terminal, silence in a pipe.

A command that runs for minutes (an arena match, a ladder, a benchmark) should not wait in
silence on a terminal, and should not fill a log or a pipe with progress lines a script then has
to skip. So progress goes to stderr, on by default exactly when stderr is a terminal; a command's
`--progress/--no-progress` flag overrides that either way (`progress_wanted`).

`StatusLine` draws one line that rewrites itself in place on a terminal (at most a few times a
second) and, where progress was asked for on a stream that is not a terminal (a log file), writes
whole lines instead, at most one a minute, plus the last one. `TickingLine` is a StatusLine that a
thread of its own keeps counting the seconds of, for a wait the main thread cannot watch.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time

# A command ended by Ctrl-C exits with the shell's code for SIGINT, after one line saying what was
# kept: every command line of the project uses this one.
EXIT_INTERRUPTED = 130


def progress_wanted(flag: bool | None, stream=None) -> bool:
    """`flag` when the user gave one (--progress / --no-progress), else whether `stream` (default
    sys.stderr) is a terminal."""
    if flag is not None:
        return bool(flag)
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def add_progress_option(parser: argparse.ArgumentParser, what: str) -> None:
    """`--progress/--no-progress` (default: on when stderr is a terminal) on `parser`."""
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help=f"report {what} on stderr (default: on when stderr is a terminal, off in a pipe or a log)",
    )


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 worker`, `0 workers`, `3 commits`: a number with its noun in the right number."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def format_seconds(seconds: float) -> str:
    """`42 s`, `3 min 05 s`, `1 h 02 min`: durations a person reads at a glance."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class StatusLine:
    """One line of progress on `stream` (default sys.stderr).

    On a terminal `update` rewrites the line in place, at most every `tty_interval` seconds; on
    anything else it writes a new line at most every `log_interval` seconds. `close` writes the last
    text given (if not yet shown) and ends the line. Nothing is written when `enabled` is False.
    """

    def __init__(self, enabled: bool, stream=None, tty_interval: float = 0.25, log_interval: float = 60.0, clock=time.monotonic):
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.is_tty = progress_wanted(None, self.stream)
        self.interval = tty_interval if self.is_tty else log_interval
        self.clock = clock
        self._shown_at: float | None = None
        self._pending: str | None = None
        self._width = 0

    def update(self, text: str, force: bool = False) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if not force and self._shown_at is not None and now - self._shown_at < self.interval:
            self._pending = text
            return
        self._show(text)
        self._shown_at = now

    def _show(self, text: str) -> None:
        self._pending = None
        if self.is_tty:
            padding = " " * max(0, self._width - len(text))
            self.stream.write(f"\r{text}{padding}")
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def clear(self) -> bool:
        """Erase the line on a terminal, so that other output (stdout on the same screen) can be
        printed; the next `update` draws it again at once. True if a line was erased; nothing to
        do in a log, whose whole lines stay where they are."""
        if not (self.enabled and self.is_tty and self._width):
            return False
        self.stream.write("\r" + " " * self._width + "\r")
        self.stream.flush()
        self._width = 0
        self._shown_at = None
        return True

    def close(self, text: str | None = None) -> None:
        """Show `text` (or the last text not yet shown) and end the line."""
        if not self.enabled:
            return
        last = text if text is not None else self._pending
        if last is not None:
            self._show(last)
        if self.is_tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
        self._width = 0
        self._shown_at = None


class TickingLine:
    """`TEXT | 1 min 05 s`: a status line whose elapsed time a thread of its own redraws every
    `tick` seconds, through a StatusLine (in place on a terminal; elsewhere whole lines at most
    once a minute; nothing when not `enabled`).

    For a wait whose end another process decides while this process's main thread is busy with
    other things: a training run's self-play workers compile numba's kernels (minutes on a first
    start) while the main process imports torch and measures its network, and nothing it does
    would otherwise show that the command is alive. Other output to the same terminal meanwhile
    (log records) goes through `cleared()`, which takes the line away and draws it back after.
    """

    def __init__(self, text: str, enabled: bool = True, stream=None, tick: float = 1.0, clock=time.monotonic):
        self.text = text
        self.tick_seconds = tick
        self.clock = clock
        self._line = StatusLine(enabled, stream, clock=clock)
        self._lock = threading.RLock()  # the ticking thread and the writers of other output
        self._started_at: float | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._started_at is not None and not self._done.is_set()

    def elapsed(self) -> float:
        return 0.0 if self._started_at is None else self.clock() - self._started_at

    def render(self) -> str:
        return f"{self.text} | {format_seconds(self.elapsed())}"

    def start(self, thread: bool = True) -> "TickingLine":
        """Show the line and start counting (once: a second start changes nothing); `thread=False`
        leaves the ticking to calls of `tick` (tests with a fake clock)."""
        if self._started_at is not None:
            return self
        self._started_at = self.clock()
        self.tick()
        if thread and self._line.enabled:
            self._thread = threading.Thread(target=self._run, name="ticking-line", daemon=True)
            self._thread.start()
        return self

    def tick(self) -> None:
        with self._lock:
            if self.running:
                self._line.update(self.render())

    def _run(self) -> None:
        while not self._done.wait(self.tick_seconds):
            self.tick()

    @contextlib.contextmanager
    def cleared(self):
        """Write other output to the terminal with the line out of its way."""
        with self._lock:
            shown = self._line.clear()
            try:
                yield
            finally:
                if shown and self.running:
                    self._line.update(self.render(), force=True)

    def stop(self) -> float:
        """Stop counting and take the line off the terminal; returns the seconds it counted."""
        with self._lock:
            seconds = self.elapsed()
            self._done.set()
            self._line.clear()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        return seconds
