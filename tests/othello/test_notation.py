"""Squares, transcripts and board text, both directions, and the errors for bad input."""

import re

import pytest

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import (
    NotationError,
    action_name,
    format_board_text,
    format_transcript,
    parse_action,
    parse_board_text,
    parse_square,
    parse_transcript,
    square_name,
)

# The shortest possible game (9 plies, found by exhaustive search): nobody can move afterwards.
SHORTEST_GAME = "d3c3b3d2e1d6d7e3f4"
# A random game in which black is forced to pass before h3's reply (explicit `pa`).
GAME_WITH_PASS = (
    "d3c3e6d2c2f6e2e7f7g7g6h5b2a1g8f4b4f8a2d6f5d1h8f2e1c4h7a4c1a3g2g5b3e8f3e3a5c6d7h1b5a6d8g1f1c5h4g3h2"
    "g4b6b1h6a7b7h3pab8a8c7c8"
)


def test_square_names_round_trip_for_every_square():
    for square in range(64):
        name = square_name(square)
        assert parse_square(name) == square
        assert parse_square(name.upper()) == square


def test_square_indices_follow_row_major_a1_first_layout():
    assert [parse_square(s) for s in ("a1", "h1", "a2", "f5", "a8", "h8")] == [0, 7, 8, 37, 56, 63]


def test_pass_words_parse_to_the_pass_action():
    for word in ("pass", "PASS", "pa", "PA", "ps", "--"):
        assert parse_action(word) == PASS
    assert action_name(PASS) == "pass"
    assert action_name(37) == "f5"


@pytest.mark.parametrize("token", ["z9", "i1", "a0", "a9", "f", "f55", ""])
def test_bad_square_raises_notation_error_naming_the_token(token):
    with pytest.raises(NotationError, match=re.escape(repr(token))):
        parse_square(token)


def test_square_name_rejects_indices_outside_the_board():
    with pytest.raises(ValueError, match="64"):
        square_name(64)


def test_transcript_parses_in_either_case_and_with_spaces():
    expected = parse_transcript("f5d6c3d3c4")
    assert parse_transcript("F5D6C3D3C4") == expected
    assert parse_transcript("f5 D6 c3\nd3 C4") == expected
    assert expected == [37, 43, 18, 19, 26]


def test_transcript_infers_forced_passes_and_accepts_explicit_ones():
    implicit = GAME_WITH_PASS.replace("pa", "")
    actions = parse_transcript(implicit)
    assert parse_transcript(GAME_WITH_PASS) == actions
    assert parse_transcript(GAME_WITH_PASS.replace("pa", "PS")) == actions
    assert parse_transcript(GAME_WITH_PASS.replace("pa", "--")) == actions
    assert actions.count(PASS) == 1
    state = GameState.start()
    for action in actions:
        state = state.play(action)
    assert state.is_over()


def test_format_transcript_round_trips_with_implicit_and_explicit_passes():
    actions = parse_transcript(GAME_WITH_PASS)
    assert format_transcript(actions, explicit_passes=True) == GAME_WITH_PASS
    assert format_transcript(actions) == GAME_WITH_PASS.replace("pa", "")
    assert parse_transcript(format_transcript(actions)) == actions


def test_transcript_from_a_custom_start_position():
    start = GameState.start().play(37)  # after f5, white to move
    assert parse_transcript("d6c3", start=start) == [43, 18]


def test_bad_token_in_transcript_names_token_offset_and_ply():
    with pytest.raises(NotationError, match=r"'z9'.*character 2 \(ply 2\)"):
        parse_transcript("f5z9d6")


def test_dangling_character_in_transcript_names_it_and_its_offset():
    with pytest.raises(NotationError, match=r"'f'.*character 4 \(ply 3\)"):
        parse_transcript("f5d6f")


def test_illegal_move_in_transcript_names_token_and_ply():
    with pytest.raises(NotationError, match=r"illegal move 'a1' at character 2 \(ply 2\)"):
        parse_transcript("f5a1")


def test_an_error_names_its_place_in_the_text_as_written_spaces_and_lines_included():
    with pytest.raises(NotationError, match=r"illegal move 'a1' at character 9 \(ply 4\)"):
        parse_transcript("f5 d6 c3 a1")  # without the spaces a1 would be character 6
    with pytest.raises(NotationError, match=r"illegal move 'a1' at line 2, character 3 \(ply 4\)"):
        parse_transcript("f5d6\n c3a1\n")
    with pytest.raises(NotationError, match=r"dangling character 'x' at line 3, character 7 \(ply 5\)"):
        parse_transcript("  f5 d6\n\n c3 d3 x")


def test_unforced_explicit_pass_is_an_illegal_move():
    with pytest.raises(NotationError, match=r"illegal move 'pa' at character 2 \(ply 2\)"):
        parse_transcript("f5pa")


def test_move_after_the_end_of_the_game_is_rejected_with_its_position():
    actions = parse_transcript(SHORTEST_GAME)
    assert len(actions) == 9
    with pytest.raises(NotationError, match=r"'a1' at character 18 \(ply 10\) comes after the end of the game"):
        parse_transcript(SHORTEST_GAME + "a1")


START_TEXT = "-" * 27 + "OX------XO" + "-" * 27 + " X"


def test_board_text_of_the_start_position_both_ways():
    assert format_board_text(GameState.start()) == START_TEXT
    assert parse_board_text(START_TEXT) == GameState.start()


def test_board_text_accepts_ggf_and_edax_characters_and_spacing():
    ggf = "\n".join(START_TEXT[i : i + 8] for i in range(0, 64, 8)).replace("X", "*") + "\n*"
    assert parse_board_text(ggf) == GameState.start()
    dotted = START_TEXT.replace("-", ".")
    assert parse_board_text(dotted) == GameState.start()
    white_to_move = parse_board_text(START_TEXT[:-1] + "O")
    assert not white_to_move.black_to_move
    assert parse_board_text(START_TEXT[:-1] + "W") == white_to_move


def test_board_text_round_trips_along_a_game():
    state = GameState.start()
    for action in parse_transcript(GAME_WITH_PASS):
        assert parse_board_text(format_board_text(state)) == state
        state = state.play(action)


def test_bad_board_character_names_it_and_its_square():
    text = START_TEXT[:10] + "Z" + START_TEXT[11:]
    with pytest.raises(NotationError, match=r"'Z' at square 10 \(c2\)"):
        parse_board_text(text)


@pytest.mark.parametrize("text", [START_TEXT[:-2], START_TEXT + "-", "X"])
def test_board_text_of_wrong_length_is_rejected_with_its_length(text):
    length = len("".join(text.split()))
    with pytest.raises(NotationError, match=f"has {length} non-space characters"):
        parse_board_text(text)


def test_bad_side_to_move_is_rejected():
    with pytest.raises(NotationError, match="bad side to move 'Q'"):
        parse_board_text(START_TEXT[:-1] + "Q")
