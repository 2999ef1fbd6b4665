"""A checkpoint's network as an ONNX model: input planes in, priors, value and logits out.

The model (opset OPSET, batch dimension dynamic) takes what `alphazero.nn.encoding` makes:

    planes         float32[batch, 4, 8, 8]   plane 0 the side to move's discs, 1 the opponent's,
                                             2 the side to move's legal moves, 3 all ones; cell
                                             (row, col) is square row * 8 + col (a1 = (0, 0),
                                             h1 = (0, 7), a8 = (7, 0))

and returns

    policy         float32[batch, 65]        move probabilities over the 64 squares (same order)
                                             and pass (index 64): the softmax of the logits over
                                             the legal moves that plane 2 marks (pass alone when
                                             it marks none), exactly 0 elsewhere; what the
                                             search calls the priors
    value          float32[batch]            the expected result for the side to move, in [-1, 1]
    policy_logits  float32[batch, 65]        the raw policy head, for callers that mask themselves

The legal-move mask is computed inside the graph from plane 2, so a caller needs nothing but the
planes; the masking is `alphazero.nn.model.masked_softmax`'s. The exported graph is the network
with every batch norm folded into its convolution (`fuse_for_inference`), as the search runs it.
The file's metadata (`metadata_props`) records the planes, the outputs, the opset, the network's
config and the checkpoint it came from.

Exported with torch's current exporter (`torch.onnx.export(dynamo=True)`, which needs the
`onnxscript` package: the `onnx` extra installs it); the legacy TorchScript exporter is deprecated.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from alphazero.atomic import write_atomic
from alphazero.export.onnx_runtime import INPUT_NAME, OUTPUT_NAMES, OnnxEvaluator
from alphazero.nn.encoding import NUM_PLANES, PLANE_LEGAL, PLANE_NAMES

OPSET = 18
# How far onnxruntime's outputs may lie from PyTorch's (same float32 network, other kernels and
# summation orders): measured differences are about 1e-6.
PRIOR_TOLERANCE = 1e-4
VALUE_TOLERANCE = 1e-4


class ExportError(ValueError):
    """The network cannot be exported as asked (missing or corrupt checkpoint, a history-reading
    network, a missing package); the message says which and what to do."""


class ExportedNetwork(nn.Module):
    """The network plus the legal-move masking, so one forward maps planes to what the search
    uses: (priors, value, logits)."""

    def __init__(self, network: nn.Module):
        super().__init__()
        self.network = network

    def forward(self, planes: torch.Tensor):
        logits, value = self.network(planes)
        squares = planes[:, PLANE_LEGAL].flatten(1) > 0.5
        must_pass = ~squares.any(dim=1, keepdim=True)
        legal = torch.cat((squares, must_pass), dim=1)
        priors = logits.float().masked_fill(~legal, float("-inf")).softmax(dim=-1)
        return priors, value, logits


@dataclass(frozen=True)
class ExportReport:
    path: Path
    parameters: int
    opset: int
    bytes: int


def load_for_export(checkpoint: str | os.PathLike) -> nn.Module:
    """The checkpoint's network in eval mode on the CPU; ExportError for a missing or unusable file
    or a network that reads the game's history (its input is more than the planes)."""
    from alphazero.nn.checkpoint import CheckpointError, load_network
    from alphazero.nn.config import require_board_only

    path = Path(checkpoint)
    if not path.is_file():
        raise ExportError(f"checkpoint {str(path)!r} does not exist")
    try:
        network = load_network(path, device="cpu")
    except CheckpointError as err:
        raise ExportError(str(err)) from None
    try:
        require_board_only(network.cfg, "the ONNX export (its only input is the planes)")
    except ValueError as err:
        raise ExportError(str(err)) from None
    return network


