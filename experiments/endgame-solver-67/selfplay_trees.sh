#!/bin/bash
# bench selfplay --preset cpu in several source trees taking turns (both cores), after one
# unrecorded warm-up run per tree (numba compiles into each tree's own __pycache__).
# Usage: selfplay_trees.sh ROUNDS SECONDS "label=/path/to/tree" ...
rounds=$1; seconds=$2; shift 2
for spec in "$@"; do
  dir=${spec#*=}
  (cd $dir && PYTHONPATH=$dir /work/venv/bin/python -m alphazero.bench selfplay --preset cpu --seconds 5 --warmup 2 >/dev/null 2>&1)
done
for round in $(seq 1 "$rounds"); do
  for spec in "$@"; do
    label=${spec%%=*}; dir=${spec#*=}
    load=$(cut -d' ' -f1 /proc/loadavg)
    result=$(cd $dir && PYTHONPATH=$dir /work/venv/bin/python -m alphazero.bench selfplay --preset cpu --seconds "$seconds" 2>/dev/null | tail -1)
    echo "{\"round\": $round, \"tree\": \"$label\", \"commit\": \"$(cd $dir && git rev-parse --short HEAD)\", \"load_before\": $load, \"result\": $result}"
  done
done
