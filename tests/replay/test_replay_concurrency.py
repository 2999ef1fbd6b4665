"""Two writer processes and a refreshing reader share one directory: no game lost or duplicated."""

import multiprocessing
import time

import numpy as np

from alphazero.replay.buffer import ReplayBuffer, ShardWriter, list_shards
from alphazero.replay.shard import read_records
from replay_games import random_records

GAMES_PER_SHARD = 2
SHARDS_PER_WRITER = 12


def write_shards(directory, writer_id, records):
    """Child process body: one shard at a time, with pauses so the reader's scans interleave."""
    writer = ShardWriter(directory, writer_id)
    for i in range(0, len(records), GAMES_PER_SHARD):
        writer.write(records[i : i + GAMES_PER_SHARD])
        time.sleep(0.01)


def test_concurrent_writers_lose_and_duplicate_nothing(tmp_path):
    per_writer = GAMES_PER_SHARD * SHARDS_PER_WRITER
    records = {writer: random_records(per_writer, seed=40 + k, first_id=1000 * k) for k, writer in enumerate(("a", "b"))}
    total_positions = sum(len(r) - r.num_passes() for games in records.values() for r in games)
    reader = ReplayBuffer(tmp_path, window_positions=10**6)

    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=write_shards, args=(str(tmp_path), w, games)) for w, games in records.items()]
    for process in processes:
        process.start()
    seen = [reader.total_games]
    deadline = time.monotonic() + 60
    while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
        reader.refresh()
        seen.append(reader.total_games)
        time.sleep(0.005)
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    reader.refresh()

    assert seen == sorted(seen), "the reader's game count went backwards"
    assert len(set(seen)) > 2, "the reader never saw the writers mid-run"
    assert reader.total_games == 2 * per_writer
    assert reader.total_positions == reader.window_size == total_positions
    assert not list(tmp_path.glob("*.tmp")) and not (tmp_path / "quarantine").exists()
    names = list_shards(tmp_path)
    assert len(names) == 2 * SHARDS_PER_WRITER
    game_ids = [r.metadata["game_id"] for name in names for r in read_records(tmp_path / name)]
    assert sorted(game_ids) == sorted(r.metadata["game_id"] for games in records.values() for r in games)

    restarted = ReplayBuffer(tmp_path, window_positions=10**6)
    assert restarted.state_dict() == reader.state_dict()
    rows, restarted_rows = reader._rows, restarted._rows
    np.testing.assert_array_equal(
        rows.positions[rows.physical(rows.begin, rows.end)], restarted_rows.positions[restarted_rows.physical(restarted_rows.begin, restarted_rows.end)]
    )
