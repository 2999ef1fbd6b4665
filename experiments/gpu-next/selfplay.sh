#!/bin/bash
# Issue 15's follow-up on a lent GPU machine, one command of about 3 minutes: the `gpu` preset's
# self-play pipeline with the time accounting of commit d6232eb (worker_waiting, server_time), to
# see why the H200 run of 2026-11-26 kept the GPU 59% busy at efficiency 0.68 (target 0.80 and
# 3,000 positions/s). Two runs: the preset as it is, and with selfplay.server_pipeline=true (the
# server launches the next batch while the GPU computes the last: off by default until this
# measures it); EXTRA=1 adds a third, the pipeline with 15 workers (about 1.5 minutes more).
# Run it after experiments/gpu-next/gpu.sh if device time is left (issue 18 comes first).
# Needs (carry): .whl (hydra-core, omegaconf, antlr4 wheels for py3.12).
# The call: run(command="bash experiments/gpu-next/selfplay.sh", carry=[".whl"], timeout_s=400).
# Comes back under $OUT: one JSON line per run (bench-selfplay-*.json) and their stderr. If the
# pipeline wins, make it the gpu preset's (conf/experiment/gpu.yaml) and record the figures.
# Reading them (bench selfplay's docstring): workers waiting little = the workers' search is the
# limit; workers waiting while the server idles = latency; server mostly in compute = the device.
# DRY=1 runs it on CPU with the smoke preset (to check the script, not to measure).
source "$(dirname "$0")/common.sh"
if [ "${DRY:-0}" != 1 ]; then
  ARGS="--preset gpu --device cuda --seconds 30 --warmup 10"
  MORE="--workers 15"
else
  ARGS="--preset smoke --inference-server on --seconds 4 --warmup 0 --network-seconds 0.3"
  MORE="--workers 2"
fi
mkdir -p "$OUT"
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; git log -1 --format='%H %s') > "$OUT/machine.txt" 2>&1
bench() {  # name, extra arguments
  say "$1: $2"
  timeout -s TERM 170 python3 -m alphazero.bench selfplay $ARGS $2 > "$OUT/bench-selfplay-$1.json" 2> "$OUT/bench-selfplay-$1.err"
  say "exit $?"; tail -1 "$OUT/bench-selfplay-$1.json"
}
bench preset ""
bench pipeline "selfplay.server_pipeline=true"
[ "${EXTRA:-0}" = 1 ] && bench pipeline-more-workers "$MORE selfplay.server_pipeline=true"
say done
