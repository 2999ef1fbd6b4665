"""The inference server's shared-memory transport answers each worker with exactly what the
network gives, and a replacement worker never takes its predecessor's answer for its own."""

import threading
import time

import numpy as np
import pytest
import torch

from alphazero.nn.config import model_preset
from alphazero.nn.inference import NetworkEvaluator
from alphazero.nn.model import AlphaZeroNet
from alphazero.othello.game import GameState
from alphazero.selfplay import inference_server
from alphazero.selfplay.inference_server import REQUEST_SEQ, RESPONSE_SEQ, SIZE, STOP, RemoteEvaluator, SharedChannels, serve, server_stats
from alphazero.selfplay.throughput import server_time_shares


def _positions(count, seed):
    rng, rows = np.random.default_rng(seed), []
    while len(rows) < count:
        state = GameState.start()
        for _ in range(rng.integers(0, 40)):
            legal = state.legal_actions()
            state = state.play(int(legal[rng.integers(len(legal))]))
            if state.is_over():
                break
        if not state.is_over():
            rows.append(state.as_array())
    return np.array(rows, dtype=np.uint64)


def _server(channels, evaluator, pipeline=False):
    thread = threading.Thread(target=serve, args=(channels, lambda: evaluator, 64, 0.5, torch.device("cpu")),
                              kwargs={"pipeline": pipeline}, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("pipeline", [False, True])
def test_workers_get_the_networks_answers_through_shared_memory(pipeline):
    channels = SharedChannels.create(workers=3, capacity=40)
    evaluator = NetworkEvaluator(AlphaZeroNet(model_preset("tiny")), device="cpu", threads=1)
    server = _server(channels, evaluator, pipeline)
    results = {}

    def worker(w):
        remote = RemoteEvaluator(w, channels)
        results[w] = [(batch, remote(batch)) for batch in (_positions(40, w), _positions(7, 10 + w), _positions(1, 20 + w))]

    try:
        threads = [threading.Thread(target=worker, args=(w,)) for w in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert sorted(results) == [0, 1, 2]
        for answers in results.values():
            for batch, (priors, values) in answers:
                expected_priors, expected_values = evaluator(batch)
                np.testing.assert_allclose(priors, expected_priors, atol=1e-5)
                np.testing.assert_allclose(values, expected_values, atol=1e-5)
    finally:
        channels.server[STOP] = 1
        server.join(10)
        channels.unlink()


def test_a_replacement_worker_numbers_its_requests_after_its_predecessors():
    channels = SharedChannels.create(workers=1, capacity=8)
    try:
        # A predecessor sent request 5 and died before the answer; a late answer to it may still come.
        channels.header[0, REQUEST_SEQ], channels.header[0, RESPONSE_SEQ], channels.header[0, SIZE] = 5, 4, 3
        remote = RemoteEvaluator(0, channels)
        assert remote.request_no == 5
        evaluator = NetworkEvaluator(AlphaZeroNet(model_preset("tiny")), device="cpu", threads=1)
        server = _server(channels, evaluator)
        batch = _positions(6, 1)
        priors, values = remote(batch)  # request 6: the server answers 5 (nobody waits) and 6
        assert channels.header[0, RESPONSE_SEQ] == 6
        np.testing.assert_allclose(priors, evaluator(batch)[0], atol=1e-5)
    finally:
        channels.server[STOP] = 1
        server.join(10)
        channels.unlink()


class _SlowEvaluator:
    """A NetworkEvaluator whose packed evaluation takes at least `seconds` (a slow device)."""

    def __init__(self, inner, seconds):
        self.inner, self.seconds = inner, seconds

    def evaluate_packed(self, packed):
        time.sleep(self.seconds)
        return self.inner.evaluate_packed(packed)


def test_the_server_accounts_its_time_to_idle_window_io_and_compute():
    channels = SharedChannels.create(workers=2, capacity=8)
    evaluator = _SlowEvaluator(NetworkEvaluator(AlphaZeroNet(model_preset("tiny")), device="cpu", threads=1), 0.02)
    before = server_stats(channels)
    server = _server(channels, evaluator)
    try:
        remote = RemoteEvaluator(0, channels)
        time.sleep(0.1)  # no request yet: idle
        for seed in range(5):
            remote(_positions(4, seed))
        after = server_stats(channels)
    finally:
        channels.server[STOP] = 1
        server.join(10)
        channels.unlink()
    assert after["calls"] - before["calls"] == 5 and after["positions"] - before["positions"] == 20
    assert after["compute_seconds"] >= 5 * 0.02  # every call's device time is compute
    assert after["idle_seconds"] >= 0.09  # the wait before the first request
    assert after["window_seconds"] > 0  # one worker of two: each batch waited for the other
    assert after["busy_seconds"] == pytest.approx(after["io_seconds"] + after["compute_seconds"], abs=1e-6)
    shares = server_time_shares(before, after)
    assert set(shares) == {"idle", "window", "io", "compute"} and sum(shares.values()) == pytest.approx(1, abs=0.01)
    assert shares["compute"] > shares["io"]


def test_server_time_shares_of_a_server_that_accounted_nothing_are_none():
    stats = {"idle_seconds": 1.0, "window_seconds": 0.0, "io_seconds": 0.0, "compute_seconds": 2.0}
    assert server_time_shares(stats, dict(stats)) is None
    assert server_time_shares({}, stats) == {"idle": 0.333, "window": 0.0, "io": 0.0, "compute": 0.667}


class _SlowDeviceEvent:
    """A CUDA event's interface for a batch the fake device finishes `seconds` after its launch."""

    def __init__(self, seconds):
        self.done_at = time.perf_counter() + seconds

    def query(self):
        return time.perf_counter() >= self.done_at

    def synchronize(self):
        time.sleep(max(0.0, self.done_at - time.perf_counter()))


def test_the_pipelined_server_launches_the_next_batch_while_one_is_in_flight(monkeypatch):
    """With an asynchronous device (each batch done 250 ms after its launch: long beside the
    scheduling delays of a loaded 2-core machine, where 30 ms once let every batch finish before
    the next launch), the pipelined server
    gathers and launches the other workers' batch while the first is in flight, and every worker
    still gets exactly its own answers."""
    launches = []  # (time, workers in the batch, batches in flight at the launch)
    real_launch = inference_server._launch

    def async_launch(gatherer, evaluator, parts, buffer, device):
        batch = real_launch(gatherer, evaluator, parts, buffer, device)
        in_flight = sum(1 for _, _, event in launches if not event.query())
        batch.event = _SlowDeviceEvent(0.25)
        launches.append((sorted(w for w, *_ in parts), in_flight, batch.event))
        return batch

    monkeypatch.setattr(inference_server, "_launch", async_launch)
    channels = SharedChannels.create(workers=4, capacity=16)
    evaluator = NetworkEvaluator(AlphaZeroNet(model_preset("tiny")), device="cpu", threads=1)
    server = _server(channels, evaluator, pipeline=True)
    results, errors = {}, []

    def worker(w):
        try:
            remote = RemoteEvaluator(w, channels)
            time.sleep(0.01 * w)  # staggered starts: not every worker in the first batch
            results[w] = [(batch, remote(batch)) for batch in (_positions(16, 30 + w), _positions(5, 40 + w), _positions(9, 50 + w))]
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    try:
        threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        stats = server_stats(channels)
    finally:
        channels.server[STOP] = 1
        server.join(10)
        channels.unlink()
    assert not errors and sorted(results) == [0, 1, 2, 3]
    for answers in results.values():
        for batch, (priors, values) in answers:
            expected_priors, expected_values = evaluator(batch)
            np.testing.assert_allclose(priors, expected_priors, atol=1e-5)
            np.testing.assert_allclose(values, expected_values, atol=1e-5)
    assert any(in_flight for _, in_flight, _ in launches), "no batch was launched while another was in flight"
    assert all(in_flight <= 1 for _, in_flight, _ in launches)  # two buffers: at most one other batch out
    assert stats["calls"] == len(launches) and stats["positions"] == 4 * (16 + 5 + 9)
    assert sum(len(workers) for workers, _, _ in launches) == 12  # each request in exactly one batch
    assert stats["sync_seconds"] > 0  # waiting for the (fake) device


# ------------------------------------------------------------------------------------------------
# Store order. A weakly ordered CPU may show a reader a slot's sequence number before the data
# written ahead of it. These tests write the slots in the worst orders by hand and check that a
# slot is never evaluated, nor an answer taken, until all of it is there.


def _commit_request(channels, w, request_no, packed, write_data=True, write_sum=True, write_seq=True):
    """What a worker's request writes, each part optional (a reader that sees only some of them)."""
    from alphazero.selfplay.inference_server import REQUEST_SUM
    from alphazero.selfplay.slot_checksum import slot_checksum

    n = len(packed)
    if write_data:
        channels.requests[w, :n] = packed
    channels.header[w, SIZE] = n
    if write_sum:
        channels.header[w, REQUEST_SUM] = slot_checksum(request_no, n, packed)
    if write_seq:
        channels.header[w, REQUEST_SEQ] = request_no


def _packed(count, seed):
    from alphazero.nn.encoding import pack_positions_and_mask

    packed, _ = pack_positions_and_mask(_positions(count, seed))
    return packed.view(np.int64)


def test_a_request_seen_before_its_data_or_checksum_is_never_gathered():
    channels = SharedChannels.create(workers=2, capacity=16)
    try:
        gatherer = inference_server._Gatherer(channels, max_batch=64, wait_s=0.0, device=torch.device("cpu"))
        old, new = _packed(8, 1), _packed(8, 2)
        _commit_request(channels, 0, 1, old)
        assert [w for w, *_ in gatherer.gather(gatherer.pending())] == [0]
        channels.header[0, RESPONSE_SEQ] = 1  # answered
        # Request 2: its number and size are visible, its data and checksum are not yet.
        _commit_request(channels, 0, 2, new, write_data=False, write_sum=False)
        assert gatherer.gather(gatherer.pending()) == []
        # The checksum arrives before the data (stores seen out of order).
        _commit_request(channels, 0, 2, new, write_data=False)
        assert gatherer.gather(gatherer.pending()) == []
        # Half of the data: torn.
        channels.requests[0, :4] = new[:4]
        assert gatherer.gather(gatherer.pending()) == []
        # All of it: gathered, and the staging buffer holds exactly the new request.
        channels.requests[0, :8] = new
        parts = gatherer.gather(gatherer.pending())
        assert [(w, request_no, n) for w, request_no, _, n in parts] == [(0, 2, 8)]
        np.testing.assert_array_equal(gatherer.staging_np[0][:8], new)
    finally:
        channels.unlink()


def test_an_answer_seen_before_its_data_is_never_taken():
    """A server whose stores reach the worker in the worst order (number first, data long after):
    the worker waits for the real answer instead of returning the slot's stale contents."""
    from alphazero.selfplay.inference_server import RESPONSE_SUM
    from alphazero.selfplay.slot_checksum import slot_checksum

    channels = SharedChannels.create(workers=1, capacity=16)
    evaluator = NetworkEvaluator(AlphaZeroNet(model_preset("tiny")), device="cpu", threads=1)
    positions = _positions(6, 3)
    expected_priors, expected_values = evaluator(positions)
    channels.priors[0] = 0.5  # stale contents of the response slot
    channels.values[0] = 0.25

    def reordering_server():
        while channels.header[0, REQUEST_SEQ] == 0:
            time.sleep(1e-3)
        request_no, n = int(channels.header[0, REQUEST_SEQ]), int(channels.header[0, SIZE])
        channels.header[0, RESPONSE_SEQ] = request_no  # seen first
        time.sleep(0.2)
        channels.priors[0, :n] = expected_priors
        time.sleep(0.05)
        channels.values[0, :n] = expected_values
        channels.header[0, RESPONSE_SUM] = slot_checksum(request_no, n, channels.priors[0, :n], channels.values[0, :n])

    thread = threading.Thread(target=reordering_server, daemon=True)
    try:
        thread.start()
        priors, values = RemoteEvaluator(0, channels)(positions)
        np.testing.assert_array_equal(priors, expected_priors)
        np.testing.assert_array_equal(values, expected_values)
    finally:
        thread.join(5)
        channels.unlink()


def test_the_checksum_names_its_request_number_and_size():
    from alphazero.selfplay.slot_checksum import slot_checksum

    data = _packed(5, 4)
    base = slot_checksum(7, 5, data)
    assert base == slot_checksum(7, 5, data.copy())
    assert base != slot_checksum(8, 5, data)  # an older request's checksum does not fit a new number
    assert base != slot_checksum(7, 4, data[:4])
    flipped = data.copy()
    flipped[3, 1] ^= 1 << 20
    assert base != slot_checksum(7, 5, flipped)
