"""ReplayBuffer: counters, window, sampling with symmetries, crash leftovers, restart, pruning."""

import logging
import os
import re
import time

import numpy as np
import pytest

from alphazero.othello.bitboard import legal_action_mask_batch
from alphazero.othello.symmetry import INVERSE, transform_policy, transform_positions
from alphazero.replay.buffer import PRUNE_LEDGER, ReplayBuffer, ShardWriter, list_shards, shard_name
from alphazero.replay.shard import read_shard, write_shard
from replay_games import random_records


@pytest.fixture(scope="module")
def games():
    return random_records(60, seed=21)


def chunks(records, size):
    return [records[i : i + size] for i in range(0, len(records), size)]


def positions_of(records):
    return sum(len(r) - r.num_passes() for r in records)


def window_rows(buffer):
    """(positions, policies, outcomes) of every position in the window, for exact comparisons."""
    rows = buffer._rows
    held = rows.physical(rows.begin, rows.end)
    return rows.positions[held], rows.policies[held], rows.outcomes[held]


def newest_rows(directory, count):
    """The newest `count` samples on disk, read straight from the shard files in name order."""
    shards = [read_shard(directory / name) for name in list_shards(directory)]
    positions = np.concatenate([s.positions for s in shards])[-count:]
    policies = np.concatenate([s.policies for s in shards])[-count:]
    outcomes = np.concatenate([s.outcomes for s in shards])[-count:]
    return positions, policies, outcomes


def assert_window_is_newest_on_disk(buffer):
    expected = newest_rows(buffer.directory, buffer.window_size)
    for actual, wanted in zip(window_rows(buffer), expected):
        np.testing.assert_array_equal(actual, wanted)


def test_add_games_counts_games_and_positions(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=10**6)
    path = buffer.add_games(games[:5], writer_id="w0")
    buffer.add_games(games[5:8], writer_id="w1")
    assert path.parent == tmp_path and path.name.startswith("shard-") and path.name.endswith("-w0.npz")
    assert buffer.total_games == 8
    assert buffer.total_positions == positions_of(games[:8])
    assert buffer.window_size == buffer.total_positions
    assert buffer.refresh() == 0  # its own shards are not admitted twice


def test_shard_names_sort_in_creation_order_and_never_repeat(tmp_path, games):
    writer = ShardWriter(tmp_path, "w3")
    names = [writer.write(games[i : i + 1]).path.name for i in range(5)]
    assert names == sorted(names) and len(set(names)) == 5
    restarted = ShardWriter(tmp_path, "w3")
    assert restarted.next_path().name > names[-1]


def test_writer_ids_must_be_safe_in_file_names(tmp_path):
    with pytest.raises(ValueError, match="writer id 'a-b'"):
        ShardWriter(tmp_path, "a-b")


def test_old_positions_leave_the_window(tmp_path, games):
    window = positions_of(games[:10]) + 7  # not a shard boundary: the oldest shard is partly in
    buffer = ReplayBuffer(tmp_path, window_positions=window)
    for chunk in chunks(games[:40], 5):
        buffer.add_games(chunk, writer_id="w0")
    assert buffer.window_size == window
    assert buffer.total_positions == positions_of(games[:40])
    assert_window_is_newest_on_disk(buffer)
    state = buffer.state_dict()
    assert len(state["window_shards"]) == 3  # two whole shards of five games plus part of a third
    assert state["first_window_shard_skipped_positions"] == positions_of(games[25:30]) - 7


def test_window_drops_shards_from_memory(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=200)
    for chunk in chunks(games, 2):
        buffer.add_games(chunk, writer_id="w0")
    loaded = [s for s in buffer._shards if s.row != s.NOT_LOADED]
    assert sum(s.num_positions for s in loaded) < 200 + max(s.num_positions for s in loaded)
    assert len(buffer._rows.outcomes) <= 4 * (200 + positions_of(games[:2]) + 1024)  # storage stays bounded


