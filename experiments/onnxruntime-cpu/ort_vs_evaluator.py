import time, sys, numpy as np, torch, onnxruntime as ort
torch.set_num_threads(1)
from alphazero.nn.checkpoint import load_network
from alphazero.nn.inference import NetworkEvaluator
from alphazero.othello.playout import random_positions
from alphazero.nn.encoding import encode_positions_and_mask
name, onnx = sys.argv[1], sys.argv[2]
net = load_network(name).eval()
so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
sess = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
outs = [o.name for o in sess.get_outputs()]
ev = {p: NetworkEvaluator(net, "cpu", precision=p) for p in ("fp32", "bf16")}
def best(f, n=15):
    f(); ts=[]
    for _ in range(n):
        t=time.process_time(); f(); ts.append(time.process_time()-t)
    return min(ts)
for batch in (1, 4, 32, 64, 256):
    pos = random_positions(batch, seed=0)
    def ortcall():
        planes, mask = encode_positions_and_mask(pos)
        return sess.run(outs, {"planes": np.asarray(planes, dtype=np.float32)})
    r = {p: batch / best(lambda: ev[p](pos)) for p in ev}
    r["ort"] = batch / best(ortcall)
    print(f"batch {batch}: " + ", ".join(f"{k} {v:.0f}" for k, v in r.items()), f"ort/best torch {r['ort']/max(r['fp32'], r['bf16']):.2f} ort/fp32 {r['ort']/r['fp32']:.2f}")
