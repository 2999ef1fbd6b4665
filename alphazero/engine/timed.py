"""Searching one position by time: the one loop that `play`, GTP, NBoard, the web board and the
arena's `seconds=` players all think with.

A time-limited search cannot know in advance how many simulations fit, so it grows one tree in
chunks of `TIME_CHUNK` simulations (a BatchedSearch with tree reuse, whose repeated `search` calls
on the same root add to the tree) and stops before a chunk it expects to overrun: after each chunk
it starts another only if `now + (duration of the last chunk)` is still inside the budget. The
budget is therefore an upper bound up to one chunk's misestimate (a chunk of 32 simulations is a
few milliseconds for the small network on one core), never a target it overshoots by design.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Callable

import numpy as np

from alphazero.mcts.config import MCTSConfig

TIME_CHUNK = 32
MAX_TIMED_NODES = 65_536  # tree size of a timed search: about 37 MB; a fuller tree is trimmed


def check_limits(simulations: int | None, seconds: float | None) -> None:
    """ValueError unless at least one limit is given and each given one is valid."""
    if simulations is None and seconds is None:
        raise ValueError("a search needs simulations or seconds per move (or both)")
    if simulations is not None and (isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1):
        raise ValueError(f"simulations per move must be an integer >= 1, got {simulations!r}")
    if seconds is not None and (isinstance(seconds, bool) or not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0)):
        raise ValueError(f"seconds per move must be a number > 0, got {seconds!r}")


def chunked_config(base: MCTSConfig, chunk: int, capacity: int) -> MCTSConfig:
    """`base` made into a chunked search's settings: `chunk` simulations a call, tree reuse on (so
    calls add to one tree), room for about `capacity` nodes, no root noise, temperature 0."""
    return dataclasses.replace(
        base,
        simulations=chunk,
        noise_fraction=0.0,
        temperature=0.0,
        temperature_plies=0,
        tree_reuse=True,
        reuse_capacity=max(1.0, (capacity - chunk - 1) / chunk),
        leaves_per_step=min(base.leaves_per_step, chunk),
    )


def search_within(search, position: np.ndarray, ply: int, simulations: int | None, seconds: float | None,
                  should_stop: Callable[[], bool] | None = None, clock: Callable[[], float] = time.perf_counter):
    """Search one game's root (`search` has num_games=1; its tree is kept, so call `reset` first for
    a fresh one) in chunks of `search.config.simulations` until `simulations` are done, `seconds`
    are spent (see the module doc) or `should_stop()` answers True between chunks. At least one
    chunk always runs. A root the endgame solver solved and did not leave to the search
    (`MCTSConfig.search_solved_roots` false: the chunk ran no simulation) is answered, so no more
    chunks run: a solved position costs its solve, not the time budget. `clock` (seconds) is
    time.perf_counter but for tests. Returns (SearchResult of the last chunk, simulations done)."""
    chunk = search.config.simulations
    positions = np.asarray(position, dtype=np.uint64).reshape(1, 2)
    plies = np.array([ply], dtype=np.int64)
    started = clock()
    done = 0
    while True:
        chunk_started = clock()
        # The last chunk is what is left of the simulation budget, so a budget that is not a
        # multiple of the chunk is still spent exactly.
        budget = chunk if simulations is None else min(chunk, simulations - done)
        result = search.search(positions, plies, add_noise=False, simulations=budget)
        done += int(result.simulations[0])
        now = clock()
        if result.simulations[0] == 0:  # solved by the endgame solver, not searched: nothing to add
            break
        if simulations is not None and done >= simulations:
            break
        if seconds is not None and now + (now - chunk_started) > started + seconds:
            break
        if should_stop is not None and should_stop():
            break
        if seconds is None and should_stop is None and simulations is None:
            break
    return result, done
