"""The supervised WTHOR dataset: rows, splits, filters, dedup, the manifest and rebuilds."""

import json

import numpy as np
import pytest

from alphazero.data.dataset import (
    MANIFEST,
    DatasetOptions,
    build_dataset,
    ensure_dataset,
    is_current,
    load_dataset,
    read_manifest,
)
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, flips, make_move
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_transcript
from wthor_files import GAME_WITH_PASS, SHORTEST_GAME, names_bytes, write_wtb

# 2017 (train): the shortest game (black wins 64-0), the pass game (white wins), a bad game.
# 2018 (validation): the shortest game again and an unfinished drawn-so-far game.
TRAIN_GAMES = [(SHORTEST_GAME, 64), (GAME_WITH_PASS, 28), ("f5 a1", 33)]
VALIDATION_GAMES = [(SHORTEST_GAME, 64), ("f5 d6", 32)]


@pytest.fixture
def wthor_directory(tmp_path):
    source = tmp_path / "wthor"
    source.mkdir()
    write_wtb(source, 2017, TRAIN_GAMES)
    write_wtb(source, 2018, VALIDATION_GAMES)
    (source / "WTHOR.JOU").write_bytes(names_bytes(["a", "b", "c"], 20))
    return source


def _expected_rows(transcript, black_margin):
    """(player, opponent, move, value, margin) for every non-pass ply, replayed with GameState."""
    rows = []
    state = GameState.start()
    for action in parse_transcript(transcript):
        if action != PASS:
            sign = 1 if state.black_to_move else -1
            rows.append((state.player, state.opponent, action, float(np.sign(black_margin * sign)), black_margin * sign / 64))
        state = state.play(action)
    return rows


def _rows_of(split):
    return [
        (int(p[0]), int(p[1]), int(m), float(v), float(g))
        for p, m, v, g in zip(split.positions, split.moves, split.values, split.margins)
    ]


