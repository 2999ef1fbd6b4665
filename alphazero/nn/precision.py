"""float32, bfloat16 or int8 for the network on a CPU: measured on this machine, not assumed.

Whether bf16 pays on a CPU depends on the CPU. On Xeons with AMX (`amx_bf16` in /proc/cpuinfo)
bf16 convolutions ran 2-4x faster than float32; on a CPU without any bf16 instructions they run
slower than float32; on the AMD EPYC CI machine (AVX-512 BF16, no AMX) the answer changed with the
torch version (0.88x once, ~1.9x with torch 2.13). So `precision: auto` measures (docs/precision.md):

- `choose(...)` takes the requested precision ("auto", "fp32", "bf16"; "fp16" only on CUDA) and
  returns a `Choice`: "fp32"/"bf16" are forced; "auto" on a CPU runs a short probe, the caller's
  network at the caller's batch size (capped: `PROBE_BATCH_CAP` for inference,
  `TRAINING_PROBE_BATCH_CAP` for a training step, so the probe takes well under a second), and
  picks bf16 only where it measured at least `BF16_MIN_SPEEDUP` times float32's speed (a tie keeps
  the exact arithmetic). Network calls (not training) may also run in int8
  (alphazero.nn.int8_inference): "int8" forces it on a CPU, and "auto" times it beside the other
  two where the network and the torch build run it, and picks it only where it measured at least
  `INT8_MIN_SPEEDUP` times the speed of what it would pick otherwise. "auto" on CUDA is bf16
  (fp16 where the GPU lacks bf16), as before.
- The verdict is cached in a JSON file, keyed by CPU model, torch version, what was measured
  (inference or training; the evaluator keeps its choice of small-batch kernels there too,
  `cached_verdict`), the network's shape, the probe batch and the torch thread count: a
  run keeps it in its run directory (`run_cache_file`), everything else in the user's cache
  directory (`user_cache_file`). Processes that start together (self-play workers) take a file
  lock around the probe, so one measures and the others read its verdict. A cache file that
  cannot be read is reported once and measured again (and rewritten).
- The choice is logged once per process (`log_choice`).

The probe itself (what to time) is the caller's: `nn.inference.NetworkEvaluator` times its own
fp32 and bf16 calls, `training_probe` below times a training step with and without bf16
autocast. `time_alternately` and `decide` are the shared logic, with the clock injectable so
tests can drive them with a fake timer.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
import logging
import os
import platform
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from alphazero.atomic import write_text_atomic
from alphazero.nn.config import INFERENCE_PRECISIONS, PRECISIONS  # noqa: F401 - PRECISIONS re-exported

log = logging.getLogger(__name__)

# bf16 is chosen only where it measured at least this many times float32's speed: a smaller gain
# is within the probe's noise on a shared machine and not worth inexact arithmetic.
BF16_MIN_SPEEDUP = 1.05
# int8 is chosen only where it measured at least this many times the speed of the precision auto
# would pick otherwise: it strays further from float32 than bf16 does (the medium network names
# float32's best move, up to symmetry, on 99.1% of 20,000 WTHOR 2018 positions in int8, 99.6% in
# bf16; docs/benchmarks.md, "Network and precision"), so a gain within the probe's noise does not
# buy it.
INT8_MIN_SPEEDUP = 1.10
# Probe batch caps. The bf16/fp32 ratio was flat from batch 32 up (evaluator: small 1.6-2.0x,
# medium 1.75-1.9x at 32-1,024 on the AVX-512 BF16 machine), and a medium network's float32 call
# at batch 32 takes ~60 ms there; a training step at 16 ~100 ms (ratio 1.4x vs 1.65x at 256).
PROBE_BATCH_CAP = 32
TRAINING_PROBE_BATCH_CAP = 16
# Timed rounds (one call of each precision per round) after one untimed warm-up round: at least
# MIN_ROUNDS, more while the timed rounds have taken less than PROBE_BUDGET_SECONDS.
MIN_ROUNDS = 2
MAX_ROUNDS = 10
PROBE_BUDGET_SECONDS = 0.15
CACHE_NAME = "precision.json"
# The cache also keeps `NetworkEvaluator`'s other measured choice on a CPU, which kernels run a
# small batch (nn.inference): entries of this kind hold "kernels" (and the precision measured in).
KERNELS_KIND = "kernels"
KERNEL_VERDICTS = ("eager", "onednn")
CACHE_ENV = "ALPHAZERO_PRECISION_CACHE"


def require_precision(precision: str) -> str:
    if precision not in INFERENCE_PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; expected one of {', '.join(INFERENCE_PRECISIONS)}")
    return precision


# ----------------------------------------------------------------------------------------------
# The machine


@functools.cache
def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo on Linux; platform's answer elsewhere)."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


@functools.cache
def cpu_flags() -> tuple[str, ...]:
    """The bf16- and int8-relevant instruction set flags this CPU reports (empty where unknown)."""
    wanted = ("amx_bf16", "amx_int8", "amx_tile", "avx512_bf16", "avx512_vnni", "avx_vnni", "avx512f", "avx2")
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return tuple(flag for flag in wanted if flag in flags)
    except OSError:
        pass
    return ()


def describe_cpu() -> str:
    flags = cpu_flags()
    amx = "AMX" if "amx_bf16" in flags else "no AMX"
    return f"{cpu_model()} ({', '.join(flags) or 'flags unknown'}; {amx})"


def cache_key(kind: str, network: str, batch: int, threads: int) -> str:
    """One verdict's key: the machine and torch build, then what was measured."""
    return f"{cpu_model()} | torch {torch.__version__} | {kind} | {network} | batch {batch} | threads {threads}"


