#!/bin/bash
# The last-moves kernels returning (score, nodes) instead of counting in a shared array
# (node_returns.patch) against the code without it, taking turns on core 1 (2026-11-29, the Zen 4):
#   experiments/endgame-solver-36/node_returns_ab.sh REV   # REV: the commit to patch (e05f567 then)
# Writes node-returns-ab-fforum.jsonl (FForum #20-#39 exact, and 120 WTHOR 2018 win/loss/draw
# solves at 14/16/18 empties, 3 rounds) and node-returns-ab-wld.jsonl (1,000 WTHOR 2018 win/loss/draw
# solves at 15-18 empties with the search's 2^18 table, 4 rounds) here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rev=${1:?commit}
rm -rf /tmp/base /tmp/exp && mkdir -p /tmp/base /tmp/exp
git -C "$here/../.." archive "$rev" alphazero | tar -x -C /tmp/base
git -C "$here/../.." archive "$rev" alphazero | tar -x -C /tmp/exp
patch -d /tmp/exp -p1 < "$here/node_returns.patch"
shared=$(cd "$here/../../../shared" && pwd)
run() {  # OUTFILE ROUNDS ARGS...
  local out=$1 rounds=$2; shift 2
  for round in $(seq "$rounds"); do
    if [ $((round % 2)) = 1 ]; then trees="base exp"; else trees="exp base"; fi
    for tree in $trees; do
      r=$(cd /tmp/$tree && taskset -c 1 python -m alphazero.bench endgame "$@" 2>/dev/null | tail -1)
      echo "{\"round\": $round, \"tree\": \"$tree\", \"args\": \"$*\", \"load\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"result\": $r}" >> "$out"
    done
  done
}
run "$here/node-returns-ab-fforum.jsonl" 3 --obf "$shared/data/ffo/fforum-20-39.obf"
run "$here/node-returns-ab-fforum.jsonl" 3 --wthor "$shared/data/wthor/WTH_2018.wtb" --empties 14,16,18 --count 40 --wld
run "$here/node-returns-ab-wld.jsonl" 4 --wthor "$shared/data/wthor/WTH_2018.wtb" --empties 15,16,17,18 --count 250 --wld --table-bits 18
