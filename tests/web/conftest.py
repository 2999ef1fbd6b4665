"""A tiny training run directory for the run viewer: two replay shards of random games (with a
search policy and a root value per ply, written through the replay API) and TensorBoard scalars."""

from pathlib import Path

import numpy as np
import pytest

from alphazero.othello.bitboard import NUM_ACTIONS
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord
from alphazero.replay.buffer import shard_name
from alphazero.replay.shard import write_shard


def random_record(rng, network: int) -> GameRecord:
    state, actions, policies = GameState.start(), [], []
    while not state.is_over():
        legal = state.legal_actions()
        policy = np.zeros(NUM_ACTIONS, dtype=np.float32)
        weights = rng.random(len(legal)) + 0.05
        policy[legal] = weights / weights.sum()
        action = int(rng.choice(legal))
        actions.append(action)
        policies.append(policy)
        state = state.play(action)
    return GameRecord(start=GameState.start(), actions=actions, policies=np.array(policies),
                      root_values=rng.uniform(-1, 1, len(actions)).astype(np.float32),
                      black_margin=state.black_margin(), metadata={"network": network, "simulations": 8})


def write_run_shard(run: Path, sequence: int, games: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    path = run / "replay" / shard_name(sequence, "w0")
    write_shard(path, [random_record(rng, network=sequence) for _ in range(games)])
    return path


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    run = tmp_path_factory.mktemp("run")
    (run / "replay").mkdir()
    write_run_shard(run, 1, games=3, seed=1)
    write_run_shard(run, 2, games=2, seed=2)
    writer = SummaryWriter(str(run / "tb"))
    for step in range(0, 500, 100):
        writer.add_scalar("loss/policy", 2.0 - step / 1000, step)
        writer.add_scalar("loss/value", 0.9 - step / 2000, step)
        writer.add_scalar("arena/score", 0.5 + step / 2000, step)
        writer.add_scalar("elo/best", step / 5, step)
        writer.add_scalar("eval/score_vs_greedy", 0.6 + step / 2000, step)
    writer.close()
    return run


def snapshot(directory: Path) -> dict:
    """Every file under `directory` with its size and mtime: what 'nothing changed on disk' compares."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(directory.rglob("*")) if p.is_file()}
