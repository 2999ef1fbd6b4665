"""From the training command's start until self-play begins: a line that says what the run waits for.

On a fresh clone (or a fresh numba cache) the self-play workers compile the search's kernels
before their first move: 136 s on one busy core, 267 s on a 2-core EPYC at load 10, during which
the command used to show a self-play bar stuck at 0% with no clock, and then an ETA of hours
(the bar's rate counted the compile). Now:

- as soon as the configuration is accepted (before torch is imported, which alone takes seconds),
  the run asks numba's cache whether this machine's search kernels are in it
  (`alphazero.mcts.search.search_kernels_cached`, which reads the cache index without compiling);
  if not, a line says the kernels are compiling, with an elapsed time a thread redraws every
  second on a terminal (`alphazero.console.TickingLine`), until the first worker reports a move;
- with the kernels cached, the same kind of line ticks from the workers' start (10-40 s: loading
  the network and the kernels) until play;
- the self-play bar appears when play begins, so its clock and ETA count play only.

Why the cache and not the time the workers take: the line must come within seconds of the start,
long before anyone can tell a slow start from a compile, and the index is numba's own answer
(version, source stamp, CPU, bytecode) for exactly the kernels the workers are about to load. With
Ray (`selfplay.backend=ray`) the workers compile on other machines with their own caches: the
line then only says the workers are starting.
"""

from __future__ import annotations

from alphazero.console import TickingLine, count

COMPILING = "compiling the search kernels (first start only: numba caches them; minutes on a laptop), then self-play"
STARTING = "self-play workers starting: loading the network and the search kernels"


class PlayWait:
    """The wait for the first move of self-play, said on the console and in the log."""

    def __init__(self, kernels_cached: bool | None, progress: bool = True, stream=None):
        self.kernels_cached = kernels_cached  # None: cannot tell (numba internals, Ray's machines)
        self.line = TickingLine(COMPILING if kernels_cached is False else STARTING, enabled=progress, stream=stream)

    @classmethod
    def at_start(cls, cfg) -> "PlayWait":
        """Ask numba's cache now (the training command's start) and, on a cold cache, start the line."""
        cached = None
        if cfg.selfplay.backend == "local":
            from alphazero.mcts.search import search_kernels_cached

            cached = search_kernels_cached()
        wait = cls(cached, cfg.run.progress)
        if cached is False:
            wait.line.start()
        return wait

    def workers_starting(self, workers: int, server: bool) -> str:
        """The log line for the workers' start; the line ticks from now if it does not yet."""
        who = count(workers, "self-play worker") + (" and the inference server" if server else "")
        if self.kernels_cached is False:
            what = ("compiling the search kernels first (numba's cache has none for this machine: a first start; "
                    "minutes on a laptop, later starts load them in seconds)")
        elif self.kernels_cached:
            what = "loading the network and the search kernels from numba's cache (10-40 s)"
        else:
            what = "loading the network and compiling the search kernels (10-40 s; a minute or more the first time numba compiles them)"
        self.line.start()
        return f"starting {who}: {what}"

    def playing(self, since_workers_started: float) -> str:
        """Stop the line; the log line for the first move."""
        since_start = self.line.stop()
        compiled = f", {since_start:.0f} s since the command started (the search kernels compiled)" if self.kernels_cached is False else ""
        return f"self-play workers playing after {since_workers_started:.0f} s{compiled}"

    def cleared(self):
        """For the console's log records: the line out of their way (see TickingLine.cleared)."""
        return self.line.cleared()

    def stop(self) -> None:
        self.line.stop()
