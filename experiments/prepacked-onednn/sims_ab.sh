#!/bin/bash
# Simulations a move at SECONDS per move (experiments/equal-time/sims_per_move.py) before and after
# prepacking, both at once, one core each, swapping cores between rounds.
#   OLD=/tmp/frozen-old NEW=/tmp/frozen-new bash experiments/prepacked-onednn/sims_ab.sh SECONDS ROUNDS OUT.jsonl
set -euo pipefail
seconds=$1 rounds=$2 out=$3
for round in $(seq 1 "$rounds"); do
  if (( round % 2 )); then old_core=0 new_core=1; else old_core=1 new_core=0; fi
  (cd "$OLD" && SECONDS_PER_MOVE=$seconds PYTHONPATH=$OLD taskset -c $old_core python experiments/equal-time/sims_per_move.py selfplay-medium warmstart-small 2>/dev/null | tail -1 > /tmp/sims-old.json) &
  (cd "$NEW" && SECONDS_PER_MOVE=$seconds PYTHONPATH=$NEW taskset -c $new_core python experiments/equal-time/sims_per_move.py selfplay-medium warmstart-small 2>/dev/null | tail -1 > /tmp/sims-new.json) &
  wait
  for side in old new; do
    core=$([ $side = old ] && echo $old_core || echo $new_core)
    commit=$(git -C "$([ $side = old ] && echo "$OLD" || echo "$NEW")" rev-parse --short HEAD)
    python3 -c "import json,sys; d=json.load(open('/tmp/sims-$side.json')); d.update(side='$side', commit='$commit', core=$core, round=$round, seconds_per_move=$seconds, utc='$(date -u +%FT%TZ)', load='$(cut -d' ' -f1-3 /proc/loadavg)'); print(json.dumps(d))" >> "$out"
  done
done
