"""One process that evaluates the leaf batches of every self-play worker on one device.

On a GPU, W workers each evaluating their own leaf batches keep the device mostly idle; one server
that gathers the requests of all workers into one large batch does few large network calls.
Workers talk to it through `RemoteEvaluator`, which has the call signature of any other evaluator,
so the search does not know the difference.

Transport: shared memory, no pickling, no locks. `SharedChannels` is one memory-mapped file (in
/dev/shm, named and swept by `channel_files`: a run-unique token, removed by its owner) holding, per worker, a request slot (packed positions int64[capacity, 3] = player,
opponent, legal moves) and a response slot (priors float32[capacity, 65], values float32[capacity]),
plus a header of int64 words per worker:

    REQUEST_SEQ   the worker's latest request number; written after the request's data and size
    RESPONSE_SEQ  the request number the response slot answers; written after the response's data
    SIZE          positions in the latest request
    REQUEST_SUM   checksum of the request's positions, its number and its size (`slot_checksum`)
    RESPONSE_SUM  checksum of the answer's priors and values, the request number and the size
    SHARDS        shards the worker in this slot (and its predecessors) wrote: for the server's
                  restart budget (see `InferenceServer.ensure_alive`)

A worker writes its positions, SIZE and REQUEST_SUM, then bumps REQUEST_SEQ, and polls
RESPONSE_SEQ until it equals its request number and the answer it copied matches RESPONSE_SUM.
The checksums make the protocol independent of the CPU's store order: on a weakly ordered CPU
(aarch64) a reader may see a sequence number before the data written ahead of it, and then finds
that the checksum does not match and looks again on its next pass (see `slot_checksum`); a slot
is never evaluated, nor an answer taken, from data that is not the one its number names. The
server polls all REQUEST_SEQ != RESPONSE_SEQ words at once (one
numpy comparison), waits up to `server_wait_ms` for more workers, copies every pending request
into one (pinned, on CUDA) staging buffer, moves it to the device with one non-blocking copy,
unpacks the planes, runs the network and the masked softmax there, copies the [N, 66] result back
once, and writes each worker's rows and RESPONSE_SEQ: a few numpy slice copies per worker, no
per-position Python work. With `selfplay.server_pipeline` it does the same with two staging
buffers: the next batch is gathered and launched while the device computes the last (waiting
for more workers for as long as the device is busy, instead of `server_wait_ms`), and the last is
answered while the device computes the next (see `serve`).

Why it survives SIGKILL: nothing is ever locked. A killed worker's replacement attaches to the same
slot and numbers its requests after max(REQUEST_SEQ, RESPONSE_SEQ), so a late answer to its
predecessor's request (which it never waits for) cannot be taken for its own; the server answers
the new request on its next pass. A killed server leaves at most unanswered requests: its
replacement, attached to the same file, answers every pending one. (A multiprocessing.Queue, by
contrast, keeps its reader lock held forever when a process dies waiting in `get`.)

The server re-reads `checkpoints/best.json` at most every `POINTER_CHECK_SECONDS` and swaps
networks when a new best is promoted. Its counters sit in the same file for the pool's throughput
figures (`server_stats`): calls and positions, and where its time goes, so that a pipeline that
keeps the GPU idle says why:

    idle     no request pending (the workers are all searching: the workers are the limit)
    window   the first request is in, waiting up to server_wait_ms for the others
    io       copying requests in and answers out of the shared slots
    compute  transfer to the device, planes, network, masked softmax, transfer back (the device);
             on CUDA `sync` is the part of it spent waiting for the device after the last launch:
             a compute time mostly outside sync is the host launching kernels (the GPU starves)
"""

from __future__ import annotations

import logging
import os
import threading
import time
import traceback
from pathlib import Path

import numpy as np

from alphazero.selfplay.channel_files import ChannelFiles
from alphazero.selfplay.slot_checksum import slot_checksum

