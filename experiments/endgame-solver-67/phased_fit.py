"""A pattern evaluation with one weight set per phase (a range of empties), each fitted from the
shipped all-phase weights with a pull back towards them, to game outcomes and/or exact labels;
its error against exact scores of held-out WTHOR 2018 positions, by empties.

    PYTHONPATH=. taskset -c 1 python experiments/endgame-solver-67/phased_fit.py EDGES EPOCHS RATE PULL OUT.npy [LABELDIR] [LABEL_WEIGHT]

EDGES: the first empties count of each phase after the first, e.g. 12,14,16,18,20,23,26.

Run with phased-weights-prototype.patch applied (the kernels read int32[phases, N_WEIGHTS]).
"""
import glob, os, sys, time
import numpy as np
from numba import njit
from alphazero.othello.symmetry import NUM_SYMMETRIES, transform_bitboard
from alphazero.pretrain.patterns import positions_with_margins, predict
from alphazero.solver import patterns
from alphazero.bench.endgame import wthor_positions
from alphazero.solver.solver import Solver


@njit(cache=True)
def sgd_epoch(positions, targets, sample_weight, order, weights, prior, counts, rate, pull):
    indices = np.empty(patterns.N_INSTANCES, dtype=np.int64)
    total = 0.0
    for i in order:
        for symmetry in range(NUM_SYMMETRIES):
            player = transform_bitboard(positions[i, 0], symmetry)
            opponent = transform_bitboard(positions[i, 1], symmetry)
            patterns.pattern_indices(player, opponent, indices)
            prediction = 0.0
            for index in indices:
                prediction += weights[index]
            error = targets[i] - prediction
            total += error * error
            for index in indices:
                counts[index] += sample_weight[i]
                weights[index] += sample_weight[i] * rate / np.sqrt(counts[index]) * (error - pull * (weights[index] - prior[index]))
    return total / max(1, order.shape[0] * NUM_SYMMETRIES)


def empties_of(positions):
    occupied = positions[:, 0] | positions[:, 1]
    return 64 - np.array([int(x).bit_count() for x in occupied])


def held_out(lo=10, hi=22, per=80, path="/work/runs/held.npz"):
    if os.path.exists(path):
        d = np.load(path)
        return d["positions"], d["labels"], d["empties"]
    solver = Solver(22)
    ps, ls, es = [], [], []
    for n in range(lo, hi + 1):
        for position in wthor_positions("../shared/data/wthor/WTH_2018.wtb", n, per):
            p, o = int(position.state.player), int(position.state.opponent)
            ps.append((p, o)); ls.append(solver.solve(p, o).score); es.append(n)
        print("held out solved at", n, flush=True)
    np.savez(path, positions=np.array(ps, dtype=np.uint64), labels=np.array(ls), empties=np.array(es))
    return held_out(lo, hi, per, path)


def main():
    edges = [int(x) for x in sys.argv[1].split(",")]
    epochs, rate, pull, out = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    labeldir = sys.argv[6] if len(sys.argv) > 6 else ""
    label_weight = float(sys.argv[7]) if len(sys.argv) > 7 else 1.0
    cache = "/work/runs/outcomes-10-30.npz"
    if not os.path.exists(cache):
        positions, margins, years = positions_with_margins("../shared/data/wthor", 10, 30)
        keep = years != 2018
        np.savez(cache, positions=positions[keep], margins=margins[keep])
    d = np.load(cache)
    positions, targets = d["positions"], d["margins"].astype(np.float64)
    sample_weight = np.ones(len(targets))
    if labeldir:
        files = sorted(glob.glob(os.path.join(labeldir, "chunk-*[0-9].npz")))
        lp = np.concatenate([np.load(f)["positions"] for f in files])
        ll = np.concatenate([np.load(f)["labels"] for f in files]).astype(np.float64)
        print(f"{len(ll):,} exact labels from {len(files)} chunks")
        if label_weight > 0:
            positions = np.concatenate([positions, lp]); targets = np.concatenate([targets, ll])
            sample_weight = np.concatenate([sample_weight, np.full(len(ll), label_weight)])
        else:  # exact labels only
            positions, targets, sample_weight = lp, ll, np.ones(len(ll))
    empties = empties_of(positions)
    phase = np.searchsorted(edges, empties, side="right")
    n_phases = len(edges) + 1
    hp, hl, he = held_out()
    shipped = np.asarray(patterns.shipped_weights())[0].astype(np.float64) / patterns.WEIGHT_SCALE
    hphase = np.searchsorted(edges, he, side="right")
    before = np.abs(predict(hp, shipped) - hl)
    result = np.empty((n_phases, patterns.N_WEIGHTS), dtype=np.int32)
    after = np.empty(len(hl))
    rng = np.random.default_rng(0)
    fit_empties = os.environ.get("FIT_EMPTIES")  # "LO-HI": other phases keep the shipped weights
    lo_fit, hi_fit = (int(x) for x in fit_empties.split("-")) if fit_empties else (0, 64)
    for k in range(n_phases):
        mine = np.flatnonzero((phase == k) & (empties >= lo_fit) & (empties <= hi_fit))
        weights = shipped.copy()
        counts = np.zeros(patterns.N_WEIGHTS)
        start = time.time()
        for e in range(epochs):
            order = mine[rng.permutation(len(mine))].astype(np.int64)
            mse = sgd_epoch(positions, targets, sample_weight, order, weights, shipped, counts, rate, pull)
        result[k] = np.clip(np.rint(weights * patterns.WEIGHT_SCALE), -(1 << 20), 1 << 20)
        sel = hphase == k
        after[sel] = np.abs(predict(hp[sel], result[k] / patterns.WEIGHT_SCALE) - hl[sel])
        print(f"phase {k} ({len(mine):,} positions, {time.time() - start:.0f} s): train mse {mse:.1f}; held out "
              f"{sel.sum()} positions: {before[sel].mean():.2f} -> {after[sel].mean():.2f} discs", flush=True)
    for n in sorted(set(he)):
        sel = he == n
        print(f"  {n} empties: {before[sel].mean():.2f} -> {after[sel].mean():.2f}")
    print(f"all held out: {before.mean():.2f} -> {after.mean():.2f} discs")
    np.save(out, result)
    np.save(out.replace(".npy", "-edges.npy"), np.array(edges))


main()