def build_onnx(network: nn.Module, source: str = ""):
    """The ONNX ModelProto of `network` (see the module docstring for its inputs and outputs)."""
    from alphazero.nn.model import fuse_for_inference

    try:
        import onnx  # noqa: F401  (the exporter needs it; fail here with the install hint)
        import onnxscript  # noqa: F401
    except ImportError as err:
        raise ExportError(f'ONNX export needs the onnx extra ({err.name} is missing): pip install -e ".[onnx]"') from None
    model = ExportedNetwork(fuse_for_inference(network)).eval()
    example = torch.zeros((2, NUM_PLANES, 8, 8), dtype=torch.float32)
    example[:, PLANE_LEGAL + 1] = 1.0
    batch = torch.export.Dim("batch", min=1)
    chatter = io.StringIO()  # the exporter's progress lines and notes on absent torchvision ops
    registration_log = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registration_log.level
    registration_log.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            program = torch.onnx.export(
                model, (example,), input_names=[INPUT_NAME], output_names=list(OUTPUT_NAMES),
                dynamic_shapes={"planes": {0: batch}}, opset_version=OPSET, dynamo=True, verbose=False,
            )
    except Exception as err:
        raise ExportError(f"torch.onnx.export failed: {type(err).__name__}: {err}\n{chatter.getvalue()[-2000:]}") from err
    finally:
        registration_log.setLevel(level)
    proto = program.model_proto
    _check_dynamic_batch(proto, network)
    cfg = getattr(network, "cfg", None)
    metadata = {
        "producer": "alphazero-othello (python -m alphazero.export)",
        "input": f"{INPUT_NAME}: float32[batch, {NUM_PLANES}, 8, 8], planes {', '.join(PLANE_NAMES)}; "
                 "cell (row, col) = square row*8+col, a1=(0,0), h1=(0,7)",
        "outputs": "policy: float32[batch, 65] priors over squares a1..h8 then pass (masked by plane 2); "
                   "value: float32[batch] in [-1, 1] for the side to move; policy_logits: float32[batch, 65]",
        "opset": str(OPSET),
        "model_config": json.dumps(cfg.to_dict() if cfg is not None else {}, sort_keys=True),
        "checkpoint": source,
    }
    for key, value in metadata.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    return proto


def _check_dynamic_batch(proto, network: nn.Module) -> None:
    """The exporter silently fixes the batch at the example's size when the forward pass turns it
    into a constant (`len(tensor)` does): such a file, which the seed_cnn zoo networks once made,
    passes the ONNX checker and then fails on every other batch size, the verification included.
    Refuse it before anything is written."""
    (planes,) = [entry for entry in proto.graph.input if entry.name == INPUT_NAME]
    batch = planes.type.tensor_type.shape.dim[0]
    if not batch.dim_param:
        arch = getattr(getattr(network, "cfg", None), "arch", type(network).__name__)
        raise ExportError(
            f"the exported {arch} graph takes a fixed batch of {batch.dim_value} positions, not any number: its forward pass turns "
            "the batch size into a constant (len(tensor) instead of tensor.shape[0]); nothing was written"
        )


def export_onnx(checkpoint: str | os.PathLike, out: str | os.PathLike) -> ExportReport:
    """Write `checkpoint`'s network to `out` as ONNX, atomically (nothing is written on failure)."""
    import onnx

    network = load_for_export(checkpoint)
    proto = build_onnx(network, source=str(checkpoint))
    onnx.checker.check_model(proto)
    data = proto.SerializeToString()
    out = Path(out)
    write_atomic(out, lambda handle: handle.write(data))
    return ExportReport(out, sum(p.numel() for p in network.parameters()), OPSET, len(data))


def compare_with_torch(network: nn.Module, onnx_path: str | os.PathLike, positions: np.ndarray) -> dict:
    """Largest absolute differences between onnxruntime's outputs for `onnx_path` and PyTorch's
    for `network` (priors by `masked_softmax`, as the search computes them) on `positions`
    (uint64[N, 2]): {"positions", "prior_max_abs", "value_max_abs"}."""
    from alphazero.nn.encoding import encode_positions_and_mask
    from alphazero.nn.model import masked_softmax

    planes, legal = encode_positions_and_mask(positions)
    with torch.inference_mode():
        logits, values = network.eval()(torch.from_numpy(planes))
        priors = masked_softmax(logits, torch.from_numpy(legal)).numpy()
    onnx_priors, onnx_values = OnnxEvaluator(onnx_path)(positions)
    return {
        "positions": int(len(positions)),
        "prior_max_abs": float(np.abs(onnx_priors - priors).max()),
        "value_max_abs": float(np.abs(onnx_values - values.numpy()).max()),
    }
