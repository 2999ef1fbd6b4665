#!/bin/bash
# bench selfplay --preset cpu before and after prepacking, taking turns (both workers on both cores).
#   OLD=/tmp/frozen-old NEW=/tmp/frozen-new bash experiments/prepacked-onednn/selfplay_ab.sh ROUNDS SECONDS OUT.jsonl
set -euo pipefail
rounds=$1 seconds=$2 out=$3
for round in $(seq 1 "$rounds"); do
  for side in old new; do
    dir=$([ $side = old ] && echo "$OLD" || echo "$NEW")
    commit=$(git -C "$dir" rev-parse --short HEAD)
    (cd "$dir" && PYTHONPATH=$dir python -m alphazero.bench selfplay --preset cpu --seconds "$seconds" --no-progress 2>/dev/null) \
      | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); d.update(side='$side', commit='$commit', round=$round, utc='$(date -u +%FT%TZ)'); print(json.dumps(d))" >> "$out"
  done
done
