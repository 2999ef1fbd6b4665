#!/usr/bin/env bash
# The cost of the auxiliary targets in supervised pretraining
# (experiments/auxiliary-pretraining-cost/README.md, "Auxiliary targets in pretraining: cost"). Run
# from the repository root with the venv active:
#   bash experiments/auxiliary-pretraining-cost/run.sh BEFORE_CHECKOUT OUT_DIR
# BEFORE_CHECKOUT: a checkout of the code before the targets (e.g. main at 8f66c6b).
set -euo pipefail
before=$1
out=$2
mkdir -p "$out"
here=$PWD
data=$(cd "$here/.." && pwd)/shared/data/wthor
{
  echo "# $(date -u +%FT%TZ) $(uptime)"
  # 1. Building the full dataset, before and after, alternating; disk use of each result.
  for round in 1 2; do
    for side in before after; do
      root=$([ $side = before ] && echo "$before" || echo "$here")
      for dedup in "" "--dedup"; do
        dir="$out/dataset-$side${dedup:+-dedup}"
        rm -rf "$dir"
        echo "## $side $dedup round $round load: $(cut -d' ' -f1-3 /proc/loadavg)"
        (cd "$root" && PYTHONPATH="$root" nice -n 19 python -m alphazero.bench dataset --data "$data" --out "$dir" $dedup)
        du -sb "$dir"
      done
    done
  done
  # 2. Pretraining samples/s with and without the heads, side by side in one process.
  for precision in fp32 bf16; do
    echo "## auxiliary $precision load: $(cut -d' ' -f1-3 /proc/loadavg)"
    nice -n 19 python -m alphazero.bench auxiliary --data "$data" --dataset-dir "$out/dataset-after" --clock cpu --precision $precision --steps 4 --repeats 6
  done
  echo "## auxiliary fp32 dedup load: $(cut -d' ' -f1-3 /proc/loadavg)"
  nice -n 19 python -m alphazero.bench auxiliary --data "$data" --dataset-dir "$out/dataset-after-dedup" --dedup --clock cpu --precision fp32 --steps 4 --repeats 6
  echo "# done $(date -u +%FT%TZ) $(uptime)"
} 2>&1 | grep -v "it/s\]" | tee "$out/log.txt"
