#!/usr/bin/env bash
# int8 against bf16 with the same network and the same simulations: what int8's rounding costs in
# play (experiments/int8-cpu/README.md, "int8 inference on a CPU"). Two shards, one pinned to each core, both
# writing the same games log (the arena resumes from it: the same command finishes a match).
#   experiments/int8-cpu/arena.sh NETWORK SIMS OUTDIR [CODE]
# CODE: a checkout to run (default: this one), so later edits cannot reach a running match.
set -euo pipefail
network="$1" sims="$2" out="$3" code="${4:-$(pwd)}"
mkdir -p "$out"
for k in 0 1; do
    PYTHONPATH="$code" taskset -c "$k" python -m alphazero.arena \
        "mcts:checkpoint=$network,simulations=$sims,precision=int8,threads=1" \
        "mcts:checkpoint=$network,simulations=$sims,precision=bf16,threads=1" \
        --pairs 100 --seed 0 --shard "$k/2" --games-log "$out/games.jsonl" > "$out/shard$k.json" 2> "$out/shard$k.log" &
done
wait
python -m alphazero.arena \
    "mcts:checkpoint=$network,simulations=$sims,precision=int8,threads=1" \
    "mcts:checkpoint=$network,simulations=$sims,precision=bf16,threads=1" \
    --pairs 100 --seed 0 --games-log "$out/games.jsonl" > "$out/match.json"
cat "$out/match.json"
