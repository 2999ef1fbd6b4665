#!/bin/bash
# How long a review takes at the default budget (play's: 200 simulations a move, the default
# network, one torch thread, the solver from 18 empties): the two 60-move games of the GGF
# samples, each reviewed as JSON lines (the per-move seconds) and game 1 also as text, every
# command under /usr/bin/time, the load average before and after each. Run from the repository
# root: bash experiments/review-time/run.sh [OUT_DIR]
set -euo pipefail
out=${1:-experiments/review-time}
mkdir -p "$out"
samples=tests/fixtures/samples.ggf
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "cpu $(lscpu | grep 'Model name' | sed 's/Model name: *//') ($(nproc) cores)"
  echo "commit $(git rev-parse --short HEAD)"
} > "$out/machine.txt"
# A first start compiles the kernels and measures precision=auto's verdict: not part of a review.
python -m alphazero.review f5d6c3d3 > /dev/null
timed() {  # NAME COMMAND...: stdout to NAME, the time and the load to NAME.time
  local name=$1; shift
  echo "load before $(cat /proc/loadavg)" > "$out/$name.time"
  /usr/bin/time -v "$@" > "$out/$name" 2>> "$out/$name.time"
  echo "load after $(cat /proc/loadavg)" >> "$out/$name.time"
}
timed game1.jsonl python -m alphazero.review "$samples" --game 1 --json
timed game2.jsonl python -m alphazero.review "$samples" --game 2 --json
timed game1.txt python -m alphazero.review "$samples" --game 1
python experiments/review-time/table.py "$out" | tee "$out/table.md"
