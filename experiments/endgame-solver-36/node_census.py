"""Where the nodes of win/loss/draw solves go, by empties (issue 36's open thresholds).

Needs the counting patch: `git apply experiments/endgame-solver-36/node_census.patch` in a scratch
clone (it widens the solver's node counter to 80 entries and counts the deep search, the 5-7-empty
shallow search, the 4- and 3-empty kernels by empties), then, with that clone first on the path:
    PYTHONPATH=CLONE python experiments/endgame-solver-36/node_census.py 18 60
(EMPTIES COUNT: the first COUNT WTH_2018 positions with that many empties). The rest of the total
is the 2- and 1-empty kernels and the ordering search's nodes.
"""
import sys, time
from pathlib import Path
from alphazero.solver.solver import Solver, SearchOptions
from alphazero.bench.endgame import wthor_positions
e=int(sys.argv[1]); n=int(sys.argv[2])
s=Solver(18, SearchOptions()); s.warm_up()
tot=[0]*80; secs=0
for p in wthor_positions(str(Path(__file__).resolve().parents[3] / 'shared/data/wthor/WTH_2018.wtb'), e, n):
    st=p.state; s.nodes[:]=0
    t=time.perf_counter(); s.solve(st.player, st.opponent, wld=True); secs+=time.perf_counter()-t
    for k in range(80): tot[k]+=int(s.nodes[k])
print(e, "nodes", tot[0], "sec %.3f"%secs)
for k in range(3, 20):
    if tot[10+k]: print(f"  {k:2d} empties: {tot[10+k]:>9d}  {tot[10+k]/tot[0]:.3f}")
