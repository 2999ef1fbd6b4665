"""Searching one position by time: the one loop that `play`, GTP, NBoard, the web board and the
arena's `seconds=` players all think with.

A time-limited search cannot know in advance how many simulations fit, so it grows one tree in
calls of at most `TIME_CHUNK` simulations (a BatchedSearch with tree reuse, whose repeated
`search` calls on the same root add to the tree), each sized to what the time left holds at the
move's measured seconds per simulation so far, and stops when not one more simulation fits. The
first call is `FIRST_TIMED_CHUNK` simulations, the measurement. The budget is therefore an upper
bound up to that estimate's error (and the first call's length), never a target it overshoots by
design, and it is used to within about one simulation: a whole chunk of 32 is a few milliseconds
for the small network but 0.15-0.3 s for the medium one on one core, so waiting for a whole
chunk to fit left up to 40% of a half-second budget unused (experiments/timed-chunks/README.md, "A
search by time uses all of its time").

A search that plays (not an analysis: `MCTSConfig.search_solved_roots` false) first probes a root
beyond the endgame solver's reach (up to MAX_ENDGAME_SOLVE_EMPTIES): a win/loss/draw solve limited
to the nodes the solver does in `MCTSConfig.endgame_timed_probe_share` of the time, at its
measured speed (`Solver.nodes_per_second`). A root proven won or drawn is answered with the
solver's move, which keeps that result against any defence, and costs only its proof; a lost root
or a probe that gives up is searched in the time left (what the probe proved stays in the
solver's table for the next move). A win/loss/draw proof costs a tenth of an exact solve or
less, so at a second a move on one core most won or drawn roots at 20-24 empties were proven in
its quarter second, and answered at once, where the search alone then solved exactly from 18 (20
since 2026-12-08; docs/benchmarks.md, "Endgame solver"; experiments/timed-probe).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Callable

import numpy as np

from alphazero.mcts.config import MCTSConfig

TIME_CHUNK = 32
# Leaves a search by time evaluates per network call (virtual loss) unless told otherwise: at equal
# time a move, the extra simulations of batched network calls outweigh what each loses (4 leaves
# against 1, the default network at 0.5 s a move: docs/benchmarks.md, "Front-ends";
# experiments/timed-leaves). A search by simulations stays the exact sequential one (1), which is
# better per simulation.
TIMED_LEAVES_PER_STEP = 4
# A search by time's first call: short, so that even a slow network measures its speed without
# overrunning a short budget (8 simulations of the medium network: about 0.05 s on one core).
FIRST_TIMED_CHUNK = 8
MAX_TIMED_NODES = 65_536  # tree size of a timed search: about 37 MB; a fuller tree is trimmed


def leaves_for(leaves_per_step: int | None, timed: bool) -> int:
    """A search's leaves per network call: `leaves_per_step` when given, else
    TIMED_LEAVES_PER_STEP for a search by time and 1 (the exact sequential search) by simulations."""
    if leaves_per_step is not None:
        return leaves_per_step
    return TIMED_LEAVES_PER_STEP if timed else 1


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


def timed_probe_nodes(search, seconds: float | None) -> int:
    """The node limit of a search by time's probe of its root (see the module doc): the nodes
    the search's endgame solver does in `endgame_timed_probe_share` of `seconds` at its measured
    speed; 0 (no probe) without a time limit, a solver, a share or a measured speed, and in an
    analysis (`search_solved_roots`: it wants every candidate's visits, not one proven move)."""
    solver = getattr(search, "endgame_solver", None)
    if seconds is None or solver is None or search.config.search_solved_roots:
        return 0
    share = search.config.endgame_timed_probe_share
    rate = solver.nodes_per_second()
    return max(1, int(rate * seconds * share)) if rate and share > 0 else 0


def probe_root(search, position: np.ndarray, node_limit: int):
    """A SearchResult for one game's root proven won or drawn by a win/loss/draw solve of at most
    `node_limit` nodes, beyond the search's own reach and within MAX_ENDGAME_SOLVE_EMPTIES:
    the solver's move (it keeps the result against any defence), one-hot policy, the outcome as
    the root's value, no exact score (only the outcome is proven), no simulations. None when the
    root is not in the probe's range, is lost (the search may still find the best practical
    chance) or the solve gave up. The search's tree is not touched."""
    from alphazero.mcts.config import MAX_ENDGAME_SOLVE_EMPTIES
    from alphazero.mcts.search import NO_EXACT_SCORE, SearchResult

    player, opponent = int(position[0]), int(position[1])
    empties = 64 - (player | opponent).bit_count()
    if node_limit <= 0 or not search.config.endgame_solve_empties < empties <= MAX_ENDGAME_SOLVE_EMPTIES:
        return None
    solution = search.endgame_solver.solve(player, opponent, wld=True, node_limit=node_limit)
    if solution is None or solution.outcome < 0:
        return None
    policy = np.zeros((1, 65), dtype=np.float32)
    policy[0, solution.best_move] = 1.0
    return SearchResult(policy=policy, visits=np.zeros((1, 65), dtype=np.int32),
                        root_value=np.array([solution.outcome], dtype=np.float32),
                        action=np.array([solution.best_move], dtype=np.int64), reused_visits=np.zeros(1, dtype=np.int32),
                        exact_score=np.array([NO_EXACT_SCORE], dtype=np.int32), simulations=np.zeros(1, dtype=np.int32))


def search_within(search, position: np.ndarray, ply: int, simulations: int | None, seconds: float | None,
                  should_stop: Callable[[], bool] | None = None, clock: Callable[[], float] = time.perf_counter):
    """Search one game's root (`search` has num_games=1; its tree is kept, so call `reset` first for
    a fresh one) in chunks of `search.config.simulations` until `simulations` are done, `seconds`
    are spent (chunks then sized to the time left, see the module doc) or `should_stop()` answers
    True between chunks. At least one chunk always runs. A root the endgame solver solved and did not leave to the search
    (`MCTSConfig.search_solved_roots` false: the chunk ran no simulation) is answered, so no more
    chunks run: a solved position costs its solve, not the time budget. `clock` (seconds) is
    time.perf_counter but for tests. Returns (SearchResult of the last chunk, simulations done).

    With `seconds`, a root beyond the solver's reach is probed first (`probe_root`), inside the
    budget; a root it proves won or drawn is answered with no simulation (exact_score unset)."""
    chunk = search.config.simulations
    positions = np.asarray(position, dtype=np.uint64).reshape(1, 2)
    plies = np.array([ply], dtype=np.int64)
    started = clock()
    done = 0
    proven = probe_root(search, positions[0], timed_probe_nodes(search, seconds))
    if proven is not None:
        return proven, 0
    searching_seconds = 0.0  # the chunks' time, for the seconds a simulation costs this move
    while True:
        chunk_started = clock()
        # The last chunk is what is left of the simulation budget, so a budget that is not a
        # multiple of the chunk is still spent exactly.
        budget = chunk if simulations is None else min(chunk, simulations - done)
        if seconds is not None:
            if done == 0:
                budget = min(budget, FIRST_TIMED_CHUNK)
            else:
                fits = int((started + seconds - chunk_started) * done / searching_seconds + 1e-9) if searching_seconds > 0 else budget
                if fits < 1:
                    break
                budget = min(budget, fits)
        result = search.search(positions, plies, add_noise=False, simulations=budget)
        done += int(result.simulations[0])
        now = clock()
        searching_seconds += now - chunk_started
        if result.simulations[0] == 0:  # solved by the endgame solver, not searched: nothing to add
            break
        if simulations is not None and done >= simulations:
            break
        if seconds is not None and now >= started + seconds:
            break
        if should_stop is not None and should_stop():
            break
        if seconds is None and should_stop is None and simulations is None:
            break
    return result, done
