#!/bin/bash
# Issue 15's outstanding figure: self-play on the gpu preset (run on the warm machine after gpu.sh).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
(nvidia-smi dmon -s u -d 2 > $OUT/dmon-selfplay.txt 2>&1 &)
timeout ${SP_TIMEOUT:-150} python3 -m alphazero.bench selfplay --preset gpu --device cuda --seconds ${SP_SECONDS:-60} --warmup 20 > $OUT/bench-selfplay.json 2> $OUT/bench-selfplay.err
echo rc=$?; cat $OUT/bench-selfplay.json; tail -5 $OUT/bench-selfplay.err
