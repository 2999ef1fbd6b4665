"""Self-play with the inference server survives SIGKILL of a worker and of the server: the dead
process is replaced and every worker writes shards again (the old queue transport hung here)."""

import os
import signal
import time

import pytest

from alphazero.mcts.config import MCTSConfig
from alphazero.nn.config import model_preset
from alphazero.nn.model import AlphaZeroNet
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.pool import WorkerPool
from alphazero.selfplay.reports import ErrorReport, ShardReport
from alphazero.train import checkpoints

RECOVERY_SECONDS = 60  # the target is 30 s; two busy cores start a torch process slowly


def _shards_from_every_worker(pool, workers, timeout):
    """Wait until each worker reported a shard; returns the games reported."""
    seen, games, deadline = set(), 0, time.monotonic() + timeout
    while seen != set(range(workers)):
        assert time.monotonic() < deadline, f"only workers {sorted(seen)} wrote a shard within {timeout}s"
        for report in pool.poll(timeout=0.2):
            if isinstance(report, ShardReport):
                seen.add(report.worker)
                games += report.games
            assert not isinstance(report, ErrorReport), report.message
    return games


# The pipelined variant (about 18 s on 2 cores) runs by name in .ci/run ("long integration tests").
@pytest.mark.parametrize("pipeline", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_killed_server_and_killed_worker_are_replaced_and_self_play_continues(tmp_path, pipeline):
    checkpoints.publish_best(tmp_path, AlphaZeroNet(model_preset("tiny")), 0, 0.0, 0)
    selfplay_cfg = SelfPlayConfig(workers=2, concurrent_games=4, games_per_shard=2, inference_server=True, device="cpu",
                                  server_pipeline=pipeline)
    pool = WorkerPool(str(tmp_path), selfplay_cfg, MCTSConfig(simulations=4, temperature_plies=10), seed=0)
    try:
        for worker_id in range(2):
            pool.assign(worker_id, 0)
        _shards_from_every_worker(pool, 2, timeout=120)

        os.kill(pool.server.process.pid, signal.SIGKILL)
        _shards_from_every_worker(pool, 2, timeout=RECOVERY_SECONDS)
        assert pool.server.restarts == 1

        os.kill(pool.processes[0].pid, signal.SIGKILL)
        _shards_from_every_worker(pool, 2, timeout=RECOVERY_SECONDS)
        assert pool.restarts == 1
    finally:
        pool.close()
    assert not os.path.exists(pool.server.channels.path), "the shared channel file was left behind"
