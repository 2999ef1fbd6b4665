"""A process that dies on every start stops the run with its last error instead of being restarted
forever; one that works between deaths (killed by the OOM killer, by the fault campaign) never
spends its budget."""

import time

import pytest

from alphazero.mcts.config import MCTSConfig
from alphazero.nn.config import model_preset
from alphazero.nn.model import AlphaZeroNet
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.pool import WorkerPool
from alphazero.selfplay.restarts import ProcessKeepsDying, RestartBudget
from alphazero.train import checkpoints


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_deaths_without_work_in_between_spend_the_budget_and_name_the_last_error():
    clock = Clock()
    budget = RestartBudget("self-play worker 1", max_restarts=2, window_seconds=60, clock=clock)
    budget.died(-9)
    clock.now = 10
    budget.error('Traceback (most recent call last):\n  File "x.py", line 1\nFileNotFoundError: checkpoint net.pt does not exist\n')
    budget.died(1)
    clock.now = 20
    with pytest.raises(ProcessKeepsDying, match=r"self-play worker 1 died 3 times within 60 s .* "
                                                r"Its last error: FileNotFoundError: checkpoint net.pt does not exist$"):
        budget.died(1)


def test_work_between_deaths_and_old_deaths_do_not_count():
    clock = Clock()
    budget = RestartBudget("the inference server", max_restarts=1, window_seconds=60, clock=clock)
    for _ in range(50):  # killed again and again, but working in between: the fault campaign
        budget.died(-9)
        clock.now += 1
        budget.delivered()
    budget.died(-9)
    clock.now += 61  # the earlier death left the window
    budget.died(-9)
    clock.now += 1
    with pytest.raises(ProcessKeepsDying, match="the inference server died 2 times .* exit code -9, no error reported"):
        budget.died(-9)


# Through the inference server it takes 16 s (two processes die and restart): slow, run by name in CI;
# the direct path stays in the default run.
@pytest.mark.parametrize("inference_server", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_process_that_dies_on_every_start_stops_the_pool_with_its_last_error(tmp_path, inference_server):
    checkpoints.publish_best(tmp_path, AlphaZeroNet(model_preset("tiny")), 0, 0.0, 0)
    pointer = checkpoints.read_best_pointer(tmp_path)
    with open(pointer["path"], "wb") as handle:  # the best network's file is damaged: every load fails
        handle.write(b"not a checkpoint")
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=2, games_per_shard=1, inference_server=inference_server, device="cpu",
                                  max_restarts=1, restart_window_seconds=600)
    pool = WorkerPool(str(tmp_path), selfplay_cfg, MCTSConfig(simulations=2), seed=0)
    who = "the inference server" if inference_server else "self-play worker 0"
    try:
        pool.assign(0, 4)
        deadline = time.monotonic() + 240
        with pytest.raises(ProcessKeepsDying, match=rf"{who} died 2 times .* Its last error: .*{pointer['path'].split('/')[-1]}"):
            while True:  # the sync loop's wait: it must end
                assert time.monotonic() < deadline, "the pool kept restarting a process that cannot start"
                pool.poll(timeout=0.5)
    finally:
        pool.close()
