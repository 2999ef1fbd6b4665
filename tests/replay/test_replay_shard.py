"""Shard files: exact round trip, derived training samples, atomic writes, validation on read."""

import zipfile

import numpy as np
import pytest

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.replay.shard import (
    ShardError,
    _checksum,
    encode_shard,
    read_records,
    read_shard,
    read_shard_counts,
    write_shard,
)
from replay_games import random_record, random_records


@pytest.fixture(scope="module")
def records():
    rng = np.random.default_rng(7)
    games = random_records(30, seed=3)
    # A non-standard start with white to move, and a game without root values.
    white_to_move = GameState.start().play(19)
    games.append(random_record(rng, start=white_to_move, game_id=100))
    games.append(random_record(rng, game_id=101, with_root_values=False))
    assert any(g.num_passes() for g in games), "the fixture should contain forced passes"
    return games


def assert_same_record(actual, expected):
    assert actual.start == expected.start
    np.testing.assert_array_equal(actual.actions, expected.actions)
    np.testing.assert_array_equal(actual.policies, expected.policies)
    if expected.root_values is None:
        assert actual.root_values is None
    else:
        np.testing.assert_array_equal(actual.root_values, expected.root_values.astype(np.float16).astype(np.float32))
    assert actual.black_margin == expected.black_margin
    assert actual.metadata == expected.metadata


def test_records_round_trip_through_a_shard_file(tmp_path, records):
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, records)
    back = read_records(path)
    assert len(back) == len(records)
    for actual, expected in zip(back, records):
        assert_same_record(actual, expected)


def test_exact_values_round_trip_through_a_shard_file(tmp_path):
    """The shard promises the records it was written from: exact values too (solved plies, NaN
    elsewhere, passes included), and None stays None."""
    rng = np.random.default_rng(11)
    games = random_records(6, seed=12)
    for record in games[:4]:
        exact = np.full(len(record), np.nan, dtype=np.float32)
        solved_from = len(record) - int(rng.integers(1, 12))
        exact[solved_from:] = rng.choice([-1.0, 0.0, 1.0], size=len(record) - solved_from)
        exact[record.actions == PASS] = np.nan if rng.random() < 0.5 else 1.0
        record.exact_values = exact
    games[4].exact_values = np.full(len(games[4]), np.nan, dtype=np.float32)  # carried, nothing solved
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, games)
    for actual, expected in zip(read_records(path), games):
        if expected.exact_values is None:
            assert actual.exact_values is None
        else:
            np.testing.assert_array_equal(actual.exact_values, expected.exact_values)


def test_write_leaves_only_the_final_file(tmp_path, records):
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, records[:3])
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_write_refuses_to_overwrite_an_existing_shard(tmp_path, records):
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, records[:1])
    with pytest.raises(FileExistsError, match="writer ids must be unique"):
        write_shard(path, records[1:2])


def test_positions_are_the_states_before_each_non_pass_ply(records):
    data = encode_shard(records)
    row = 0
    for game, record in enumerate(records):
        assert data.position_offsets[game] == row
        sign = np.sign(record.black_margin)
        for ply, (state, action) in enumerate(zip(record.states(), record.actions)):
            if action == PASS:
                continue
            np.testing.assert_array_equal(data.positions[row], state.as_array())
            assert data.ply[row] == ply
            assert data.outcomes[row] == (sign if state.black_to_move else -sign)
            np.testing.assert_array_equal(data.policies[row], record.policies[ply])
            row += 1
    assert row == data.num_positions


def test_forced_passes_are_not_training_samples(records):
    data = encode_shard(records)
    passes = sum(r.num_passes() for r in records)
    assert passes > 0
    assert data.num_positions == sum(len(r) for r in records) - passes
    assert not (data.policies[:, PASS] > 0).any()  # every sample has a real move to learn


def test_outcome_is_from_the_side_to_move_in_a_game_that_starts_with_white(records):
    record = records[-2]
    assert not record.start.black_to_move
    data = encode_shard([record])
    assert data.outcomes[0] == -np.sign(record.black_margin)


