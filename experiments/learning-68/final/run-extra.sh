#!/bin/bash
# The final comparison's other opponents (alphabeta-2, GRhino 1 and 2), after the targets' matches: one core each arm.
R=/work/runs/final68; PY=/work/venv/bin/python
(cd /work/snap-new && PYTHONPATH=/work/snap-new taskset -c 0 $PY -m alphazero.bench learning --run cpu= --minutes 60 \
   --reference $R/old/final.pt --runs-dir $R/bench > $R/bench-all.json 2> $R/bench-all.err) &
for opp in alphabeta-2 grhino-1 grhino-2; do
  f=$R/old/evaluations-100sims/$opp
  case $opp in alphabeta-2) spec="alphabeta:depth=2";; grhino-*) spec="gtp:\"/usr/games/gtp-rhino -l ${opp#grhino-} -r 0 -b 0\"";; esac
  [ -s $f.json ] || PYTHONPATH=/work/snap-new taskset -c 1 $PY -m alphazero.arena mcts:checkpoint=$R/old/final.pt,simulations=100,threads=1,name=old \
     "$spec" --pairs 50 --seed 1 --games-log $f-games.jsonl --no-progress > $f.json 2> $f.err
done
wait
