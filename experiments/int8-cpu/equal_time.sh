#!/usr/bin/env bash
# The default player (selfplay-medium.pt) searching SECONDS a move in int8 against itself in bf16:
# what int8's simulations buy at equal time. PAIRS paired random 4-ply openings (seed 0); two
# shards, one pinned to each core, one game at a time in each (so a clock only runs while its
# core is its own), sharing one games log (resumable: the same command finishes a match).
#   experiments/int8-cpu/equal_time.sh SECONDS PAIRS OUTDIR [CODE]
set -euo pipefail
seconds="$1" pairs="$2" out="$3" code="${4:-$(pwd)}"
mkdir -p "$out"
network="$(pwd)/checkpoints/selfplay-medium.pt"
players=("mcts:checkpoint=$network,seconds=$seconds,precision=int8,threads=1,name=int8-${seconds}s"
         "mcts:checkpoint=$network,seconds=$seconds,precision=bf16,threads=1,name=bf16-${seconds}s")
uptime > "$out/uptime-start.txt"
for k in 0 1; do
    PYTHONPATH="$code" taskset -c "$k" python -m alphazero.arena "${players[@]}" --pairs "$pairs" --seed 0 --concurrency 1 \
        --shard "$k/2" --games-log "$out/games.jsonl" > "$out/shard$k.json" 2> "$out/shard$k.log" &
done
wait
uptime > "$out/uptime-end.txt"
python -m alphazero.arena "${players[@]}" --pairs "$pairs" --seed 0 --games-log "$out/games.jsonl" > "$out/match.json"
cat "$out/match.json"
