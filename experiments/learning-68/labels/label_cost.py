"""What `selfplay.exact_label_empties=N` costs a self-play worker: the labelling of finished games
done as the worker does it (SelfPlayRunner._label_exact: from each game's last position back, one
solver and table for all games, positions the search solved skipped, a solve given up after
LABEL_NODE_LIMIT nodes), on the games of a real run's replay buffer. Reports per game the
positions labelled, nodes and CPU seconds, and how often the labels disagree with the game's
outcome (the noise they take out of the value targets).

    PYTHONPATH=. taskset -c 1 python experiments/learning-68/labels/label_cost.py RUN/replay --games 300 --empties 18,20,22
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from alphazero.othello.bitboard import PASS
from alphazero.replay.shard import read_records
from alphazero.selfplay.games import LABEL_NODE_LIMIT
from alphazero.solver.solver import Solver


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def label_games(records, empties: int, table_bits: int) -> dict:
    solver = Solver(table_bits)
    solver.warm_up()
    labelled = gave_up = disagree = 0
    nodes = 0
    per_game_seconds = []
    for record in records:
        states = record.states()[:-1]
        exact = record.exact_values if record.exact_values is not None else np.full(len(states), np.nan)
        mover_black = [s.black_to_move for s in states]
        black_result = np.sign(record.black_margin)
        start = time.process_time()
        for ply in range(len(states) - 1, -1, -1):
            state = states[ply]
            if state.empties() > empties:
                break
            if not np.isnan(exact[ply]) or int(record.actions[ply]) == PASS:
                continue
            before = int(solver.nodes[0])
            outcome = solver.outcome(state.player, state.opponent, node_limit=LABEL_NODE_LIMIT)
            nodes += int(solver.nodes[0]) - before
            if outcome is None:
                gave_up += 1
                continue
            labelled += 1
            game_says = black_result if mover_black[ply] else -black_result
            disagree += int(outcome != game_says)
        per_game_seconds.append(time.process_time() - start)
    seconds = np.array(per_game_seconds)
    return {"empties": empties, "games": len(records), "labelled": labelled, "gave_up": gave_up,
            "labels_unlike_the_outcome": disagree, "nodes": nodes,
            "cpu_seconds": round(float(seconds.sum()), 3), "cpu_ms_per_game": round(1000 * float(seconds.mean()), 2),
            "cpu_ms_per_game_p99": round(1000 * float(np.quantile(seconds, 0.99)), 2),
            "cpu_ms_per_game_max": round(1000 * float(seconds.max()), 2)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("replay", help="a run's replay directory (its shard-*.npz)")
    parser.add_argument("--games", type=int, default=300, help="games from the newest shards back")
    parser.add_argument("--empties", default="18,20")
    parser.add_argument("--table-bits", type=int, default=20, help="the search's table size (mcts.endgame_table_bits)")
    args = parser.parse_args()
    shards = sorted(Path(args.replay).glob("shard-*.npz"), reverse=True)
    records = []
    for shard in shards:
        records.extend(read_records(shard))
        if len(records) >= args.games:
            break
    records = records[: args.games]
    for text in args.empties.split(","):
        line = label_games(records, int(text), args.table_bits)
        line.update({"replay": str(args.replay), "cpu": cpu_model(), "load_before": os.getloadavg()[0],
                     "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