log = logging.getLogger(__name__)

RESPONSE_TIMEOUT_S = 120.0
POINTER_CHECK_SECONDS = 0.5

# Header words per worker.
REQUEST_SEQ, RESPONSE_SEQ, SIZE, REQUEST_SUM, RESPONSE_SUM, SHARDS = 0, 1, 2, 3, 4, 5
HEADER_WORDS = 8
# Server words (after the worker headers); word 3 held the busy time, now io + compute.
STOP, SERVER_CALLS, SERVER_POSITIONS, SERVER_PID = 0, 1, 2, 4
SERVER_IDLE_NS, SERVER_WINDOW_NS, SERVER_IO_NS, SERVER_COMPUTE_NS, SERVER_SYNC_NS = 5, 6, 7, 8, 9
# The workers' SHARDS summed when the running server took its first batch; -1 until it has.
SERVER_FIRST_BATCH_SHARDS = 10
SERVER_WORDS = 16
_ALIGN = 64


def _aligned(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


class SharedChannels:
    """The request/response slots of `workers` workers of `capacity` positions each, in one
    memory-mapped file. Picklable: a child process re-maps the file by path.

    Arrays (views into the file):
      header:    int64[W, HEADER_WORDS]   REQUEST_SEQ, RESPONSE_SEQ, SIZE per worker
      server:    int64[SERVER_WORDS]      STOP flag and the server's counters
      requests:  int64[W, capacity, 3]    packed positions (player, opponent, legal moves)
      priors:    float32[W, capacity, 65]
      values:    float32[W, capacity]
    """

    def __init__(self, path: str, workers: int, capacity: int, create: bool = False):
        self.path, self.workers, self.capacity = str(path), int(workers), int(capacity)
        self._files: ChannelFiles | None = None  # its owner's files, when these channels made them (create)
        w, c = self.workers, self.capacity
        layout = [
            ("header", np.int64, (w, HEADER_WORDS)),
            ("server", np.int64, (SERVER_WORDS,)),
            ("requests", np.int64, (w, c, 3)),
            ("priors", np.float32, (w, c, 65)),
            ("values", np.float32, (w, c)),
        ]
        size = sum(_aligned(int(np.prod(shape)) * np.dtype(dtype).itemsize) for _, dtype, shape in layout)
        if create:
            with open(self.path, "wb") as handle:
                handle.truncate(size)
        self._map = np.memmap(self.path, dtype=np.uint8, mode="r+", shape=(size,))
        offset = 0
        for name, dtype, shape in layout:
            nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
            setattr(self, name, self._map[offset : offset + nbytes].view(dtype).reshape(shape))
            offset += _aligned(nbytes)

    @classmethod
    def create(cls, workers: int, capacity: int, files: ChannelFiles | None = None) -> "SharedChannels":
        """New channels in `files` (the owner's, which removes them), or in files of their own
        (removed by `unlink`)."""
        own = files is None
        files = ChannelFiles(what="inference server channels") if own else files
        channels = cls(files.path("slots"), workers, capacity, create=True)
        channels._files = files if own else None
        return channels

    def __reduce__(self):
        return (SharedChannels, (self.path, self.workers, self.capacity))

    def unlink(self) -> None:
        """Remove the file (with the rest of its owner's files, when these channels own them)."""
        Path(self.path).unlink(missing_ok=True)
        if self._files is not None:
            self._files.remove()


# server_stats' keys read from a word, each with its scale (1 for counts, 1e-9 for nanoseconds).
_WORDS = {
    "calls": (SERVER_CALLS, 1),
    "positions": (SERVER_POSITIONS, 1),
    "idle_seconds": (SERVER_IDLE_NS, 1e-9),
    "window_seconds": (SERVER_WINDOW_NS, 1e-9),
    "io_seconds": (SERVER_IO_NS, 1e-9),
    "compute_seconds": (SERVER_COMPUTE_NS, 1e-9),
    "sync_seconds": (SERVER_SYNC_NS, 1e-9),
}
STATS = (*_WORDS, "busy_seconds")  # every key of server_stats; busy = io + compute


def server_stats(channels: SharedChannels) -> dict:
    """The server's counters: calls, positions, and seconds busy (io + compute), idle, in the
    collection window, in io, in compute and in compute's sync (see the module docstring).
    Cumulative since the channels were created; a replacement server keeps adding to them."""
    server = channels.server
    stats = {key: int(server[word]) if scale == 1 else float(server[word]) * scale for key, (word, scale) in _WORDS.items()}
    stats["busy_seconds"] = stats["io_seconds"] + stats["compute_seconds"]
    return stats


class RemoteEvaluator:
    """Evaluator protocol over a worker's shared-memory slot (see the module docstring)."""

    def __init__(self, worker_id: int, channels: SharedChannels):
        from alphazero.nn.encoding import pack_positions_and_mask

        self._pack = pack_positions_and_mask
        self.worker_id = worker_id
        self.channels = channels
        self.header = channels.header[worker_id]
        self.request = channels.requests[worker_id]
        self.priors = channels.priors[worker_id]
        self.values = channels.values[worker_id]
        # Number after anything a predecessor in this slot sent or was answered.
        self.request_no = int(max(self.header[REQUEST_SEQ], self.header[RESPONSE_SEQ]))
        self.calls = 0
        self.positions_evaluated = 0

    def __call__(self, positions: np.ndarray):
        n = len(positions)
        if n == 0:
            return np.zeros((0, 65), dtype=np.float32), np.zeros(0, dtype=np.float32)
        if n > self.channels.capacity:
            raise ValueError(f"RemoteEvaluator: {n} positions exceed the slot's capacity {self.channels.capacity}")
        packed, _ = self._pack(np.ascontiguousarray(positions, dtype=np.uint64))
        request = packed.view(np.int64)
        self.request[:n] = request
        self.header[SIZE] = n
        self.request_no += 1
        self.header[REQUEST_SUM] = slot_checksum(self.request_no, n, request)
        self.header[REQUEST_SEQ] = self.request_no  # the commit: written after the data (the checksum makes its order moot)
        answer = self._wait(self.request_no, n)
        self.calls += 1
        self.positions_evaluated += n
        return answer

    def _answer(self, request_no: int, n: int):
        """The answer to request `request_no` if the response slot holds all of it, else None
        (not answered yet, or seen before its data: see the module docstring)."""
        if self.header[RESPONSE_SEQ] != request_no:
            return None
        priors, values = self.priors[:n].copy(), self.values[:n].copy()
        if slot_checksum(request_no, n, priors, values) != self.header[RESPONSE_SUM]:
            return None
        return priors, values

    def _wait(self, request_no: int, n: int):
        for _ in range(200):  # answers to large batches come in ~ms: spin briefly first
            if self.header[RESPONSE_SEQ] == request_no:
                break
        deadline = time.monotonic() + RESPONSE_TIMEOUT_S
        pause = 20e-6
        while (answer := self._answer(request_no, n)) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"inference server gave no answer within {RESPONSE_TIMEOUT_S:.0f}s (worker {self.worker_id})")
            time.sleep(pause)
            pause = min(pause * 1.5, 1e-3)
        return answer


