#!/bin/bash
# The search's CPU cost with a free network (the uniform evaluator): the endgame solver's own cost
# in full, with nothing saved on network calls, i.e. its worst case. Settings as a preset's.
# Usage: tree_cost.sh "GAMES SIMS LEAVES" "label|bench mcts arguments" ...   (run from the repository root)
read games sims leaves <<< "$1"; shift
for spec in "$@"; do
  label=${spec%%|*}; args=${spec#*|}
  load=$(cut -d' ' -f1 /proc/loadavg)
  result=$(python -m alphazero.bench mcts --evaluator uniform --games "$games" --simulations "$sims" --moves 64 \
      --leaves-per-step "$leaves" --repeats 1 $args 2>/dev/null | tail -1)
  echo "{\"label\": \"$label\", \"load_before\": $load, \"result\": $result}"
done