def network_signature(net: torch.nn.Module) -> str:
    """The network's shape (its ModelConfig), which is what its speed depends on."""
    cfg = getattr(net, "cfg", None)
    if cfg is None:
        return type(net).__name__
    return json.dumps(cfg.to_dict(), sort_keys=True, separators=(",", ":"))


# ----------------------------------------------------------------------------------------------
# The cache


def user_cache_file() -> Path:
    """$ALPHAZERO_PRECISION_CACHE, else precision.json in the user's cache directory (where
    pretraining caches its datasets: $XDG_CACHE_HOME/alphazero, default ~/.cache/alphazero)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "alphazero" / CACHE_NAME


def run_cache_file(run_dir: str | os.PathLike) -> Path:
    """A run's verdicts: beside its config, so the run records what it used."""
    return Path(run_dir) / CACHE_NAME


def read_cache(path: Path) -> dict:
    """The cached verdicts in `path` ({} if there is no file). Raises ValueError naming the file
    and the problem when it is not a cache this module wrote."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"precision cache {path} cannot be read: {err}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"precision cache {path} is not JSON ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), dict):
        raise ValueError(f"precision cache {path} has no 'verdicts' object")
    for key, entry in data["verdicts"].items():
        if not isinstance(entry, dict):
            raise ValueError(f"precision cache {path}: entry {key!r} is not an object")
        if f" | {KERNELS_KIND} | " in key:
            if entry.get("kernels") not in KERNEL_VERDICTS:
                raise ValueError(f"precision cache {path}: entry {key!r} has no kernels {' or '.join(KERNEL_VERDICTS)}")
        elif entry.get("precision") not in ("fp32", "bf16"):
            raise ValueError(f"precision cache {path}: entry {key!r} has no precision fp32 or bf16")
        elif not isinstance(entry.get("int8", False), bool):
            raise ValueError(f"precision cache {path}: entry {key!r} has an int8 verdict that is not true or false")
    return data["verdicts"]


def _read_cache_or_warn(path: Path) -> dict:
    try:
        return read_cache(path)
    except ValueError as err:
        log.warning("%s; ignoring it and measuring again (the file will be rewritten)", err)
        return {}


_held = threading.local()  # .paths: the lock files this thread holds


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on `path`.lock for the block (no-op where fcntl is missing), so that
    processes starting together measure once between them. Re-entrant in one thread: a measurement
    made under the lock may build evaluators that consult the same cache (flock on a second file
    handle would wait for this one forever)."""
    lock_path = path.with_name(path.name + ".lock").resolve()
    held = _held.__dict__.setdefault("paths", set())
    if lock_path in held:
        yield
        return
    try:
        import fcntl
    except ImportError:  # not POSIX: each process may measure; the cache is still written atomically
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        held.add(lock_path)
        try:
            yield
        finally:
            held.discard(lock_path)
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write_cache(path: Path, verdicts: dict) -> None:
    write_text_atomic(path, json.dumps({"verdicts": verdicts}, indent=1, sort_keys=True) + "\n")


