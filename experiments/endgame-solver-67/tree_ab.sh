#!/bin/bash
# bench endgame (--options default) on FForum files, several source trees taking turns on one
# core, each with its own numba cache; one JSON line per run.
# Usage: tree_ab.sh ROUNDS CORE "label=/path/to/tree" ... -- OBF...
rounds=$1; core=$2; shift 2
trees=()
while [ "$1" != "--" ]; do trees+=("$1"); shift; done; shift
for round in $(seq 1 "$rounds"); do
  for spec in "${trees[@]}"; do
    label=${spec%%=*}; dir=${spec#*=}
    load=$(cut -d' ' -f1 /proc/loadavg)
    result=$(cd $dir && NUMBA_CACHE_DIR=/tmp/nbcache-tree-$label PYTHONPATH=$dir taskset -c $core /work/venv/bin/python -m alphazero.bench endgame --obf "$@" --options default 2>/dev/null | tail -1)
    echo "{\"round\": $round, \"tree\": \"$label\", \"commit\": \"$(cd $dir && git rev-parse --short HEAD)$(cd $dir && git diff --quiet HEAD || echo +)\", \"load_before\": $load, \"result\": $result}"
  done
done
