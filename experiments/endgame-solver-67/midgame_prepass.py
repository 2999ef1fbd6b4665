"""Gauge: a depth-limited midgame search of the pattern evaluation (iterative deepening, its best
moves stored in the solver's own table with bounds that say nothing) before the exact search;
FForum nodes of both against the exact search alone.

    PYTHONPATH=. python experiments/endgame-solver-67/midgame_prepass.py FILE.obf DEPTHS [WEIGHTS.npy]

DEPTHS: the pre-pass depth as `root empties - K` for each K given (e.g. 14,12,10), or 0 for none.
"""
import sys
import numpy as np
from numba import njit
from alphazero.othello.bitboard import flips, legal_moves
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount
from alphazero.solver import table as tt
from alphazero.solver.endgame import terminal_score
from alphazero.solver.patterns import pattern_eval, shipped_weights
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver


@njit(cache=True)
def mid_search(p, o, depth, alpha, beta, weights, keys, values, nodes):
    """Negamax alpha-beta of pattern_eval (1/16 disc) to `depth` plies; best moves to the table."""
    nodes[0] += 1
    if depth == 0:
        return pattern_eval(p, o, weights)
    moves = legal_moves(p, o)
    if moves == ZERO:
        if legal_moves(o, p) == ZERO:
            return terminal_score(p, o) * 16
        return -mid_search(o, p, depth, -beta, -alpha, weights, keys, values, nodes)
    index = tt.slot(keys, p, o)
    first = -1
    if tt.matches(keys, index, p, o):
        first = values[index, tt.MOVE]
    # order: the table's move, then fewest opponent replies
    squares = np.empty(32, dtype=np.int64)
    order = np.empty(32, dtype=np.int64)
    n = 0
    m = moves
    while m:
        sq = lowest_bit_index(m)
        m &= m - ONE
        f = flips(p, o, sq)
        key = popcount(legal_moves(o ^ f, p | f | (ONE << np.uint64(sq))))
        if sq == first:
            key = -1
        j = n
        while j > 0 and order[j - 1] > key:
            order[j] = order[j - 1]; squares[j] = squares[j - 1]; j -= 1
        order[j] = key; squares[j] = sq; n += 1
    best = np.int64(-(1 << 30))
    best_move = squares[0]
    for i in range(n):
        sq = squares[i]
        f = flips(p, o, sq)
        score = -mid_search(o ^ f, p | f | (ONE << np.uint64(sq)), depth - 1, -beta, -max(alpha, best), weights, keys, values, nodes)
        if score > best:
            best = score
            best_move = sq
            if best >= beta:
                break
    tt.store(keys, values, index, p, o, tt.SCORE_MIN, tt.SCORE_MAX, best_move)
    return best


def prepass(solver, p, o, depth, weights):
    nodes = np.zeros(1, dtype=np.int64)
    for d in range(2 - depth % 2, depth + 1, 2) if depth > 0 else []:
        mid_search(np.uint64(p), np.uint64(o), d, -(1 << 30), 1 << 30, weights, solver.tt_keys, solver.tt_values, nodes)
    return int(nodes[0])


if __name__ == "__main__":
    weights = shipped_weights() if len(sys.argv) < 4 else np.load(sys.argv[3])
    ks = [int(k) for k in sys.argv[2].split(",")]
    totals = {k: [0, 0] for k in ks}
    for position in read_obf(sys.argv[1]):
        p, o = position.state.player, position.state.opponent
        empties = 64 - bin(p | o).count("1")
        row = []
        for k in ks:
            solver = Solver(22)
            solver.weights = weights
            pre = prepass(solver, p, o, max(0, empties - k), weights) if k else 0
            r = solver.solve(p, o)
            assert r.score == position.best_score
            totals[k][0] += pre; totals[k][1] += r.nodes
            row.append(f"{pre:9,d}+{r.nodes:12,d}")
        print(empties, " ".join(row), flush=True)
    base = sum(totals[ks[0]])
    for k in ks:
        print(f"K={k}: pre {totals[k][0]:,} + exact {totals[k][1]:,} = {sum(totals[k]):,} ({sum(totals[k]) / base:.3f} of K={ks[0]})")
