#!/bin/bash
# Which shipped network `play` and `gtp` load by default (issue 35, item 4): the two candidates
# head to head at 100 simulations, 100 paired random 4-ply openings (seed 0), as in the command
#   python -m alphazero.arena mcts:checkpoint=checkpoints/warmstart-medium.pt,simulations=100 \
#       mcts:checkpoint=checkpoints/selfplay.pt,simulations=100 --pairs 100
# split over two processes (one per core) sharing the games log, then summed by a last call that
# finds every game played. Resumable.
set -u
cd "$(dirname "$0")/../.."
out=experiments/default-network
a="mcts:checkpoint=checkpoints/warmstart-medium.pt,simulations=100,threads=1"
b="mcts:checkpoint=checkpoints/selfplay.pt,simulations=100,threads=1"
uptime > "$out/uptime-start.txt"
for k in 0 1; do
  python -m alphazero.arena "$a" "$b" --pairs 100 --seed 0 --shard "$k/2" --games-log "$out/medium-vs-selfplay-games.jsonl" \
      > "$out/shard$k.json" 2> "$out/shard$k.log" &
done
wait
uptime > "$out/uptime-end.txt"
python -m alphazero.arena "$a" "$b" --pairs 100 --seed 0 --games-log "$out/medium-vs-selfplay-games.jsonl" \
    > "$out/medium-vs-selfplay.json" 2> "$out/total.log"
cat "$out/medium-vs-selfplay.json"
