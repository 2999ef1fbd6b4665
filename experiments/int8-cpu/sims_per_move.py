"""Simulations the default player (checkpoints/selfplay-medium.pt, a search by time on one torch
thread, 4 leaves a call) searches in SECONDS_PER_MOVE a move in each precision, on the positions
of the first game of experiments/equal-time/s2-medium (plies 4, 8, ..., 36; each from a fresh
tree). The precisions take turns position by position, so a change in the machine's load falls on
every side alike. One JSON line; experiments/int8-cpu/README.md, "int8 inference on a CPU".

    SECONDS_PER_MOVE=0.5 taskset -c 1 python experiments/int8-cpu/sims_per_move.py [NET [PRECISION ...]]
"""
import json
import os
import sys

import torch

torch.set_num_threads(1)
from alphazero.othello.game import GameState  # noqa: E402
from alphazero.othello.notation import parse_transcript  # noqa: E402
from alphazero.play.choosers import SearchSettings, network_chooser  # noqa: E402

net = sys.argv[1] if len(sys.argv) > 1 else "selfplay-medium"
precisions = sys.argv[2:] or ["bf16", "int8"]
seconds = float(os.environ.get("SECONDS_PER_MOVE", "0.5"))
game = json.loads(open("experiments/equal-time/s2-medium/games.jsonl").readline())
states = [GameState.start()]
for action in parse_transcript(game["moves"]):
    states.append(states[-1].play(action))
plies = list(range(4, 40, 4))
counts = {p: [] for p in precisions}
for ply in plies:
    for precision in precisions:
        chooser = network_chooser(f"checkpoints/{net}.pt", SearchSettings(seconds=seconds, precision=precision))
        chooser.choose(states[ply])
        counts[precision].append(chooser.last_simulations)
means = {p: sum(c) / len(c) for p, c in counts.items()}
print(json.dumps({"network": net, "seconds_per_move": seconds, "plies": plies, "simulations": counts,
                  "mean": means, "load_average": os.getloadavg()}))