# ----------------------------------------------------------------------------------------------
# The decision


@dataclasses.dataclass(frozen=True)
class Choice:
    """What a network call runs in and why.

    precision: "fp32", "bf16", "fp16" (CUDA only) or "int8" (network calls on a CPU only).
    how: "forced" (asked for by name), "measured" (probed now), "cached" (an earlier probe's
         verdict), "cuda" (CUDA's auto: bf16, or fp16 where bf16 is unsupported).
    fp32_seconds, bf16_seconds, int8_seconds: the probe's best call times (measured or cached),
         else None (int8: not timed, for training or where int8 does not run).
    """

    precision: str
    requested: str
    how: str
    key: str | None = None
    cache: str | None = None
    fp32_seconds: float | None = None
    bf16_seconds: float | None = None
    int8_seconds: float | None = None

    @property
    def speedup(self) -> float | None:
        """bf16's speed over float32's in the probe."""
        if self.fp32_seconds is None or not self.bf16_seconds:
            return None
        return self.fp32_seconds / self.bf16_seconds

    @property
    def int8_speedup(self) -> float | None:
        """int8's speed over float32's in the probe."""
        if self.fp32_seconds is None or not self.int8_seconds:
            return None
        return self.fp32_seconds / self.int8_seconds

    def describe(self) -> str:
        text = f"{self.precision} (precision={self.requested}, {self.how}"
        if self.speedup is not None:
            measured = self.key.split(" | ")[2] if self.key else "probe"
            batch = self.key.rsplit(" | ", 2)[1] if self.key else ""
            text += f": bf16 ran {self.speedup:.2f}x fp32's speed"
            if self.int8_speedup is not None:
                text += f", int8 {self.int8_speedup:.2f}x"
            text += f", {measured} at {batch}"
        if self.cache:
            text += f"; cache {self.cache}"
        return text + ")"

    def as_dict(self) -> dict:
        return {**dataclasses.asdict(self), "speedup": None if self.speedup is None else round(self.speedup, 3),
                "int8_speedup": None if self.int8_speedup is None else round(self.int8_speedup, 3)}


def decide(fp32_seconds: float, bf16_seconds: float, min_speedup: float = BF16_MIN_SPEEDUP) -> str:
    """"bf16" if it ran at least `min_speedup` times float32's speed, else "fp32"."""
    if not (fp32_seconds > 0 and bf16_seconds > 0):
        raise ValueError(f"probe times must be positive, got fp32 {fp32_seconds!r} s and bf16 {bf16_seconds!r} s")
    return "bf16" if fp32_seconds >= min_speedup * bf16_seconds else "fp32"


def decide_int8(otherwise_seconds: float, int8_seconds: float, min_speedup: float = INT8_MIN_SPEEDUP) -> bool:
    """True if int8 ran at least `min_speedup` times the speed of the precision chosen without it."""
    if not (otherwise_seconds > 0 and int8_seconds > 0):
        raise ValueError(f"probe times must be positive, got {otherwise_seconds!r} s and int8 {int8_seconds!r} s")
    return otherwise_seconds >= min_speedup * int8_seconds


def probe_clock() -> Callable[[], float]:
    """CPU time of this process with one torch thread (other jobs on the machine then do not
    count against either side), the wall clock with several (CPU time would count their
    spin-waiting)."""
    return time.process_time if torch.get_num_threads() == 1 else time.perf_counter


