"""KataGo's auxiliary targets of the supervised WTHOR dataset (version 3): each row's final score
and final ownership from the side to move's view, from its game replayed to the end
(`SupervisedSplit.final_boards`, turned into targets by `alphazero.pretrain.batches`, tested here
beside the fixture games); an unfinished game's ownership masked out; rows merged by dedup
averaged over their occurrences."""


import numpy as np
import pytest

from alphazero.data.dataset import DatasetOptions, build_dataset, ensure_dataset, is_current, load_dataset, read_manifest
from alphazero.nn.auxiliary import SCORE_BINS, bin_scores
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_square, parse_transcript
from alphazero.pretrain.batches import auxiliary_targets
from wthor_files import GAME_WITH_PASS, SHORTEST_GAME, build_dataset_of_version, write_wtb

# The shortest game ends with black's 13 discs on these squares and none of white's (checked by
# hand: 4 start discs + 5 black moves + 4 white moves, every white disc flipped by the end).
WIPE_OUT_BLACK = "e1 d2 b3 c3 d3 e3 d4 e4 f4 d5 e5 d6 d7"
# Unfinished after d3 c3 c4: black d3 c4 d4 e4 d5, white c3 e5; recorded with the 57 empties to
# black (5 + 57 = 62 discs), so its score target is +60 for black.
UNFINISHED = "d3 c3 c4"
UNFINISHED_BLACK_DISCS = 62


def _bin(margin: int) -> int:
    return (margin + 64) // 2


def _squares(text: str) -> list[int]:
    return [parse_square(s) for s in text.split()]


def _final_state(transcript: str) -> GameState:
    state = GameState.start()
    for action in parse_transcript(transcript):
        state = state.play(action)
    return state


def _expected_targets(transcript: str, black_margin: int, finished: bool):
    """(score class, ownership int[64] or None) per non-pass decision, the side to move from
    GameState (independent of the dataset's ply parity)."""
    end = _final_state(transcript)
    black = int(end.player if end.black_to_move else end.opponent)
    white = int(end.opponent if end.black_to_move else end.player)
    black_view = np.array([(black >> q & 1) - (white >> q & 1) for q in range(64)])
    out, state = [], GameState.start()
    for action in parse_transcript(transcript):
        if action != PASS:
            sign = 1 if state.black_to_move else -1
            out.append((_bin(sign * black_margin), sign * black_view if finished else None))
        state = state.play(action)
    return out


def _check_rows(split, rows, expected):
    targets = auxiliary_targets(split, np.asarray(rows))
    for i, (score_class, ownership) in enumerate(expected):
        one_hot = np.zeros(SCORE_BINS, dtype=np.float32)
        one_hot[score_class] = 1
        np.testing.assert_array_equal(targets.score[i], one_hot)
        if ownership is None:
            assert not targets.ownership_known[i]
            assert (targets.ownership[i] == 0).all()
        else:
            assert targets.ownership_known[i]
            np.testing.assert_array_equal(targets.ownership[i], ownership)


@pytest.fixture
def wthor_directory(tmp_path):
    source = tmp_path / "wthor"
    source.mkdir()
    write_wtb(source, 2017, [(SHORTEST_GAME, 64), (GAME_WITH_PASS, 28), (UNFINISHED, UNFINISHED_BLACK_DISCS)])
    write_wtb(source, 2018, [(SHORTEST_GAME, 64)])
    return source


