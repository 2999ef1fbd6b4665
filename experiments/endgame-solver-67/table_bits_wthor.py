"""The slowest WTHOR 2018 positions with 24 empties solved with tables of several sizes:
    PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/table_bits_wthor.py 750,150 22,24   (games, table bits)
"""
import sys, time
from alphazero.data.wthor import read_wtb
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.solver.solver import Solver
games = read_wtb("../shared/data/wthor/WTH_2018.wtb")
for index in [int(x) for x in sys.argv[1].split(",")]:
    state = GameState.start()
    for sq in games[index].squares:
        if state.must_pass(): state = state.play(PASS)
        if state.empties() == 24: break
        state = state.play(sq)
    for bits in [int(b) for b in sys.argv[2].split(",")]:
        s = Solver(bits); s.warm_up()
        t = time.process_time()
        r = s.solve(state.player, state.opponent)
        print(index, bits, r.score, f"{r.nodes:,}", round(time.process_time() - t, 2), flush=True)
