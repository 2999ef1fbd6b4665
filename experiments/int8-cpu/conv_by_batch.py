"""One 96->96 3x3 convolution of the medium network's tower (random weights) at batch 1-256, in
int8 (torch.ops.onednn.qconv2d_pointwise, weights prepacked), bf16 and float32 (the evaluator's
fused oneDNN op, weights prepacked): milliseconds a call, one thread, the mean of 50 calls after
two warm-up calls. Also whether the batch the int8 weights were packed for matters (it does not).

    taskset -c 1 python experiments/int8-cpu/conv_by_batch.py
"""
import time

import torch

torch.set_num_threads(1)
ON = torch.ops.onednn
C = 96
BATCHES = (1, 4, 16, 64, 256)
w = torch.randn(C, C, 3, 3)
scale = w.abs().amax(dim=(1, 2, 3)) / 127
qw = torch.round(w / scale[:, None, None, None]).clamp(-128, 127).to(torch.int8).contiguous(memory_format=torch.channels_last)
zero_points = torch.zeros(C, dtype=torch.int64)
bias = torch.randn(C)


def ms(fn, n=50):
    fn()
    fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


for packed_for in (1, 4, 32, 64):
    packed = ON.qconv_prepack(qw, scale, 0.05, 0, [1, 1], [1, 1], [1, 1], 1, [packed_for, C, 8, 8])
    row = []
    for batch in BATCHES:
        x = torch.randint(0, 255, (batch, C, 8, 8), dtype=torch.uint8).contiguous(memory_format=torch.channels_last)
        row.append(ms(lambda: ON.qconv2d_pointwise(x, 0.05, 0, packed, scale, zero_points, bias, [1, 1], [1, 1], [1, 1], 1, 0.1, 0, None, "relu", [], "")))
    print(f"int8 (packed for batch {packed_for})", " ".join(f"{r:.3f}" for r in row))
for dtype in (torch.float32, torch.bfloat16):
    prepacked = torch.ops.mkldnn._reorder_convolution_weight(w.to(dtype), [1, 1], [1, 1], [1, 1], 1, [32, C, 8, 8])
    row = []
    for batch in BATCHES:
        x = torch.randn(batch, C, 8, 8).to(dtype).contiguous(memory_format=torch.channels_last)
        row.append(ms(lambda: torch.ops.mkldnn._convolution_pointwise(x, prepacked, bias.to(dtype), [1, 1], [1, 1], [1, 1], 1, "relu", [], "")))
    print(dtype, " ".join(f"{r:.3f}" for r in row))
