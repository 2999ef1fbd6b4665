#!/bin/bash
# bench selfplay --preset cpu, the old code (OLD, a checkout of c70abcc) and the new taking turns.
# Usage: OLD=... bash experiments/wipeout-fix/selfplay_ab.sh ROUNDS SECONDS   (from the repo root)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"; new="$(cd "$here/../.." && pwd)"; old="${OLD:?}"
for round in $(seq 1 "$1"); do
  for side in old new; do
    code=$old; [ "$side" = new ] && code=$new
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$(cd "$code" && PYTHONPATH="$code" python -m alphazero.bench selfplay --preset cpu --seconds "$2" 2>/dev/null | tail -1)
    echo "{\"code\": \"$side\", \"round\": $round, \"load_before\": $load, \"date\": \"$(date -u +%FT%TZ)\", \"result\": $line}" | tee -a "$here/selfplay-ab.jsonl"
  done
done
