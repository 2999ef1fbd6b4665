#!/bin/bash
echo -15 > /proc/$$/autogroup
cd /work/snap-68b
export PYTHONPATH=/work/snap-68b
exec /work/venv/bin/python -m alphazero.bench learning --side-by-side --runs-dir /work/runs/pair2 \
  --run horizon=experiment=cpu \
  --run sims32="experiment=cpu mcts.simulations=32 mcts.gumbel_considered_actions=8" \
  --reference experiments/int8-cpu/learn/int8/final.pt
