#!/bin/bash
# Issue 35 item 2 on a CPU: what KataGo's auxiliary targets (score 0.1, ownership 0.5) do to a
# WTHOR warm start's accuracy and value error, measured on the `small` network (4x48) because the
# medium one trains about 10x slower on a CPU (its own measure is prepared for a GPU:
# experiments/gpu-next/aux_pretrain.sh). Two pretraining runs from scratch, the same schedule,
# seed, batches and validation positions, one without the heads (plain) and one with both (aux),
# side by side, each pinned to one core, each stopped at the same step count (time does not enter
# the comparison: a core shared unevenly slows an arm, it does not change what it learns).
#
#   bash experiments/aux-pretrain-small-cpu/run.sh [STEPS] [OUTDIR] [SEED]   # default 4000, /work/runs/aux-pretrain-small, 0
#   MODEL=medium PRECISION=bf16 bash experiments/aux-pretrain-small-cpu/run.sh 3200 /work/runs/aux-pretrain-medium 0
#
# MODEL (default small) and PRECISION (default fp32) choose the network preset and the training
# precision of both arms; the medium comparison of 2026-11-29 (experiments/aux-pretrain-medium-cpu/)
# ran with MODEL=medium PRECISION=bf16 on an avx512_bf16 CPU, where bf16 trains it 1.6x faster.
#
# Writes OUTDIR/{plain,aux}/ (the runs), OUTDIR/{plain,aux}.command, OUTDIR/validation.txt (the
# validation lines side by side). Then, for the whole of 2018:
#   python -m alphazero.bench accuracy --checkpoint OUTDIR/plain/checkpoints/latest.pt --years 2018 \
#       --value-target outcome --precision fp32      # and the same for OUTDIR/aux
set -u
STEPS=${1:-4000}
R=${2:-/work/runs/aux-pretrain-small}
W=${WTHOR:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/data/wthor}
SEED=${3:-0}
MODEL=${MODEL:-small}
PRECISION=${PRECISION:-fp32}
EVERY=$(( STEPS / 5 ))
mkdir -p "$R"
git log -1 --format='%H %s' > "$R/commit.txt"
(lscpu | grep -E 'Model name|Flags'; nproc; cat /proc/loadavg) > "$R/machine.txt"

COMMON="model=$MODEL run.seed=$SEED pretrain.wthor_dir=$W pretrain.batch_size=512 pretrain.lr=0.002 \
pretrain.lr_warmup_steps=200 pretrain.lr_total_steps=$STEPS run.max_steps=$STEPS pretrain.epochs=5 \
pretrain.eval_every_steps=$EVERY pretrain.checkpoint_every_steps=$EVERY pretrain.threads=1 pretrain.precision=$PRECISION \
pretrain.progress=false pretrain.log_every_steps=200"
HEADS="model.score_head=true model.ownership_head=true pretrain.score_weight=0.1 pretrain.ownership_weight=0.5"
echo "python -m alphazero.pretrain run.dir=RUN $COMMON" > "$R/plain.command"
echo "python -m alphazero.pretrain run.dir=RUN $COMMON $HEADS" > "$R/aux.command"

# The dataset is built once (the default cache directory), before the two runs read it.
python -c "
from alphazero.data.dataset import ensure_dataset
from alphazero.pretrain.config import PretrainConfig
s = PretrainConfig(wthor_dir='$W')
d = ensure_dataset(s.resolved_wthor_dir(), s.resolved_dataset_dir(), s.dataset_options(), progress=False)
print(len(d.train), 'training rows', len(d.validation), 'validation rows')
" || exit 4

RESUME=""
[ -f "$R/plain/checkpoints/latest.pt" ] && RESUME="run.resume=true"
taskset -c 0 python -m alphazero.pretrain run.dir="$R/plain" $COMMON $RESUME > "$R/plain.out" 2>&1 &
PLAIN=$!
RESUME=""
[ -f "$R/aux/checkpoints/latest.pt" ] && RESUME="run.resume=true"
taskset -c 1 python -m alphazero.pretrain run.dir="$R/aux" $COMMON $HEADS $RESUME > "$R/aux.out" 2>&1 &
AUX=$!
wait $PLAIN; echo "plain exited $?"
wait $AUX; echo "aux exited $?"
for arm in plain aux; do
  echo "== $arm"
  grep -h "validation at" "$R/$arm/log.txt"
done | tee "$R/validation.txt"
