"""Board pictures and announcements: coordinates, marks for legal moves, the last move and its
flips, plain ASCII unless colour is asked for, and colour off for pipes and NO_COLOR."""

import io

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_board_text, parse_square
from alphazero.play.choosers import MoveInfo
from alphazero.play.render import (
    color_wanted,
    render_analysis,
    render_board,
    render_move,
    render_result,
    render_score_line,
)


def test_start_board_has_coordinates_discs_and_legal_marks():
    lines = render_board(GameState.start()).split("\n")
    assert lines[0] == "    a b c d e f g h"
    assert lines[4] == " 4  . . + O X . . ."
    assert lines[5] == " 5  . . . X O + . ."
    assert sum(line.count("+") for line in lines) == 4
    assert all(line.strip() for line in lines)  # no blank line (GTP responses depend on it)


def test_last_move_is_bracketed_and_flipped_discs_are_lower_case():
    start = GameState.start()
    f5 = parse_square("f5")
    board = render_board(start.play(f5), last_action=f5, flipped=start.flipped_by(f5))
    assert board.split("\n")[5] == " 5  . . . X x[X]. ."


def test_last_move_in_the_h_file_closes_its_bracket():
    state = parse_board_text("-" * 63 + "X O")
    board = render_board(state, last_action=63, show_legal=False)
    assert board.split("\n")[8].endswith("[X]")


def test_a_pass_marks_nothing():
    assert "[" not in render_board(GameState.start(), last_action=PASS)


def test_colour_output_uses_ansi_only_when_asked():
    assert "\033[" not in render_board(GameState.start())
    assert "\033[" in render_board(GameState.start(), color=True)


def test_colour_is_off_for_pipes_and_with_no_color(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert color_wanted(Terminal())
    assert not color_wanted(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not color_wanted(Terminal())


def test_score_line_and_result_announcements():
    assert render_score_line(GameState.start()) == "Black (X) 2  White (O) 2  - Black to move"
    black_wins = parse_board_text("XXXXXXXXXXXOOXXXXXXXOXOXXXOXXXXXXXXXXXXXXXXOXXXXXXXXXXXXXXXXXXX- O")
    assert render_result(black_wins) == "Game over: Black wins 58-6 (1 empty square goes to the winner)."
    white_wins = parse_board_text("OOOOOOOOOXXXXOOOOXOXXOOOOOXOOXOOOXOOOXOOOOOOOOOOOOOOOXOO-OOOOOOO X")
    assert render_result(white_wins) == "Game over: White wins 52-12 (1 empty square goes to the winner)."
    draw = parse_board_text("XOOOOXOOXOOOXXXXOOOXXOXXOOXXXXXXOOOXOXXXOXOOXOXXOXXXOXXOOOOOOOXX X")
    assert render_result(draw) == "Game over: draw 32-32."
    assert "game over" in render_score_line(draw)


def test_move_and_analysis_text():
    start = GameState.start()
    f5 = parse_square("f5")
    assert render_move("Black (you)", f5, start.flipped_by(f5)) == "Black (you) plays f5 (flips e5)."
    assert render_move("White (AI)", PASS, 0) == "White (AI) passes."
    text = render_analysis([MoveInfo(f5, 0.625, 0.25), MoveInfo(19, 0.375, float("nan"))])
    assert text.split("\n") == [
        "move  visits  value  win%",
        "f5     62.5%  +0.25  62.5",
        "d3     37.5%    n/a   n/a",
    ]
