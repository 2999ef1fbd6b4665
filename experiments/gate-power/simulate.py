"""The gate of every preset, simulated as configured: its chance to promote a candidate of each
strength and the games it plays, before (the settings and the trinomial LLR of the code until
2026-12) and after (the presets in conf/ now, the pentanomial LLR of alphazero.arena.sprt).

    python experiments/gate-power/simulate.py [--gates 20000] [--split 0.10] [--draws 0.05]
    python experiments/gate-power/simulate.py --scan [--gates 10000]    # the designs weighed

One JSON line per (setting, Elo), then a markdown table. Pairs are drawn from
alphazero.arena.gate_power.PairModel(draws, split); the test in tests/arena/test_gate_power.py
uses GATE_PAIRS (draws 0.05, split 0.10). `--split 0` is the model with independent games.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from alphazero.arena.elo import score_from_elo
from alphazero.arena.gate_power import PairModel, simulate_gates
from alphazero.arena.sprt import SPRT
from alphazero.train.schema import register_configs
from alphazero.train.startup import compose_typed

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"
ELOS = (-50.0, 0.0, 25.0, 50.0, 100.0)
# The gates until 2026-12 (conf/ at commit 9095ea6): pairs per round, cap in pairs, beta.
BEFORE = {
    "default (ArenaConfig)": (20, 100, 0.1),
    "gpu": (50, 100, 0.1),
    "warmstart, warmstart-medium(-cpu)": (20, 60, 0.1),
}
# The new caps of the 40-game-round presets scored the old way (every game an independent
# trinomial result): what scoring pairs as one pentanomial outcome buys.
TRINOMIAL_AT_NEW_CAPS = {"warmstart caps, games scored as independent": (20, 300, 0.2)}
# Today's presets that gate (smoke's gate is its code paths, not a verdict), and the cpu preset's
# gate were it switched on (arena.gating=true).
AFTER = {
    "default (ArenaConfig)": None,
    "gpu": ["experiment=gpu"],
    "warmstart": ["experiment=warmstart"],
    "warmstart-medium": ["experiment=warmstart-medium"],
    "warmstart-medium-cpu": ["experiment=warmstart-medium-cpu"],
    "cpu + arena.gating=true": ["experiment=cpu", "arena.gating=true"],
}
# Pair categories as games: LL, LD, WL, DD, WD, WW (wins, draws, losses of the candidate).
GAMES_OF = np.array([[0, 0, 2], [0, 1, 1], [1, 0, 1], [0, 2, 0], [1, 1, 0], [2, 0, 0]])


def trinomial_llr(wins, draws, losses, s0, s1):
    """The LLR of the code until 2026-12 (alphazero/arena/sprt.py at 9095ea6): every game an
    independent trinomial result, the GSPRT's normal approximation, variance floored."""
    games = wins + draws + losses
    mean = (wins + 0.5 * draws) / games
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / games
    variance = np.maximum(variance, 1.0 / (4.0 * games))
    return games * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def six_way(model: PairModel, elo: float) -> np.ndarray:
    """The model's pair distribution with the WL / DD split of its middle category kept apart."""
    five = model.probabilities(elo)
    draw = model.draw_rate
    both_drawn = (1 - model.split_share) * draw * draw / model.equal()[2]
    return np.array([five[0], five[1], five[2] * (1 - both_drawn), five[2] * both_drawn, five[3], five[4]])


