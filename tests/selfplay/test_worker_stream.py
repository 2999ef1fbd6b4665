"""A self-play worker plays a continuous stream: shards of `games_per_shard`, games in flight carried
from one task to the next, none lost or written twice."""

import queue
import signal
import threading
import time

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.nn.config import model_preset
from alphazero.nn.model import AlphaZeroNet
from alphazero.replay.shard import read_shard
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.worker import CountingEvaluator, Task, worker_main
from alphazero.train import checkpoints


def _run_worker_in_process(run_dir, tasks, selfplay_cfg, mcts_cfg, monkeypatch):
    monkeypatch.setattr("alphazero.selfplay.parent_death.exit_with_parent", lambda: None)
    task_queue, results = queue.Queue(), queue.Queue()
    for task in tasks:
        task_queue.put(task)
    task_queue.put(None)
    previous = signal.getsignal(signal.SIGINT)
    try:
        worker_main(0, str(run_dir), selfplay_cfg, mcts_cfg, task_queue, results, threading.Event())
    finally:
        signal.signal(signal.SIGINT, previous)
    messages = []
    while not results.empty():
        messages.append(results.get())
    return messages


def test_worker_writes_full_shards_and_carries_games_in_flight_across_tasks(tmp_path, monkeypatch):
    checkpoints.publish_best(tmp_path, AlphaZeroNet(model_preset("tiny")), 0, 0.0, 0)
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=6, games_per_shard=4)
    mcts_cfg = MCTSConfig(simulations=4, temperature_plies=10)
    messages = _run_worker_in_process(tmp_path, [Task(0, 9, seed=1), Task(1, 5, seed=2)], selfplay_cfg, mcts_cfg, monkeypatch)
    assert not [m for m in messages if m[0] == "error"], messages
    shards = {0: [], 1: []}
    for kind, _, task_id, payload in messages:
        if kind == "shard":
            shards[task_id].append(payload)
    assert sum(s["games"] for s in shards[0]) >= 9 and sum(s["games"] for s in shards[1]) >= 5
    for task_shards in shards.values():  # full shards; only a task's last one may differ
        assert all(s["games"] == 4 for s in task_shards[:-1])
    games = set()
    total = 0
    for shard in shards[0] + shards[1]:
        data = read_shard(shard["path"])
        assert data.num_games == shard["games"]
        for g in range(data.num_games):
            actions = data.actions[data.action_offsets[g] : data.action_offsets[g + 1]]
            games.add((int(data.start_black[g]), int(data.start_white[g]), actions.tobytes()))
            total += 1
    assert len(games) == total, "a game was written twice"
    assert [kind for kind, *_ in messages].count("done") == 2
    counted = [payload for kind, _, _, payload in messages if kind == "shard"]
    assert all(p["calls"] > 0 and p["evaluations"] >= p["calls"] and p["evaluator_seconds"] > 0 for p in counted)


def test_counting_evaluator_counts_calls_positions_and_the_seconds_spent_in_them():
    def slow(positions):
        time.sleep(0.01)
        return np.zeros((len(positions), 65), np.float32), np.zeros(len(positions), np.float32)

    counter = CountingEvaluator(slow)
    for n in (3, 5):
        counter(np.zeros((n, 2), np.uint64))
    taken = counter.take()
    assert taken["calls"] == 2 and taken["evaluations"] == 8 and 0.02 <= taken["evaluator_seconds"] < 1.0
    assert counter.take() == {"evaluations": 0, "calls": 0, "evaluator_seconds": 0.0}
