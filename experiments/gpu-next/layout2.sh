#!/bin/bash
# After layout.sh (2026-11-26): the CUDA tests of the evaluator with the batch-dependent layout
# (NCHW below CUDA_CHANNELS_LAST_MIN_BATCH, channels-last from it), then the gpu preset's serial
# self-play with 12 (the preset) and 15 workers. About 3 minutes.
# The call: run(command="bash experiments/gpu-next/layout2.sh", carry=[".whl"], timeout_s=330).
source "$(dirname "$0")/common.sh"
mkdir -p "$OUT"
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; git log -1 --format='%H %s') > "$OUT/machine.txt" 2>&1
say tests
timeout -s TERM 90 python3 -m pytest -q -p no:cacheprovider tests/nn/test_inference.py > "$OUT/pytest.txt" 2>&1; say "exit $?"; tail -3 "$OUT/pytest.txt"
bench() {  # name, extra arguments
  say "$1: $2"
  timeout -s TERM 110 python3 -m alphazero.bench selfplay --preset gpu --device cuda --seconds 30 --warmup 10 $2 > "$OUT/bench-selfplay-$1.json" 2> "$OUT/bench-selfplay-$1.err"
  say "exit $?"; tail -1 "$OUT/bench-selfplay-$1.json"
}
bench cl2-serial ""
bench cl2-serial-15 "--workers 15"
say done
