"""Win/loss/draw solves of WTHOR positions under several solver option sets taking turns position by position.

Usage: [BITS=18] python wld_sweep.py FILE.wtb COUNT EMPTIES[,EMPTIES...] "name:field=value;field=value" ...
(an empty field list is the default options; BITS is the table size, 2^20 by default). Prints each
set's total nodes and seconds against the first set's; stops if two sets disagree on an outcome.
"""
import os
import sys
from alphazero.solver.solver import Solver, SearchOptions
from alphazero.bench.endgame import wthor_positions

wtb = sys.argv[1]; count = int(sys.argv[2]); empties = [int(x) for x in sys.argv[3].split(",")]
variants = {}
for spec in sys.argv[4:]:
    name, _, kv = spec.partition(":")
    kw = {}
    for item in filter(None, kv.split(";")):
        k, v = item.split("=")
        kw[k] = (v == "1") if k in ("fast_last_moves", "weighted_sort", "root_mtd") else int(v)
    variants[name] = SearchOptions(**kw)
positions = [p.state for e in empties for p in wthor_positions(wtb, e, count)]
solvers = {n: Solver(int(os.environ.get("BITS", "20")), o) for n, o in variants.items()}
for s in solvers.values(): s.warm_up()
tot = {n: [0, 0.0] for n in variants}
names = list(variants)
outs = {}
for i, st in enumerate(positions):
    order = names[i % len(names):] + names[:i % len(names)]
    for n in order:
        sol = solvers[n].solve(st.player, st.opponent, wld=True)
        tot[n][0] += sol.nodes; tot[n][1] += sol.seconds
        outs.setdefault(i, set()).add(sol.outcome)
assert all(len(v) == 1 for v in outs.values()), "outcome mismatch"
base = tot[names[0]]
for n in names:
    print(f"{n:14s} nodes {tot[n][0]:>10d} x{tot[n][0]/base[0]:.3f}  sec {tot[n][1]:.3f} x{tot[n][1]/base[1]:.3f}", flush=True)
