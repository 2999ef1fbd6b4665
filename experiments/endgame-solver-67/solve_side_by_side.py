"""Solve board texts with several switch sets, each with a fresh 2^22 table, printing nodes and
CPU seconds (issue 67); the last argument, if a number, is a node limit (None: not solved).

    PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/solve_side_by_side.py default,default-wipeout \
        "------------------XXX-----XXXX-O--XXXXO---XOOOXX-XOXOXXX-OOOOOO- X" 400000000
"""
import sys, time
from alphazero.othello.notation import parse_board_text
from alphazero.solver.solver import Solver, SearchOptions
specs = sys.argv[1].split(",")
limit = int(sys.argv[-1]) if sys.argv[-1].isdigit() else 0
for spec in specs:
    Solver(22, SearchOptions.parse(spec)).warm_up()
for text in [a for a in sys.argv[2:] if not a.isdigit()]:
    s = parse_board_text(text)
    for spec in specs:
        solver = Solver(22, SearchOptions.parse(spec))
        cpu = time.process_time()
        sol = solver.solve(s.player, s.opponent, node_limit=limit)
        print(spec, text, sol, "cpu_s", round(time.process_time() - cpu, 3), flush=True)
