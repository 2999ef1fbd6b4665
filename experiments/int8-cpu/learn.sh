#!/bin/bash
# What int8 self-play does to learning: the ablation's protocol (experiments/ablation/run.sh: 60
# minutes from scratch on the `cpu` preset with the Gumbel root, the trainer's last weights at 100
# simulations against alphabeta depth 2 and GRhino levels 1-4, 100 games each on the same 50
# paired openings) for `bf16` and `int8`: the same run with the network calls of self-play and
# the in-run arena forced to each (the trainer in auto: bf16 here). Side by side, each pinned to one
# core, as experiments/aux-targets/run.sh: compare the two with each other, not with the ablation.
#
#   experiments/int8-cpu/learn.sh        # from the repo root; resumable like the ablation
set -u
cd "$(dirname "$0")/../.."
export ABLATION_RUNS=${ABLATION_RUNS:-/work/runs/int8-learn}
export ABLATION_OUT=${ABLATION_OUT:-experiments/int8-cpu/learn}
mkdir -p "$ABLATION_OUT"
taskset -c 0 bash experiments/ablation/run.sh bf16 > "$ABLATION_OUT/bf16.out" 2>&1 &
taskset -c 1 bash experiments/ablation/run.sh int8 > "$ABLATION_OUT/int8.out" 2>&1 &
wait
python experiments/aux-targets/paired.py "$ABLATION_OUT/bf16" "$ABLATION_OUT/int8"
