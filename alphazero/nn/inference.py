"""NetworkEvaluator: the Evaluator protocol (positions -> priors, values) backed by an AlphaZeroNet.

    evaluator(positions uint64[N, 2]) -> (priors float32[N, 65], values float32[N])

priors are the network's policy after masking illegal actions (exactly 0 there, summing to 1 over
the legal ones, PASS only when forced); values are in [-1, 1] from the side to move's view.

What the evaluator does for speed, and why (figures in docs/benchmarks.md):
- It runs a private eval-mode copy of the net with batch norm folded into the convolutions
  (`fuse_for_inference`): half the operators, the same function. The copy tracks the original: when
  the original's parameters or buffers change in place (optimizer steps, `load_state_dict`: torch
  bumps each tensor's version counter) the copy is rebuilt before the next call. Writes through
  `.data` bypass the counters, and a net built under `torch.inference_mode` has none; call
  `refresh()` after changing such weights.
- `torch.inference_mode()` for every call (no autograd bookkeeping).
- On CUDA: the bitboards (24 bytes per position) are unpacked into planes on the GPU, and the
  forward pass runs under bf16 autocast (fp16 where bf16 is unsupported). Batches of at least
  `CUDA_CHANNELS_LAST_MIN_BATCH` go through a channels-last copy of the model (cuDNN's NHWC
  tensor-core kernels: on an H100 the medium network's device work ran 1.39-1.42x faster at
  4,096-16,384 positions), smaller ones through the NCHW model (channels-last was 0.93x at 1,024).
- On CPU: float32, bfloat16 or int8 as `precision` says ("auto": measured on this machine by a
  short probe at the caller's batch size and cached, `alphazero.nn.precision`). In int8 every
  batch goes through oneDNN's quantized convolutions (`int8_inference.Int8Forward`, calibrated on
  fixed random positions each time the copy is rebuilt). In bf16 the fused copy's
  weights and the input planes are cast to bf16 (no autocast: casting once beats autocast's
  per-call weight casts); the policy's softmax and everything after it stay float32. The planes
  are unpacked by a numba kernel, activations in channels-last layout (faster than NCHW at every
  batch size measured); batches of at least `cpu_inference.MIN_BATCH` go through oneDNN's fused
  conv+bias+add+ReLU kernels with prepacked weights (`cpu_inference.MkldnnForward`, 8-45% faster
  there in float32 by our noisy measurements; they take bf16 too where oneDNN runs bf16
  convolutions: avx512bw/vl/dq or avx_ne_convert, else bf16 stays on the eager model). Below
  MIN_BATCH the caller's batch (`probe_batch`, e.g. play's 4 leaves) runs in whichever of the two
  a short probe found faster for it on this machine (cached with the precision verdicts); smaller
  batches than that run in the fused eager model.
  Threads are set with `torch.set_num_threads` (process-wide: torch has no per-module thread
  count). On a machine whose cores are already busy use threads=1: torch's worker threads
  spin-wait on each other, and with 2 threads on 2 contended cores batch-1 calls were measured
  over 100x slower than with 1.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
import operator
import os

import numpy as np
import torch
from torch import nn

from alphazero.nn import cpu_inference, int8_inference, precision as precisions
from alphazero.nn.encoding import encode_positions_and_mask, legal_mask_from_packed, pack_positions_and_mask, planes_from_packed
from alphazero.nn.model import fuse_for_inference, masked_softmax
from alphazero.othello.bitboard import NUM_ACTIONS
from alphazero.othello.playout import random_positions

PRECISIONS = precisions.INFERENCE_PRECISIONS
CPU_KERNELS = ("auto", "eager")
log = logging.getLogger(__name__)
_VERSION = operator.attrgetter("_version")


class DeviceError(ValueError):
    """A device name that is not one, or a device this machine does not have; the message names it."""


def resolve_device(name: str | torch.device = "auto") -> torch.device:
    """"auto" -> CUDA if available else CPU; also "cpu", "cuda", "cuda:N", "mps" or a torch.device.

    Raises DeviceError (a ValueError) naming the value when it is not a device name or the device
    is unavailable.
    """
    if isinstance(name, torch.device):
        device = name
    elif not isinstance(name, str):
        raise DeviceError(f"device must be a string or torch.device, got {type(name).__name__} {name!r}")
    elif name == "auto":
        return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    else:
        try:
            device = torch.device(name)
        except RuntimeError:
            raise DeviceError(f"unknown device {name!r}; expected 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError(f"device {name!r} requested but CUDA is not available (torch {torch.__version__})")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise DeviceError(f"device {name!r} requested but only {torch.cuda.device_count()} CUDA device(s) exist")
    elif device.type == "mps":
        if not torch.backends.mps.is_available():
            raise DeviceError(f"device {name!r} requested but MPS is not available")
    elif device.type != "cpu":
        raise DeviceError(f"unsupported device {name!r}; expected 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'")
    return device


# Smallest CUDA batch run in channels-last layout. Measured on an H100, medium network, bf16
# (docs/benchmarks.md, "Network and precision", 2026-11-26): NCHW wins at 1,024 (375k vs 349k
# evals/s), channels-last at 4,096 (676k vs 485k); 2,048 lies between the two and was not measured.
CUDA_CHANNELS_LAST_MIN_BATCH = 2048


class NetworkEvaluator:
    """Evaluator protocol over an AlphaZeroNet; see the module docstring for the contract."""

    def __init__(
        self,
        net: nn.Module,
        device: str | torch.device = "auto",
        threads: int | None = None,
        precision: str = "auto",
        cpu_kernels: str = "auto",
        probe_batch: int = precisions.PROBE_BATCH_CAP,
        precision_cache: str | os.PathLike | None = None,
    ):
        """precision: "auto", "fp32", "bf16", "fp16" (CUDA only) or "int8" (CPU only); see
        `alphazero.nn.precision`.
        probe_batch: the batch size the caller mostly sends (what "auto" measures on a CPU, capped
        at `precision.PROBE_BATCH_CAP`). precision_cache: the verdict cache file (None: the
        user's; a run passes its own, `precision.run_cache_file(run_dir)`).
        cpu_kernels: "auto" (oneDNN fused kernels for large CPU batches where available) or
        "eager" (the fused eager model only; for comparisons and as a fallback)."""
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
                raise ValueError(f"threads must be a positive int or None, got {threads!r}")
            torch.set_num_threads(threads)
        self.net = net
        self.device = resolve_device(device)
        if cpu_kernels not in CPU_KERNELS:
            raise ValueError(f"unknown cpu_kernels {cpu_kernels!r}; expected one of {', '.join(CPU_KERNELS)}")
        if isinstance(probe_batch, bool) or not isinstance(probe_batch, int) or probe_batch < 1:
            raise ValueError(f"probe_batch must be a positive int, got {probe_batch!r}")
        self.cpu_kernels = cpu_kernels
        self.choice = self._choose_precision(precision, probe_batch, precision_cache)
        self.precision = self.choice.precision
        # CUDA: autocast to the reduced dtype. CPU: the model and its input cast to bf16 (None:
        # float32; int8 quantizes inside its own forward).
        reduced = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16, "int8": None}[self.precision]
        self.autocast_dtype = reduced if self.device.type == "cuda" else None
        self.input_dtype = reduced if self.device.type == "cpu" and reduced is not None else torch.float32
        self.calls = 0
        self.positions_evaluated = 0
        self._onednn_min_batch = cpu_inference.MIN_BATCH
        self.refresh()
        self.small_batch_kernels = self._choose_small_batch_kernels(probe_batch, precision_cache)

    def _choose_precision(self, requested: str, probe_batch: int, cache) -> precisions.Choice:
        batch = min(probe_batch, precisions.PROBE_BATCH_CAP)
        key = precisions.cache_key("inference", precisions.network_signature(self.net), batch, torch.get_num_threads())
        int8_refusal = self._int8_refusal()
        if requested == "int8" and int8_refusal and self.device.type == "cpu":
            raise ValueError(f"precision 'int8' does not run here: {int8_refusal}; use auto, fp32 or bf16")
        # int8=True also for a request on CUDA, which choose() then refuses as off the CPU.
        can_int8 = int8_refusal is None or requested == "int8"

        def measure():
            positions = random_positions(batch, seed=0)
            evaluators = [NetworkEvaluator(self.net, self.device, precision=p, cpu_kernels=self.cpu_kernels) for p in ("fp32", "bf16")]
            if int8_refusal is None:
                try:
                    evaluators.append(NetworkEvaluator(self.net, self.device, precision="int8"))
                except (RuntimeError, ValueError) as err:  # the private ops refused this network here
                    log.warning("the int8 probe failed here (%s): choosing between fp32 and bf16", precisions.first_line(err))
            seconds = precisions.time_alternately(*(functools.partial(evaluator, positions) for evaluator in evaluators))
            return seconds if len(seconds) == 3 or not can_int8 else (*seconds, None)

        choice = precisions.choose(requested, self.device, measure, key, cache, int8=can_int8)
        if choice.how != "forced":
            precisions.log_choice("network evaluator", choice.describe())
        return choice

    def _int8_refusal(self) -> str | None:
        """Why this evaluator cannot run int8 (None: it can, on a CPU)."""
        if self.cpu_kernels != "auto":
            return "cpu_kernels='eager' runs the eager model only, and int8 runs in oneDNN's kernels"
        if not int8_inference.available():
            return f"this torch build ({torch.__version__}) has no oneDNN quantized convolutions"
        if not int8_inference.supports(self.net):
            return f"{type(self.net).__name__} is not a residual tower that int8 runs (AlphaZeroNet only)"
        return None

    def _choose_small_batch_kernels(self, probe_batch: int, cache) -> dict | None:
        """Which kernels run the caller's batch on a CPU when it is below `cpu_inference.MIN_BATCH`:
        oneDNN's fused kernels or the eager model, whichever was faster at that batch here
        (measured once per machine, precision, network shape and batch, and cached beside the
        precision verdicts). From MIN_BATCH up oneDNN's always run. Returns the cached entry
        ({"kernels": "onednn"|"eager", "eager_seconds", "onednn_seconds", ...}) plus "how", or
        None where there is nothing to choose (CUDA, `cpu_kernels="eager"`, no oneDNN op, a
        batch of at least MIN_BATCH).

        Why measure: with prepacked weights oneDNN's kernels beat the eager model at batch 1-16
        for the medium network in both precisions on the avx512 CI machine, but not for the small
        one in float32 at batch 1 (experiments/prepacked-onednn/README.md, "Prepacked oneDNN
        weights"); other CPUs differ."""
        batch = min(probe_batch, precisions.PROBE_BATCH_CAP)
        if (self.device.type != "cpu" or batch >= cpu_inference.MIN_BATCH
                or not isinstance(self._large_batch_model, cpu_inference.MkldnnForward)):
            return None
        signature = f"{self.precision} {precisions.network_signature(self.net)}"
        key = precisions.cache_key(precisions.KERNELS_KIND, signature, batch, torch.get_num_threads())

        def measure() -> dict:
            planes = self._planes(random_positions(batch, seed=0))[0]
            planes = planes.to(self.input_dtype).contiguous(memory_format=torch.channels_last)
            try:
                with torch.inference_mode():
                    eager, onednn = precisions.time_alternately(lambda: self._model(planes), lambda: self._large_batch_model(planes))
            except RuntimeError as err:  # the private op refused this batch: the eager model it is
                log.warning("oneDNN's kernels failed at batch %d here (%s): the eager model runs it", batch, precisions.first_line(err))
                return {"kernels": "eager", "precision": self.precision, "eager_seconds": None, "onednn_seconds": None}
            # "precision" too: a reader from before kernels entries (an older checkout sharing the
            # user's cache) requires it of every entry, and discards the whole file otherwise.
            return {"kernels": "onednn" if onednn < eager else "eager", "precision": self.precision,
                    "eager_seconds": eager, "onednn_seconds": onednn}

        entry, how, _ = precisions.cached_verdict(key, cache, measure)
        if entry["kernels"] == "onednn":
            self._onednn_min_batch = self._large_batch_min = batch
        _log_kernels(entry["kernels"], batch, how, entry.get("eager_seconds"), entry.get("onednn_seconds"))
        return {**entry, "how": how, "batch": batch}

    def refresh(self) -> None:
        """Rebuild the fused inference copy from the current weights of `self.net`."""
        model = fuse_for_inference(self.net).to(self.device)
        if self.device.type == "cpu":
            model = model.to(dtype=self.input_dtype, memory_format=torch.channels_last)
            self._small_batch_layout = self._large_batch_layout = torch.channels_last
            if self.precision == "int8":  # every batch, calibrated anew for these weights
                self._large_batch_min = 1
                self._large_batch_model = int8_inference.build(model)
            else:
                self._large_batch_min = self._onednn_min_batch
                self._large_batch_model = _mkldnn_forward_or(model) if self.cpu_kernels == "auto" else model
        elif self.device.type == "cuda":
            self._small_batch_layout, self._large_batch_layout = torch.contiguous_format, torch.channels_last
            self._large_batch_min = CUDA_CHANNELS_LAST_MIN_BATCH
            self._large_batch_model = copy.deepcopy(model).to(memory_format=torch.channels_last)
        else:  # mps: layouts not measured; NCHW throughout
            self._small_batch_layout = self._large_batch_layout = torch.contiguous_format
            self._large_batch_min = 1
            self._large_batch_model = model
        self._model = model
        self._tracked_tensors = list(self.net.parameters()) + list(self.net.buffers())
        self._weights_version = self._current_weights_version()

    def _current_weights_version(self) -> int:
        """Sum of the version counters of the net's tensors: it grows on every in-place write.

        Tensors created under `torch.inference_mode` have no counter (and cannot be trained in
        place anyway); such a net is treated as frozen.
        """
        try:
            return sum(map(_VERSION, self._tracked_tensors))  # ~5 us for 70 tensors
        except RuntimeError:
            return -1

    def __call__(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._current_weights_version() != self._weights_version:
            self.refresh()
        n = len(positions)
        if n == 0:
            return np.zeros((0, NUM_ACTIONS), dtype=np.float32), np.zeros(0, dtype=np.float32)
        planes, legal_mask = self._planes(positions)
        model, layout = self._model_and_layout(n)
        planes = planes.to(self.input_dtype).contiguous(memory_format=layout)
        with torch.inference_mode(), self._autocast():
            logits, values = model(planes)
            logits = logits.float().cpu()
            values = values.float().cpu()
            priors = masked_softmax(logits, torch.from_numpy(legal_mask))
        self.calls += 1
        self.positions_evaluated += n
        return priors.numpy(), values.numpy()

    def evaluate_packed(self, packed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(priors float32[N, 65], values float32[N]) of int64[N, 3] packed positions (see
        `encoding.pack_positions_and_mask`), computed and left on the evaluator's device: the
        planes, the legal mask and the masked softmax all run there (the inference server copies
        the results out once for all its workers). The caller holds `torch.inference_mode()`."""
        if self._current_weights_version() != self._weights_version:
            self.refresh()
        n = packed.shape[0]
        model, layout = self._model_and_layout(n)
        planes = planes_from_packed(packed).to(self.input_dtype).contiguous(memory_format=layout)
        with self._autocast():
            logits, values = model(planes)
        priors = masked_softmax(logits.float(), legal_mask_from_packed(packed))
        self.calls += 1
        self.positions_evaluated += n
        return priors, values.float().reshape(n)

    def _planes(self, positions):
        """(planes on the device, legal_mask bool[N, 65] numpy)."""
        if self.device.type == "cpu":
            planes, legal_mask = encode_positions_and_mask(positions)
            return torch.from_numpy(planes), legal_mask
        packed, legal_mask = pack_positions_and_mask(positions)
        packed = torch.from_numpy(packed.view(np.int64)).to(self.device, non_blocking=True)
        return planes_from_packed(packed), legal_mask

    def _model_and_layout(self, batch: int):
        """The inference model for a batch of `batch` positions and the memory layout its input takes."""
        if batch >= self._large_batch_min:
            return self._large_batch_model, self._large_batch_layout
        return self._model, self._small_batch_layout

    def _autocast(self):
        if self.autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device.type, dtype=self.autocast_dtype)


@functools.cache
def _log_kernels(kernels: str, batch: int, how: str, eager_seconds, onednn_seconds) -> None:
    """Say once per process which kernels run the caller's small batches, and the probe's times."""
    timed = f": oneDNN {onednn_seconds * 1000:.2f} ms vs eager {eager_seconds * 1000:.2f} ms a call" if eager_seconds and onednn_seconds else ""
    if kernels == "onednn":
        what = f"batches of {batch} and more run in oneDNN's fused kernels"
    else:
        what = f"batches below {cpu_inference.MIN_BATCH} run in the eager model"
    log.info("network evaluator: %s (%s at batch %d%s)", what, how, batch, timed)


def _mkldnn_forward_or(model: nn.Module):
    """`cpu_inference.MkldnnForward(model)` if this torch build runs it, else `model` itself.

    One probe call at batch MIN_BATCH proves the private oneDNN op works here (it exists in
    every x86 build we know of, but is not public API), so a missing or broken op costs speed,
    never a crash mid-search.
    """
    dtype = next(model.parameters()).dtype
    if not cpu_inference.available(dtype):
        return model
    try:
        forward = cpu_inference.MkldnnForward(model)
        probe = torch.zeros((cpu_inference.MIN_BATCH, model.cfg.input_planes, 8, 8), dtype=dtype)
        with torch.inference_mode():
            forward(probe.contiguous(memory_format=torch.channels_last))
    except (RuntimeError, TypeError, ValueError, AttributeError):
        return model
    return forward
