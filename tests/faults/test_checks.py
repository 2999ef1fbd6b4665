"""The run-directory checker is the suite's oracle: it must pass a consistent directory and catch
every kind of damage and loss it is meant to see."""

import json

import numpy as np
import pytest

from alphazero.faults.badinput import random_records
from alphazero.faults.checks import Expectations, verify_run_dir
from alphazero.nn.checkpoint import build_network, save_checkpoint
from alphazero.nn.config import model_preset
from alphazero.othello.record import GameRecord
from alphazero.replay.shard import write_shard
from alphazero.train.checkpoints import publish_best

pytestmark = pytest.mark.faults

EXPECT = Expectations(batch_size=32, replay_ratio=4.0, games_per_iteration=4)


def _with_policies(record: GameRecord) -> GameRecord:
    policies = np.zeros((len(record.actions), 65), dtype=np.float16)
    policies[np.arange(len(record.actions)), record.actions] = 1
    return GameRecord(record.start, record.actions, policies, None, record.black_margin, {})


@pytest.fixture
def run_dir(tmp_path):
    records = [_with_policies(r) for r in random_records(np.random.default_rng(0), 8)]
    replay = tmp_path / "replay"
    replay.mkdir()
    write_shard(replay / "shard-0000000001-w0.npz", records[:4])
    write_shard(replay / "shard-0000000002-w0.npz", records[4:])
    net = build_network(model_preset("tiny"))
    publish_best(tmp_path, net, 0, 0.0, 0)
    state = {"step": 10, "iteration": 2, "samples_trained": 320, "best_id": 0, "worker_restarts": 1, "elo_ladder": [[0, 0.0, 0]]}
    save_checkpoint(tmp_path / "checkpoints" / "latest.pt", net, extra=state)
    return tmp_path


def test_a_consistent_directory_passes_and_every_file_is_counted(run_dir):
    verdict = verify_run_dir(run_dir, EXPECT, ended_cleanly=True)
    assert verdict.problems == []
    assert verdict.files_checked == 2 + 3 + 1  # shards, net-0/best.pt/latest.pt, best.json
    assert verdict.snapshot.total_games == 8 and verdict.snapshot.best_id == 0 and verdict.snapshot.step == 10


def test_a_vanished_shard_counts_its_games_as_lost(run_dir):
    before = verify_run_dir(run_dir, EXPECT).snapshot
    (run_dir / "replay" / "shard-0000000001-w0.npz").unlink()
    verdict = verify_run_dir(run_dir, EXPECT, before)
    assert verdict.games_lost == 4
    assert any("shard-0000000001-w0.npz" in p and "missing" in p for p in verdict.problems)


def test_a_truncated_shard_is_reported_and_lost(run_dir):
    before = verify_run_dir(run_dir, EXPECT).snapshot
    path = run_dir / "replay" / "shard-0000000002-w0.npz"
    path.write_bytes(path.read_bytes()[:500])
    verdict = verify_run_dir(run_dir, EXPECT, before)
    assert verdict.games_lost == 4 and any("does not load" in p for p in verdict.problems)


def test_a_partial_game_in_a_shard_is_caught(run_dir):
    record = _with_policies(random_records(np.random.default_rng(5), 1)[0])
    half = len(record.actions) // 2
    partial = GameRecord(record.start, record.actions[:half], record.policies[:half], None, 0, {})
    write_shard(run_dir / "replay" / "shard-0000000003-w0.npz", [partial])
    assert any("unfinished" in p for p in verify_run_dir(run_dir, EXPECT).problems)


def test_a_duplicated_game_is_caught(run_dir):
    record = _with_policies(random_records(np.random.default_rng(0), 1)[0])  # the fixture's first game
    write_shard(run_dir / "replay" / "shard-0000000003-w0.npz", [record])
    assert any("duplicates" in p for p in verify_run_dir(run_dir, EXPECT).problems)


def test_a_pointer_to_a_network_under_another_id_is_caught(run_dir):
    pointer = run_dir / "checkpoints" / "best.json"
    data = json.loads(pointer.read_text())
    save_checkpoint(run_dir / "checkpoints" / "net-000001.pt", build_network(model_preset("tiny")), extra={"network_id": 7})
    pointer.write_text(json.dumps({**data, "id": 1, "file": "net-000001.pt"}))
    problems = verify_run_dir(run_dir, EXPECT).problems
    assert any("holds #7" in p for p in problems)


def test_training_ahead_of_the_data_and_wrong_sample_count_are_caught(run_dir):
    state = {"step": 1000, "iteration": 2, "samples_trained": 5, "best_id": 0, "worker_restarts": 0, "elo_ladder": []}
    save_checkpoint(run_dir / "checkpoints" / "latest.pt", build_network(model_preset("tiny")), extra=state)
    problems = verify_run_dir(run_dir, EXPECT).problems
    assert any("ahead of the data" in p for p in problems) and any("samples_trained" in p for p in problems)


def test_counters_going_backwards_are_caught(run_dir):
    before = verify_run_dir(run_dir, EXPECT).snapshot
    before.best_id, before.step, before.worker_restarts = 3, 50, 4
    problems = verify_run_dir(run_dir, EXPECT, before).problems
    assert any("best.json's id went down" in p for p in problems)
    assert any("step went down" in p for p in problems)
    assert any("worker_restarts went down" in p for p in problems)


def test_after_a_clean_exit_temp_files_and_a_stale_best_copy_are_caught(run_dir):
    (run_dir / "checkpoints" / ".latest.pt.abc.tmp").write_bytes(b"x")
    save_checkpoint(run_dir / "checkpoints" / "best.pt", build_network(model_preset("tiny")), extra={"network_id": 5})
    assert verify_run_dir(run_dir, EXPECT).problems == []  # after a crash both are expected
    problems = verify_run_dir(run_dir, EXPECT, ended_cleanly=True).problems
    assert any(".latest.pt.abc.tmp" in p for p in problems) and any("best.pt holds network #5" in p for p in problems)
