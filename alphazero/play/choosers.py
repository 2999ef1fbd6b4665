"""The AI as the GTP engine and terminal play see it: something that picks a move, and may explain it.

Both front ends need only two things from an AI: a move for a position (within an optional time
budget: GTP clocks, `--seconds`) and, for `hint`, its evaluation of the candidate moves. Keeping
that interface this small lets the protocol and session logic be tested with trivial choosers and
lets any arena `Player` (random, greedy, alpha-beta, an external GTP engine) sit behind it.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from alphazero.argtypes import positive_float, positive_int
from alphazero.nn.config import INFERENCE_PRECISIONS
from alphazero.engine.timed import MAX_TIMED_NODES, TIME_CHUNK, check_limits, chunked_config, leaves_for, search_within
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState


@dataclass(frozen=True)
class MoveInfo:
    """One candidate in an AI's evaluation of a position.

    action: 0..64 (64 = pass).
    share:  fraction of the root's search visits that went to this move (the search policy).
    value:  expected result after this move from the point of view of the side that plays it, in
            [-1, 1] (+1 = certain win); NaN when the search never tried the move.
    visits: the root's visits to this move.
    """

    action: int
    share: float
    value: float
    visits: int = 0  # the root's visits to this move (share x the search's total)

    @property
    def win_probability(self) -> float:
        """The value mapped onto [0, 1], the form players read more easily (NaN when unknown)."""
        return math.nan if math.isnan(self.value) else (self.value + 1.0) / 2.0


class MoveChooser:
    """Base class: `choose` a legal action; `analyse` returns the AI's view or None if it has none.

    `seconds`, when given, is an upper bound on the thinking time for this one call (a GTP clock);
    choosers that do not think (random, greedy) ignore it.
    """

    name: str = "ai"

    def choose(self, state: GameState, seconds: float | None = None) -> int:
        raise NotImplementedError

    def analyse(self, state: GameState, seconds: float | None = None) -> list[MoveInfo] | None:
        """Candidate moves, most visited first; None when this AI cannot explain its choice."""
        return None

    def warm_up(self) -> None:
        """Do now, before any clock runs, the one-off work the first move would otherwise pay for
        (compiling a search's kernels); nothing for choosers that have none."""

    def new_game(self) -> None:
        """Forget anything kept between moves (search trees): a new game or a position set up anew."""

    def close(self) -> None:
        """Release processes, threads or devices."""


class FunctionChooser(MoveChooser):
    """A chooser from plain functions: `choose(state) -> action` and optionally `analyse(state)`."""

    def __init__(
        self,
        choose: Callable[[GameState], int],
        analyse: Callable[[GameState], list[MoveInfo]] | None = None,
        name: str = "function",
    ):
        self._choose = choose
        self._analyse = analyse
        self.name = name

    def choose(self, state: GameState, seconds: float | None = None) -> int:
        return int(self._choose(state))

    def analyse(self, state: GameState, seconds: float | None = None) -> list[MoveInfo] | None:
        return None if self._analyse is None else self._analyse(state)


class PlayerChooser(MoveChooser):
    """Any `alphazero.arena.players.Player` (random, greedy, alpha-beta, GTP, ...) as a chooser.

    Players have no notion of a per-move time budget or of an explanation, so `seconds` is ignored
    and `analyse` returns None.
    """

    def __init__(self, player):
        self.player = player
        self.name = player.name

    def choose(self, state: GameState, seconds: float | None = None) -> int:
        return int(self.player.select_move(state))

    def new_game(self) -> None:
        self.player.new_game()

    def close(self) -> None:
        self.player.close()


# ----------------------------------------------------------------------------------------------
# MCTS on an evaluator (a network, or uniform priors)


class SearchChooser(MoveChooser):
    """MCTS without root noise that plays the most visited move and can show its evaluation.

    Strength is set by `simulations` per move, `seconds` per move, or both (whichever ends first).
    A time limit (own `seconds`, or the `seconds` passed to `choose`) runs the search on one
    growing tree in calls of at most `TIME_CHUNK` simulations, each sized to the time left at the
    move's measured speed, until not one more simulation fits (alphazero.engine.timed); a fixed
    simulation count without a time limit is one search call. The
    tree is kept from move to move: when the next position is one or two plies below the tree's
    root (our move, the reply, a pass), the tree advances instead of starting over.
    """

    TIME_CHUNK = TIME_CHUNK
    MAX_TIMED_NODES = MAX_TIMED_NODES

    def __init__(
        self,
        evaluator,
        simulations: int | None = 200,
        seconds: float | None = None,
        name: str | None = None,
        seed: int = 0,
        leaves_per_step: int | None = None,
        endgame_solve_empties: int | None = None,
    ):
        check_limits(simulations, seconds)
        self.evaluator = evaluator
        self.simulations = simulations
        self.seconds = seconds
        self.seed = seed
        # None: 4 leaves a network call when searching by time, 1 by simulations (engine.timed.leaves_for)
        self.leaves_per_step = leaves_per_step
        # None: the search's defaults (MCTSConfig.endgame_solve_empties, endgame_wld_empties,
        # endgame_revisit_empties and endgame_probe_empties); N: roots and opened nodes solved from N empties
        # (MCTSConfig.with_endgame_reach); 0: no endgame solver.
        self.endgame_solve_empties = endgame_solve_empties
        self.name = name or f"MCTS {describe_limit(simulations, seconds)}"
        # (chunk size, search_solved_roots, leaves per step) -> [BatchedSearch, GameState at its root]
        self._searches: dict[tuple[int, bool], list] = {}
        self.last_simulations = 0  # new simulations of the latest search (for logs and tests)
        self.last_reused_visits = 0  # visits the latest search found in the tree it kept

    # -- search plumbing -----------------------------------------------------------------------

    def _config(self, chunk: int, capacity: int, search_solved_roots: bool, timed: bool):
        from alphazero.mcts.config import MCTSConfig

        config = MCTSConfig(leaves_per_step=leaves_for(self.leaves_per_step, timed), search_solved_roots=search_solved_roots)
        if self.endgame_solve_empties is not None:
            config = config.with_endgame_reach(self.endgame_solve_empties)
        return chunked_config(config, chunk, capacity)

    def _search_for(self, chunk: int, capacity: int, search_solved_roots: bool, timed: bool):
        key = (chunk, search_solved_roots, leaves_for(self.leaves_per_step, timed))
        entry = self._searches.get(key)
        if entry is None:
            from alphazero.mcts.search import BatchedSearch

            config = self._config(chunk, capacity, search_solved_roots, timed)
            entry = [BatchedSearch(config, self.evaluator, num_games=1, seed=self.seed), None]
            self._searches[key] = entry
        return entry

    def warm_up(self) -> None:
        """Compile (or load) the search's kernels on a throwaway search (`warm_up_search`): the
        trees, the random streams and the evaluator are not touched, so the games that follow
        are those of a chooser that was never warmed up."""
        from alphazero.mcts.search import warm_up_search

        warm_up_search(self._config(min(self.TIME_CHUNK, self.simulations or self.TIME_CHUNK), self.MAX_TIMED_NODES, False,
                                    self.seconds is not None))

    @staticmethod
    def _path(root: GameState | None, state: GameState, max_plies: int = 2) -> list[int] | None:
        """Actions leading from `root` to `state` in at most `max_plies` plies, or None."""
        if root is None:
            return None
        if root == state:
            return []
        frontier = [(root, [])]
        for _ in range(max_plies):
            next_frontier = []
            for position, path in frontier:
                for action in position.legal_actions():
                    child = position.play(action)
                    if child == state:
                        return path + [action]
                    next_frontier.append((child, path + [action]))
            frontier = next_frontier
        return None

    def _sync(self, entry, state: GameState) -> None:
        """Move the tree's root to `state` (advance along the played moves, or start afresh)."""
        search, root = entry
        path = self._path(root, state)
        if path is None:
            search.reset()
        else:
            for action in path:
                search.advance(np.array([action], dtype=np.int64))
        entry[1] = state

    def _think(self, state: GameState, seconds: float | None, should_stop: Callable[[], bool] | None = None,
               search_solved_roots: bool = False):
        """Search `state` within the limits; returns (SearchResult, BatchedSearch).

        A position the endgame solver solves is not searched further unless `search_solved_roots`
        (MCTSConfig.search_solved_roots): playing needs only the solver's move, an analysis wants
        the other candidates' visits too.

        `should_stop`, when given, is asked between chunks of TIME_CHUNK simulations and ends the
        search early when it answers True (the NBoard engine's `ping` interrupts a search so); a
        search that can be stopped therefore runs in chunks even without a time limit.
        """
        limits = [s for s in (self.seconds, seconds) if s is not None]
        time_limit = min(limits) if limits else None
        timed = time_limit is not None
        if time_limit is None and should_stop is None:
            entry = self._search_for(self.simulations, 2 * self.simulations + 1, search_solved_roots, timed)
        else:
            chunk = min(self.TIME_CHUNK, self.simulations or self.TIME_CHUNK)
            entry = self._search_for(chunk, self.MAX_TIMED_NODES, search_solved_roots, timed)
        self._sync(entry, state)
        search = entry[0]
        result, done = search_within(search, state.as_array(), 60 - state.empties(), self.simulations, time_limit, should_stop)
        self.last_simulations = done
        # The last chunk of a chunked search found the earlier chunks' visits in the tree as well:
        # only what the tree held before this search counts as reused.
        self.last_reused_visits = int(result.reused_visits[0]) - (done - int(result.simulations[0]))
        return result, search

    # -- the chooser interface -----------------------------------------------------------------

    def choose(self, state: GameState, seconds: float | None = None) -> int:
        if state.must_pass():
            return PASS
        result, _ = self._think(state, seconds)
        action = int(result.action[0])
        self._after_move(state, action)
        return action

    def _after_move(self, state: GameState, action: int) -> None:
        """Advance the tree past our own move, so the opponent's reply finds it one ply away."""
        for entry in self._searches.values():
            if entry[1] == state:
                entry[0].advance(np.array([action], dtype=np.int64))
                entry[1] = state.play(action)

    def analyse(self, state: GameState, seconds: float | None = None) -> list[MoveInfo] | None:
        if state.is_over():
            return []
        result, search = self._think(state, seconds, search_solved_roots=True)
        return root_move_infos(search.tree, result.visits[0])

    def think(self, state: GameState, seconds: float | None = None,
              should_stop: Callable[[], bool] | None = None, search_solved_roots: bool = True) -> "Thought":
        """One search of `state` and everything it found (the move, the candidates, the principal
        variation, the root's value and exact score), without playing the move: the web board's
        analysis and the NBoard engine's `go`/`hint` read it. Raises ValueError at a finished game.

        A position the endgame solver solves is still searched for its candidates unless
        `search_solved_roots` is false (a move to play, NBoard's `go`): then the solver's move is
        the only candidate, with the exact result's sign as its value and no visits (a root a
        search by time proved won or drawn beyond the solver's reach, alphazero.engine.timed: the
        same with that outcome as its value and no exact score)."""
        if state.is_over():
            raise ValueError("the game is over: there is nothing to search")
        started = time.perf_counter()
        if state.must_pass():
            self.last_simulations = 0
            return Thought(PASS, [MoveInfo(PASS, 1.0, math.nan)], [PASS], math.nan, None, 0, 0.0, [[PASS]])
        result, search = self._think(state, seconds, should_stop, search_solved_roots)
        exact = int(result.exact_score[0])
        from alphazero.mcts.search import NO_EXACT_SCORE
        from alphazero.mcts.tree import ROOT, UNVISITED

        if result.simulations[0] == 0:  # solved, not searched (exactly, or proven won or drawn by a timed probe)
            action = int(result.action[0])
            value = float(np.sign(exact)) if exact != NO_EXACT_SCORE else float(result.root_value[0])
            return Thought(action=action, moves=[MoveInfo(action, 1.0, value, 0)],
                           principal_variation=[action], root_value=float(result.root_value[0]),
                           exact_score=None if exact == NO_EXACT_SCORE else exact,
                           simulations=0, seconds=time.perf_counter() - started, variations=[[action]])
        moves = root_move_infos(search.tree, result.visits[0])
        variations = []
        for info in moves:
            child = int(search.tree.children[0, ROOT, info.action])
            below = principal_variation(search.tree, node=child) if child != UNVISITED else []
            variations.append([info.action] + below)
        return Thought(
            action=int(result.action[0]),
            moves=moves,
            principal_variation=principal_variation(search.tree),
            root_value=float(result.root_value[0]),
            exact_score=None if exact == NO_EXACT_SCORE else exact,
            simulations=self.last_simulations,
            seconds=time.perf_counter() - started,
            variations=variations,
            reused_visits=self.last_reused_visits,
        )

    def set_limits(self, simulations: int | None, seconds: float | None) -> None:
        """Change the budget of later searches (the NBoard engine's `set depth`); the same checks
        as the constructor's. Kept trees stay usable: a new budget only changes how long each
        search runs."""
        probe = SearchChooser(self.evaluator, simulations, seconds)  # validates, allocates nothing
        self.simulations, self.seconds = probe.simulations, probe.seconds

    def sibling(self) -> "SearchChooser":
        """A chooser on the same evaluator with the same settings and trees of its own: a second
        search of the same network beside this one (the web board's requests, each searching its
        own position; the two must not call the evaluator at the same time)."""
        return SearchChooser(self.evaluator, self.simulations, self.seconds, name=self.name, seed=self.seed,
                             leaves_per_step=self.leaves_per_step, endgame_solve_empties=self.endgame_solve_empties)

    def new_game(self) -> None:
        for entry in self._searches.values():
            entry[0].reset()
            entry[1] = None

    def close(self) -> None:
        self._searches.clear()


@dataclass(frozen=True)
class Thought:
    """What one search found at a position (`SearchChooser.think`).

    action:              the move the search plays (0..64).
    moves:               the root's candidates, most visited first (MoveInfo).
    principal_variation: the line of most visited moves from the root (the first is the most
                         visited move, which is `action` unless the solver overruled it).
    root_value:          the root's value for the side to move in [-1, 1] (NaN at a forced pass).
    exact_score:         the root's exact final disc difference for the side to move (empties to
                         the winner) when the endgame solver solved it, else None.
    simulations:         new simulations this search ran; seconds: its wall time.
    reused_visits:       visits the root already had from the tree kept since the last search
                         (the candidates' visits are these plus this search's simulations).
    variations:          for each of `moves`, in the same order, that move followed by the most
                         visited line below it (the NBoard engine's `hint` lines).
    """

    action: int
    moves: list[MoveInfo]
    principal_variation: list[int]
    root_value: float
    exact_score: int | None
    simulations: int
    seconds: float
    variations: list[list[int]] = dataclasses.field(default_factory=list)
    reused_visits: int = 0


def principal_variation(tree, max_plies: int = 20, node: int | None = None) -> list[int]:
    """Game 0's line of most visited children from `node` (the root by default; ties: lower
    action first), as far as the tree has visited children, at most `max_plies` moves."""
    from alphazero.mcts.tree import ROOT, UNVISITED

    line: list[int] = []
    node = ROOT if node is None else node
    while len(line) < max_plies:
        children = tree.children[0, node]
        best_action, best_visits = -1, 0
        for action in np.flatnonzero(children != UNVISITED):
            count = int(tree.visits[0, children[action]])
            if count > best_visits:
                best_action, best_visits = int(action), count
        if best_action < 0:
            break
        line.append(best_action)
        node = int(children[best_action])
    return line


def root_move_infos(tree, visits) -> list[MoveInfo]:
    """MoveInfos of game 0's root children, most visited first (ties: lower action first).

    A child's value is stored from its own side to move (the opponent), so the mover's value is
    its negation.
    """
    from alphazero.mcts.tree import ROOT, UNVISITED

    total = int(visits.sum())
    infos = []
    for action in np.flatnonzero(visits):
        child = int(tree.children[0, ROOT, action])
        count = int(tree.visits[0, child]) if child != UNVISITED else 0
        value = 0.0 - float(tree.value_sum[0, child]) / count if count else math.nan  # 0.0 - : no -0.0
        infos.append(MoveInfo(int(action), int(visits[action]) / total, value, int(visits[action])))
    infos.sort(key=lambda info: (-info.share, info.action))
    return infos


def describe_limit(simulations: int | None, seconds: float | None) -> str:
    """`200 sims`, `2s` or `200 sims/2s`: the strength setting, short enough for a label."""
    parts = []
    if simulations is not None:
        parts.append(f"{simulations} sims")
    if seconds is not None:
        parts.append(f"{seconds:g}s")
    return "/".join(parts)


# ----------------------------------------------------------------------------------------------
# Building the AI from command-line options

# The shipped networks, strongest first (checkpoints/README.md, "Which network plays by default"):
# selfplay-medium.pt (warmstart-medium.pt after 12 minutes of H100 self-play) beat warmstart-medium.pt
# 0.565 at 100 simulations and 0.545 at 400 over 200 games each (experiments/warmstart-medium-selfplay/),
# warmstart-medium.pt beat selfplay.pt 0.7125 at 100 (experiments/default-network/), and selfplay.pt
# beats warmstart.pt 0.615.
DEFAULT_CHECKPOINTS = tuple(
    Path("checkpoints") / name for name in ("selfplay-medium.pt", "warmstart-medium.pt", "selfplay.pt", "warmstart.pt"))
DEFAULT_CHECKPOINT = DEFAULT_CHECKPOINTS[0]
FALLBACK_CHECKPOINT = DEFAULT_CHECKPOINTS[-1]
# For help and error texts: "checkpoints/selfplay-medium.pt, else warmstart-medium.pt, else ...".
DEFAULT_CHECKPOINTS_TEXT = ", else ".join([str(DEFAULT_CHECKPOINT)] + [path.name for path in DEFAULT_CHECKPOINTS[1:]])
DEFAULT_SIMULATIONS = 200


class NoAIError(ValueError):
    """No AI could be built from the options (no checkpoint found, bad spec, ...)."""


@dataclass(frozen=True)
class SearchSettings:
    """How hard and where an MCTS AI thinks: the `--simulations`, `--seconds`, ... options.

    simulations / seconds: per move; neither given means DEFAULT_SIMULATIONS, both mean
        whichever ends first.
    threads: torch CPU threads. 1 by default: a one-game search sends batches of 1-16 positions,
        too small for intra-op threads to pay, and on a shared machine spinning threads cost far
        more (measured with the small net: 0.8 ms per batch-1 call on 1 thread, 110 ms on 2
        threads while other processes kept both cores busy).
    leaves_per_step: leaves evaluated per network call (virtual loss). None (the default): 4
        when searching by time (`seconds`, GTP clocks), where the extra simulations of batched calls
        outweigh what each loses (docs/benchmarks.md, "Front-ends"; experiments/timed-leaves), and
        1, the exact sequential search, by simulations; 8 searched 2.4x more simulations per
        second on a 2-core CPU with the small net, at some cost in quality per simulation.
    precision: the network's arithmetic, auto (measured at batch leaves_per_step on this CPU,
        cached in the user's cache directory; docs/precision.md), fp32 or bf16.
    """

    simulations: int | None = None
    seconds: float | None = None
    device: str = "auto"
    threads: int | None = 1
    leaves_per_step: int | None = None
    seed: int = 0
    endgame_solve_empties: int | None = None
    precision: str = "auto"

    @property
    def has_limits(self) -> bool:
        return self.simulations is not None or self.seconds is not None

    def limits(self) -> tuple[int | None, float | None]:
        if not self.has_limits:
            return DEFAULT_SIMULATIONS, None
        return self.simulations, self.seconds

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "SearchSettings":
        return cls(args.simulations, args.seconds, args.device, args.threads, args.leaves_per_step, args.seed,
                   getattr(args, "endgame", None), getattr(args, "precision", "auto"))


def default_checkpoint() -> Path | None:
    """The strongest shipped network present: the first of DEFAULT_CHECKPOINTS found, each looked up in the working directory, then in the
    repository. None when none exists."""
    repository = Path(__file__).resolve().parents[2]
    for name in DEFAULT_CHECKPOINTS:
        for candidate in (name, repository / name):
            if candidate.is_file():
                return candidate
    return None


def network_chooser(checkpoint: str | os.PathLike, settings: SearchSettings = SearchSettings()) -> SearchChooser:
    """MCTS on the network in `checkpoint` (loaded weights-only). A missing, truncated or corrupt
    file is a NoAIError with the checkpoint's own one-line diagnosis, so play and GTP refuse it in
    one line as the arena does."""
    from alphazero.engine.factory import build_evaluator
    from alphazero.nn.checkpoint import CheckpointError, load_network

    path = Path(checkpoint)
    try:  # a missing path or a directory included: load_checkpoint names it
        network = load_network(path, device=settings.device)
    except CheckpointError as err:
        raise NoAIError(str(err)) from None
    if network.cfg.needs_history:  # a warm-start zoo network that reads the game's moves
        from alphazero.nn.config import require_board_only

        try:
            require_board_only(network.cfg, "play and GTP (they search with MCTS)")
        except ValueError as err:
            raise NoAIError(str(err)) from None
    try:
        evaluator = build_evaluator(network, device=settings.device, threads=settings.threads, precision=settings.precision,
                                    probe_batch=leaves_for(settings.leaves_per_step, settings.seconds is not None))
    except ValueError as err:  # e.g. precision fp16 off CUDA
        raise NoAIError(str(err)) from None
    simulations, seconds = settings.limits()
    name = f"AlphaZero {path.stem} {describe_limit(simulations, seconds)}"
    chooser = SearchChooser(evaluator, simulations, seconds, name=name, seed=settings.seed,
                            leaves_per_step=settings.leaves_per_step,
                            endgame_solve_empties=settings.endgame_solve_empties)
    chooser.warm_up()
    return chooser


def chooser_from_spec(spec: str, settings: SearchSettings = SearchSettings()) -> MoveChooser:
    """An arena player spec as a chooser. `mcts:...` specs become a SearchChooser (so they can
    show hints, keep their tree and honour time limits; a `simulations=` in the spec wins over
    `settings`); every other kind is the arena's player, which has no search limits to set."""
    from alphazero.arena.players import make_player, parse_player_spec

    try:
        kind, options = parse_player_spec(spec)
    except ValueError as err:
        raise NoAIError(str(err)) from None
    if kind != "mcts":
        if settings.has_limits:
            raise NoAIError(f"simulations and seconds per move apply to MCTS players only, not to {spec!r}")
        try:
            return PlayerChooser(make_player(spec))
        except (ValueError, OSError) as err:
            raise NoAIError(str(err)) from None
    unknown = set(options) - {"checkpoint", "evaluator", "simulations", "device", "name", "endgame"}
    if unknown:
        raise NoAIError(f"bad player spec {spec!r}: option(s) {', '.join(sorted(unknown))} not supported here "
                        f"(mcts takes checkpoint, evaluator, simulations, device, endgame, name)")
    if ("checkpoint" in options) == ("evaluator" in options):
        raise NoAIError(f"bad player spec {spec!r}: mcts needs exactly one of checkpoint=PATH or evaluator=uniform")
    if "simulations" in options:
        settings = dataclasses.replace(settings, simulations=options["simulations"])
    if "device" in options:
        settings = dataclasses.replace(settings, device=options["device"])
    if "endgame" in options:
        settings = dataclasses.replace(settings, endgame_solve_empties=options["endgame"])
    if "checkpoint" in options:
        chooser = network_chooser(options["checkpoint"], settings)
    else:
        if options["evaluator"] != "uniform":
            raise NoAIError(f"bad player spec {spec!r}: unknown evaluator {options['evaluator']!r} (only 'uniform')")
        from alphazero.mcts.evaluator import UniformEvaluator

        simulations, seconds = settings.limits()
        chooser = SearchChooser(UniformEvaluator(), simulations, seconds, seed=settings.seed,
                                leaves_per_step=settings.leaves_per_step,
                                endgame_solve_empties=settings.endgame_solve_empties,
                                name=f"MCTS-uniform {describe_limit(simulations, seconds)}")
        chooser.warm_up()
    if "name" in options:
        chooser.name = options["name"]
    return chooser


def build_chooser(
    checkpoint: str | None = None, player: str | None = None, settings: SearchSettings = SearchSettings()
) -> MoveChooser:
    """The AI the command line asks for: `player` spec, else the network in `checkpoint`, else the
    strongest shipped network (`default_checkpoint`, DEFAULT_CHECKPOINTS in order). Raises
    NoAIError with what to do when there is none."""
    if player and checkpoint:
        raise NoAIError("give either --checkpoint or --player, not both")
    if player:
        return chooser_from_spec(player, settings)
    path = checkpoint or default_checkpoint()
    if path is None:
        raise NoAIError(
            f"no AI to play: none of the default networks ({', '.join(map(str, DEFAULT_CHECKPOINTS))}) exists. Pass --checkpoint PATH, "
            "or choose a player with --player SPEC (random, greedy, alphabeta:depth=4, "
            "mcts:evaluator=uniform,simulations=400, ...)"
        )
    return network_chooser(path, settings)


def available_device(text: str) -> str:
    """A device this machine has, checked as the options are read (an argparse type), so that
    `--device cuda` on a machine without CUDA is one line, not a traceback after the network has
    loaded; `auto` and `cpu` need no check (and no torch import)."""
    if text in ("auto", "cpu"):
        return text
    from alphazero.nn.inference import DeviceError, resolve_device

    try:
        resolve_device(text)
    except DeviceError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def default_endgame_empties() -> int:
    from alphazero.mcts.config import MCTSConfig

    return MCTSConfig().endgame_solve_empties


def endgame_empties(text: str) -> int:
    from alphazero.mcts.config import MAX_ENDGAME_SOLVE_EMPTIES

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer 0..{MAX_ENDGAME_SOLVE_EMPTIES}, got {text!r}") from None
    if not 0 <= value <= MAX_ENDGAME_SOLVE_EMPTIES:
        raise argparse.ArgumentTypeError(f"expected an integer 0..{MAX_ENDGAME_SOLVE_EMPTIES}, got {value}")
    return value


def front_end_parser(prog: str, description: str, module_doc: str) -> argparse.ArgumentParser:
    """The parser every front-end (play, gtp, nboard, web) starts from: the AI options of
    `add_ai_arguments`, and the examples of its module docstring (all after the first paragraph)
    as the help's epilog, so the examples a user reads in `--help` are the ones in the source."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog="examples:\n" + module_doc.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_ai_arguments(parser)
    return parser


SLOW_START_SECONDS = 5.0  # a start that took longer says why (numba compiling the kernels), once it is over


def chooser_from_args(args: argparse.Namespace, prog: str, log) -> MoveChooser | None:
    """The AI a front-end's parsed options ask for (`build_chooser`), announced on `log` as
    `prog: playing as NAME`; None after printing `error: ...` to `log` when there is none, so the
    front-end exits 2 with the one message that says what to give."""
    started = time.perf_counter()
    try:
        chooser = build_chooser(args.checkpoint, args.player, SearchSettings.from_args(args))
    except NoAIError as err:
        print(f"error: {err}", file=log)
        return None
    print(f"{prog}: playing as {chooser.name}", file=log, flush=True)
    took = time.perf_counter() - started
    if took >= SLOW_START_SECONDS:
        print(f"{prog}: the AI took {took:.0f} s to load (a first start compiles the search's kernels; "
              "later starts load them from numba's cache in about a second)", file=log, flush=True)
    return chooser


def add_ai_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that pick and tune the AI, for every front-end (`front_end_parser`)."""
    group = parser.add_argument_group("AI")
    group.add_argument("--checkpoint", help=f"network checkpoint (default: the strongest shipped, {DEFAULT_CHECKPOINTS_TEXT})")
    group.add_argument("--player", metavar="SPEC",
                       help="an arena player instead of the network: random, greedy, alphabeta:depth=4, "
                            "mcts:evaluator=uniform, gtp:\"/usr/games/gtp-rhino -l 2\", ...")
    group.add_argument("--simulations", type=positive_int,
                       help=f"MCTS simulations per move (default {DEFAULT_SIMULATIONS} when --seconds is not given)")
    group.add_argument("--seconds", type=positive_float,
                       help="thinking time per move; with --simulations too, whichever ends first")
    group.add_argument("--device", type=available_device, default="auto", help="torch device for the network: auto, cpu, cuda, ...")
    group.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads (default 1; docs/threads.md)")
    group.add_argument("--precision", choices=INFERENCE_PRECISIONS, default="auto",
                       help="the network's arithmetic: auto (the fastest on this machine, measured once and cached), "
                            "fp32, bf16 or int8 (CPU); fp16 on CUDA only (docs/precision.md)")
    group.add_argument("--leaves-per-step", type=positive_int, default=None,
                       help="positions per network call in the search (default: 4 when searching by time, "
                            "where the extra simulations pay; 1, the exact search, by simulations)")
    group.add_argument("--seed", type=int, default=0)
    group.add_argument("--endgame", type=endgame_empties, default=None, metavar="N",
                       help="solve positions with at most N empties exactly (perfect play from there on; the "
                            "positions the search opens too); 0 = off (default: the search's default, "
                            f"{default_endgame_empties()} for the position played)")
