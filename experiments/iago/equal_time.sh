#!/bin/bash
# The shipped networks against Iago at equal time per move: SECONDS a move each side (the networks
# `mcts:...,seconds=S` on one torch thread, Iago `--seconds S`), PAIRS paired random 4-ply openings
# (seed 0): the networks play Iago and each other (--gauntlet: Iago does not play itself). Two shards, one pinned to each core with
# taskset (Iago's SBCL inherits it), one game at a time in each, so the two sides of a game take
# turns on one core and never think at once. Resumable from the games log.
#
#   experiments/iago/equal_time.sh 1 10        # from the repo root; NETS="a b" to choose networks
set -u
cd "$(dirname "$0")/../.."
seconds=${1:?seconds per move}
pairs=${2:?pairs of openings}
out=${OUT:-experiments/iago/timed-s$seconds}
mkdir -p "$out"
nets=${NETS:-selfplay-medium warmstart-small}
players=()
for net in $nets; do
  players+=("mcts:checkpoint=checkpoints/$net.pt,seconds=$seconds,threads=1,name=$net-${seconds}s")
done
players+=("gtp:\"python -m alphazero.arena.iago --seconds $seconds\",name=iago-${seconds}s")
echo "$(date -u +%FT%TZ) start, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/uptime.txt"
for k in 0 1; do
  taskset -c "$k" python -m alphazero.arena ladder --gauntlet "$(echo $nets | wc -w)" --pairs "$pairs" --seed 0 \
      --concurrency 1 --shard "$k/2" --games-log "$out/games.jsonl" "${players[@]}" \
      > "$out/shard$k.md" 2> "$out/shard$k.log" &
done
wait
echo "$(date -u +%FT%TZ) end, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/uptime.txt"
python -m alphazero.arena ladder --gauntlet "$(echo $nets | wc -w)" --pairs "$pairs" --seed 0 \
    --games-log "$out/games.jsonl" --results "$out/results.jsonl" --out "$out/table.md" "${players[@]}" \
    > /dev/null 2> "$out/table.log"
cat "$out/table.md"
