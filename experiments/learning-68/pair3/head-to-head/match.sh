#!/bin/bash
# Issue 68 pair 3: ratio8's final network against horizon's (the preset's), 100 simulations, 200 games (two shards, one per core).
cd /work/snap-68c
export PYTHONPATH=/work/snap-68c
OUT=/work/runs/h2h3
for k in 0 1; do
  taskset -c $k /work/venv/bin/python -m alphazero.arena mcts:checkpoint=/work/runs/pair3/ratio8/final.pt,simulations=100,threads=1,name=ratio8 \
     mcts:checkpoint=/work/runs/pair3/horizon/final.pt,simulations=100,threads=1,name=horizon --pairs 100 --seed 1 \
     --games-log $OUT/games$k.jsonl --shard $k/2 > $OUT/shard$k.json 2> $OUT/shard$k.err &
done
wait
