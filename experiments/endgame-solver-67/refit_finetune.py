"""Fine-tune the shipped pattern weights to exact solver labels, then count FForum #20-#39 nodes."""
import sys, time
import numpy as np
from alphazero.pretrain.patterns import _sgd_epoch, predict
from alphazero.solver import patterns
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import Solver
from alphazero.bench.endgame import wthor_positions

data = [np.load(f) for f in sys.argv[1].split(",")]
positions = np.concatenate([d["positions"] for d in data]); labels = np.concatenate([d["labels"] for d in data]).astype(np.float64)
rate, epochs, counts0 = float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
shipped = patterns.shipped_weights()

# held out: WTHOR 2018 at 14, 16, 18 empties, solved
held = []
for n in (14, 16, 18, 20):
    held += wthor_positions("../shared/data/wthor/WTH_2018.wtb", n, 100)
hp = np.array([[p.state.player, p.state.opponent] for p in held], dtype=np.uint64)
solver = Solver(20)
hl = np.array([solver.solve(int(a), int(b)).score for a, b in hp], dtype=np.float64)

def mae(w):
    return float(np.abs(predict(hp, w) - hl).mean())

weights = shipped.astype(np.float64) / patterns.WEIGHT_SCALE
counts = np.full(patterns.N_WEIGHTS, counts0)
print(f"shipped: held-out MAE {mae(weights):.2f}, train MAE {np.abs(predict(positions, weights) - labels).mean():.2f}")
rng = np.random.default_rng(0)
for e in range(epochs):
    order = rng.permutation(len(labels)).astype(np.int64)
    _sgd_epoch(positions, labels, order, weights, counts, rate, 0.0005)
    print(f"epoch {e + 1}: held-out MAE {mae(weights):.2f}, train MAE {np.abs(predict(positions, weights) - labels).mean():.2f}", flush=True)
new = np.round(weights * patterns.WEIGHT_SCALE).astype(np.int32)
np.save(sys.argv[5], new)

def nodes(w):
    total = 0
    for path in ("../shared/data/ffo/fforum-1-19.obf", "../shared/data/ffo/fforum-20-39.obf"):
        for position in read_obf(path):
            s = Solver(22); s.weights = w
            r = s.solve(position.state.player, position.state.opponent)
            assert r.score == position.best_score, (r.score, position.best_score)
            total += r.nodes
    return total

base = nodes(shipped)
new_nodes = nodes(new)
print(f"FForum #1-#39 nodes: shipped {base:,}, refit {new_nodes:,} ({new_nodes / base:.3f})")
