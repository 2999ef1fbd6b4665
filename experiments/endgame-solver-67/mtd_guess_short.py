"""MTD(f) from a first guess M discs short of the pattern evaluation (never past it; 0 within M of 0) against
from 0, each on a fresh 2^22 table: every 50th WTHOR game at 24 empties (20 positions), or an OBF file.
    PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/mtd_guess_short.py ../shared/data/wthor/WTH_2018.wtb 8,16
    PYTHONPATH=. taskset -c 0 python experiments/endgame-solver-67/mtd_guess_short.py ../shared/data/ffo/fforum-20-39.obf 8,16
"""
import sys
import numpy as np
sys.path.insert(0, "experiments/endgame-solver-67")
from alphazero.data.wthor import read_wtb
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.solver.obf import read_obf
from alphazero.solver.patterns import pattern_eval
from alphazero.solver.solver import SearchOptions, Solver

def mtd(p, o, guess):
    solver = Solver(22)
    while True:
        score, move = solver._search(np.uint64(p), np.uint64(o), int(guess) - 1, int(guess) + 1, 0)
        if score == guess or move < 0:
            return score, int(solver.nodes[0])
        guess = score

def conservative(static, margin):
    v = static / 16
    m = max(0.0, abs(v) - margin)
    g = 2 * int(m // 2)
    return g if v > 0 else -g

weights = SearchOptions().weights()
if sys.argv[1].endswith(".wtb"):
    games = read_wtb(sys.argv[1])
    states = []
    for game in games[::50][:20]:
        state = GameState.start()
        for sq in game.squares:
            if state.must_pass(): state = state.play(PASS)
            if state.empties() == 24: break
            state = state.play(sq)
        if state.empties() == 24 and not state.is_over(): states.append(state)
else:
    states = [p.state for p in read_obf(sys.argv[1])]
margins = [float(m) for m in sys.argv[2].split(",")]
tot = {m: 0 for m in ["zero"] + margins}
for state in states:
    p, o = state.player, state.opponent
    static = int(pattern_eval(np.uint64(p), np.uint64(o), weights))
    exact, n0 = mtd(p, o, 0)
    tot["zero"] += n0
    row = [f"{exact:+d} eval {static/16:+.1f} zero {n0:,}"]
    for m in margins:
        g = conservative(static, m)
        if g == 0:
            n = n0
        else:
            s, n = mtd(p, o, g)
            assert s == exact
        tot[m] += n
        row.append(f"m{m:g} g{g:+d} {n / n0:.3f}")
    print("; ".join(row), flush=True)
print("totals:", {k: f"{v:,} ({v / tot['zero']:.3f})" for k, v in tot.items()})
