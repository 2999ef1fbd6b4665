"""WTHOR reading: the layout against real bytes, corrupt files, the batch replay's verdicts."""

import numpy as np
import pytest

from alphazero.data.wthor import (
    BYTE_TO_SQUARE,
    GAME_SIZE,
    HEADER_SIZE,
    REPLAY_ILLEGAL_MOVE,
    REPLAY_MOVE_AFTER_END,
    REPLAY_OK,
    SQUARE_TO_BYTE,
    DataFormatError,
    load_wthor_records,
    read_players,
    read_tournaments,
    read_wtb,
    read_wtb_file,
    read_wthor_directory,
    replay_database,
    replay_games,
)
from alphazero.othello.bitboard import PASS
from alphazero.othello.notation import parse_square, parse_transcript
from conftest import FIXTURES
from wthor_files import GAME_WITH_PASS, SHORTEST_GAME, names_bytes, squares, write_wtb, wtb_bytes

WTH_1977 = FIXTURES / "WTH_1977.wtb"  # a copy of the real file: 12 games


def test_move_byte_is_ten_times_row_plus_column_counted_from_one():
    assert BYTE_TO_SQUARE[56] == parse_square("f5")
    assert BYTE_TO_SQUARE[11] == parse_square("a1") and BYTE_TO_SQUARE[88] == parse_square("h8")
    assert BYTE_TO_SQUARE[18] == parse_square("h1") and BYTE_TO_SQUARE[81] == parse_square("a8")
    assert all(BYTE_TO_SQUARE[SQUARE_TO_BYTE[s]] == s for s in range(64))
    assert BYTE_TO_SQUARE[0] == -1  # end of the moves
    assert (BYTE_TO_SQUARE[[9, 10, 19, 20, 89, 90, 255]] == -2).all()


def test_real_file_header_fields():
    wtb = read_wtb_file(WTH_1977)
    header = wtb.header
    assert header.created == (2007, 5, 22)
    assert header.num_games == 12 == len(wtb)
    assert header.games_year == 1977 and header.board_size == 8 and header.depth == 24


def test_real_file_first_game_record():
    game = read_wtb(WTH_1977)[0]
    assert (game.file, game.index, game.year) == ("WTH_1977.wtb", 0, 1977)
    assert (game.tournament, game.black_player, game.white_player) == (1, 0x015A, 0x034B)
    assert (game.black_discs, game.theoretical_score) == (34, 41)
    assert game.squares[:4] == tuple(parse_transcript("f5d6c3f3"))
    assert len(game.squares) == 60


def test_real_file_games_replay_legally_with_matching_scores():
    database = read_wthor_directory(FIXTURES, years=[1977])
    replay = replay_database(database)
    assert (replay.status == REPLAY_OK).all() and replay.usable.all()
    assert replay.counts()["usable"] == 12 and replay.problems() == []
    record = replay.game_record(0)
    assert record.metadata["black_player"] == "player #346"  # no WTHOR.JOU next to the fixture
    assert (64 + record.black_margin) // 2 == 34 == record.metadata["recorded_black_discs"]
    assert record.final_state().is_over()


def _corrupt(tmp_path, data, name="WTH_2000.wtb"):
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


def test_truncated_file_names_file_and_offset_of_the_partial_record(tmp_path):
    path = _corrupt(tmp_path, WTH_1977.read_bytes()[:-10])
    with pytest.raises(DataFormatError, match=r"WTH_2000.wtb: size 822 bytes .* partial record starts at byte offset 764"):
        read_wtb_file(path)


def test_header_count_disagreeing_with_size_is_an_error(tmp_path):
    data = bytearray(WTH_1977.read_bytes())
    data[4] = 13
    with pytest.raises(DataFormatError, match=r"header count at byte offset 4 says 13 games but the file holds 12"):
        read_wtb_file(_corrupt(tmp_path, data))


def test_bad_move_byte_names_game_move_and_byte_offset(tmp_path):
    data = bytearray(WTH_1977.read_bytes())
    offset = HEADER_SIZE + 2 * GAME_SIZE + 8 + 4  # game 2, move 5
    data[offset] = 99
    with pytest.raises(DataFormatError, match=rf"game 2 move 5: byte 99 at byte offset {offset}; expected a square byte"):
        read_wtb_file(_corrupt(tmp_path, data))


def test_move_after_the_terminating_zero_is_a_format_error(tmp_path):
    data = bytearray(wtb_bytes([("f5d6", 32)]))
    data[HEADER_SIZE + 8 + 5] = 56  # move 6, after the 0 of move 3
    with pytest.raises(DataFormatError, match=rf"game 0 move 6: byte 56 at byte offset {HEADER_SIZE + 13}; expected 0"):
        read_wtb_file(_corrupt(tmp_path, data))


def test_file_shorter_than_the_header_and_bad_board_size(tmp_path):
    with pytest.raises(DataFormatError, match="5 bytes is shorter than the 16-byte header"):
        read_wtb_file(_corrupt(tmp_path, b"\x14\x07\x05\x16\x00"))
    data = bytearray(WTH_1977.read_bytes())
    data[12] = 10
    with pytest.raises(DataFormatError, match="board size 10 at byte offset 12"):
        read_wtb_file(_corrupt(tmp_path, data))


def test_name_files_are_latin1_nul_padded_records(tmp_path):
    (tmp_path / "WTHOR.JOU").write_bytes(names_bytes(["???", "Tastet Marc", "Léger Élodie"], 20))
    (tmp_path / "WTHOR.TRN").write_bytes(names_bytes(["Diverses parties", "Championnat de France"], 26))
    assert read_players(tmp_path / "WTHOR.JOU") == ["???", "Tastet Marc", "Léger Élodie"]
    assert read_tournaments(tmp_path / "WTHOR.TRN") == ["Diverses parties", "Championnat de France"]


