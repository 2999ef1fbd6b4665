"""How many times a dead process is restarted before the run gives up on it.

A self-play worker or inference server that dies is restarted (its replacement carries on with
its slot and task). One that dies on start-up every time (a missing package, a network file it
cannot load, a GPU it cannot open) would be restarted forever, filling the log and, in sync mode,
keeping the run waiting for games that never come. So each process has a budget: it may die
`max_restarts` times in a row without delivering any work in between (a worker: any report; the
server: an answered batch) within `window_seconds`; the next death stops the run with one line
that names the process and its last error. A process that works between deaths (killed by the
OOM killer after an hour, or by the fault-injection campaign) never spends its budget.
"""

from __future__ import annotations

import time
from collections import deque


class ProcessKeepsDying(RuntimeError):
    """A process died more often than its restart budget allows; the message is one line."""


class RestartBudget:
    """The restart budget of one process (see the module docstring)."""

    def __init__(self, name: str, max_restarts: int, window_seconds: float, clock=time.monotonic):
        self.name = name
        self.max_restarts = int(max_restarts)
        self.window_seconds = float(window_seconds)
        self.clock = clock
        self.deaths: deque[float] = deque()  # deaths without work since, within the window
        self.last_error: str | None = None

    def delivered(self) -> None:
        """The process did work: earlier deaths no longer count against it."""
        self.deaths.clear()

    def error(self, message: str) -> None:
        """The process reported an error (a traceback) before it died."""
        self.last_error = message

    def died(self, exit_code) -> None:
        """The process died; raises ProcessKeepsDying when its budget is spent (else the caller
        restarts it)."""
        now = self.clock()
        self.deaths.append(now)
        while self.deaths and now - self.deaths[0] > self.window_seconds:
            self.deaths.popleft()
        if len(self.deaths) > self.max_restarts:
            last = _last_line(self.last_error) if self.last_error else f"exit code {exit_code}, no error reported"
            raise ProcessKeepsDying(
                f"{self.name} died {len(self.deaths)} times within {self.window_seconds:.0f} s without finishing any work "
                f"(selfplay.max_restarts={self.max_restarts}, selfplay.restart_window_seconds={self.window_seconds:g}); "
                f"stopping the run. Its last error: {last}"
            )


def _last_line(traceback_text: str) -> str:
    """The exception line of a traceback (its last non-empty line)."""
    lines = [line.strip() for line in traceback_text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else traceback_text.strip()