def test_sampling_shapes_and_value_targets(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=10**6)
    buffer.add_games(games[:10], writer_id="w0")
    batch = buffer.sample(512, np.random.default_rng(0))
    assert batch.positions.shape == (512, 2) and batch.positions.dtype == np.uint64
    assert batch.policies.shape == (512, 65) and batch.policies.dtype == np.float32
    assert batch.values.shape == (512,) and batch.values.dtype == np.float32
    assert set(np.unique(batch.values)) <= {-1.0, 0.0, 1.0}
    np.testing.assert_allclose(batch.policies.sum(axis=1), 1.0, rtol=1e-5)
    assert (batch.positions[:, 0] & batch.positions[:, 1] == 0).all()


def test_symmetric_samples_keep_policy_mass_on_legal_moves(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=10**6)
    buffer.add_games(games[:10], writer_id="w0")
    batch = buffer.sample(2000, np.random.default_rng(1), augment=True)
    assert len(np.unique(batch.symmetries)) == 8
    legal = legal_action_mask_batch(batch.positions)
    assert (batch.policies[~legal] == 0).all()
    assert (batch.policies[legal] > 0).any()


def test_symmetry_is_applied_to_position_and_policy_alike(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=10**6)
    buffer.add_games(games[:10], writer_id="w0")
    positions, policies, _ = window_rows(buffer)
    keys, counts = np.unique(positions, axis=0, return_counts=True)
    repeated = {tuple(k) for k in keys[counts > 1]}  # e.g. the start position, with a policy per game
    stored = {tuple(p): pol for p, pol in zip(positions, policies) if tuple(p) not in repeated}
    batch = buffer.sample(300, np.random.default_rng(2), augment=True)
    originals = transform_positions(batch.positions, INVERSE[batch.symmetries])
    checked = 0
    for policy, symmetry, original in zip(batch.policies, batch.symmetries, originals):
        if tuple(original) in repeated:
            continue
        checked += 1
        target = stored[tuple(original)].astype(np.float32)
        expected = transform_policy(target / target.sum(), symmetry)
        np.testing.assert_allclose(policy, expected, rtol=1e-6)
    assert checked > 200


def test_sampling_without_augmentation_returns_stored_rows(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=10**6)
    buffer.add_games(games[:4], writer_id="w0")
    batch = buffer.sample(100, np.random.default_rng(3), augment=False)
    positions, policies, outcomes = window_rows(buffer)
    normalised = policies.astype(np.float32) / policies.astype(np.float32).sum(axis=1, keepdims=True)
    stored = {(tuple(p), float(v), pol.tobytes()) for p, v, pol in zip(positions, outcomes, normalised)}
    assert (batch.symmetries == 0).all()
    for position, value, policy in zip(batch.positions, batch.values, batch.policies):
        assert (tuple(position), float(value), policy.tobytes()) in stored


def test_sampling_is_uniform_over_the_window(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=300)
    for chunk in chunks(games[:20], 4):
        buffer.add_games(chunk, writer_id="w0")
    rows = buffer._rows
    rng = np.random.default_rng(4)
    hits = np.zeros(300)
    held_positions = rows.positions[rows.physical(rows.begin, rows.end)]
    index = {tuple(p): i for i, p in enumerate(held_positions)}
    for _ in range(20):
        batch = buffer.sample(3000, rng, augment=False)
        for p in batch.positions:
            hits[index[tuple(p)]] += 1
    # 60000 draws over 300 rows: 200 expected each; duplicates of a position share a count.
    unique_counts = np.bincount([index[tuple(p)] for p in held_positions], minlength=300)
    per_row = hits[unique_counts > 0] / unique_counts[unique_counts > 0]
    assert per_row.min() > 120 and per_row.max() < 280


def test_sample_refuses_until_enough_positions(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=10**6, min_positions_to_sample=10**5)
    buffer.add_games(games[:2], writer_id="w0")
    assert not buffer.ready
    with pytest.raises(ValueError, match="fewer than min_positions_to_sample=100000"):
        buffer.sample(8, np.random.default_rng(0))