def time_alternately(*runs: Callable[[], object], clock: Callable[[], float] | None = None,
                     budget: float = PROBE_BUDGET_SECONDS, min_rounds: int = MIN_ROUNDS, max_rounds: int = MAX_ROUNDS) -> tuple[float, ...]:
    """The best seconds per call of each of `runs` (e.g. fp32, bf16): one untimed round to warm
    up, then rounds of one call each, taking turns, at least `min_rounds`, more while the timed
    rounds took less than `budget` seconds. The best call is the one least disturbed by other load."""
    clock = clock or probe_clock()
    for run in runs:
        run()
    best = [float("inf")] * len(runs)
    spent = 0.0
    for rounds in range(1, max_rounds + 1):
        for index, run in enumerate(runs):
            start = clock()
            run()
            seconds = clock() - start
            spent += seconds
            best[index] = min(best[index], max(seconds, 1e-9))
        if rounds >= min_rounds and spent >= budget:
            break
    return tuple(best)


def choose(requested: str, device: torch.device, measure: Callable[[], tuple], key: str,
           cache: str | os.PathLike | None = None, int8: bool = False) -> Choice:
    """The precision for a network call; see the module docstring.

    measure: () -> (fp32 seconds, bf16 seconds), or with `int8` (fp32, bf16, int8 seconds or None
    where int8 would not run), called only for "auto" on a CPU without a cached verdict.
    key: `cache_key(...)` of what `measure` times. cache: the cache file (None: the user's,
    `user_cache_file()`). int8: the caller can run int8 (network calls of a network
    alphazero.nn.int8_inference supports); training cannot.
    """
    require_precision(requested)
    if requested == "int8" and not int8:
        raise ValueError("precision 'int8' is for network calls only (self-play, arena, play); training runs in auto, fp32, bf16 or fp16")
    if requested == "int8" and device.type != "cpu":
        raise ValueError(f"precision 'int8' runs on a CPU (on {device.type} use auto, fp32, bf16 or fp16)")
    if device.type == "cuda":
        if requested == "auto":
            return Choice("bf16" if torch.cuda.is_bf16_supported() else "fp16", requested, "cuda")
        return Choice(requested, requested, "forced")
    if requested == "fp16":
        raise ValueError(f"precision 'fp16' needs a CUDA device (on {device} use fp32, bf16 or auto)")
    if requested != "auto":
        return Choice(requested, requested, "forced")
    if device.type != "cpu":  # mps: not measured; float32 as before
        return Choice("fp32", requested, f"float32 on {device.type}")

    def measure_entry() -> dict:
        int8_seconds = None
        try:
            fp32_seconds, bf16_seconds, *rest = measure()
            verdict = decide(fp32_seconds, bf16_seconds)
            int8_seconds = rest[0] if rest else None
        except (RuntimeError, NotImplementedError) as err:  # a torch build or CPU without bf16 kernels
            log.warning("the bf16 probe failed here (%s): using fp32", first_line(err))
            fp32_seconds = bf16_seconds = None
            verdict = "fp32"
        entry = {"precision": verdict, "fp32_seconds": fp32_seconds, "bf16_seconds": bf16_seconds}
        if int8:
            # "precision" stays the fp32/bf16 verdict, which a checkout from before int8 reads
            # (sharing the user's cache); "int8" says whether int8 beat it.
            otherwise = bf16_seconds if verdict == "bf16" else fp32_seconds
            chosen = bool(int8_seconds and otherwise and decide_int8(otherwise, int8_seconds))
            entry.update(int8_seconds=int8_seconds, int8=chosen)
        return entry

    # An entry measured without int8 (before it existed) does not answer a caller that can run it.
    usable = (lambda entry: "int8_seconds" in entry) if int8 else None
    entry, how, path = cached_verdict(key, cache, measure_entry, usable)
    precision = "int8" if int8 and entry.get("int8") else entry["precision"]
    return Choice(precision, requested, how, key, str(path), entry.get("fp32_seconds"), entry.get("bf16_seconds"),
                  entry.get("int8_seconds") if int8 else None)


