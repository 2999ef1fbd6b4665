"""A run deletes the shards that left its replay window (unless told to keep them), and resumes
after pruning with its counters intact."""

from types import SimpleNamespace

import numpy as np
import pytest

from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord
from alphazero.replay.buffer import PRUNE_LEDGER, ReplayBuffer, list_shards
from alphazero.train.config import TrainConfig
from alphazero.train.loop import TrainingRun

from .helpers import latest_state, run_training


def random_records(count: int, seed: int) -> list[GameRecord]:
    """Uniformly random games with one-hot policies on the move played."""
    rng, records = np.random.default_rng(seed), []
    for _ in range(count):
        state, actions = GameState.start(), []
        while not state.is_over():
            legal = state.legal_actions()
            actions.append(int(legal[rng.integers(len(legal))]))
            state = state.play(actions[-1])
        policies = np.zeros((len(actions), 65), dtype=np.float16)
        policies[np.arange(len(actions)), actions] = 1
        records.append(GameRecord(start=GameState.start(), actions=np.array(actions, dtype=np.int16), policies=policies,
                                  root_values=None, black_margin=state.black_margin(), metadata={}))
    return records


def _buffer_with_old_shards(directory):
    replay = ReplayBuffer(directory, window_positions=200)
    for seed in range(6):
        replay.add_games(random_records(2, seed=seed), writer_id="w0")
    return replay


def test_prune_step_deletes_shards_outside_the_window_and_keep_old_shards_keeps_them(tmp_path):
    kept = _buffer_with_old_shards(tmp_path / "kept")
    TrainingRun._prune_replay(SimpleNamespace(cfg=SimpleNamespace(train=TrainConfig(window_positions=200, batch_size=32, min_positions=100, keep_old_shards=True)), replay=kept))
    assert len(list_shards(kept.directory)) == 6

    pruned = _buffer_with_old_shards(tmp_path / "pruned")
    before = (pruned.total_games, pruned.total_positions, pruned.state_dict()["window_shards"])
    TrainingRun._prune_replay(SimpleNamespace(cfg=SimpleNamespace(train=TrainConfig(window_positions=200, batch_size=32, min_positions=100)), replay=pruned))
    remaining = list_shards(pruned.directory)
    assert 0 < len(remaining) < 6
    assert set(before[2]) <= set(remaining), "a shard still in the window was deleted"
    reopened = ReplayBuffer(pruned.directory, window_positions=200)
    assert (reopened.total_games, reopened.total_positions) == before[:2]
    assert reopened.state_dict()["window_shards"] == before[2]


@pytest.mark.slow  # about 33 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_smoke_run_prunes_its_replay_directory_and_resumes_after_pruning(tmp_path):
    run_dir = tmp_path / "run"
    overrides = ("train.window_positions=300", "train.min_positions=100", "eval.every_steps=0")
    run_training(run_dir, *overrides, "run.max_iterations=2")
    replay_dir = run_dir / "replay"
    assert (replay_dir / PRUNE_LEDGER).exists()
    first = ReplayBuffer(replay_dir, window_positions=300)
    on_disk = sum(s.num_positions for s in first._shards)
    assert on_disk < first.total_positions, "nothing was pruned"
    assert first.window_size == 300
    run_training(run_dir, *overrides, "run.resume=true", "run.max_iterations=3")
    assert latest_state(run_dir)["iteration"] == 3
    resumed = ReplayBuffer(replay_dir, window_positions=300)
    assert resumed.total_games > first.total_games and resumed.total_positions > first.total_positions
