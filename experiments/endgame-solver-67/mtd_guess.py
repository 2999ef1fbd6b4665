"""MTD(f) nodes on FForum #20-#39 from several first guesses: 0, the exact score (oracle), and a
d-ply negamax of the pattern evaluation rounded to even."""
import sys
import numpy as np
from alphazero.othello.bitboard import legal_moves, flips
from alphazero.solver.obf import read_obf
from alphazero.solver.patterns import pattern_eval
from alphazero.solver.solver import Solver, SearchOptions

ONE = np.uint64(1)


def negamax(p, o, depth, alpha, beta, w, count):
    count[0] += 1
    moves = int(legal_moves(p, o))
    if depth == 0 or (moves == 0 and int(legal_moves(o, p)) == 0):
        if moves == 0 and int(legal_moves(o, p)) == 0:
            d = bin(int(p)).count("1") - bin(int(o)).count("1")
            return 16 * d
        return int(pattern_eval(p, o, w))
    if moves == 0:
        return -negamax(o, p, depth, -beta, -alpha, w, count)
    best = -10**9
    while moves:
        sq = (moves & -moves).bit_length() - 1
        moves &= moves - 1
        f = flips(p, o, sq)
        v = -negamax(o ^ f, p | f | (ONE << np.uint64(sq)), depth - 1, -beta, -alpha, w, count)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


def mtd(solver, p, o, guess):
    while True:
        score, move = solver._search(p, o, guess - 1, guess + 1, 0)
        if score == guess or move < 0:
            return score
        guess = score


def even(v):
    g = 2 * round(v / 32)
    return max(-64, min(64, g))


w = SearchOptions().weights()
positions = read_obf(sys.argv[1])
depths = [int(d) for d in sys.argv[2].split(",")]
totals = {}
for position in positions:
    p, o = np.uint64(position.state.player), np.uint64(position.state.opponent)
    exact = None
    row = []
    guesses = {"zero": 0}
    for d in depths:
        c = [0]
        guesses[f"d{d}"] = even(negamax(p, o, d, -10**9, 10**9, w, c))
    for name, g in list(guesses.items()) + [("oracle", None)]:
        solver = Solver(22)
        if name == "oracle":
            g = exact
        solver.nodes[0] = 0
        s = mtd(solver, p, o, g)
        exact = s if exact is None else exact
        assert s == exact
        totals[name] = totals.get(name, 0) + int(solver.nodes[0])
        row.append(f"{name} g={g:+d} {int(solver.nodes[0]):,}")
    print(f"score {exact:+d}: " + " | ".join(row), flush=True)
print({k: f"{v:,}" for k, v in totals.items()})
