#!/bin/bash
# GRhino level 5 against one shipped network at two time budgets side by side: one process per
# core, each playing NET at SECONDS_A (core 0) or SECONDS_B (core 1) a move against GRhino level 5
# (`-l 5 -r 0 -b 0`, no randomness, no book) on PAIRS paired random 4-ply openings (seed 0), one
# game at a time, so GRhino never thinks on the core while the network's clock runs. Resumable:
# each budget has its games log in experiments/equal-time/grhino5/.
#
#   experiments/equal-time/grhino5.sh selfplay-medium 10 0.5 2     # NET PAIRS SECONDS_A SECONDS_B
set -u
cd "$(dirname "$0")/../.."
net=${1:?network name in checkpoints/}
pairs=${2:?pairs of openings}
out=experiments/equal-time/grhino5
mkdir -p "$out"
uptime > "$out/uptime-start-$net.txt"
core=0
for seconds in "${3:?seconds a}" "${4:?seconds b}"; do
  taskset -c $core python -m alphazero.arena ladder --pairs "$pairs" --seed 0 --concurrency 1 \
      --games-log "$out/$net-${seconds}s.jsonl" --out "$out/$net-${seconds}s.md" \
      "mcts:checkpoint=checkpoints/$net.pt,seconds=$seconds,threads=1,name=$net-${seconds}s" \
      'gtp:"/usr/games/gtp-rhino -l 5 -r 0 -b 0",processes=1,timeout=1800,name=grhino-5' \
      > "$out/$net-${seconds}s.log" 2>&1 &
  core=$((core + 1))
done
wait
uptime > "$out/uptime-end-$net.txt"