class ServerHandle:
    """What a worker process receives: the shared channels, and a factory for its RemoteEvaluator."""

    def __init__(self, channels: SharedChannels):
        self.channels = channels

    def evaluator(self, worker_id: int) -> RemoteEvaluator:
        return RemoteEvaluator(worker_id, self.channels)

    def shard_written(self, worker_id: int) -> None:
        """The worker in slot `worker_id` wrote a shard (its only writer: no lock needed)."""
        self.channels.header[worker_id, SHARDS] += 1


class _Gatherer:
    """Collects the pending requests of all workers into a staging buffer (pinned on CUDA), and
    copies the answers back. `buffers` staging/result pairs: 2 when one batch is gathered and
    answered while the device computes the other (`pipeline`)."""

    def __init__(self, channels: SharedChannels, max_batch: int, wait_s: float, device, buffers: int = 1):
        import torch

        self.channels, self.max_batch, self.wait_s = channels, max_batch, wait_s
        total = channels.workers * channels.capacity
        pin = device.type == "cuda"
        self.staging = [torch.empty((total, 3), dtype=torch.int64, pin_memory=pin) for _ in range(buffers)]
        self.results = [torch.empty((total, 66), dtype=torch.float32, pin_memory=pin) for _ in range(buffers)]
        self.staging_np = [tensor.numpy() for tensor in self.staging]
        self.results_np = [tensor.numpy() for tensor in self.results]

    def pending(self, exclude: np.ndarray | None = None) -> np.ndarray:
        """Workers whose latest request is unanswered (less those in `exclude`: in flight)."""
        header = self.channels.header
        waiting = header[:, REQUEST_SEQ] != header[:, RESPONSE_SEQ]
        if exclude is not None:
            waiting &= ~exclude
        return np.flatnonzero(waiting)

    def wait(self, stop) -> np.ndarray:
        """Workers with a pending request: block for the first, then up to wait_s for the rest
        (or until every worker waits, or max_batch positions are there). Adds the time before the
        first request to the IDLE counter and the rest to WINDOW."""
        header, server = self.channels.header, self.channels.server
        pause = 20e-6
        start = time.perf_counter_ns()
        while True:
            ready = self.pending()
            if len(ready):
                break
            if server[STOP] or stop():
                server[SERVER_IDLE_NS] += time.perf_counter_ns() - start
                return ready
            time.sleep(pause)
            pause = min(pause * 1.5, 1e-3)
        first = time.perf_counter_ns()
        server[SERVER_IDLE_NS] += first - start
        deadline = time.perf_counter() + self.wait_s
        while len(ready) < self.channels.workers and header[ready, SIZE].sum() < self.max_batch and time.perf_counter() < deadline:
            time.sleep(20e-6)
            ready = self.pending()
        server[SERVER_WINDOW_NS] += time.perf_counter_ns() - first
        return ready

    def collect_while(self, busy, in_flight: np.ndarray, stop) -> np.ndarray:
        """Pending workers not in flight, collected while the device works on the batch in
        flight: returns once `busy()` is false, or every other worker is pending, or max_batch
        positions are (then the next batch queues behind the one in flight, on the device).
        The time counts as compute and its sync: the device is the one working."""
        header, server = self.channels.header, self.channels.server
        if not busy():  # done already (always so on the CPU, where _launch computes): nothing to wait for
            return self.pending(in_flight)
        others = self.channels.workers - int(in_flight.sum())
        pause = 20e-6
        start = time.perf_counter_ns()
        while True:
            ready = self.pending(in_flight)
            if not busy() or len(ready) >= others or header[ready, SIZE].sum() >= self.max_batch or server[STOP] or stop():
                break
            time.sleep(pause)
            pause = min(pause * 1.5, 2e-4)
        spent = time.perf_counter_ns() - start
        server[SERVER_COMPUTE_NS] += spent
        server[SERVER_SYNC_NS] += spent
        return ready

    def gather(self, ready: np.ndarray, buffer: int = 0) -> list[tuple[int, int, int, int]]:
        """Copy the requests into staging buffer `buffer`; returns (worker, request_no, offset, size)."""
        channels, staging = self.channels, self.staging_np[buffer]
        parts, offset = [], 0
        for w in ready:
            request_no = int(channels.header[w, REQUEST_SEQ])
            n = int(channels.header[w, SIZE])
            if not 0 < n <= channels.capacity:
                continue  # a slot caught mid-rewrite by a replacement worker: answered next pass
            staging[offset : offset + n] = channels.requests[w, :n]
            if slot_checksum(request_no, n, staging[offset : offset + n]) != channels.header[w, REQUEST_SUM]:
                continue  # its number seen before all its data (or mid-rewrite): taken on a later pass
            parts.append((int(w), request_no, offset, n))
            offset += n
        return parts

    def answer(self, parts, buffer: int = 0) -> None:
        channels, results = self.channels, self.results_np[buffer]
        for w, request_no, offset, n in parts:
            channels.priors[w, :n] = results[offset : offset + n, :65]
            channels.values[w, :n] = results[offset : offset + n, 65]
            channels.header[w, RESPONSE_SUM] = slot_checksum(request_no, n, channels.priors[w, :n], channels.values[w, :n])
            channels.header[w, RESPONSE_SEQ] = request_no  # the commit: written after the data (the checksum makes its order moot)


