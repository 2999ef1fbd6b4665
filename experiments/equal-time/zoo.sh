#!/bin/bash
# The warm-start zoo (checkpoints/zoo/year/) in the equal-time table: each zoo network at SECONDS a
# move (arena `seconds=`, one torch thread, a fresh tree each move, the default endgame solver)
# against two shipped small networks that anchor it to the table, `warmstart-small.pt` (the
# strongest at 0.5 s) and `warmstart-v1.pt` (the weakest), PAIRS paired random 4-ply openings
# (seed 0) per pairing, one game at a time on one core. `seed_cnn_rnn` reads the game's moves, so
# it cannot search (MCTS refuses it): it plays its raw policy (`simulations=0`), which costs one
# network call a move. The zoo networks do not play each other. Resumable: the games log keeps
# every finished game.
#
#   OUT=experiments/equal-time/zen3-zoo CORE=0 experiments/equal-time/zoo.sh 0.5 10
set -u
cd "$(dirname "$0")/../.."
seconds=${1:?seconds per move}
pairs=${2:?pairs of openings}
out=${OUT:-experiments/equal-time/zoo-s$seconds}
core=${CORE:-0}
mkdir -p "$out"
field=("mcts:checkpoint=checkpoints/warmstart-small.pt,seconds=$seconds,threads=1,name=warmstart-small-${seconds}s"
       "mcts:checkpoint=checkpoints/warmstart-v1.pt,seconds=$seconds,threads=1,name=warmstart-v1-${seconds}s")
for net in seed_cnn small seed_mlp seed_cnn_rnn; do
  if [ "$net" = seed_cnn_rnn ]; then
    player="mcts:checkpoint=checkpoints/zoo/year/$net.pt,simulations=0,threads=1,name=zoo-year-$net-policy"
  else
    player="mcts:checkpoint=checkpoints/zoo/year/$net.pt,seconds=$seconds,threads=1,name=zoo-year-$net-${seconds}s"
  fi
  echo "$(date -u +%FT%TZ) start $net core $core load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/uptime.txt"
  taskset -c "$core" python -m alphazero.arena ladder --gauntlet 1 --pairs "$pairs" --seed 0 --concurrency 1 \
      --games-log "$out/games.jsonl" --results "$out/results.jsonl" --out "$out/$net.md" \
      "$player" "${field[@]}" > /dev/null 2>> "$out/$net.log"
  echo "$(date -u +%FT%TZ) end $net exit $? load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/uptime.txt"
done
