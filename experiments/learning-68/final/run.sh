#!/bin/bash
# Issue 68 item 3, the final comparison: 60 minutes from scratch on the WHOLE 2-core machine, one run after
# the other, the cpu preset of today (HEAD 4257d71) against the preset of 2026-12-01 (commit 9095ea6),
# run.seed=16; then both final networks at 100 simulations against GRhino 3 and 4 (50 paired openings,
# seed 1: 100 games each) and head to head (100 paired openings, seed 1: 200 games).
set -u
R=/work/runs/final68
PY=/work/venv/bin/python
mkdir -p $R/warm $R/old
# 1. numba caches of both snapshots compiled before either measured run (one core each, 3 minutes)
if [ ! -e $R/warm/done ]; then
  (cd /work/snap-old && PYTHONPATH=/work/snap-old taskset -c 0 $PY -m alphazero.train run.dir=$R/warm/old run.max_minutes=3 run.seed=1 run.progress=false > $R/warm/old.log 2>&1) &
  (cd /work/snap-new && PYTHONPATH=/work/snap-new taskset -c 1 $PY -m alphazero.train run.dir=$R/warm/new run.max_minutes=3 run.seed=1 run.progress=false > $R/warm/new.log 2>&1) &
  wait; touch $R/warm/done
fi
# 2. the preset of 2026-12-01, whole machine
date -u +"old start %FT%TZ" >> $R/times.txt
if [ ! -e $R/old/final.pt ]; then
  resume=false; [ -e $R/old/run/checkpoints/latest.pt ] && resume=true
  (cd /work/snap-old && PYTHONPATH=/work/snap-old $PY -m alphazero.train run.dir=$R/old/run run.resume=$resume run.max_minutes=60 run.seed=16 run.progress=false >> $R/old/train.log 2>&1) || exit 1
  (cd /work/snap-old && PYTHONPATH=/work/snap-old $PY -m alphazero.train.ship $R/old/run $R/old/final.pt --network latest) || exit 1
fi
date -u +"new start %FT%TZ" >> $R/times.txt
# 3. today's preset, whole machine, through the benchmark (trains, ships, then its evaluations on one core)
cd /work/snap-new
PYTHONPATH=/work/snap-new $PY -m alphazero.bench learning --run cpu= --minutes 60 --opponents grhino-3,grhino-4 \
   --reference $R/old/final.pt --runs-dir $R/bench > $R/bench.json 2> $R/bench.err &
# 4. the old network's evaluations on the other core once the new run has trained
while [ ! -e $R/bench/cpu/final.pt ]; do sleep 20; done
date -u +"evals start %FT%TZ" >> $R/times.txt
mkdir -p $R/old/evaluations-100sims
for L in 3 4; do
  f=$R/old/evaluations-100sims/grhino-$L
  [ -s $f.json ] || PYTHONPATH=/work/snap-new taskset -c 1 $PY -m alphazero.arena mcts:checkpoint=$R/old/final.pt,simulations=100,threads=1,name=old \
     "gtp:\"/usr/games/gtp-rhino -l $L -r 0 -b 0\"" --pairs 50 --seed 1 --games-log $f-games.jsonl --no-progress > $f.json 2> $f.err
done
wait
date -u +"all done %FT%TZ" >> $R/times.txt
