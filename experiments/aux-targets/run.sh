#!/bin/bash
# Issue 35's measurement of KataGo's auxiliary targets (score and ownership heads): the ablation's
# protocol (experiments/ablation/run.sh: 60 minutes from scratch on the `cpu` preset, the final
# network at 100 simulations against alphabeta depth 2 and GRhino levels 1-4, 100 games each on
# the same 50 paired openings) for `auto` (the cpu preset's Gumbel root, precision auto: no
# auxiliary targets) and `aux` (the same with both heads and their loss weights).
#
# The two runs go side by side, each pinned to one core (taskset), so they share the machine's
# conditions minute by minute: a paired comparison on a machine where a sequential pair of
# 60-minute runs would see different loads. Each therefore has half the machine the ablation's
# rows had; compare the two with each other, not with the ablation table.
#
#   experiments/aux-targets/run.sh        # from the repo root; resumable like the ablation
set -u
cd "$(dirname "$0")/../.."
export ABLATION_RUNS=${ABLATION_RUNS:-/work/runs/aux-targets}
export ABLATION_OUT=experiments/aux-targets
taskset -c 0 bash experiments/ablation/run.sh auto > "$ABLATION_OUT/auto.out" 2>&1 &
taskset -c 1 bash experiments/ablation/run.sh aux > "$ABLATION_OUT/aux.out" 2>&1 &
wait
python experiments/ablation/table.py experiments/aux-targets/auto experiments/aux-targets/aux
