"""An exported ONNX network behind the search's Evaluator protocol, run by onnxruntime.

`OnnxEvaluator(path)(positions)` takes uint64[N, 2] (side to move's discs, opponent's) and returns
(priors float32[N, 65], values float32[N]) like `alphazero.nn.inference.NetworkEvaluator`, so a
`SearchChooser` (or any MCTS here) can search with the exported file. It is also the shortest
worked example of feeding the model: encode the planes, run, read `policy` and `value`.
"""

from __future__ import annotations

import os

import numpy as np

from alphazero.nn.encoding import encode_positions

# The model file's contract (alphazero.export.onnx_export writes it; docs/frontends.md).
INPUT_NAME = "planes"
OUTPUT_NAMES = ("policy", "value", "policy_logits")


class OnnxEvaluator:
    def __init__(self, path: str | os.PathLike, threads: int = 1):
        try:
            import onnxruntime
        except ImportError:
            raise ImportError('running an ONNX model needs onnxruntime: pip install -e ".[onnx]"') from None

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.input_name = INPUT_NAME
        self.calls = 0
        self.positions_evaluated = 0

    def __call__(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        planes = encode_positions(positions)
        priors, values = self.session.run(["policy", "value"], {self.input_name: planes})
        self.calls += 1
        self.positions_evaluated += len(positions)
        return priors.astype(np.float32), values.astype(np.float32).reshape(len(positions))
