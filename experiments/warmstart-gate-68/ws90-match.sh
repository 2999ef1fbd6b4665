#!/bin/bash
# Issue 68 item 4: the 90-minute warmstart run's best network against selfplay.pt, 100 simulations, 200 games (two shards, one per core).
cd /work/exp/snap2
export PYTHONPATH=/work/exp/snap2
OUT=/work/runs/ws90-match; mkdir -p $OUT
cp /work/runs/ws90/checkpoints/best.pt $OUT/ws90-best.pt
for k in 0 1; do
  /work/venv/bin/python -m alphazero.arena mcts:checkpoint=$OUT/ws90-best.pt,simulations=100,name=ws90-best \
     mcts:checkpoint=checkpoints/selfplay.pt,simulations=100,name=selfplay --pairs 100 --seed 1 \
     --games-log $OUT/games.jsonl --shard $k/2 > $OUT/shard$k.json 2> $OUT/shard$k.err &
done
wait