def test_refresh_sees_shards_from_other_writers(tmp_path, games):
    reader = ReplayBuffer(tmp_path, window_positions=10**6)
    ShardWriter(tmp_path, "w7").write(games[:3])
    ShardWriter(tmp_path, "w8").write(games[3:5])
    assert reader.total_games == 0
    assert reader.refresh() == 2
    assert reader.total_games == 5
    assert_window_is_newest_on_disk(reader)


def test_crash_leftovers_are_ignored_or_quarantined(tmp_path, games, caplog):
    writer = ShardWriter(tmp_path, "w0")
    writer.write(games[:3])
    # A writer killed mid-write leaves a .tmp; another leaves a truncated final file (no fsync).
    stale_tmp = tmp_path / (shard_name(1, "w9") + ".tmp")
    stale_tmp.write_bytes(b"partial")
    old = time.time() - 3600
    os.utime(stale_tmp, (old, old))
    fresh_tmp = tmp_path / (shard_name(2, "w5") + ".tmp")
    fresh_tmp.write_bytes(b"being written right now")
    truncated = writer.write(games[3:6]).path
    truncated.write_bytes(truncated.read_bytes()[:500])

    with caplog.at_level(logging.WARNING, logger="alphazero.replay.buffer"):
        buffer = ReplayBuffer(tmp_path, window_positions=10**6)
    assert buffer.total_games == 3
    assert not stale_tmp.exists()  # older than the grace period: a dead writer's
    assert fresh_tmp.exists()  # may belong to a live writer: left alone, never read
    assert not truncated.exists() and (tmp_path / "quarantine" / truncated.name).exists()
    assert any(truncated.name in r.getMessage() and "unreadable" in r.getMessage() for r in caplog.records)
    assert buffer.refresh() == 0  # the quarantined shard is not retried


def test_writer_removes_its_own_leftover_tmp_on_start(tmp_path):
    mine = tmp_path / (shard_name(5, "w1") + ".tmp")
    theirs = tmp_path / (shard_name(5, "w2") + ".tmp")
    mine.write_bytes(b"x")
    theirs.write_bytes(b"x")
    ShardWriter(tmp_path, "w1")
    assert not mine.exists() and theirs.exists()


def test_restart_sees_the_same_buffer(tmp_path, games):
    window = positions_of(games[:12]) + 3
    buffer = ReplayBuffer(tmp_path, window_positions=window)
    for i, chunk in enumerate(chunks(games, 3)):
        buffer.add_games(chunk, writer_id=f"w{i % 2}")
    restarted = ReplayBuffer(tmp_path, window_positions=window)
    assert restarted.state_dict() == buffer.state_dict()
    for a, b in zip(window_rows(restarted), window_rows(buffer)):
        np.testing.assert_array_equal(a, b)
    first, second = buffer.sample(64, np.random.default_rng(5)), restarted.sample(64, np.random.default_rng(5))
    np.testing.assert_array_equal(first.positions, second.positions)
    np.testing.assert_array_equal(first.policies, second.policies)


def test_late_shard_is_inserted_in_name_order(tmp_path, games):
    window = positions_of(games[:8]) + 5
    buffer = ReplayBuffer(tmp_path, window_positions=window)
    for chunk in chunks(games[:24], 4):
        buffer.add_games(chunk, writer_id="fast")
    names = list_shards(tmp_path)
    # A slow writer finishes a shard whose name sorts between the two newest ones.
    late_sequence = int(names[-1].split("-")[1]) - 1
    write_shard(tmp_path / shard_name(late_sequence, "slow"), games[24:27])
    # And one so old that K newer positions already exist: counted, never in the window.
    write_shard(tmp_path / shard_name(int(names[0].split("-")[1]) - 1, "slow"), games[27:30])
    assert buffer.refresh() == 2
    assert buffer.total_games == 30
    assert buffer.window_size == window
    assert_window_is_newest_on_disk(buffer)
    assert ReplayBuffer(tmp_path, window_positions=window).state_dict() == buffer.state_dict()


