"""A self-play worker plays a continuous stream: shards of `games_per_shard`, games in flight carried
from one task to the next, none lost or written twice."""

import queue
import signal
import threading

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.nn.config import model_preset
from alphazero.nn.model import AlphaZeroNet
from alphazero.replay.shard import read_shard
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.worker import Task, worker_main
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
