#!/bin/bash
# Channels-last on CUDA (2026-11-26): the evaluator ran NCHW on CUDA while shared/GPU.md's
# network figures (695k evals/s at 4,096 for the medium network) were channels-last, and the
# H100 run of selfplay.sh that day showed the pipelined server GPU-bound (99.9% busy, 452k evals/s
# network-only). One command of about 4 minutes: layout.py (NCHW vs channels-last, evaluator's
# device work), then the gpu preset's self-play with the channels-last evaluator, pipelined and
# serial. Needs (carry): .whl. The call: run(command="bash experiments/gpu-next/layout.sh", carry=[".whl"], timeout_s=420).
source "$(dirname "$0")/common.sh"
mkdir -p "$OUT"
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; git log -1 --format='%H %s') > "$OUT/machine.txt" 2>&1
say layout
timeout -s TERM 120 python3 experiments/gpu-next/layout.py gpu > "$OUT/layout.jsonl" 2> "$OUT/layout.err"; say "exit $?"; cat "$OUT/layout.jsonl"
bench() {  # name, extra arguments
  say "$1: $2"
  timeout -s TERM 150 python3 -m alphazero.bench selfplay --preset gpu --device cuda --seconds 30 --warmup 10 $2 > "$OUT/bench-selfplay-$1.json" 2> "$OUT/bench-selfplay-$1.err"
  say "exit $?"; tail -1 "$OUT/bench-selfplay-$1.json"
}
bench cl-pipeline "selfplay.server_pipeline=true"
bench cl-serial ""
say done