def first_line(err: Exception) -> str:
    """An error's first line for a one-line warning (its type's name when it has no message)."""
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def cached_verdict(key: str, cache: str | os.PathLike | None, measure: Callable[[], dict],
                   usable: Callable[[dict], bool] | None = None) -> tuple[dict, str, Path]:
    """(entry, how, path): the verdict stored under `key` in the cache file `path` (how "cached"),
    else `measure()`'s entry, stored there with the CPU and the time it was measured (how
    "measured"). Processes starting together measure once between them (a file lock around the
    measurement); an unreadable cache is reported and rewritten. cache: None for the user's.
    usable: a stored entry for which this says False is measured again (and replaced)."""
    path = Path(cache) if cache is not None else user_cache_file()

    def stored() -> dict | None:
        entry = _read_cache_or_warn(path).get(key)
        return entry if entry is not None and (usable is None or usable(entry)) else None

    entry = stored()
    if entry is not None:
        return entry, "cached", path

    def measured() -> dict:
        return {**measure(), "cpu": describe_cpu(), "measured": time.strftime("%Y-%m-%d %H:%M:%S")}

    entry = None
    try:
        with _locked(path):
            entry = stored()
            if entry is not None:
                return entry, "cached", path
            entry = measured()
            verdicts = _read_cache_or_warn(path)  # with what a measurement under the same lock may have added
            verdicts[key] = entry
            _write_cache(path, verdicts)
            return entry, "measured", path
    except OSError as err:  # a read-only or missing cache directory: measure, keep nothing
        log.warning("precision cache %s cannot be written (%s); this process measures without keeping the verdict", path, err)
        return entry if entry is not None else measured(), "measured", path


@functools.cache
def log_choice(what: str, description: str) -> None:
    """Log `what` runs in `description`, once per process (cached: a self-play worker builds an
    evaluator for every new network, and says which precision it uses only the first time)."""
    log.info("%s: network precision %s", what, description)


# ----------------------------------------------------------------------------------------------
# Training


def autocast(device: torch.device, dtype: torch.dtype | None):
    """Autocast to `dtype` on `device` for the forward pass, or nothing for float32 (None)."""
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def training_autocast_dtype(precision: str) -> torch.dtype | None:
    return {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]


def training_probe(net: torch.nn.Module, batch: int, memory_format=torch.channels_last, clock=None) -> tuple[float, float]:
    """(fp32 seconds, bf16 seconds) of one training step (forward, policy cross-entropy + value
    MSE, backward, SGD step) at min(batch, TRAINING_PROBE_BATCH_CAP) random positions, on a
    copy of `net` (the caller's weights, optimizer and batch-norm statistics are untouched).
    bf16 is autocast over float32 weights: what the trainer and pretraining run."""
    from alphazero.nn.encoding import encode_positions_and_mask
    from alphazero.nn.model import policy_cross_entropy
    from alphazero.othello.history import HISTORY_TOKENS
    from alphazero.othello.playout import random_positions

    batch = min(batch, TRAINING_PROBE_BATCH_CAP)
    planes, legal = encode_positions_and_mask(random_positions(batch, seed=0))
    planes = torch.from_numpy(planes).contiguous(memory_format=memory_format)
    legal = torch.from_numpy(legal)
    target = legal.float() / legal.float().sum(dim=1, keepdim=True)
    value_target = torch.from_numpy(np.linspace(-1, 1, batch, dtype=np.float32))
    device = torch.device("cpu")
    cfg = getattr(net, "cfg", None)
    inputs = (planes,)
    if cfg is not None and cfg.needs_history:  # a zoo network that reads the game's previous moves
        inputs += (torch.randint(0, HISTORY_TOKENS, (batch, cfg.history), generator=torch.Generator().manual_seed(0)),)

    def stepper(dtype):
        model = copy.deepcopy(net).to(device).to(memory_format=memory_format).train()
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)

        def step():
            with autocast(device, dtype):
                logits, values = model(*inputs)
            loss = policy_cross_entropy(logits.float(), target, legal) + torch.nn.functional.mse_loss(values.float(), value_target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

        return step

    return time_alternately(stepper(None), stepper(torch.bfloat16), clock=clock)


def choose_training(requested: str, net: torch.nn.Module, device: torch.device, batch: int,
                    cache: str | os.PathLike | None = None, memory_format=torch.channels_last) -> Choice:
    """The trainer's (and pretraining's) precision: bf16 autocast with float32 master weights and
    optimizer state, or float32. On CUDA the callers keep their `mixed_precision` switch."""
    key = cache_key("training", network_signature(net), min(batch, TRAINING_PROBE_BATCH_CAP), torch.get_num_threads())
    return choose(requested, device, lambda: training_probe(net, batch, memory_format), key, cache)
