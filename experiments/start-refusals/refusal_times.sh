#!/bin/bash
# Seconds a refused command line takes, two source trees taking turns (one core, nothing else
# running): bash refusal_times.sh OLD_TREE NEW_TREE [ROUNDS]. Each tree runs as PYTHONPATH in the
# current environment. Prints one line per run, then each tree's mean, min and max per command.
old=$1 new=$2 rounds=${3:-5}
for round in $(seq "$rounds"); do
  for tree in "$old" "$new"; do
    for cmd in "alphazero.train experiment=smoke run.dir=/tmp/never-made train.lr=-1" \
               "alphazero.pretrain run.dir=/tmp/never-made pretrain.lr=-1"; do
      start=$(date +%s.%N)
      PYTHONPATH=$tree taskset -c 1 python -m $cmd 2> /dev/null
      end=$(date +%s.%N)
      echo "$round $tree ${cmd%% *} $(python3 -c "print(round($end - $start, 2))")"
    done
  done
done | tee /dev/stderr | awk '{k = $2 " " $3; s[k] += $4; n[k]++; if (!(k in lo) || $4 < lo[k]) lo[k] = $4; if ($4 > hi[k]) hi[k] = $4}
  END {for (k in s) printf "%s mean %.2f min %.2f max %.2f\n", k, s[k] / n[k], lo[k], hi[k]}'