def test_name_file_count_is_checked_against_its_header(tmp_path):
    data = bytearray(names_bytes(["a", "b"], 20))
    data[8] = 3
    with pytest.raises(DataFormatError, match=r"WTHOR.JOU: header count at byte offset 8 says 3 names but the file holds 2"):
        read_players(_corrupt(tmp_path, data, "WTHOR.JOU"))


def test_replay_kernel_infers_passes():
    moves = np.full((1, 60), -1, dtype=np.int8)
    moves[0] = squares(GAME_WITH_PASS)
    status, bad_move, actions, num_plies, black_margin, game_over = replay_games(moves)
    assert status[0] == REPLAY_OK and bad_move[0] == -1
    assert list(actions[0, : num_plies[0]]) == parse_transcript(GAME_WITH_PASS)
    assert num_plies[0] == 61 and (actions[0] == PASS).sum() == 1
    assert black_margin[0] == -8 and game_over[0]


@pytest.fixture
def mixed_directory(tmp_path):
    """One year of games that exercise every verdict, with name files."""
    games = [
        (SHORTEST_GAME, 64, 1, 1, 2),  # 0: fine, finished early (wipe-out), empties to the winner
        ("f5 a1", 33),  # 1: illegal second move
        (SHORTEST_GAME + " a1", 64),  # 2: a move after the end
        (SHORTEST_GAME, 40),  # 3: recorded score disagrees with the replay
        ("f5 d6", 32),  # 4: unfinished, score agrees with the count where it stops (3-3)
        ("f5", 40),  # 5: unfinished, score disagrees (4-1, empties to black: 63)
        (GAME_WITH_PASS, 28, 1, 2, 1),  # 6: fine, with a pass
    ]
    write_wtb(tmp_path, 2017, games)
    (tmp_path / "WTHOR.JOU").write_bytes(names_bytes(["???", "Alice", "Bob"], 20))
    (tmp_path / "WTHOR.TRN").write_bytes(names_bytes(["Misc", "Open"], 26))
    return tmp_path


def test_replay_verdicts_and_counts(mixed_directory):
    replay = replay_database(read_wthor_directory(mixed_directory))
    assert list(replay.status) == [REPLAY_OK, REPLAY_ILLEGAL_MOVE, REPLAY_MOVE_AFTER_END, REPLAY_OK, REPLAY_OK, REPLAY_OK, REPLAY_OK]
    assert list(replay.usable) == [True, False, False, False, True, False, True]
    assert replay.counts() == {
        "games": 7,
        "usable": 3,
        "illegal_move": 1,
        "move_after_end": 1,
        "score_mismatch": 2,
        "unfinished": 2,
        "unfinished_usable": 1,
    }


def test_problems_name_file_game_move_and_reason(mixed_directory):
    problems = [str(p) for p in replay_database(read_wthor_directory(mixed_directory)).problems()]
    assert problems == [
        "WTH_2017.wtb game 1 move 2 (ply 2): illegal move a1 (byte 11)",
        "WTH_2017.wtb game 2 move 10 (ply 10): move a1 after the end of the game",
        "WTH_2017.wtb game 3: recorded black discs 40 != 64 replayed from the final position",
        "WTH_2017.wtb game 5: recorded black discs 40 != 63 replayed from the position where the record stops (game unfinished)",
    ]


def test_usable_games_become_game_records_with_metadata(mixed_directory):
    records, replay = load_wthor_records(mixed_directory)
    assert [r.metadata["index"] for r in records] == [0, 4, 6]
    first, unfinished, with_pass = records
    assert first.black_margin == 64 and first.metadata["finished"]
    assert first.metadata["tournament"] == "Open"
    assert (first.metadata["black_player"], first.metadata["white_player"]) == ("Alice", "Bob")
    assert first.metadata["year"] == 2017 and first.metadata["file"] == "WTH_2017.wtb"
    assert first.metadata["recorded_black_discs"] == 64
    assert unfinished.black_margin == 0 and not unfinished.metadata["finished"]
    assert list(with_pass.actions) == parse_transcript(GAME_WITH_PASS)
    assert with_pass.num_passes() == 1 and with_pass.black_margin == -8
    for record in records:
        record.final_state()  # every action is legal in the checked Python replay


def test_directory_without_wthor_files_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no WTHOR files"):
        read_wthor_directory(tmp_path)


@pytest.mark.shared
def test_real_database_yields_123700_records_with_names(wthor_dir):
    records, replay = load_wthor_records(wthor_dir)
    assert len(records) == 123_700
    assert len(replay.problems()) == 124_082 - 123_700
    first = records[0]
    assert first.metadata["tournament"] == "World Championship"
    assert first.metadata["black_player"] == "Inoue Hiroshi"
    assert sum(not r.metadata["finished"] for r in records) == 413 - 382


def test_problem_ply_counts_the_inferred_passes_before_the_bad_move(tmp_path):
    before_pass = squares(GAME_WITH_PASS)[:56]  # black must pass after these 56 moves
    write_wtb(tmp_path, 2017, [(before_pass + [parse_square("a1")], 30)])  # a1 is taken: illegal
    (problem,) = replay_database(read_wthor_directory(tmp_path)).problems()
    assert (problem.move, problem.ply) == (57, 58)
    assert str(problem) == "WTH_2017.wtb game 0 move 57 (ply 58): illegal move a1 (byte 11)"