def test_prune_deletes_only_shards_outside_the_window_and_keeps_counters(tmp_path, games):
    window = positions_of(games[:10])
    buffer = ReplayBuffer(tmp_path, window_positions=window)
    for chunk in chunks(games, 5):
        buffer.add_games(chunk, writer_id="w0")
    before = buffer.state_dict()
    removed = buffer.prune()
    assert removed and all(not p.exists() for p in removed)
    assert len(list_shards(tmp_path)) == 12 - len(removed)
    after = buffer.state_dict()
    assert (after["total_games"], after["total_positions"], after["window_size"]) == (60, before["total_positions"], window)
    assert after["window_shards"] == before["window_shards"]
    restarted = ReplayBuffer(tmp_path, window_positions=window)
    assert restarted.state_dict() == after
    with pytest.raises(ValueError, match="smaller than the window"):
        buffer.prune(keep_positions=window - 1)


def test_restart_finishes_an_interrupted_prune(tmp_path, games):
    window = positions_of(games[:10])
    buffer = ReplayBuffer(tmp_path, window_positions=window)
    for chunk in chunks(games, 5):
        buffer.add_games(chunk, writer_id="w0")
    doomed = [tmp_path / s.name for s in buffer._shards[:3]]
    saved = {p: p.read_bytes() for p in doomed}
    buffer.prune(keep_positions=buffer.total_positions - positions_of(games[:15]))
    for path, content in saved.items():  # as if the process died after the ledger, before unlink
        path.write_bytes(content)
    assert (tmp_path / PRUNE_LEDGER).exists()
    restarted = ReplayBuffer(tmp_path, window_positions=window)
    assert restarted.state_dict() == buffer.state_dict()
    assert restarted.total_games == 60
    assert not any(p.exists() for p in doomed)


@pytest.mark.parametrize(
    "content, problem",
    [
        (b'{"games": 4, "positions"', "Expecting"),  # truncated
        (b"\xff\xfe{}", "utf-8"),
        (b"[]", "a JSON list"),
        (b'{"games": 4, "positions": 100, "shards": 1}', "no last_pruned"),
        (b'{"games": "x", "positions": 100, "shards": 1, "last_pruned": []}', "games is 'x'"),
        (b'{"games": -4, "positions": 100, "shards": 1, "last_pruned": []}', "games is -4"),
        (b'{"games": 4, "positions": 1.5, "shards": 1, "last_pruned": []}', "positions is 1.5"),
        (b'{"games": 4, "positions": 100, "shards": 1, "last_pruned": "shard-x"}', "not a list of shard file names"),
        (b'{"games": 4, "positions": 100, "shards": 1, "last_pruned": [5]}', "not a list of shard file names"),
        (b'{"games": 4, "positions": 100, "shards": 1, "last_pruned": ["../outside.txt"]}', "not a list of shard file names"),
        (b'{"games": 4, "positions": 100, "shards": 1, "last_pruned": ["notes.txt"]}', "not a list of shard file names"),
    ],
)
def test_a_damaged_prune_ledger_is_refused_naming_it_and_nothing_is_deleted(tmp_path, games, content, problem):
    from alphazero.replay.buffer import PruneLedgerError

    replay = tmp_path / "replay"
    ReplayBuffer(replay, window_positions=10**6).add_games(games[:5], writer_id="w0")
    (tmp_path / "outside.txt").write_text("not the buffer's")
    (replay / "notes.txt").write_text("not the buffer's")
    (replay / PRUNE_LEDGER).write_bytes(content)
    before = sorted(os.listdir(replay))
    with pytest.raises(PruneLedgerError, match="pruned.json: not a prune ledger") as caught:
        ReplayBuffer(replay, window_positions=10**6)
    assert problem in str(caught.value)
    assert sorted(os.listdir(replay)) == before and (tmp_path / "outside.txt").exists()


