"""Line-table ("kindergarten") flips against the bitscan flips the solver uses (issue 36).

The node census (node-census.txt) put nearly nine nodes in ten in the last four empties at about
50 ns a node, so a last-moves search twice as fast is what the open thresholds need. Edax's
line-table flips were the candidate: per line (row, column, two diagonals) the inner six opponent
bits index OUTFLANK, the mover's bits pick the outflanking squares, FLIPPED gives the line's
flipped squares, which multiplications scatter back to the board. This measures them against
`flips_inlined` (eight ray lookups and bit scans) on the moves the solver's last-moves kernels
actually try: every empty square next to an opponent disc in WTHOR 2018 positions with 4-12
empties, both sides to move. Both are checked equal on every one first.
    python experiments/endgame-solver-36/line_table_flips.py [WTH_2018.wtb]
"""
import sys, time, os
from pathlib import Path
import numpy as np
from numba import njit
from alphazero.othello.bitboard import flips_inlined
from alphazero.solver.endgame import DIAGONAL_9, DIAGONAL_7

def tables():
    outflank = np.zeros((8, 64), dtype=np.uint8)
    flipped = np.zeros((8, 256), dtype=np.uint8)
    for x in range(8):
        for inner in range(64):
            o = inner << 1
            bits = 0
            for step in (-1, 1):
                y, run = x + step, 0
                while 0 <= y < 8 and o >> y & 1:
                    y += step; run += 1
                if run and 0 <= y < 8:
                    bits |= 1 << y
            outflank[x, inner] = bits
        for out in range(256):
            f = 0
            for y in range(8):
                if out >> y & 1:
                    lo, hi = min(x, y), max(x, y)
                    for z in range(lo + 1, hi):
                        f |= 1 << z
            flipped[x, out] = f
    return outflank, flipped

OUTFLANK, FLIPPED = tables()
FILE_A = np.uint64(0x0101010101010101)
PACK = np.uint64(0x0102040810204080)
COL7 = np.uint64(0x8080808080808080)
S56 = np.uint64(56); B = np.uint64(0xFF); I6 = np.uint64(0x3F); ONE=np.uint64(1)
# check column unpack
for f in range(0, 256, 2):
    if f & 128: continue
    got = ((np.uint64(f) * PACK) & COL7) >> np.uint64(7)
    want = sum(1 << (8*i) for i in range(8) if f >> i & 1)
    assert int(got) == want, (f, hex(int(got)), hex(want))

@njit(inline="always")
def _line(x, p, o):
    return np.uint64(FLIPPED[x, OUTFLANK[x, (o >> ONE) & I6] & p])

@njit(inline="always")
def flips_kg(P, O, s):
    r = np.uint64(s >> 3); c = np.uint64(s & 7); r8 = r << np.uint64(3)
    f = _line(c, (P >> r8) & B, (O >> r8) & B) << r8
    fc = _line(r, (((P >> c) & FILE_A) * PACK) >> S56, (((O >> c) & FILE_A) * PACK) >> S56)
    f |= (((fc * PACK) & COL7) >> np.uint64(7)) << c
    d = DIAGONAL_9[s]
    f |= (_line(c, ((P & d) * FILE_A) >> S56, ((O & d) * FILE_A) >> S56) * FILE_A) & d
    d = DIAGONAL_7[s]
    f |= (_line(c, ((P & d) * FILE_A) >> S56, ((O & d) * FILE_A) >> S56) * FILE_A) & d
    return f

@njit
def run_kg(ps, os, sq, reps):
    acc = np.uint64(0)
    for _ in range(reps):
        for i in range(ps.shape[0]):
            acc ^= flips_kg(ps[i], os[i], sq[i])
    return acc

@njit
def run_bs(ps, os, sq, reps):
    acc = np.uint64(0)
    for _ in range(reps):
        for i in range(ps.shape[0]):
            acc ^= flips_inlined(ps[i], os[i], sq[i])
    return acc

@njit
def check(ps, os, sq):
    bad = 0
    for i in range(ps.shape[0]):
        if flips_kg(ps[i], os[i], sq[i]) != flips_inlined(ps[i], os[i], sq[i]):
            bad += 1
    return bad

WTB = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[3] / 'shared/data/wthor/WTH_2018.wtb')
from alphazero.bench.endgame import wthor_positions
from alphazero.solver.endgame import NEIGHBOURS
P, Q, S = [], [], []
for e in (4, 6, 8, 10, 12):
    for pos in wthor_positions(WTB, e, 2000):
        pl, op = int(pos.state.player), int(pos.state.opponent)
        for side in range(2):
            empty = ~(pl | op) & (2**64 - 1)
            for sq in range(64):
                if empty >> sq & 1 and int(NEIGHBOURS[sq]) & op:  # the solver's pre-test passed
                    P.append(pl); Q.append(op); S.append(sq)
            pl, op = op, pl
ps, os_, sq = np.array(P, np.uint64), np.array(Q, np.uint64), np.array(S, np.int64)
print("positions", len(ps), "mismatches", check(ps, os_, sq))
for f in (run_kg, run_bs): f(ps[:10], os_[:10], sq[:10], 1)
ratios = []
for _ in range(5):
    row = {}
    for name, f in (("line_table", run_kg), ("bitscan", run_bs)):
        t = time.perf_counter(); f(ps, os_, sq, 20); dt = time.perf_counter() - t
        row[name] = dt / (20 * len(ps)) * 1e9
    ratios.append(row["line_table"] / row["bitscan"])
    print("line-table %.2f ns/flip, bitscan %.2f ns/flip, ratio %.2f" % (row["line_table"], row["bitscan"], ratios[-1]))
print("median ratio line-table/bitscan %.2f; load average %s" % (sorted(ratios)[2], os.getloadavg()))