def test_rows_are_the_decisions_of_usable_games_with_outcomes_from_the_side_to_move(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    data = load_dataset(tmp_path / "ds")
    expected_train = _expected_rows(SHORTEST_GAME, 64) + _expected_rows(GAME_WITH_PASS, -8)
    assert _rows_of(data.train) == expected_train
    expected_validation = _expected_rows(SHORTEST_GAME, 64) + _expected_rows("f5d6", 0)
    assert _rows_of(data.validation) == expected_validation
    assert (data.train.counts == 1).all()


def test_first_row_is_the_start_position_and_forced_passes_are_skipped(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    data = load_dataset(tmp_path / "ds")
    assert tuple(int(b) for b in data.train.positions[0]) == (int(START_BLACK), int(START_WHITE))
    assert data.train.moves[0] == parse_transcript(SHORTEST_GAME)[0]
    assert len(data.train) == 9 + 60  # the pass game has 61 plies, one of them a forced pass
    assert PASS not in set(data.train.moves.tolist())
    # Every stored move is legal in its stored position.
    for (player, opponent), move in zip(data.train.positions, data.train.moves):
        assert flips(player, opponent, int(move)) != 0


def test_arrays_are_read_only_memory_maps_with_documented_dtypes(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    split = load_dataset(tmp_path / "ds").train
    assert isinstance(split.positions, np.memmap) and not split.positions.flags.writeable
    assert split.positions.dtype == np.uint64 and split.positions.shape == (len(split), 2)
    assert split.moves.dtype == np.uint8 and split.values.dtype == np.float32
    assert split.margins.dtype == np.float32 and split.counts.dtype == np.uint32
    assert not isinstance(load_dataset(tmp_path / "ds", mmap=False).train.positions, np.memmap)


def test_manifest_records_options_inputs_counts_and_splits(wthor_directory, tmp_path):
    manifest = build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    assert json.loads((tmp_path / "ds" / MANIFEST).read_text()) == manifest
    assert manifest["options"]["validation_years"] == [2018]
    assert [i["file"] for i in manifest["inputs"]] == ["WTH_2017.wtb", "WTH_2018.wtb"]
    assert manifest["games"]["games"] == 5 and manifest["games"]["usable"] == 4
    assert manifest["games"]["illegal_move"] == 1
    assert manifest["splits"]["train"] == {"rows": 69, "positions": 69, "games": 2, "years": [2017]}
    assert manifest["splits"]["validation"]["years"] == [2018]


def test_validation_years_choose_the_split(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", DatasetOptions(validation_years=(2017,)), progress=False)
    data = load_dataset(tmp_path / "ds")
    assert len(data.validation) == 69 and len(data.train) == 9 + 2


def test_years_filter_and_unfinished_games_option(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "a", DatasetOptions(years=(2018,)), progress=False)
    data = load_dataset(tmp_path / "a")
    assert len(data.train) == 0 and len(data.validation) == 9 + 2
    build_dataset(wthor_directory, tmp_path / "b", DatasetOptions(include_unfinished=False), progress=False)
    assert len(load_dataset(tmp_path / "b").validation) == 9


def test_winner_moves_only_keeps_moves_of_the_side_that_did_not_lose(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", DatasetOptions(winner_moves_only=True), progress=False)
    data = load_dataset(tmp_path / "ds")
    assert (data.train.values == 1).all()
    assert len(data.train) == 5 + 30  # black's 5 moves of the wipe-out, white's 30 of the pass game
    assert (data.validation.values >= 0).all() and len(data.validation) == 5 + 2  # the draw keeps both


def test_dedup_merges_identical_position_move_rows_and_averages_outcomes(tmp_path):
    source = tmp_path / "wthor"
    source.mkdir()
    # The same wipe-out twice, and an unfinished game sharing its first move that black loses
    # (3-5 where the record stops; empties to white).
    losing = "d3 c3 c4 e3"
    write_wtb(source, 2017, [(SHORTEST_GAME, 64), (SHORTEST_GAME, 64)])
    write_wtb(source, 2018, [])
    state = GameState.start()
    for action in parse_transcript(losing):
        state = state.play(action)
    write_wtb(source, 2016, [(losing, (64 + state.black_margin()) // 2)])
    build_dataset(source, tmp_path / "ds", DatasetOptions(dedup=True), progress=False)
    train = load_dataset(tmp_path / "ds").train
    assert int(train.counts.sum()) == 9 + 9 + len(parse_transcript(losing))
    first = (int(START_BLACK), int(START_WHITE), parse_transcript("d3")[0])
    index = [i for i, row in enumerate(_rows_of(train)) if row[:3] == first]
    assert len(index) == 1
    assert train.counts[index[0]] == 3
    black_won_losing = np.sign(state.black_margin())
    assert train.values[index[0]] == pytest.approx((1 + 1 + black_won_losing) / 3)
    # d3 and c3 are shared by all three games, the wipe-out's other 7 moves by its two copies,
    # and the losing game's last two moves are its own.
    assert sorted(train.counts.tolist()) == [1, 1] + [2] * 7 + [3, 3]


def test_ensure_dataset_rebuilds_only_when_inputs_or_options_change(wthor_directory, tmp_path):
    out = tmp_path / "ds"
    first = ensure_dataset(wthor_directory, out, progress=False).manifest
    again = ensure_dataset(wthor_directory, out, progress=False).manifest
    assert again["created"] == first["created"] and again["build_seconds"] == first["build_seconds"]
    assert is_current(read_manifest(out), wthor_directory, DatasetOptions())
    assert not is_current(read_manifest(out), wthor_directory, DatasetOptions(dedup=True))
    rebuilt = ensure_dataset(wthor_directory, out, DatasetOptions(dedup=True), progress=False)
    assert rebuilt.manifest["options"]["dedup"] is True
    write_wtb(wthor_directory, 2018, VALIDATION_GAMES[:1])  # an input changes
    assert not is_current(read_manifest(out), wthor_directory, DatasetOptions(dedup=True))
    changed = ensure_dataset(wthor_directory, out, DatasetOptions(dedup=True), progress=False)
    assert len(changed.validation) == 9


def test_directory_without_manifest_is_not_a_dataset(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    (tmp_path / "ds" / MANIFEST).unlink()  # as after a build that died before its last step
    with pytest.raises(FileNotFoundError, match="no supervised dataset"):
        load_dataset(tmp_path / "ds")
    assert not is_current(read_manifest(tmp_path / "ds"), wthor_directory, DatasetOptions())
    assert not [p for p in (tmp_path / "ds").iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("damage", ["garbled manifest", "manifest not an object", "truncated header", "truncated data"])
def test_a_damaged_dataset_is_rebuilt_from_the_games_not_refused(wthor_directory, tmp_path, damage, caplog):
    out = tmp_path / "ds"
    expected = _rows_of(ensure_dataset(wthor_directory, out, progress=False).train)
    if damage == "garbled manifest":
        (out / MANIFEST).write_text('{"format": cut sho')
    elif damage == "manifest not an object":
        (out / MANIFEST).write_text("[1, 2]")
    else:
        array = out / "train_positions.npy"
        data = array.read_bytes()
        array.write_bytes(data[:40] if damage == "truncated header" else data[:-8])
    if "manifest" in damage:
        assert read_manifest(out) is None  # unreadable = absent: rebuilt like a missing one
    with caplog.at_level("WARNING", logger="alphazero.data.dataset"):
        again = ensure_dataset(wthor_directory, out, progress=False)
    assert _rows_of(again.train) == expected
    if "truncated" in damage:
        assert f"the dataset in {out} is damaged" in caplog.text
    assert _rows_of(load_dataset(out).train) == expected


def test_make_move_from_stored_position_gives_the_next_stored_position(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    train = load_dataset(tmp_path / "ds").train
    for i in range(8):  # inside the wipe-out game: no passes, consecutive rows are consecutive plies
        after = make_move(train.positions[i, 0], train.positions[i, 1], int(train.moves[i]))
        assert tuple(int(b) for b in after) == tuple(int(b) for b in train.positions[i + 1])


@pytest.mark.shared
def test_real_wthor_dataset_for_two_years(wthor_dir, tmp_path):
    manifest = build_dataset(wthor_dir, tmp_path / "ds", DatasetOptions(years=(2017, 2018)), progress=False)
    data = load_dataset(tmp_path / "ds")
    assert manifest["splits"]["validation"]["games"] == 2322 and manifest["splits"]["train"]["years"] == [2017]
    assert len(data.validation) == manifest["splits"]["validation"]["positions"] > 2322 * 55
    assert set(np.unique(data.train.values).tolist()) <= {-1.0, 0.0, 1.0}
    assert np.abs(data.train.margins).max() <= 1.0


def test_dataset_benchmark_reports_games_positions_and_timings(wthor_directory):
    from alphazero.bench.dataset import main

    result = main(["--data", str(wthor_directory)])
    assert result["games"] == 5 and result["usable_games"] == 4 and result["skipped_games"] == 1
    assert result["positions"] == 69 + 11 and result["rows"] == {"train": 69, "validation": 11}
    assert result["read_seconds"] >= 0 and result["build_seconds"] >= 0