def test_encoding_rejects_an_illegal_action_naming_record_and_ply(records):
    bad = random_records(1, seed=11)[0]
    bad.actions[5] = 0  # a1 is never legal on move 6
    with pytest.raises(ValueError, match=r"record 1 ply 5: action 0 is not legal"):
        encode_shard([records[0], bad])


def test_encoding_rejects_games_without_policies_or_result(records):
    no_policy = random_records(1, seed=12)[0]
    no_policy.policies = None
    with pytest.raises(ValueError, match="record 0 has no policies"):
        encode_shard([no_policy])
    unfinished = random_records(1, seed=12)[0]
    unfinished.black_margin = None
    with pytest.raises(ValueError, match="record 0 has no black_margin"):
        encode_shard([unfinished])


def test_counts_come_from_the_header(tmp_path, records):
    path = tmp_path / "shard-0000000001-w0.npz"
    data = write_shard(path, records[:5])
    assert read_shard_counts(path) == (5, data.num_positions)


def test_truncated_shard_is_reported_as_unreadable(tmp_path, records):
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, records[:5])
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ShardError, match=r"shard-0000000001-w0\.npz: unreadable"):
        read_shard(path)


def test_flipped_byte_is_detected(tmp_path, records):
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, records[:5])
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 3] ^= 0x10
    path.write_bytes(bytes(raw))
    with pytest.raises(ShardError, match=str(path.name)):
        read_shard(path)


def _rewrite(path, change, fix_checksum):
    with np.load(path) as archive:
        arrays = {name: archive[name].copy() for name in archive.files}
    change(arrays)
    if fix_checksum:
        del arrays["checksum"]
        arrays["checksum"] = np.array([_checksum(arrays)], dtype=np.uint32)
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def test_changed_array_with_stale_checksum_fails_the_checksum(tmp_path, records):
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, records[:5])

    def bump_outcome(arrays):
        arrays["outcomes"][0] = -arrays["outcomes"][0] if arrays["outcomes"][0] else 1

    _rewrite(path, bump_outcome, fix_checksum=False)
    with pytest.raises(ShardError, match="checksum mismatch"):
        read_shard(path)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a["actions"].__setitem__(3, 70), "action 70 outside 0..64"),
        (lambda a: a["policies"].__setitem__((2, 5), -0.5), "policies has negative"),
        (lambda a: a.__setitem__("ply", a["ply"][:-1]), "'ply' has .* rows, header says"),
        (lambda a: a.__setitem__("outcomes", a["outcomes"].astype(np.int16)), "'outcomes' has dtype int16"),
        (lambda a: a["outcomes"].__setitem__(0, 3), r"outcomes outside \{-1, 0, 1\}"),
        (lambda a: a["positions"].__setitem__((4, 0), a["positions"][4, 0] ^ np.uint64(1 << 63)), "stored positions differ"),
        (lambda a: a.pop("black_margin"), r"missing arrays \['black_margin'\]"),
    ],
)
def test_inconsistent_shard_raises_shard_error_naming_the_problem(tmp_path, records, change, message):
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, records[:5])
    _rewrite(path, change, fix_checksum=True)
    with pytest.raises(ShardError, match=message):
        read_shard(path)


def test_a_zip_that_is_not_a_shard_is_rejected(tmp_path):
    path = tmp_path / "shard-0000000001-w0.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(ShardError, match="missing arrays"):
        read_shard(path)


def test_numpy_metadata_values_are_stored_as_plain_json(tmp_path):
    record = random_records(1, seed=5)[0]
    record.metadata = {"simulations": np.int64(400), "temperature": np.float32(0.5), "opening": "standard"}
    path = tmp_path / "shard-0000000001-w0.npz"
    write_shard(path, [record])
    assert read_records(path)[0].metadata == {"simulations": 400, "temperature": 0.5, "opening": "standard"}
