#!/bin/bash
# Whether train.memory_format=auto should pick channels-last on CUDA too (today NCHW there; on the
# CPU channels-last won by 6-17%, and on an H100 it made inference 1.4x faster at 4,096+
# positions, 0.93x at 1,024). The gpu preset's trainer (medium network, bf16) at batch 1,024 (the
# preset's) and 4,096, two alternating pairs each. About 1.5 minutes.
# The call: run(command="bash experiments/gpu-next/train_layout.sh", carry=[".whl"], timeout_s=240).
# If channels-last wins at the preset's batch: make "auto" pick it on CUDA
# (alphazero.nn.model.training_memory_format) and record the figures.
source "$(dirname "$0")/common.sh"
mkdir -p "$OUT"
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; git log -1 --format='%H %s') > "$OUT/machine.txt" 2>&1
PRESET=gpu DEVICE=cuda BATCHES="1024 4096"
[ "${DRY:-0}" = 1 ] && PRESET=cpu DEVICE=cpu BATCHES="64"  # checks the script, does not measure
for batch in $BATCHES; do
  say "batch $batch"
  timeout -s TERM 100 python3 experiments/gpu-next/train_layout.py $PRESET $DEVICE $batch 2 >> "$OUT/train-layout.jsonl" 2>> "$OUT/train-layout.err"
  say "exit $?"
done
cat "$OUT/train-layout.jsonl"
say done
