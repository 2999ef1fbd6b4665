#!/bin/bash
# Issue 35, item 3 on a lent GPU machine: self-play from checkpoints/warmstart-medium.pt with the
# prepared preset (`experiment=warmstart-medium`: PUCT root at 200 simulations, Dirichlet 0.3, AdamW
# at a fifth of the pretraining peak, SPRT gating) for all the time the call has, and the run
# directory packed to come back, be measured on the CPU (the matches against warmstart-medium.pt
# need no GPU: every GPU second goes to self-play) and resume there or on the next GPU.
#
# The call (one command; a task gets about 15 minutes of device time, a machine start included):
#   run(command="bash experiments/warmstart-medium-selfplay/gpu.sh", carry=[".whl"], timeout_s=590)
# A later GPU session resumes the same run: put the unpacked run directory under .device/ (ignored),
# carry it, and set RUN=.device/wm-run RESUME=1 (run.max_minutes counts every session of a run, so
# the script adds the run's earlier minutes to this call's budget). The carried tree is limited to
# 64 MiB and the repository alone is 55 MiB (2026-11-27), too much to carry a run beside it (its
# latest.pt with the optimizer is 19.5 MiB): INIT=checkpoints/selfplay-medium.pt starts a new run
# from the run's shipped network instead (train.init_from; a fresh optimizer and replay).
# Needs (carry): .whl (hydra-core, omegaconf, antlr4 wheels: ../shared/GPU.md).
# Comes back under $OUT (at most 8 files, 16 MiB each, 64 MiB in all):
#   log.txt         this script's timeline and the run's log
#   run.tar.*       the run directory (latest.pt with the optimizer, best, tb, config, the newest
#                   replay shards that fit in TAR_MIB; older ones pruned through the buffer's own
#                   prune, so its counters stay exact), in 15 MiB parts: cat run.tar.* | tar x
# EXTRA="key=value ..." adds config overrides to the run (e.g. arena.every_steps=1500 for a short one).
# DRY=1 OUT=/tmp/x bash experiments/warmstart-medium-selfplay/gpu.sh checks it on the CPU with tiny
# budgets (to check the script, not to measure).
source "$(dirname "$0")/../gpu-next/common.sh"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
RUN=${RUN:-/tmp/wm-run}
if [ "${DRY:-0}" != 1 ]; then
  RUN_SECONDS=${RUN_SECONDS:-500}   # the run's wall-clock budget from this script's start
  DEVICE_ARGS=""
  TAR_MIB=${TAR_MIB:-60}
else
  RUN_SECONDS=${RUN_SECONDS:-100}
  DEVICE_ARGS="selfplay.device=cpu train.device=cpu selfplay.workers=2 selfplay.concurrent_games=8 selfplay.games_per_shard=8
    mcts.simulations=8 train.min_positions=300 train.batch_size=32 arena.every_steps=20 arena.pairs=2 arena.max_pairs=4
    arena.simulations=4 train.mixed_precision=false train.checkpoint_every_steps=25"
  TAR_MIB=${TAR_MIB:-60}
fi
((command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv); nproc; lscpu | grep 'Model name';
 python3 -c 'import torch, numba; print("torch", torch.__version__, "numba", numba.__version__)'; git log -1 --format='%H %s') 2>&1
DMON=""
if command -v nvidia-smi > /dev/null; then nvidia-smi dmon -s u -d 5 > /tmp/dmon.txt 2>&1 & DMON=$!; fi

# The run: max_minutes counts from the run's own start, so it is what is left of RUN_SECONDS less
# what the set-up took; the hard timeout (TERM: the run stops gracefully and saves) covers a gate
# in progress at the budget.
LEFT=$(( RUN_SECONDS - ($(date +%s) - START) ))
EARLIER=0
if [ "${RESUME:-0}" = 1 ]; then
  EARLIER=$(python3 -c "from alphazero.nn.checkpoint import load_checkpoint; print(int(load_checkpoint('$RUN/checkpoints/latest.pt').extra['seconds']))")
fi
MINUTES=$(python3 -c "print(round(($EARLIER + $LEFT) / 60, 2))")
RESUME_ARGS=""; [ "${RESUME:-0}" = 1 ] && RESUME_ARGS="run.resume=true"
[ -n "${INIT:-}" ] && RESUME_ARGS="$RESUME_ARGS train.init_from=$INIT"
if [ "$LEFT" -ge 60 ]; then
  say "self-play for ${LEFT}s in $RUN (run.max_minutes=$MINUTES: the run's earlier ${EARLIER}s count)"
  timeout -k 15 -s TERM $(( LEFT + 25 )) python3 -m alphazero.train experiment=warmstart-medium run.dir="$RUN" \
    run.max_minutes="$MINUTES" run.progress=false eval.every_steps=0 $RESUME_ARGS $DEVICE_ARGS ${EXTRA:-}
  say "run exit $?"
else
  say "only ${LEFT}s of RUN_SECONDS left after the set-up: no self-play, packing $RUN as it is"
fi
[ -n "$DMON" ] && kill $DMON; cp /tmp/dmon.txt "$RUN/dmon.txt" 2>/dev/null

# Pack a copy of the run (the run itself stays whole for a resume in the same lease): the newest
# replay shards that fit in TAR_MIB beside everything else, the older ones deleted from the copy
# with the buffer's own prune (pruned.json keeps the counters exact), the numbered step copies left
# out (latest.pt is the resume point), split in parts that come back.
PACK=/tmp/pack/$(basename "$RUN")
rm -rf /tmp/pack && mkdir -p /tmp/pack && cp -r "$RUN" "$PACK" && rm -f "$PACK"/checkpoints/step-*.pt
python3 - "$PACK" "$TAR_MIB" <<'EOF'
import sys
from pathlib import Path
from alphazero.replay.buffer import ReplayBuffer
from alphazero.replay.shard import read_shard_counts
run, budget = Path(sys.argv[1]), float(sys.argv[2]) * 2**20
replay = run / "replay"
others = sum(f.stat().st_size for f in run.rglob("*") if f.is_file() and replay not in f.parents)
room, keep = budget - others, 0
for shard in sorted(replay.glob("shard-*.npz"), reverse=True):
    room -= shard.stat().st_size
    if room < 0:
        break
    keep += read_shard_counts(shard)[1]
buffer = ReplayBuffer(replay, window_positions=max(keep, 1))
before = buffer.num_shards
buffer.prune()
print(f"replay: kept {buffer.num_shards} of {before} shards, {keep} positions ({buffer.total_positions} ever admitted); "
      f"the rest of the run is {others / 2**20:.1f} MiB")
EOF
tar -C /tmp/pack -cf /tmp/run.tar "$(basename "$RUN")"
split -b 15M -d -a 1 /tmp/run.tar "$OUT/run.tar."
ls -la "$OUT"
say done
