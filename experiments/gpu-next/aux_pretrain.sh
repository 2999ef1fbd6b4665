#!/bin/bash
# Issue 35 item 2's last measure on a lent GPU machine, one command of about 8 minutes: what
# KataGo's auxiliary targets do to the medium warm start's WTHOR accuracy and value error. Two
# pretraining runs of `model=medium` from scratch on WTHOR 1977-2017, side by side on the one GPU,
# the same schedule and seed, one without the heads and one with both (score 0.1, ownership 0.5,
# the recommended weights): warmstart-medium.pt's recipe (experiments/gpu-2026-11-26/README.md, "H200 runs of
# 2026-11-26") cut to 2,400 steps of 4,096 (9.8M samples, 1.35 epochs) so both fit one call.
# Each validates on the same fixed 20,000 positions of 2018 every 800 steps, so the arms compare
# step for step even if the time cap stops one earlier (the heads cost a little compute).
# Needs (carry): .whl (hydra-core, omegaconf, antlr4 wheels for py3.12) and .device (wthor.txz, the
# WTHOR games packed: 4.7 MB, or wthor/, a plain copy of 8.3 MB; common.sh's wthor_dir). The call,
# after `mkdir -p .device && tar cJf .device/wthor.txz -C ../shared/data wthor` here:
#   run(command="bash experiments/gpu-next/aux_pretrain.sh", carry=[".whl", ".device"], timeout_s=600).
# Comes back under $OUT: both networks (weights only, plain.pt and aux.pt), both logs, the
# validation lines side by side (validation.txt).
# Back here: `python -m alphazero.bench accuracy --checkpoint $FILES/plain.pt --years 2018` (and
# aux.pt) for the whole of 2018, and the lines into docs/benchmarks.md ("Warm start and pretraining").
# DRY=1 OUT=/tmp/x runs it on CPU with tiny budgets (to check the script, not to measure).
source "$(dirname "$0")/common.sh"
if [ "${DRY:-0}" != 1 ]; then
  SCHEDULE="pretrain.device=cuda pretrain.batch_size=4096 pretrain.lr=0.003 pretrain.lr_warmup_steps=300 pretrain.lr_total_steps=2400 run.max_steps=2400 run.max_minutes=6.5 pretrain.epochs=5 pretrain.eval_every_steps=800 pretrain.checkpoint_every_steps=800 pretrain.threads=2"
  HARD=450
else
  SCHEDULE="pretrain.device=cpu pretrain.batch_size=128 pretrain.lr=0.003 pretrain.lr_warmup_steps=2 pretrain.lr_total_steps=8 run.max_steps=8 run.max_minutes=1 pretrain.epochs=1 pretrain.eval_every_steps=4 pretrain.checkpoint_every_steps=4 pretrain.validation_positions=1000"
  HARD=120
fi
W=${WTHOR:-$(wthor_dir)} || exit 4
R=${RUNS:-/tmp/aux-pretrain}
rm -rf "$R" && mkdir -p "$R" "$OUT"
git log -1 --format='%H %s' > "$R/commit.txt" 2>/dev/null
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc) > "$R/machine.txt" 2>&1

say "dataset (built once, then shared by both runs)"
python3 - "$W" "$R/dataset" <<'PY' || exit 4
import sys
from alphazero.data.dataset import ensure_dataset
from alphazero.pretrain.config import PretrainConfig
settings = PretrainConfig(wthor_dir=sys.argv[1])
dataset = ensure_dataset(settings.resolved_wthor_dir(), sys.argv[2], settings.dataset_options(), progress=False)
print(f"{len(dataset.train):,} training rows, {len(dataset.validation):,} validation rows")
PY

COMMON="model=medium run.seed=0 pretrain.wthor_dir=$W pretrain.dataset_dir=$R/dataset pretrain.lr_min_factor=0.02 pretrain.progress=false pretrain.log_every_steps=100 $SCHEDULE"
HEADS="model.score_head=true model.ownership_head=true pretrain.score_weight=0.1 pretrain.ownership_weight=0.5"
echo "python3 -m alphazero.pretrain run.dir=RUN ${COMMON//$R/R}" > "$R/plain.command"
echo "python3 -m alphazero.pretrain run.dir=RUN ${COMMON//$R/R} $HEADS" > "$R/aux.command"
say "launch: plain and aux side by side"
timeout -s TERM $HARD python3 -m alphazero.pretrain run.dir="$R/plain" $COMMON > "$R/plain.out" 2>&1 &
PLAIN=$!
timeout -s TERM $HARD python3 -m alphazero.pretrain run.dir="$R/aux" $COMMON $HEADS > "$R/aux.out" 2>&1 &
AUX=$!
wait $PLAIN; say "plain exited $?"
wait $AUX; say "aux exited $?"

for arm in plain aux; do
  echo "== $arm"
  grep -h "validation at\|samples/s" "$R/$arm/log.txt" 2>/dev/null | grep "validation at" || tail -5 "$R/$arm.out"
done | tee "$R/validation.txt"

python3 - "$R" > "$R/export.log" 2>&1 <<'PY'
import sys
from pathlib import Path
from alphazero.nn.checkpoint import load_checkpoint, load_network, save_checkpoint
root = Path(sys.argv[1])
for arm in ("plain", "aux"):
    latest = root / arm / "checkpoints/latest.pt"
    if latest.exists():
        checkpoint = load_checkpoint(latest)
        extra = {k: v for k, v in checkpoint.extra.items() if k != "rng"}
        save_checkpoint(root / f"{arm}.pt", load_network(latest), extra=extra)
        print(arm, "exported at step", extra["state"]["step"], extra["state"]["samples_trained"])
    else:
        print(arm, "has no checkpoint")
PY
cat "$R/export.log"
for arm in plain aux; do
  [ -f "$R/$arm.pt" ] && cp "$R/$arm.pt" "$OUT/"
  cp "$R/$arm/log.txt" "$OUT/$arm-log.txt" 2>/dev/null
done
cp "$R/validation.txt" "$OUT/" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$R" --exclude='*.pt' --exclude=dataset --exclude=tb . 2>/dev/null
say done
