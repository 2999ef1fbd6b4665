#!/bin/bash
# The equal-time tables of experiments/equal-time/README.md ("What each shipped network buys per second"): every
# shipped network searching SECONDS a move (arena `seconds=`: each position alone on one torch
# thread, a fresh tree each move) against the others and GRhino level 5, PAIRS paired random
# 4-ply openings (seed 0) per pairing. Two shards (one process per core) share the games log;
# --concurrency 1 plays one game at a time in each, so GRhino never thinks on the core while a
# network's clock runs. Resumable: finished games and matches are kept in experiments/equal-time/.
#
#   experiments/equal-time/run.sh 0.5 10      # from the repo root; SECONDS PAIRS (NETS="a b" to choose)
#   NETS="selfplay-medium warmstart-medium warmstart" FIELD= experiments/equal-time/run.sh 2 10
#   FIELD= experiments/equal-time/run.sh 0.5 10   # the networks only, without GRhino level 5
#   OUT=experiments/equal-time/zen3-s2 NETS="selfplay-medium warmstart-small warmstart" FIELD= experiments/equal-time/run.sh 2 10
set -u
cd "$(dirname "$0")/../.."
seconds=${1:?seconds per move}
pairs=${2:?pairs of openings}
out=${OUT:-experiments/equal-time/s$seconds}  # OUT=dir for a table of another machine
mkdir -p "$out"
players=()
# The shipped networks in the order the games logs were started with (a new network goes last, so
# the pairings already played keep their colours and openings); NETS="..." for another set.
nets=${NETS:-warmstart-medium selfplay warmstart selfplay-medium}
for net in $nets; do
  players+=("mcts:checkpoint=checkpoints/$net.pt,seconds=$seconds,threads=1,name=$net-${seconds}s")
done
# The fixed field the networks also meet. GRhino level 5 takes 2-5 minutes of a core per game
# (experiments/ladders/README.md, "GRhino level 5 with the solver"): FIELD="" leaves it out.
field=${FIELD-grhino5}
# With a field, the networks play everyone and the field does not play itself (--gauntlet);
# without one, a plain round robin of the networks.
pairing=()
if [ "$field" = grhino5 ]; then
  pairing=(--gauntlet "$(echo $nets | wc -w)")
  players+=('gtp:"/usr/games/gtp-rhino -l 5 -r 0 -b 0",processes=1,timeout=1800,name=grhino-5')
fi
uptime > "$out/uptime-start.txt"
for k in 0 1; do
  python -m alphazero.arena ladder "${pairing[@]}" --pairs "$pairs" --seed 0 --concurrency 1 --shard "$k/2" \
      --games-log "$out/games.jsonl" "${players[@]}" \
      > "$out/shard$k.md" 2> "$out/shard$k.log" &
done
wait
uptime > "$out/uptime-end.txt"
# The whole table from both shards' games (already played, so nothing is searched again).
python -m alphazero.arena ladder "${pairing[@]}" --pairs "$pairs" --seed 0 --games-log "$out/games.jsonl" \
    --results "$out/results.jsonl" --out "$out/table.md" "${players[@]}" > /dev/null 2> "$out/table.log"
cat "$out/table.md"
