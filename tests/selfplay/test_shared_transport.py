"""The inference server's shared-memory transport answers each worker with exactly what the
network gives, and a replacement worker never takes its predecessor's answer for its own."""

import threading

import numpy as np
import torch

from alphazero.nn.config import model_preset
from alphazero.nn.inference import NetworkEvaluator
from alphazero.nn.model import AlphaZeroNet
from alphazero.othello.game import GameState
from alphazero.selfplay.inference_server import REQUEST_SEQ, RESPONSE_SEQ, SIZE, STOP, RemoteEvaluator, SharedChannels, serve


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


def _server(channels, evaluator):
    thread = threading.Thread(target=serve, args=(channels, lambda: evaluator, 64, 0.5, torch.device("cpu")), daemon=True)
    thread.start()
    return thread


def test_workers_get_the_networks_answers_through_shared_memory():
    channels = SharedChannels.create(workers=3, capacity=40)
    evaluator = NetworkEvaluator(AlphaZeroNet(model_preset("tiny")), device="cpu", threads=1)
    server = _server(channels, evaluator)
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
