#!/bin/bash
# Self-play positions/s of the cpu preset with the endgame solver before and after issue 36, the
# settings taking turns (A B C ... A B C ...) so that load from other jobs falls on all alike.
# Usage: selfplay_ab.sh ROUNDS SECONDS "label=overrides" ...   (run from the repository root)
rounds=$1; seconds=$2; shift 2
for round in $(seq 1 "$rounds"); do
  for spec in "$@"; do
    label=${spec%%=*}; overrides=${spec#*=}
    load=$(cut -d' ' -f1 /proc/loadavg)
    result=$(python -m alphazero.bench selfplay --preset cpu --seconds "$seconds" $overrides 2>/dev/null | tail -1)
    echo "{\"round\": $round, \"label\": \"$label\", \"load_before\": $load, \"result\": $result}"
  done
done
