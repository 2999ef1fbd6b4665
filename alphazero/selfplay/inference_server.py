"""One process that evaluates the leaf batches of every self-play worker on one device.

On a GPU, W workers each sending 64-leaf batches keep the device mostly idle; one server that
concatenates whatever requests arrived within `server_wait_ms` (up to `server_max_batch` positions)
runs a few large batches instead. Workers talk to it through `RemoteEvaluator`, which has the same
call signature as any other evaluator, so the search does not know the difference.

Protocol: a worker puts (worker_id, token, request_no, positions) on the shared request queue and
waits on its own response queue for (token, request_no, priors, values). The token is new per
evaluator object, so a restarted worker never mistakes a stale answer meant for its predecessor.
The server re-reads `checkpoints/best.json` between batches and swaps networks when a new best
is promoted.
"""

from __future__ import annotations

import logging
import os
import queue
import time

import numpy as np

log = logging.getLogger(__name__)

RESPONSE_TIMEOUT_S = 120.0


class RemoteEvaluator:
    """Evaluator protocol over queues to the inference server."""

    def __init__(self, worker_id: int, requests, responses):
        self.worker_id = worker_id
        self.requests = requests
        self.responses = responses
        self.token = int.from_bytes(os.urandom(6), "little")
        self.request_no = 0

    def __call__(self, positions: np.ndarray):
        self.request_no += 1
        self.requests.put((self.worker_id, self.token, self.request_no, np.ascontiguousarray(positions)))
        deadline = time.monotonic() + RESPONSE_TIMEOUT_S
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"inference server gave no answer within {RESPONSE_TIMEOUT_S:.0f}s (worker {self.worker_id})")
            try:
                token, request_no, priors, values = self.responses.get(timeout=remaining)
            except queue.Empty:
                continue
            if token == self.token and request_no == self.request_no:
                return priors, values


class ServerHandle:
    """What a worker process receives: the queues, and a factory for its RemoteEvaluator."""

    def __init__(self, requests, responses):
        self.requests = requests
        self.responses = responses

    def evaluator(self, worker_id: int) -> RemoteEvaluator:
        return RemoteEvaluator(worker_id, self.requests, self.responses[worker_id])


def _gather(requests, max_batch: int, wait_s: float, stop_event):
    """Block for the first request, then take more until max_batch positions or wait_s passes."""
    while not stop_event.is_set():
        try:
            first = requests.get(timeout=0.2)
            break
        except queue.Empty:
            continue
    else:
        return []
    batch = [first]
    size = len(first[3])
    deadline = time.monotonic() + wait_s
    while size < max_batch:
        remaining = deadline - time.monotonic()
        try:
            item = requests.get(timeout=remaining) if remaining > 0 else requests.get_nowait()
        except queue.Empty:
            break
        batch.append(item)
        size += len(item[3])
    return batch


def server_main(run_dir: str, device: str, max_batch: int, wait_ms: float, requests, responses, stop_event, threads: int = 1):
    """Entry point of the inference server process (spawned)."""
    import torch

    from alphazero.nn.checkpoint import load_network
    from alphazero.nn.inference import NetworkEvaluator
    from alphazero.selfplay.parent_death import exit_with_parent, leave_stopping_to_the_parent
    from alphazero.train.checkpoints import read_best_pointer

    exit_with_parent()
    leave_stopping_to_the_parent()  # the pool stops us through stop_event
    torch.set_num_threads(threads)
    network_id, evaluator = None, None
    while not stop_event.is_set():
        pointer = read_best_pointer(run_dir)
        if pointer["id"] != network_id:
            evaluator = NetworkEvaluator(load_network(pointer["path"]), device=device, threads=threads)
            network_id = pointer["id"]
        batch = _gather(requests, max_batch, wait_ms / 1000.0, stop_event)
        if not batch:
            continue
        positions = np.concatenate([item[3] for item in batch])
        priors, values = evaluator(positions)
        offset = 0
        for worker_id, token, request_no, part in batch:
            n = len(part)
            responses[worker_id].put((token, request_no, priors[offset : offset + n], values[offset : offset + n]))
            offset += n


class InferenceServer:
    """Owns the server process and its queues; restartable if it dies."""

    def __init__(self, ctx, run_dir: str, workers: int, device: str, max_batch: int, wait_ms: float, threads: int = 1):
        self.ctx = ctx
        self.args = (run_dir, device, max_batch, wait_ms)
        self.threads = threads
        self.requests = ctx.Queue()
        self.responses = [ctx.Queue() for _ in range(workers)]
        self.stop_event = ctx.Event()
        self.process = None
        self.restarts = 0
        self.start()

    def start(self) -> None:
        self.process = self.ctx.Process(
            target=server_main,
            args=(*self.args, self.requests, self.responses, self.stop_event, self.threads),
            name="inference-server",
            daemon=True,
        )
        self.process.start()

    def handle(self) -> ServerHandle:
        return ServerHandle(self.requests, self.responses)

    def ensure_alive(self) -> None:
        if self.process is not None and not self.process.is_alive() and not self.stop_event.is_set():
            log.warning("inference server died (exit code %s); restarting it", self.process.exitcode)
            self.restarts += 1
            self.start()

    def kill(self) -> None:
        """SIGKILL the server now (see WorkerPool.kill)."""
        self.stop_event.set()
        if self.process is not None and self.process.is_alive():
            self.process.kill()
            self.process.join(2)

    def close(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        if self.process is not None:
            self.process.join(timeout)
            if self.process.is_alive():
                self.process.kill()  # it ignores SIGTERM (see leave_stopping_to_the_parent)
                self.process.join(2)
