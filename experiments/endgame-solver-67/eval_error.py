"""How far the shipped pattern evaluation is from exact scores: WTHOR 2018 positions at N empties,
each solved exactly, against pattern_eval // 16 (side to move's view)."""
import sys
import numpy as np
from alphazero.bench.endgame import wthor_positions
from alphazero.solver.patterns import pattern_eval, shipped_weights
from alphazero.solver.solver import Solver

w = shipped_weights()
for n in [int(x) for x in sys.argv[2].split(",")]:
    positions = wthor_positions(sys.argv[1], n, int(sys.argv[3]))
    solver = Solver(20)
    errors, signs = [], []
    for position in positions:
        p, o = np.uint64(position.state.player), np.uint64(position.state.opponent)
        exact = solver.solve(p, o).score
        value = int(pattern_eval(p, o, w)) / 16
        errors.append(abs(value - exact))
        signs.append((value > 0) == (exact > 0) if exact != 0 else True)
    print(f"{n} empties: {len(errors)} positions, mean |eval - exact| {np.mean(errors):.1f} discs, "
          f"median {np.median(errors):.1f}, sign right {np.mean(signs):.2f}", flush=True)
