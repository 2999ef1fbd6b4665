#!/bin/bash
# Does one core's work slow the other's search? sims_per_move.py at 2 s a move on core 1, with
# core 0 idle (alone) and with core 0 running the same script (pair: an equal-time match's two
# processes), two rounds; one JSON line per measure (zen3-sims-per-move.jsonl holds a run).
cd "$(dirname "$0")/../.."   # the repository root; run it with the venv active
for round in 1 2; do
  for mode in alone pair; do
    if [ $mode = pair ]; then SECONDS_PER_MOVE=2 taskset -c 0 python experiments/equal-time/sims_per_move.py selfplay-medium warmstart-small > /dev/null 2>&1 & fi
    r=$(SECONDS_PER_MOVE=2 taskset -c 1 python experiments/equal-time/sims_per_move.py selfplay-medium warmstart-small 2>/dev/null | tail -1)
    wait
    echo "{\"round\": $round, \"other_core\": \"$( [ $mode = pair ] && echo 'the same script' || echo idle)\", \"load_after\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"result\": $r}"
  done
done