class _Batch:
    """One gathered batch on its way through the device: its parts, its buffer, and (on CUDA) the
    event recorded after its results' copy back to the host."""

    def __init__(self, parts, buffer: int, total: int, event):
        self.parts, self.buffer, self.total, self.event = parts, buffer, total, event

    def busy(self) -> bool:
        return self.event is not None and not self.event.query()


def _launch(gatherer: _Gatherer, evaluator, parts, buffer: int, device) -> _Batch:
    """Send a gathered batch through the network: to the device, planes, forward, masked softmax,
    back into the pinned result buffer. On CUDA every step is queued without waiting (the returned
    batch's event says when it is done); on the CPU it is done on return."""
    import torch

    total = sum(n for *_, n in parts)
    packed = gatherer.staging[buffer][:total].to(device, non_blocking=True)
    priors, values = evaluator.evaluate_packed(packed)
    out = torch.cat([priors, values.unsqueeze(1)], dim=1)
    gatherer.results[buffer][:total].copy_(out, non_blocking=True)
    event = None
    if device.type == "cuda":
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(device))
    return _Batch(parts, buffer, total, event)


def _finish(gatherer: _Gatherer, batch: _Batch) -> None:
    """Wait for `batch`'s results (time counted as compute and sync), answer its workers (io)."""
    server = gatherer.channels.server
    start = synced = time.perf_counter_ns()
    if batch.event is not None:  # on the CPU the batch was computed in _launch: nothing to wait for
        batch.event.synchronize()
        synced = time.perf_counter_ns()
    gatherer.answer(batch.parts, batch.buffer)
    end = time.perf_counter_ns()
    server[SERVER_CALLS] += 1
    server[SERVER_POSITIONS] += batch.total
    server[SERVER_SYNC_NS] += synced - start
    server[SERVER_COMPUTE_NS] += synced - start
    server[SERVER_IO_NS] += end - synced