@pytest.mark.parametrize("in_the_way", [".", "quarantine"])
def test_a_file_where_the_replay_or_quarantine_directory_goes_is_refused_naming_it(tmp_path, games, in_the_way):
    from alphazero.replay.buffer import ReplayDirectoryError

    replay = tmp_path / "replay"
    if in_the_way == ".":
        replay.write_text("a file")
    else:
        ReplayBuffer(replay, window_positions=10**6).add_games(games[:2], writer_id="w0")
        (replay / "quarantine").write_text("a file")
    blocked = (replay / in_the_way).resolve()
    for start in (lambda: ReplayBuffer(replay, window_positions=10**6), lambda: ShardWriter(replay, "w1")):
        with pytest.raises(ReplayDirectoryError, match=re.escape(f"{blocked} is a file, not a directory")):
            start()
    with pytest.raises(ReplayDirectoryError, match="a file is in the way"):
        ReplayBuffer(tmp_path / "replay" / "below" if in_the_way == "." else replay / "quarantine" / "x", window_positions=10)


@pytest.mark.parametrize("first", ["keeps_less", "keeps_more"])
def test_two_buffers_pruning_one_directory_count_every_shard_once(tmp_path, games, first):
    writer = ReplayBuffer(tmp_path, window_positions=10**6)
    for chunk in chunks(games[:24], 4):
        writer.add_games(chunk, writer_id="w0")
    per_shard = writer._shards[0].num_positions
    buffers = {
        "keeps_less": ReplayBuffer(tmp_path, window_positions=2 * per_shard),
        "keeps_more": ReplayBuffer(tmp_path, window_positions=4 * per_shard),
    }
    second = "keeps_more" if first == "keeps_less" else "keeps_less"
    buffers[first].prune()
    buffers[second].prune()  # its ledger was read before the first prune
    assert len(list_shards(tmp_path)) == 2
    restarted = ReplayBuffer(tmp_path, window_positions=10**6)
    assert (restarted.total_games, restarted.total_positions) == (24, writer.total_positions)


def test_a_ledger_damaged_while_the_buffer_runs_is_rewritten_by_its_next_prune(tmp_path, games, caplog):
    buffer = ReplayBuffer(tmp_path, window_positions=positions_of(games[:10]))
    for chunk in chunks(games, 5):
        buffer.add_games(chunk, writer_id="w0")
    buffer.prune(keep_positions=buffer.total_positions - positions_of(games[:15]))
    (tmp_path / PRUNE_LEDGER).write_text('{"games": 4, "posit')
    with caplog.at_level(logging.WARNING, logger="alphazero.replay.buffer"):
        assert buffer.prune()
    assert any("not a prune ledger" in r.getMessage() for r in caplog.records)
    assert ReplayBuffer(tmp_path, window_positions=10**6).total_games == 60


def test_a_writer_only_buffer_does_not_load_the_directory(tmp_path, games):
    ReplayBuffer(tmp_path, window_positions=10**6).add_games(games[:5], writer_id="w0")
    worker = ReplayBuffer(tmp_path, window_positions=1, scan=False)
    assert worker.total_games == 0
    worker.add_games(games[5:7], writer_id="w1")
    assert ReplayBuffer(tmp_path, window_positions=10**6).total_games == 7


def test_sampling_is_fast(tmp_path, games):
    buffer = ReplayBuffer(tmp_path, window_positions=10**6)
    buffer.add_games(games, writer_id="w0")
    rng = np.random.default_rng(6)
    buffer.sample(1024, rng)  # JIT warm-up
    start = time.perf_counter()
    for _ in range(20):
        buffer.sample(1024, rng)
    rate = 20 * 1024 / (time.perf_counter() - start)
    assert rate > 50_000, f"{rate:.0f} samples/s"  # ~10x above this on an idle core; loose for shared CI