def simulate_before(pairs: int, max_pairs: int, beta: float, model: PairModel, elo: float, gates: int, seed: int) -> dict:
    """The old gate's test: rounds of `pairs` pairs scored as 2 * pairs independent games (the
    trinomial LLR), SPRT 0 vs +50 Elo, alpha 0.05, this beta; at the cap the best is kept."""
    test = SPRT(0.0, 50.0, 0.05, beta)
    s0, s1 = score_from_elo(0.0), score_from_elo(50.0)
    rng = np.random.default_rng(seed)
    probabilities = six_way(model, elo)
    counts = np.zeros((gates, 6), dtype=np.int64)
    playing, promoted, rounds = np.ones(gates, bool), np.zeros(gates, bool), np.zeros(gates, np.int64)
    for _ in range(-(-max_pairs // pairs)):
        index = np.flatnonzero(playing)
        if index.size == 0:
            break
        counts[index] += rng.multinomial(pairs, probabilities, size=index.size)
        rounds[index] += 1
        wins, draws, losses = (counts[index] @ GAMES_OF).T
        llr = trinomial_llr(wins, draws, losses, s0, s1)
        promoted[index[llr >= test.upper]] = True
        playing[index[(llr >= test.upper) | (llr <= test.lower)]] = False
    return {"promoted": float(promoted.mean()), "games": float(2 * pairs * rounds.mean()), "cap_games": 2 * pairs * (-(-max_pairs // pairs))}


def scan(model: PairModel, gates: int) -> None:
    """The pentanomial gate over a grid of beta, round size and cap: power, games and the share
    of gates that reach the cap, for an equal, a +50 and a -50 Elo candidate."""
    print("| beta | round | cap | P(promote) +50 / 0 | games -50 / 0 / +50 | reach the cap 0 / +50 |")
    print("|---:|---:|---:|---|---|---|")
    for beta in (0.1, 0.2):
        for pairs in (10, 20, 50):
            for rounds in sorted({-(-max_pairs // pairs) for max_pairs in (200, 260, 300)}):
                test = SPRT(0.0, 50.0, 0.05, beta)
                power = {elo: simulate_gates(test, pairs, rounds, model.probabilities(elo), gates, seed=int(elo) + 4000) for elo in (-50.0, 0.0, 50.0)}
                print(f"| {beta:g} | {2 * pairs} games | {2 * pairs * rounds} games | {power[50.0].promoted:.3f} / {power[0.0].promoted:.3f} | "
                      f"{power[-50.0].games:.0f} / {power[0.0].games:.0f} / {power[50.0].games:.0f} | "
                      f"{power[0.0].truncated:.3f} / {power[50.0].truncated:.3f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gates", type=int, default=20_000)
    parser.add_argument("--split", type=float, default=0.10)
    parser.add_argument("--draws", type=float, default=0.05)
    parser.add_argument("--scan", action="store_true", help="the grid of designs instead of the presets")
    args = parser.parse_args()
    model = PairModel(draw_rate=args.draws, split_share=args.split)
    if args.scan:
        print(f"Pairs: draw rate {args.draws:g}, split share {args.split:g}; {args.gates} gates a cell.\n")
        scan(model, args.gates)
        return
    register_configs()
    rows = []
    for name, (pairs, max_pairs, beta) in BEFORE.items():
        for elo in ELOS:
            result = simulate_before(pairs, max_pairs, beta, model, elo, args.gates, seed=int(elo) + 1000)
            rows.append({"when": "before", "setting": name, "pairs": pairs, "max_pairs": max_pairs, "beta": beta, "elo": elo, **result})
    for name, (pairs, max_pairs, beta) in TRINOMIAL_AT_NEW_CAPS.items():
        for elo in ELOS:
            result = simulate_before(pairs, max_pairs, beta, model, elo, args.gates, seed=int(elo) + 3000)
            rows.append({"when": "trinomial", "setting": name, "pairs": pairs, "max_pairs": max_pairs, "beta": beta, "elo": elo, **result})
    from alphazero.train.config import ArenaConfig

    for name, overrides in AFTER.items():
        arena = ArenaConfig() if overrides is None else compose_typed([*overrides, "run.dir=/tmp/unused"], str(CONF_DIR)).arena
        test = SPRT(arena.sprt_elo0, arena.sprt_elo1, arena.sprt_alpha, arena.sprt_beta)
        for elo in ELOS:
            power = simulate_gates(test, arena.pairs, arena.rounds(), model.probabilities(elo), args.gates, seed=int(elo) + 2000)
            rows.append({"when": "after", "setting": name, "pairs": arena.pairs, "max_pairs": arena.rounds() * arena.pairs,
                         "beta": arena.sprt_beta, "elo": elo, "promoted": power.promoted, "games": power.games,
                         "cap_games": 2 * arena.pairs * arena.rounds()})
    for row in rows:
        print(json.dumps({**row, "draws": args.draws, "split": args.split, "gates": args.gates}))
    print()
    print(f"Pairs: draw rate {args.draws:g}, split share {args.split:g}; {args.gates} gates a cell "
          f"(standard error at most {0.5 / math.sqrt(args.gates):.4f}).")
    print()
    print("| when | setting | round | cap | beta | P(promote) -50 / 0 / +25 / +50 / +100 Elo | games a gate -50 / 0 / +25 / +50 / +100 |")
    print("|---|---|---:|---:|---:|---|---|")
    for when, setting in dict.fromkeys((row["when"], row["setting"]) for row in rows):
        cells = [row for row in rows if row["when"] == when and row["setting"] == setting]
        first = cells[0]
        print(f"| {when} | {setting} | {2 * first['pairs']} games | {first['cap_games']} games | {first['beta']:g} | "
              + " / ".join(f"{row['promoted']:.3f}" for row in cells) + " | " + " / ".join(f"{row['games']:.0f}" for row in cells) + " |")


if __name__ == "__main__":
    main()