def serve(channels: SharedChannels, evaluator_for, max_batch: int, wait_ms: float, device, stop=lambda: False,
          pipeline: bool = False) -> None:
    """The server loop: gather, evaluate on `device`, answer, until the STOP word or `stop()`.

    `evaluator_for()` returns the NetworkEvaluator to use for the next batch (it swaps networks).
    With `pipeline` (selfplay.server_pipeline) the next batch is gathered and launched while the
    device still computes the last one, and the last one is answered while the device computes
    the next: the device never waits for the server's own copies and launches. One batch per
    worker at a time either way (a worker has one request out).
    """
    import torch

    gatherer = _Gatherer(channels, max_batch, wait_ms / 1000.0, device, buffers=2 if pipeline else 1)
    server = channels.server
    in_flight: _Batch | None = None
    flying = np.zeros(channels.workers, dtype=np.bool_)  # workers whose request is in the batch in flight
    buffer = 0
    with torch.inference_mode():
        while not (server[STOP] or stop()):
            if in_flight is None:
                ready = gatherer.wait(stop)
            else:
                ready = gatherer.collect_while(in_flight.busy, flying, stop)
            launched = None
            if len(ready):
                evaluator = evaluator_for()
                start = time.perf_counter_ns()
                parts = gatherer.gather(ready, buffer)
                gathered = time.perf_counter_ns()
                if parts:
                    launched = _launch(gatherer, evaluator, parts, buffer, device)
                end = time.perf_counter_ns()
                server[SERVER_IO_NS] += gathered - start
                server[SERVER_COMPUTE_NS] += end - gathered
            if in_flight is not None and (launched is not None or not in_flight.busy() or server[STOP] or stop()):
                _finish(gatherer, in_flight)  # the device already works on `launched`
                flying[:] = False
                in_flight = None
            if launched is None:
                continue
            if pipeline:
                in_flight = launched
                flying[[w for w, *_ in launched.parts]] = True
                buffer = 1 - buffer
            else:
                _finish(gatherer, launched)
        if in_flight is not None:
            _finish(gatherer, in_flight)


