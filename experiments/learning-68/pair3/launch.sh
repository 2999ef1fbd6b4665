#!/bin/bash
echo -15 > /proc/$$/autogroup
cd /work/snap-68c
export PYTHONPATH=/work/snap-68c
exec /work/venv/bin/python -m alphazero.bench learning --side-by-side --runs-dir /work/runs/pair3 \
  --run horizon=experiment=cpu \
  --run ratio8="experiment=cpu train.replay_ratio=8" \
  --reference experiments/int8-cpu/learn/int8/final.pt
