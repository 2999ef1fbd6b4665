"""`python -m alphazero.bench mcts`: batched self-play search speed, tree alone or with a network.

Plays `--moves` moves of `--games` concurrent self-play games (from random openings of
`--opening-plies` plies) with `BatchedSearch`, tree reuse and root noise on, as self-play runs.
Reports simulations per second overall and with the evaluator's time removed
(`tree_simulations_per_second`), how many leaves each evaluator call carried, and the share of the
time spent inside the evaluator (`network_share`; 1 - network_share is the tree and batching
overhead). `--evaluator uniform` measures the tree alone (its evaluator is a tiny numba kernel);
`--evaluator small` uses the "small" network preset with random weights. `cpu_seconds` is the
process's CPU time for the timed run: with one torch thread (`--threads 1`) it is what the run
costs a core, whatever else loads the machine. `--endgame`, `--endgame-wld`, `--endgame-revisit`,
`--endgame-revisit-visits`, `--endgame-probe`, `--endgame-probe-nodes`, `--solver-options` and
`--search-solved-roots` set the endgame solver (`mcts.endgame_solve_empties`,
`endgame_wld_empties`, `endgame_revisit_empties`, `endgame_revisit_visits`,
`endgame_probe_empties`, `endgame_probe_nodes`, `endgame_solver_options`,
`search_solved_roots`); `network_evaluations` counts the positions the
evaluator was asked about, which a solved root that is not searched saves.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from alphazero.argtypes import non_negative_int, positive_int
from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch
from alphazero.othello.bitboard import (
    START_BLACK,
    START_WHITE,
    is_game_over_batch,
    legal_action_mask_batch,
    make_move_batch,
)


class TimedEvaluator:
    """Wraps an evaluator, counting calls, positions and the seconds spent inside it."""

    def __init__(self, evaluator):
        self.evaluator = evaluator
        self.reset()

    def reset(self):
        self.calls = 0
        self.leaves = 0
        self.seconds = 0.0

    def __call__(self, positions):
        start = time.perf_counter()
        result = self.evaluator(positions)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        self.leaves += positions.shape[0]
        return result


def random_openings(num_games: int, plies: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """positions uint64[B, 2] after `plies` uniformly random legal actions from the start, and ply [B]."""
    rng = np.random.default_rng(seed)
    positions = np.tile(np.array([START_BLACK, START_WHITE], dtype=np.uint64), (num_games, 1))
    for _ in range(plies):
        mask = legal_action_mask_batch(positions)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)
        positions = make_move_batch(positions, actions)
    return positions, np.full(num_games, plies, dtype=np.int64)


def play_moves(search: BatchedSearch, positions: np.ndarray, ply: np.ndarray, moves: int) -> int:
    """Self-play `moves` moves in every unfinished game; returns the simulations searched (the
    search's own count: visits reused from the previous move's tree are not simulations)."""
    positions = positions.copy()
    ply = ply.copy()
    active = ~is_game_over_batch(positions)
    simulations = 0
    for _ in range(moves):
        if not active.any():
            break
        result = search.search(positions, ply, active, add_noise=True)
        simulations += int(result.simulations.sum())
        actions = result.action
        search.advance(actions)
        played = np.where(active, actions, 64)  # inactive games are over: a pass keeps them as they are
        positions = np.where(active[:, None], make_move_batch(positions, played), positions)
        ply += active
        active &= ~is_game_over_batch(positions)
    return simulations


def build_evaluator(name: str, device: str, threads: int | None):
    if name == "uniform":
        return UniformEvaluator()
    from alphazero.nn.config import model_preset
    from alphazero.nn.inference import NetworkEvaluator
    from alphazero.nn.model import AlphaZeroNet

    return NetworkEvaluator(AlphaZeroNet(model_preset(name)), device=device, threads=threads)


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench mcts")
    parser.add_argument("--evaluator", choices=["uniform", "tiny", "small", "medium", "large"], default="uniform")
    parser.add_argument("--games", type=positive_int, default=256)
    parser.add_argument("--simulations", type=positive_int, default=100)
    parser.add_argument("--moves", type=positive_int, default=10)
    parser.add_argument("--opening-plies", type=non_negative_int, default=4)
    parser.add_argument("--leaves-per-step", type=positive_int, default=1)
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed runs; the fastest is reported")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="auto", help="network evaluators: torch device or auto")
    parser.add_argument("--threads", type=positive_int, default=1, help="network evaluators: torch CPU threads (default 1; docs/threads.md)")
    parser.add_argument("--endgame", type=int, default=None,
                        help="mcts.endgame_solve_empties (default: MCTSConfig's; 0 = solver off)")
    parser.add_argument("--endgame-wld", type=int, default=None,
                        help="mcts.endgame_wld_empties: opened nodes solved from this many empties (default: MCTSConfig's)")
    parser.add_argument("--endgame-revisit", type=int, default=None,
                        help="mcts.endgame_revisit_empties: opened nodes beyond the solve reach solved at a later visit "
                             "(--endgame-revisit-visits) up to this many empties (default: MCTSConfig's, 0 = none)")
    parser.add_argument("--endgame-revisit-visits", type=int, default=None,
                        help="mcts.endgame_revisit_visits: the visit at which a revisit-band node is solved "
                             "(default: MCTSConfig's)")
    parser.add_argument("--endgame-probe", type=int, default=None,
                        help="mcts.endgame_probe_empties: opened nodes beyond the solve reach probed up to this many "
                             "empties (default: MCTSConfig's, 0 = none)")
    parser.add_argument("--endgame-probe-nodes", type=int, default=None,
                        help="mcts.endgame_probe_nodes: a probe gives up after this many solver nodes")
    parser.add_argument("--solver-options", default=None,
                        help="mcts.endgame_solver_options, e.g. off = the solver before issue 36 (default: default)")
    parser.add_argument("--search-solved-roots", action="store_true",
                        help="mcts.search_solved_roots: still run the simulations of a root the solver solved "
                             "(as before 2026-11-27)")
    args = parser.parse_args(argv)

    # --endgame N alone solves roots and opened nodes from N (as the arena's endgame=N does:
    # MCTSConfig.with_endgame_reach).
    endgame = {} if args.endgame is None else {"endgame_solve_empties": args.endgame, "endgame_wld_empties": 0,
                                               "endgame_revisit_empties": 0, "endgame_probe_empties": 0}
    if args.endgame_wld is not None:
        endgame["endgame_wld_empties"] = args.endgame_wld
    if args.endgame_revisit is not None:
        endgame["endgame_revisit_empties"] = args.endgame_revisit
    if args.endgame_revisit_visits is not None:
        endgame["endgame_revisit_visits"] = args.endgame_revisit_visits
    if args.endgame_probe is not None:
        endgame["endgame_probe_empties"] = args.endgame_probe
    if args.endgame_probe_nodes is not None:
        endgame["endgame_probe_nodes"] = args.endgame_probe_nodes
    if args.solver_options is not None:
        endgame["endgame_solver_options"] = args.solver_options
    if args.search_solved_roots:
        endgame["search_solved_roots"] = True
    try:
        config = MCTSConfig(simulations=args.simulations, leaves_per_step=args.leaves_per_step, **endgame)
    except ValueError as err:
        parser.error(str(err))
    evaluator = TimedEvaluator(build_evaluator(args.evaluator, args.device, args.threads))
    positions, ply = random_openings(args.games, args.opening_plies, args.seed)

    # JIT warm-up (or cache load) and the evaluator's first-call costs, outside the timing.
    try:
        warm_config = MCTSConfig(simulations=8, **endgame)
    except ValueError as err:
        parser.error(str(err))
    play_moves(BatchedSearch(warm_config, evaluator, args.games, args.seed), positions, ply, 2)

    best = None
    for _ in range(args.repeats):
        evaluator.reset()
        search = BatchedSearch(config, evaluator, args.games, seed=args.seed)
        start = time.perf_counter()
        cpu = time.process_time()
        simulations = play_moves(search, positions, ply, args.moves)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
        run = (seconds, simulations, evaluator.calls, evaluator.leaves, evaluator.seconds, cpu)
        if best is None or seconds < best[0]:
            best = run
    seconds, simulations, calls, leaves, network_seconds, cpu_seconds = best
    tree_seconds = seconds - network_seconds
    return {
        "evaluator": args.evaluator,
        "games": args.games,
        "simulations": args.simulations,
        "moves": args.moves,
        "leaves_per_step": args.leaves_per_step,
        "endgame_solve_empties": config.endgame_solve_empties,
        "endgame_wld_empties": config.endgame_wld_empties,
        "endgame_revisit_empties": config.endgame_revisit_empties,
        "endgame_revisit_visits": config.endgame_revisit_visits,
        "endgame_probe_empties": config.endgame_probe_empties,
        "endgame_probe_nodes": config.endgame_probe_nodes,
        "endgame_solver_options": config.endgame_solver_options,
        "search_solved_roots": config.search_solved_roots,
        "total_simulations": simulations,
        "seconds": round(seconds, 4),
        "cpu_seconds": round(cpu_seconds, 4),
        "network_seconds": round(network_seconds, 4),
        "simulations_per_second": round(simulations / seconds),
        "tree_simulations_per_second": round(simulations / tree_seconds) if tree_seconds > 0 else None,
        "network_calls": calls,
        "network_evaluations": leaves,
        "leaves_per_network_call": round(leaves / calls, 1) if calls else 0.0,
        "network_share": round(network_seconds / seconds, 4),
        "tree_share": round(tree_seconds / seconds, 4),
    }