def server_main(run_dir: str, device: str, max_batch: int, wait_ms: float, channels: SharedChannels, stop_event, threads: int = 1,
                pipeline: bool = False, precision: str = "auto"):
    """Entry point of the inference server process (spawned)."""
    import torch

    from alphazero.engine.factory import build_evaluator
    from alphazero.nn.inference import resolve_device
    from alphazero.nn.precision import run_cache_file
    from alphazero.selfplay.parent_death import exit_with_parent, leave_stopping_to_the_parent, set_process_name
    from alphazero.best_pointer import read_best_pointer
    from alphazero.fault_hooks import fault_point

    exit_with_parent()
    set_process_name("az-server")
    leave_stopping_to_the_parent()  # the pool stops us through the STOP word
    torch.set_num_threads(threads)
    device = resolve_device(device)
    channels.server[SERVER_PID] = os.getpid()
    state = {"id": None, "evaluator": None, "checked": 0.0}

    def evaluator_for():  # called once per batch, before it is gathered
        fault_point("server_batch")
        if channels.server[SERVER_FIRST_BATCH_SHARDS] < 0:
            channels.server[SERVER_FIRST_BATCH_SHARDS] = int(channels.header[:, SHARDS].sum())
        return load_network()

    def load_network():  # the best network, re-reading its pointer at most every POINTER_CHECK_SECONDS
        now = time.monotonic()
        if state["evaluator"] is None or now - state["checked"] >= POINTER_CHECK_SECONDS:
            state["checked"] = now
            pointer = read_best_pointer(run_dir)
            if pointer["id"] != state["id"]:
                state["evaluator"] = build_evaluator(pointer["path"], device=device, threads=threads, precision=precision,
                                                     probe_batch=max_batch, precision_cache=run_cache_file(run_dir))
                state["id"] = pointer["id"]
        return state["evaluator"]

    try:
        load_network()  # load (and warm) the network before the first request
        serve(channels, evaluator_for, max_batch, wait_ms, device, stop=stop_event.is_set if stop_event is not None else (lambda: False),
              pipeline=pipeline)
    except Exception:
        # For the pool's restart budget: the error a server that keeps dying died of.
        Path(error_file(channels)).write_text(traceback.format_exc())
        raise


def error_file(channels: SharedChannels) -> str:
    """Where a dying server leaves its traceback (beside its channels, under their owner's token:
    removed with them)."""
    return channels.path + "-error"


def worker_capacity(concurrent_games: int, leaves_per_step: int) -> int:
    """Most positions one search step of a worker evaluates: every game's leaves (or roots)."""
    return concurrent_games * max(1, leaves_per_step)


