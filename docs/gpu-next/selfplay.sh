#!/bin/bash
# Issue 15's follow-up on a lent GPU machine, one command of about 5 minutes: the `gpu` preset's
# self-play pipeline with the time accounting of commit d6232eb (worker_waiting, server_time), to
# see why the H200 run of 2026-11-26 kept the GPU 59% busy at efficiency 0.68 (target 0.80 and
# 3,000 positions/s). Two runs: the preset as it is, and 15 workers (one per spare core).
# Run it after docs/gpu-next/gpu.sh if device time is left (issue 18 comes first).
# Needs (carry): .whl (hydra-core, omegaconf, antlr4 wheels for py3.12).
# The call: run(command="bash docs/gpu-next/selfplay.sh", carry=[".whl"], timeout_s=480).
# Comes back under $OUT: one JSON line per run (bench-selfplay-*.json) and their stderr.
# Reading them (bench selfplay's docstring): workers waiting little = the workers' search is the
# limit; workers waiting while the server idles = latency; server mostly in compute = the device.
# DRY=1 runs it on CPU with the smoke preset (to check the script, not to measure).
set -u
START=$(date +%s)
say() { echo "[selfplay.sh +$(( $(date +%s) - START ))s] $*"; }
if [ "${DRY:-0}" != 1 ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site:$PWD
  ARGS="--preset gpu --device cuda --seconds 45 --warmup 15"
  VARIANT="--workers 15"
else
  export PYTHONPATH=$PWD
  ARGS="--preset smoke --inference-server on --seconds 4 --warmup 0 --network-seconds 0.3"
  VARIANT="--workers 2"
fi
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; git log -1 --format='%H %s') > "$OUT/machine.txt" 2>&1
say "preset as it is"
timeout -s TERM 200 python3 -m alphazero.bench selfplay $ARGS > "$OUT/bench-selfplay-preset.json" 2> "$OUT/bench-selfplay-preset.err"
say "exit $?"; tail -1 "$OUT/bench-selfplay-preset.json"
say "variant: $VARIANT"
timeout -s TERM 200 python3 -m alphazero.bench selfplay $ARGS $VARIANT > "$OUT/bench-selfplay-variant.json" 2> "$OUT/bench-selfplay-variant.err"
say "exit $?"; tail -1 "$OUT/bench-selfplay-variant.json"
say done
