"""Per-call time of the network at each batch: the eager model, MkldnnForward with plain weights
(before 4f0a24b: oneDNN reorders them at every call) and with prepacked weights (now).
One torch thread, the thread's CPU time, 15 rounds taking turns.

    taskset -c 1 python experiments/prepacked-onednn/kernels_by_batch.py small|medium fp32|bf16
"""
import sys, time, torch
torch.set_num_threads(1)
from alphazero.nn.config import model_preset
from alphazero.nn.model import AlphaZeroNet, fuse_for_inference
from alphazero.nn import cpu_inference

preset, precision = sys.argv[1], sys.argv[2]
dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[precision]
net = AlphaZeroNet(model_preset(preset)).eval()
model = fuse_for_inference(net).to(dtype=dtype, memory_format=torch.channels_last)
packed = cpu_inference.MkldnnForward(model)
prepacked = cpu_inference._prepacked
cpu_inference._prepacked = lambda weight, padding: weight
plain = cpu_inference.MkldnnForward(model)
cpu_inference._prepacked = prepacked
assert packed.stem.weight.is_mkldnn and not plain.stem.weight.is_mkldnn
for batch in [1, 2, 4, 8, 16, 32, 64, 128]:
    x = torch.randn(batch, model.cfg.input_planes, 8, 8).to(dtype).contiguous(memory_format=torch.channels_last)
    with torch.inference_mode():
        diff = (model(x)[0].float() - packed(x)[0].float()).abs().max().item()
        t = {"eager": 0.0, "plain": 0.0, "packed": 0.0}
        n = max(5, 200 // batch)
        for r in range(15):
            for name, f in (("eager", model), ("plain", plain), ("packed", packed)):
                s = time.thread_time()
                for _ in range(n):
                    f(x)
                t[name] += time.thread_time() - s
    calls = 15 * n
    print(f"{preset} {precision} batch {batch:4d} ms a call: " + " ".join(f"{k} {1000 * v / calls:.3f}" for k, v in t.items()),
          f"packed/eager {t['packed'] / t['eager']:.2f} packed/plain {t['packed'] / t['plain']:.2f} max logit diff {diff:.3g}", flush=True)
