"""How many times a dead process is restarted before the run gives up on it.

A self-play worker or inference server that dies is restarted (its replacement carries on with
its slot and task). One that dies the same way every time (a missing package, a network file it
cannot load, a bug that raises mid-game or on some batch) would be restarted forever, filling the
log with tracebacks and losing its games in flight each time, and in sync mode keeping the run
waiting for games that never come. So each process has a budget: it may die `max_restarts` times
in a row without delivering work in between; the next death stops the run with one line that
names the process, the count and the last line of its last traceback (the training command then
exits with status 3).

What counts as work delivered is what the run keeps, never a sign of life:

- a self-play worker: a shard of finished games written (its `ShardReport`). Progress reports,
  sent every couple of seconds of play, do not count: a worker that reports progress and then
  crashes mid-game every time is a crash loop.
- the inference server: a shard written by any worker after the server had taken its first batch
  (and with at least one batch answered), i.e. games finished with its answers. A server that
  answers a few batches and dies on the next one every time never lets a shard through.

There is no time window: a crash loop spends its budget whatever its period (a slow one, a death
every ten minutes, would otherwise reset its count for ever), and a process that works between
deaths (killed by the OOM killer after an hour, or by the fault-injection campaign) never spends
it, however often it dies.
"""

from __future__ import annotations


class ProcessKeepsDying(RuntimeError):
    """A process died more often than its restart budget allows; the message is one line."""


class RestartBudget:
    """The restart budget of one process (see the module docstring)."""

    def __init__(self, name: str, max_restarts: int):
        self.name = name
        self.max_restarts = int(max_restarts)
        self.deaths = 0  # deaths since the process last delivered work
        self.last_error: str | None = None  # the traceback of the latest of those deaths, if it sent one

    def delivered(self) -> None:
        """The process delivered work: earlier deaths no longer count against it."""
        self.deaths = 0
        self.last_error = None

    def error(self, message: str) -> None:
        """The process reported an error (a traceback) before it died."""
        self.last_error = message

    def died(self, exit_code) -> None:
        """The process died; raises ProcessKeepsDying when its budget is spent (else the caller
        restarts it)."""
        self.deaths += 1
        if self.deaths > self.max_restarts:
            last = _last_line(self.last_error) if self.last_error else f"exit code {exit_code}, no error reported"
            raise ProcessKeepsDying(
                f"{self.name} died {self.deaths} times without delivering work in between "
                f"(selfplay.max_restarts={self.max_restarts}); stopping the run. Its last error: {last}"
            )


def _last_line(traceback_text: str) -> str:
    """The exception line of a traceback (its last non-empty line)."""
    lines = [line.strip() for line in traceback_text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else traceback_text.strip()
