#!/bin/bash
# Issue 35's measures of a network from the warmstart-medium self-play run, on the CPU: the network
# against checkpoints/warmstart-medium.pt on 100 paired openings (200 games) at SIMS simulations,
# each side one torch thread, the match pinned to CORE (taskset) so two matches share the machine
# evenly. Restartable: finished games are kept in the games log and not replayed.
#   experiments/warmstart-medium-selfplay/eval.sh NETWORK NAME SIMS CORE OUTDIR [SHARD]
# e.g. eval.sh /work/runs/wm-gpu/latest-4231.pt latest 100 0 /work/runs/wm-gpu/eval
# SHARD (K/N) splits one match over N processes sharing the games log (alphazero.arena --shard).
set -eu
NETWORK=$1 NAME=$2 SIMS=$3 CORE=$4 OUTDIR=$5 SHARD=${6:-}
mkdir -p "$OUTDIR"
TAG="$NAME-$SIMS"
ARGS=(--pairs 100 --no-progress --games-log "$OUTDIR/$TAG-games.jsonl")
[ -n "$SHARD" ] && ARGS+=(--shard "$SHARD") && TAG="$TAG-shard${SHARD%/*}"
taskset -c "$CORE" python -m alphazero.arena "mcts:checkpoint=$NETWORK,simulations=$SIMS,name=$NAME" \
  "mcts:checkpoint=checkpoints/warmstart-medium.pt,simulations=$SIMS,name=warmstart-medium" \
  "${ARGS[@]}" > "$OUTDIR/$TAG.json" 2> "$OUTDIR/$TAG.log"
cat "$OUTDIR/$TAG.json"
