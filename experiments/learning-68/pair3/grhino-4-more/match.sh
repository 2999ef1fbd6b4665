#!/bin/bash
# Issue 68 pair 3: both final networks against GRhino level 4 on one more set of 50 paired 4-ply openings (seed 2), one core each arm.
cd /work/snap-68c
export PYTHONPATH=/work/snap-68c
OUT=/work/runs/g4more
k=0
for arm in horizon ratio8; do
  ( for seed in 2; do
      taskset -c $k /work/venv/bin/python -m alphazero.arena mcts:checkpoint=/work/runs/pair3/$arm/final.pt,simulations=100,threads=1,name=$arm \
        'gtp:"/usr/games/gtp-rhino -l 4 -r 0 -b 0"' --pairs 50 --seed $seed --games-log $OUT/$arm-grhino-4-seed$seed-games.jsonl --no-progress \
        > $OUT/$arm-grhino-4-seed$seed.json 2> $OUT/$arm-grhino-4-seed$seed.err
    done ) &
  k=$((k+1))
done
wait
