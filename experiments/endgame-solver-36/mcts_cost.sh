#!/bin/bash
# Batched self-play search (the cpu preset's 64 games x 64 simulations, small network with random
# weights, one torch thread) with the endgame solver at several settings; CPU seconds per setting.
# Usage: mcts_cost.sh "label|bench mcts arguments" ...   (run from the repository root)
for spec in "$@"; do
  label=${spec%%|*}; args=${spec#*|}
  load=$(cut -d' ' -f1 /proc/loadavg)
  result=$(python -m alphazero.bench mcts --evaluator small --games 64 --simulations 64 --moves 64 --repeats 1 \
      --threads 1 $args 2>/dev/null | tail -1)
  echo "{\"label\": \"$label\", \"load_before\": $load, \"result\": $result}"
done
