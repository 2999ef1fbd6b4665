"""Simulations each medium network searches in 2 s a move (SECONDS_PER_MOVE) on one core, on the positions of the
first game of the s2-medium games log (plies 4, 8, ..., 36: each position searched from a fresh
tree, so reuse does not mix in). The networks are measured in the order given on the command line
(default: selfplay-medium warmstart-medium); run both orders to see that the order does not matter.

    taskset -c 0 python experiments/equal-time/sims_per_move.py [NET ...]
    SECONDS_PER_MOVE=0.5 taskset -c 0 python experiments/equal-time/sims_per_move.py selfplay-medium
"""
import json, os, sys
import torch
torch.set_num_threads(1)
from alphazero.play.choosers import network_chooser, SearchSettings
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_transcript

game = json.loads(open("experiments/equal-time/s2-medium/games.jsonl").readline())
actions = parse_transcript(game["moves"])
states = [GameState.start()]
for a in actions:
    states.append(states[-1].play(a))
plies = list(range(4, 40, 4))
out = {}
for net in sys.argv[1:] or ("selfplay-medium", "warmstart-medium"):
    counts = []
    for ply in plies:
        chooser = network_chooser(f"checkpoints/{net}.pt", SearchSettings(seconds=float(os.environ.get("SECONDS_PER_MOVE", "2"))))
        chooser.choose(states[ply])
        counts.append(chooser.last_simulations)
    out[net] = counts
    print(net, counts, "mean", sum(counts) / len(counts), flush=True)
print(json.dumps({"plies": plies, **out}))