class InferenceServer:
    """Owns the server process and the shared channels. A watchdog thread restarts the process
    within `WATCHDOG_SECONDS` of its death, whatever the training loop is busy with (an arena
    match in async mode may keep it from polling the pool for minutes)."""

    WATCHDOG_SECONDS = 0.2

    def __init__(self, ctx, run_dir: str, workers: int, device: str, max_batch: int, wait_ms: float, threads: int = 1, pipeline: bool = False,
                 capacity: int = 1024, budget=None, precision: str = "auto", files: ChannelFiles | None = None):
        self.ctx = ctx
        self.args = (run_dir, device, max_batch, wait_ms)
        self.pipeline = pipeline
        self.precision = precision
        self.threads = threads
        self.channels = SharedChannels.create(workers, capacity, files)  # files: the pool's (None: its own)
        self.process = None
        self.restarts = 0
        # restarts.RestartBudget, or None: restart whatever happens (a bench's server).
        self.budget = budget
        self._calls_at_start = 0
        self._failure = None  # the budget's verdict, once spent
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.start()
        self._watchdog = threading.Thread(target=self._watch, name="inference-server-watchdog", daemon=True)
        self._watchdog.start()

    def _watch(self) -> None:
        from alphazero.selfplay.restarts import ProcessKeepsDying

        while not self._closing.wait(self.WATCHDOG_SECONDS):
            try:
                self.ensure_alive()
            except ProcessKeepsDying:
                return  # the pool's next poll() finds the same and stops the run
            except Exception:  # noqa: BLE001 - the watchdog must not die; poll() retries too
                log.exception("inference server watchdog: restart failed")

    def start(self) -> None:
        self._calls_at_start = int(self.channels.server[SERVER_CALLS])
        self.channels.server[SERVER_FIRST_BATCH_SHARDS] = -1
        self.process = self.ctx.Process(
            target=server_main,
            args=(*self.args, self.channels, None, self.threads, self.pipeline, self.precision),
            name="inference-server",
            daemon=True,
        )
        self.process.start()

    def handle(self) -> ServerHandle:
        return ServerHandle(self.channels)

    def stats(self) -> dict:
        return server_stats(self.channels)

    def ensure_alive(self) -> bool:
        """Restart the server if it died; True when it did. Raises restarts.ProcessKeepsDying
        when it keeps dying without delivering work (its budget): the server delivered work
        when it answered a batch and a worker wrote a shard after it took its first one (the
        workers count their shards in the channels' SHARDS words, the server notes their sum
        at its first batch), so only games finished with its answers reset the count."""
        with self._lock:
            if self._failure is not None:
                raise self._failure
            if self._closing.is_set() or self.channels.server[STOP]:
                return False
            if self.process is not None and not self.process.is_alive():
                if self.budget is not None:
                    if self._delivered():
                        self.budget.delivered()
                    error = Path(error_file(self.channels))
                    if error.exists():
                        self.budget.error(error.read_text())
                        error.unlink(missing_ok=True)
                    try:
                        self.budget.died(self.process.exitcode)
                    except Exception as failure:  # ProcessKeepsDying: every later call says the same
                        self._failure = failure
                        raise
                log.warning("inference server died (exit code %s); restarting it", self.process.exitcode)
                self.restarts += 1
                self.start()
                return True
        return False

    def _delivered(self) -> bool:
        server, header = self.channels.server, self.channels.header
        first = int(server[SERVER_FIRST_BATCH_SHARDS])
        return int(server[SERVER_CALLS]) > self._calls_at_start and 0 <= first < int(header[:, SHARDS].sum())

    def close(self, timeout: float = 10.0) -> None:
        if getattr(self, "_closed", False):
            return
        self._closed = True
        self._closing.set()
        self._watchdog.join(5)
        self.channels.server[STOP] = 1
        if self.process is not None:
            self.process.join(timeout)
            if self.process.is_alive():
                self.process.kill()  # it ignores SIGTERM (see leave_stopping_to_the_parent)
                self.process.join(2)
        Path(error_file(self.channels)).unlink(missing_ok=True)
        self.channels.unlink()
