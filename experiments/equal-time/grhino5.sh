#!/bin/bash
# GRhino level 5 against shipped networks at two time budgets side by side: one process per core,
# core 0 playing each network of NETS in turn at SECONDS_A a move, core 1 at SECONDS_B, against
# GRhino level 5 (`-l 5 -r 0 -b 0`, no randomness, no book) on PAIRS paired random 4-ply openings
# (seed 0), one game at a time, so GRhino never thinks on the core while the network's clock runs.
# A core moves to the next network as soon as its cell ends, so neither core waits for the other.
# Resumable: each network and budget has its games log in experiments/equal-time/grhino5/.
#
#   experiments/equal-time/grhino5.sh selfplay-medium 10 0.5 2        # NETS PAIRS SECONDS_A SECONDS_B
#   experiments/equal-time/grhino5.sh "warmstart selfplay" 10 0.5 2   # several networks, queued per core
# The network solves endgames from 17 empties (`endgame=17`, roots and opened nodes: the default when
# this table was started, 2026-11-27) so that every cell plays by the same rules; the default is
# 18/17 since then. ENDGAME=18 (say) changes it for a new table, ENDGAME=default plays the default.
# OUT=dir keeps another machine's table apart; CORES="1" (say) pins the budgets to other cores
# (the first budget to the first core listed, and so on; one budget may be left out):
#   OUT=experiments/equal-time/zen3-grhino5 CORES=1 ENDGAME=default \
#       experiments/equal-time/grhino5.sh "selfplay-medium warmstart-small" 10 0.5
set -u
cd "$(dirname "$0")/../.."
nets=${1:?network names in checkpoints/ (space-separated)}
pairs=${2:?pairs of openings}
out=${OUT:-experiments/equal-time/grhino5}
endgame=",endgame=${ENDGAME:-17}"
[ "${ENDGAME:-}" = default ] && endgame=""
cores=(${CORES:-0 1})
mkdir -p "$out"
cell() {  # CORE NET SECONDS: one network at one budget against GRhino 5, pinned to CORE
  local core=$1 net=$2 seconds=$3
  echo "$(date -u +%FT%TZ) start $net ${seconds}s core $core load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/uptime-$net.txt"
  taskset -c "$core" python -m alphazero.arena ladder --pairs "$pairs" --seed 0 --concurrency 1 \
      --games-log "$out/$net-${seconds}s.jsonl" --out "$out/$net-${seconds}s.md" \
      "mcts:checkpoint=checkpoints/$net.pt,seconds=$seconds,threads=1$endgame,name=$net-${seconds}s" \
      'gtp:"/usr/games/gtp-rhino -l 5 -r 0 -b 0",processes=1,timeout=1800,name=grhino-5' \
      >> "$out/$net-${seconds}s.log" 2>&1
  echo "$(date -u +%FT%TZ) end $net ${seconds}s core $core exit $? load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/uptime-$net.txt"
}
k=0
for seconds in "${3:?seconds a}" ${4:+"$4"}; do
  core=${cores[$k]:?no core left in CORES for ${seconds}s}
  (for net in $nets; do cell "$core" "$net" "$seconds"; done) &
  k=$((k + 1))
done
wait