def test_wipe_out_targets_by_hand_for_both_colours(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    train = load_dataset(tmp_path / "ds").train
    targets = auxiliary_targets(train, np.arange(9))  # the shortest game's 9 decisions, black first
    black_owns = np.zeros(64)
    black_owns[_squares(WIPE_OUT_BLACK)] = 1
    for row in range(9):
        black_to_move = row % 2 == 0
        assert targets.score[row].argmax() == (_bin(64) if black_to_move else _bin(-64)) and targets.score[row].max() == 1
        np.testing.assert_array_equal(targets.ownership[row], black_owns if black_to_move else -black_owns)  # empties 0
    assert targets.ownership_known.all()


def test_targets_follow_the_side_to_move_across_a_pass(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    train = load_dataset(tmp_path / "ds").train
    pass_rows = np.arange(9, 9 + 60)
    expected = _expected_targets(GAME_WITH_PASS, -8, finished=True)
    assert len(expected) == len(pass_rows)
    _check_rows(train, pass_rows, expected)
    # The full board of the pass game: every square owned by one side, none empty.
    assert (np.abs(auxiliary_targets(train, pass_rows).ownership) == 1).all()


def test_unfinished_game_scores_its_recorded_result_and_masks_ownership(wthor_directory, tmp_path):
    build_dataset(wthor_directory, tmp_path / "ds", progress=False)
    train = load_dataset(tmp_path / "ds").train
    rows = np.arange(69, 72)
    assert len(train) == 72
    _check_rows(train, rows, _expected_targets(UNFINISHED, 60, finished=False))
    assert [int(c) for c in auxiliary_targets(train, rows).score.argmax(axis=1)] == [_bin(60), _bin(-60), _bin(60)]


def test_expected_score_is_the_stored_margin_for_every_row(wthor_directory, tmp_path):
    for options in (DatasetOptions(), DatasetOptions(dedup=True), DatasetOptions(split="random5")):
        build_dataset(wthor_directory, tmp_path / "ds", options, progress=False)
        for split in load_dataset(tmp_path / "ds").splits.values():
            targets = auxiliary_targets(split, np.arange(len(split)))
            np.testing.assert_allclose(targets.score.sum(axis=1), 1, rtol=1e-6)
            np.testing.assert_allclose(targets.score @ bin_scores().numpy(), np.asarray(split.margins) * 64, atol=1e-4)


def test_merged_rows_average_their_occurrences(wthor_directory, tmp_path):
    """The start position (d3) and the position after d3 (c3) are in all three training games: the
    score target is the three results' histogram, the ownership the mean over the two finished
    games (the unfinished one has none)."""
    build_dataset(wthor_directory, tmp_path / "ds", DatasetOptions(dedup=True), progress=False)
    train = load_dataset(tmp_path / "ds").train
    start = GameState.start()
    after_d3 = start.play(parse_square("d3"))
    rows = []
    for state in (start, after_d3):
        matches = np.flatnonzero((train.positions[:, 0] == state.player) & (train.positions[:, 1] == state.opponent))
        assert len(matches) == 1 and train.counts[matches[0]] == 3
        rows.append(int(matches[0]))
    targets = auxiliary_targets(train, np.array(rows))
    wipe_out = _expected_targets(SHORTEST_GAME, 64, True)
    with_pass = _expected_targets(GAME_WITH_PASS, -8, True)
    for i, sign in ((0, 1), (1, -1)):
        expected = np.zeros(SCORE_BINS)
        for margin in (64, -8, 60):
            expected[_bin(sign * margin)] += 1 / 3
        np.testing.assert_allclose(targets.score[i], expected, rtol=1e-6)
        np.testing.assert_allclose(targets.ownership[i], (wipe_out[i][1] + with_pass[i][1]) / 2)
    assert targets.ownership_known.all()
    # The rest of each game is a row of its own, the same targets as without dedup.
    lone = np.flatnonzero(np.asarray(train.counts) == 1)
    assert len(lone) == len(train) - 2


def test_version_2_dataset_has_no_auxiliary_targets_and_is_rebuilt(wthor_directory, tmp_path):
    out = tmp_path / "ds"
    build_dataset_of_version(wthor_directory, out, 2)
    dataset = load_dataset(out)
    assert len(dataset.train) == 72  # still trains networks without the heads
    with pytest.raises(ValueError, match=r"no auxiliary targets; rebuild it \(version 3\).*model.score_head"):
        auxiliary_targets(dataset.train, np.arange(2))
    assert not is_current(read_manifest(out), wthor_directory, DatasetOptions())
    rebuilt = ensure_dataset(wthor_directory, out, progress=False)
    assert rebuilt.manifest["version"] == 3 and auxiliary_targets(rebuilt.train, np.arange(2)).ownership_known.all()
