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
from alphazero.selfplay.reports import DoneReport, ErrorReport, ProgressReport, ShardReport
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
    assert not [m for m in messages if isinstance(m, ErrorReport)], messages
    shards = {0: [], 1: []}
    for report in messages:
        if isinstance(report, ShardReport):
            shards[report.task_id].append(report)
    assert sum(s.games for s in shards[0]) >= 9 and sum(s.games for s in shards[1]) >= 5
    for task_shards in shards.values():  # full shards; only a task's last one may differ
        assert all(s.games == 4 for s in task_shards[:-1])
    games = set()
    total = 0
    for shard in shards[0] + shards[1]:
        data = read_shard(shard.path)
        assert data.num_games == shard.games
        for g in range(data.num_games):
            actions = data.actions[data.action_offsets[g] : data.action_offsets[g + 1]]
            games.add((int(data.start_black[g]), int(data.start_white[g]), actions.tobytes()))
            total += 1
    assert len(games) == total, "a game was written twice"
    assert sum(isinstance(m, DoneReport) for m in messages) == 2
    # Every shard follows a progress report with the search work since the previous one.
    progress = [m for m in messages if isinstance(m, ProgressReport)]
    assert all(messages[messages.index(shard) - 1].__class__ is ProgressReport for shard in shards[0] + shards[1])
    assert sum(p.calls for p in progress) > 0 and sum(p.evaluations for p in progress) >= sum(p.calls for p in progress)
    assert sum(p.moves for p in progress) >= sum(s.positions for s in shards[0] + shards[1])


def test_a_stopped_worker_writes_the_games_it_finished_instead_of_dropping_them(tmp_path, monkeypatch):
    """The stop flag set mid-task (a first Ctrl-C): the games finished but short of a full shard
    are written as a last shard."""
    checkpoints.publish_best(tmp_path, AlphaZeroNet(model_preset("tiny")), 0, 0.0, 0)
    slots = 6
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=slots, games_per_shard=1000)  # no shard would fill
    mcts_cfg = MCTSConfig(simulations=2, temperature_plies=10)
    monkeypatch.setattr("alphazero.selfplay.parent_death.exit_with_parent", lambda: None)
    monkeypatch.setattr("alphazero.selfplay.worker.PROGRESS_SECONDS", 0.25)  # look often, stop soon after
    stop = threading.Event()
    task_queue, results = queue.Queue(), queue.Queue()
    task_queue.put(Task(0, 0, seed=3))
    real_put = results.put
    # A game has at most 120 plies (60 moves, a pass before each at most): once the slots have
    # played more than that each, one of their games has certainly finished.
    enough = slots * 120 + 1

    def put(report):
        real_put(report)
        played = sum(r.moves for r in list(results.queue) if isinstance(r, ProgressReport))
        if isinstance(report, ProgressReport) and played >= enough:
            stop.set()

    results.put = put
    previous = signal.getsignal(signal.SIGINT)
    try:
        worker_main(0, str(tmp_path), selfplay_cfg, mcts_cfg, task_queue, results, stop)
    finally:
        signal.signal(signal.SIGINT, previous)
    reports = list(results.queue)
    shards = [r for r in reports if isinstance(r, ShardReport)]
    assert len(shards) == 1 and shards[0].games >= 1
    assert read_shard(shards[0].path).num_games == shards[0].games


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


def test_a_shard_is_cut_at_the_step_that_fills_it_not_after_seconds_of_play(tmp_path, monkeypatch):
    """Shards of games_per_shard games (a task's last one with the games of its final step): a
    worker does not play on for seconds and pour the extra games into one big shard."""
    checkpoints.publish_best(tmp_path, AlphaZeroNet(model_preset("tiny")), 0, 0.0, 0)
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=8, games_per_shard=4)
    mcts_cfg = MCTSConfig(simulations=2, temperature_plies=10)
    messages = _run_worker_in_process(tmp_path, [Task(0, 8, seed=5)], selfplay_cfg, mcts_cfg, monkeypatch)
    shards = [m for m in messages if isinstance(m, ShardReport)]
    # 8 slots finish their games together: the first shard takes 4, the task's last the rest of
    # that step (at most the 8 slots' games), never seconds' worth of further steps.
    assert shards[0].games == 4 and sum(s.games for s in shards) <= 8 + 4


def test_a_damaged_file_of_games_in_flight_is_set_aside_not_a_crash_on_every_start(tmp_path):
    """A truncated or overwritten selfplay-in-flight/w<id>.npz is no zip at all (BadZipFile, not an
    OSError): the worker that takes it over sets it aside as .bad and plays on, and the count of
    saved games at the end of a session reads it as none (it used to kill the worker at every
    start, and the run's last message was a traceback)."""
    from alphazero.faults.badinput import random_records
    from alphazero.selfplay.packing import count_games, save_games
    from alphazero.selfplay.worker import IN_FLIGHT_DIR, take_in_flight

    directory = tmp_path / IN_FLIGHT_DIR
    directory.mkdir()
    save_games(directory / "w0.npz", random_records(np.random.default_rng(0), 2))
    whole = (directory / "w0.npz").read_bytes()
    for damaged in (whole[:100], b"", b"garbage", whole[:-40]):
        (directory / "w0.npz").write_bytes(damaged)
        assert count_games(directory / "w0.npz") == 0
        assert take_in_flight(str(tmp_path), 0, 1) == []
        assert sorted(path.name for path in directory.iterdir()) == ["w0.npz.bad"]
        assert (directory / "w0.npz.bad").read_bytes() == damaged
        (directory / "w0.npz.bad").unlink()
