#!/bin/bash
# Before/after the wipe-out proofs (commit cef8e8f): checkpoints/selfplay.pt at 100 simulations
# against fixed opponents, the old code (a worktree at c70abcc, given as OLD) and the new (this
# checkout) taking turns per opponent; one JSON line per match into results.jsonl.
# Usage: OLD=/path/to/worktree-at-c70abcc bash experiments/wipeout-fix/run.sh   (from the repo root)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
new="$(cd "$here/../.." && pwd)"
old="${OLD:?set OLD to a checkout of c70abcc}"
net="$new/checkpoints/selfplay.pt"
opponents=(
  "greedy|100"
  "alphabeta:depth=2|100"
  'gtp:"/usr/games/gtp-rhino -l 2 -r 0 -b 0",processes=1,name=grhino-2|50'
  'gtp:"/usr/games/gtp-rhino -l 3 -r 0 -b 0",processes=1,name=grhino-3|50'
)
for spec in "${opponents[@]}"; do
  opponent=${spec%|*}; pairs=${spec##*|}
  for side in old new; do
    code=$old; [ "$side" = new ] && code=$new
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$(cd /tmp && PYTHONPATH="$code" python -m alphazero.arena \
        "mcts:checkpoint=$net,simulations=100,threads=1,name=selfplay-100-$side" "$opponent" \
        --pairs "$pairs" --seed 7 2>/dev/null | tail -1)
    echo "{\"code\": \"$side\", \"load_before\": $load, \"date\": \"$(date -u +%FT%TZ)\", \"result\": $line}" | tee -a "$here/results.jsonl"
  done
done
# What the check costs the search: the tree alone (uniform evaluator: no network time to hide
# it), the cpu preset's shape, old and new taking turns, three rounds.
for round in 1 2 3; do
  for side in old new; do
    code=$old; [ "$side" = new ] && code=$new
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$(cd /tmp && PYTHONPATH="$code" python -m alphazero.bench mcts --evaluator uniform --games 64 \
        --simulations 64 --moves 64 --repeats 1 --threads 1 2>/dev/null | tail -1)
    echo "{\"code\": \"$side\", \"round\": $round, \"load_before\": $load, \"result\": $line}" | tee -a "$here/bench.jsonl"
  done
done
