"""`python -m alphazero.bench endgame_search`: a move's time with the endgame solver in the search.

Plays `--games` games (random `--opening-plies`-ply openings, then the network's MCTS without the
solver for both sides) to fix a set of positions, then times one move (one `MCTSPlayer` search,
one game, `--simulations` simulations) in every position of every game, in game order, once per
reach N in `--reach` (0 = solver off), each reach with its own player (its own solver table,
kept through the game as in a match). A reach is `N` (exact root solves and win/loss/draw
solves of opened nodes from N empties), `N/W` (opened nodes from W empties instead:
`mcts.endgame_wld_empties`), either with `~V` for opened nodes up to V empties solved at their
second visit (`mcts.endgame_revisit_empties`, e.g. `18/17~18`; `~18v3` at the third:
`mcts.endgame_revisit_visits`; without `~` none), then `+P@L` for probes of opened nodes up to P empties that
give up after L solver nodes (`mcts.endgame_probe_empties`, `endgame_probe_nodes`, e.g.
`18/17+18@20000`; `+P` alone keeps the default L), then with `:OPTIONS` for the solver's switch set
(`mcts.endgame_solver_options`, e.g. `16:off` = the solver before issue 36) and then `:searched`
for a search that still runs its simulations at a solved root (`mcts.search_solved_roots`, as
before 2026-11-27: `16:off:searched` is the search and solver before issue 36). The reaches take turns position by position so that load
from other jobs falls on all of them alike. Reports, per N: mean seconds per move over whole games
and over the last 24 plies, the worst move, and the ratio to N = 0 (the cost of the solver).
The JIT warm-up and the network's first calls happen before any timing.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from alphazero.argtypes import non_negative_int, positive_int
from alphazero.arena.openings import play_opening, random_openings
from alphazero.arena.players import MCTSPlayer
from alphazero.mcts.config import MCTSConfig
from alphazero.othello.game import GameState

LATE_EMPTIES = 24


def build_evaluator(checkpoint: str | None, preset: str, threads: int):
    from alphazero.nn.inference import NetworkEvaluator

    if checkpoint:
        from alphazero.nn.checkpoint import load_network

        network = load_network(checkpoint)
    else:
        from alphazero.nn.config import model_preset
        from alphazero.nn.model import AlphaZeroNet

        network = AlphaZeroNet(model_preset(preset))
    return NetworkEvaluator(network, device="cpu", threads=threads)


def game_positions(player: MCTSPlayer, opening: list[int]) -> list[GameState]:
    """Every position where a move is chosen (forced passes excluded) of one game by `player`."""
    state = play_opening(opening)
    positions = []
    while not state.is_over():
        if state.must_pass():
            state = state.play(64)
            continue
        positions.append(state)
        state = state.play(player.select_move(state))
    return positions


def parse_reach(text: str) -> MCTSConfig:
    """`N`, `N/W`, either with `~V`, then `+P@L`, then `:OPTIONS` and then `:searched` (see the module
    doc), as the MCTSConfig it stands for."""
    numbers, _, rest = text.partition(":")
    options, _, mode = rest.partition(":")
    if mode not in ("", "searched"):
        raise ValueError(f"reach {text!r}: expected N, N/W, N/W~V, N/W+P@L, N:OPTIONS or N:OPTIONS:searched")
    numbers, _, probe_nodes = numbers.partition("@")
    numbers, _, probe = numbers.partition("+")
    numbers, _, revisit = numbers.partition("~")
    revisit, _, revisit_visits = revisit.partition("v")
    exact, _, wld = numbers.partition("/")
    probing = {"endgame_probe_empties": int(probe)} if probe else {}
    probing["endgame_revisit_empties"] = int(revisit) if revisit else 0
    probing["endgame_revisit_visits"] = int(revisit_visits) if revisit_visits else 2
    if probe_nodes:
        probing["endgame_probe_nodes"] = int(probe_nodes)
    return MCTSConfig(endgame_solve_empties=int(exact), endgame_wld_empties=int(wld) if wld else 0, **probing,
                      endgame_solver_options=options or "default", search_solved_roots=mode == "searched")


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench endgame_search")
    parser.add_argument("--checkpoint", default=None, help="network checkpoint (default: --preset with random weights)")
    parser.add_argument("--preset", default="small", help="model preset when no --checkpoint is given")
    parser.add_argument("--simulations", type=positive_int, default=100)
    parser.add_argument("--reach", default="0,10,12,14,16",
                        help="comma-separated reaches N, N/W, N:OPTIONS or N:OPTIONS:searched (0 = solver off), "
                             "e.g. 0,16:off:searched,17::searched,18/17")
    parser.add_argument("--games", type=positive_int, default=4)
    parser.add_argument("--opening-plies", type=non_negative_int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    args = parser.parse_args(argv)
    try:
        reaches = [text.strip() for text in args.reach.split(",")]
        configs = {n: parse_reach(n) for n in reaches}
    except ValueError as err:
        parser.error(f"--reach: {err}")
    if "0" not in reaches:
        reaches.insert(0, "0")
        configs["0"] = MCTSConfig(endgame_solve_empties=0)
    load_before = os.getloadavg()[0]
    evaluator = build_evaluator(args.checkpoint, args.preset, args.threads)
    players = {n: MCTSPlayer(evaluator, args.simulations, config=configs[n]) for n in reaches}
    openings = random_openings(args.games, args.opening_plies, args.seed)
    games = [game_positions(players["0"], opening) for opening in openings]

    # Warm-up: every kernel (solver included) and the network, outside the timing.
    for n in reaches:
        players[n].select_moves([games[0][-1], games[0][len(games[0]) // 2]])

    times = {n: [] for n in reaches}
    late = {n: [] for n in reaches}
    for positions in games:
        players = {n: MCTSPlayer(evaluator, args.simulations, config=configs[n]) for n in reaches}  # fresh tables
        for n in reaches:
            players[n].select_moves([positions[0]])  # allocate outside the timing
        for index, state in enumerate(positions):
            for k in range(len(reaches)):
                n = reaches[(index + k) % len(reaches)]  # rotate who goes first
                start = time.perf_counter()
                players[n].select_move(state)
                seconds = time.perf_counter() - start
                times[n].append(seconds)
                if state.empties() <= LATE_EMPTIES:
                    late[n].append(seconds)
    base = float(np.mean(times["0"]))
    base_late = float(np.mean(late["0"]))
    per_reach = []
    for n in reaches:
        mean = float(np.mean(times[n]))
        mean_late = float(np.mean(late[n]))
        per_reach.append({
            "reach": n,
            "moves": len(times[n]),
            "seconds_per_move": round(mean, 4),
            "ratio_to_off": round(mean / base, 3),
            f"seconds_per_move_last_{LATE_EMPTIES}_empties": round(mean_late, 4),
            "ratio_to_off_late": round(mean_late / base_late, 3),
            "max_move_seconds": round(float(np.max(times[n])), 3),
        })
    return {
        "network": args.checkpoint or f"{args.preset} (random weights)",
        "simulations": args.simulations,
        "games": args.games,
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "per_reach": per_reach,
    }
