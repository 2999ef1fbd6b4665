#!/usr/bin/env bash
# The speed figures of experiments/int8-cpu/README.md, "int8 inference on a CPU", one after the other on a
# quiet machine (every JSON line carries its load average): the evaluator alone for both shipped
# network sizes, then the self-play pipeline of the cpu preset and of warmstart-medium-cpu with
# bf16 and int8 taking turns.
#   experiments/int8-cpu/bench.sh OUTDIR
set -euo pipefail
out="${1:?output directory}"
mkdir -p "$out"
cache="$out/precision-cache.json"
for net in warmstart-medium warmstart-small; do
    python -m alphazero.bench network --checkpoint "checkpoints/$net.pt" --precisions fp32 bf16 int8 auto \
        --batches 1 4 64 256 --clock cpu --skip-training --precision-cache "$cache" > "$out/network-$net.json"
done
python -m alphazero.bench selfplay --preset cpu --precisions bf16 int8 --rounds 2 --seconds 60 --no-progress > "$out/selfplay-cpu.json"
python -m alphazero.bench selfplay --preset warmstart-medium-cpu --precisions bf16 int8 --rounds 1 --seconds 90 --no-progress > "$out/selfplay-warmstart-medium-cpu.json"
