#!/bin/bash
# Issue 18 on the lent GPU, one command: the warm-start zoo (8 runs), the medium warm start from
# scratch and the small warm start continued from checkpoints/warmstart.pt, all at once on one GPU.
# Results come back as at most 8 files under $OUT (tars and weights-only networks).
# DRY=1 runs the same steps with tiny budgets on CPU (to check the script, not to measure).
set -u
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }
say() { echo "[gpu.sh +$(elapsed)s] $*"; }
if [ "${DRY:-0}" != 1 ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site:$PWD
  DEVICE=cuda
  ZOO="--minutes 7.9"
  MED="pretrain.batch_size=4096 pretrain.lr=0.003 pretrain.lr_warmup_steps=300 pretrain.lr_total_steps=8000 run.max_steps=8000 run.max_minutes=7.1 pretrain.epochs=5 pretrain.eval_every_steps=2000"
  SMALL="pretrain.batch_size=4096 pretrain.lr=0.002 pretrain.lr_warmup_steps=200 pretrain.lr_total_steps=7000 run.max_steps=7000 run.max_minutes=6.9 pretrain.epochs=5 pretrain.eval_every_steps=1750"
  HARD=440   # seconds after the launch at which the two warm-start runs get SIGTERM (they save)
  ZOO_HARD=500
else
  export PYTHONPATH=$PWD
  DEVICE=cpu
  ZOO="--minutes 2.5 --samples 4096 --batch-size 512 --models small seed_mlp --skip-bench"
  MED="pretrain.batch_size=256 pretrain.lr=0.003 pretrain.lr_warmup_steps=2 pretrain.lr_total_steps=12 run.max_steps=12 run.max_minutes=1 pretrain.epochs=1 pretrain.eval_every_steps=6 pretrain.validation_positions=2000"
  SMALL="pretrain.batch_size=256 pretrain.lr=0.002 pretrain.lr_warmup_steps=2 pretrain.lr_total_steps=12 run.max_steps=12 run.max_minutes=1 pretrain.epochs=1 pretrain.eval_every_steps=6 pretrain.validation_positions=2000"
  HARD=120
  ZOO_HARD=170
fi
export PYTHONUNBUFFERED=1
W=$PWD/.device/wthor
R=${RUNS:-/tmp/r18}
rm -rf "$R" && mkdir -p "$R" "$OUT"
git log -1 --format='%H %s' > "$R/commit.txt" 2>/dev/null
(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; python3 -c 'import torch; print(torch.__version__, torch.cuda.is_available())') > "$R/machine.txt" 2>&1
(nvidia-smi dmon -s u -d 5 > "$R/dmon.txt" 2>&1 &)

say "datasets and numba caches"
python3 - "$R" "$W" > "$R/prep.log" 2>&1 <<'EOF'
import sys
from alphazero.pretrain.zoo import build_datasets, parse_args, warm_numba_caches
print(build_datasets(parse_args(["--out", sys.argv[1] + "/zoo", "--wthor-dir", sys.argv[2]])))
warm_numba_caches()
EOF
cat "$R/prep.log"

say "launch: zoo, medium, small"
COMMON="pretrain.device=$DEVICE pretrain.wthor_dir=$W pretrain.lr_min_factor=0.02 pretrain.checkpoint_every_steps=1000 pretrain.progress=false pretrain.threads=2 pretrain.log_every_steps=100"
timeout -s TERM $ZOO_HARD python3 -m alphazero.pretrain.zoo --out "$R/zoo" --wthor-dir "$W" --device $DEVICE $ZOO > "$R/zoo.log" 2>&1 &
ZOO_PID=$!
echo "python3 -m alphazero.pretrain run.dir=RUN model=medium $COMMON $MED" > "$R/medium.command"
timeout -s TERM $HARD python3 -m alphazero.pretrain run.dir="$R/medium" model=medium $COMMON $MED > "$R/medium.out" 2>&1 &
MED_PID=$!
echo "python3 -m alphazero.pretrain run.dir=RUN run.seed=2 model=small pretrain.init_from=checkpoints/warmstart.pt $COMMON $SMALL" > "$R/small.command"
timeout -s TERM $HARD python3 -m alphazero.pretrain run.dir="$R/small" run.seed=2 model=small pretrain.init_from=checkpoints/warmstart.pt $COMMON $SMALL > "$R/small.out" 2>&1 &
SMALL_PID=$!
wait $MED_PID; say "medium exited $?"; tail -3 "$R/medium/log.txt"
wait $SMALL_PID; say "small exited $?"; tail -3 "$R/small/log.txt"
wait $ZOO_PID; say "zoo exited $?"; tail -25 "$R/zoo.log"

say "export weights-only networks"
python3 - "$R" > "$R/export.log" 2>&1 <<'EOF'
import sys
from pathlib import Path
from alphazero.nn.checkpoint import load_checkpoint, load_network, save_checkpoint

root = Path(sys.argv[1])
def export(latest, target):
    if target.exists() or not latest.exists():
        return
    checkpoint = load_checkpoint(latest)
    extra = {k: v for k, v in checkpoint.extra.items() if k != "rng"}
    target.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(target, load_network(latest), extra=extra)
    print("exported", latest, "->", target, extra.get("state", {}).get("step"), extra.get("state", {}).get("validation", {}).get("top1"))
export(root / "medium/checkpoints/latest.pt", root / "out/warmstart-medium.pt")
export(root / "small/checkpoints/latest.pt", root / "out/warmstart-small.pt")
for latest in sorted((root / "zoo/runs").glob("*/*/checkpoints/latest.pt")):  # runs the zoo did not export
    export(latest, root / "zoo" / latest.parts[-4] / f"{latest.parts[-3]}.pt")
EOF
cat "$R/export.log"

say "pack"
cp "$R"/out/*.pt "$OUT"/ 2>/dev/null
(cd "$R" && tar czf "$OUT/zoo-year.tgz" zoo/year 2>/dev/null)
(cd "$R" && tar czf "$OUT/zoo-random5.tgz" zoo/random5 2>/dev/null)
(cd "$R" && tar czf "$OUT/logs.tgz" --exclude='*.pt' --exclude='out' .)
ls -la "$OUT"
say "done"
