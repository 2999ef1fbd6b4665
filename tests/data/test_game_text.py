"""`parse_game_text`: GGF, a transcript, or a board and a transcript (play's saved .txt) as one
GameRecord, and one-line errors that say where in the text the problem is."""

from pathlib import Path

import pytest

from alphazero.data.game_text import GameTextError, parse_game_text
from alphazero.data.ggf import read_ggf
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import format_board_text, parse_transcript
from alphazero.othello.record import GameRecord
from alphazero.play.session import transcript_text

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "samples.ggf"


def test_a_ggf_text_gives_the_game_asked_for():
    text = SAMPLES.read_text(encoding="latin-1")
    games = read_ggf(SAMPLES)
    record = parse_game_text(text, number=3, source="samples.ggf")
    assert list(record.actions) == list(games[2].actions) and record.black_margin == games[2].black_margin
    with pytest.raises(GameTextError, match=r"^samples.ggf: holds 3 GGF game\(s\); there is no game 4$"):
        parse_game_text(text, number=4, source="samples.ggf")


def test_a_transcript_is_a_game_from_the_start_with_its_forced_passes():
    game = read_ggf(SAMPLES)[0]  # it has a pass, which a transcript leaves out
    record = parse_game_text(transcript_text(game) + "\n")
    assert record.start == GameState.start()
    assert list(record.actions) == list(game.actions) and PASS in record.actions
    assert record.black_margin == game.black_margin == 0
    unfinished = parse_game_text("f5 d6\nc3")
    assert list(unfinished.actions) == parse_transcript("f5d6c3") and unfinished.black_margin is None


def test_what_play_saves_from_a_board_reads_back():
    game = read_ggf(SAMPLES)[1]
    start = game.states()[30]
    saved = GameRecord(start=start, actions=game.actions[30:])
    text = transcript_text(saved)
    assert text.startswith(format_board_text(start) + "\n")
    record = parse_game_text(text)
    assert record.start == start and list(record.actions) == list(game.actions[30:])


def test_errors_name_the_source_and_the_line_and_character_as_written():
    start = format_board_text(GameState.start())
    with pytest.raises(GameTextError, match=r"^game.txt: illegal move 'a1' at line 2, character 2 \(ply 2\)"):
        parse_game_text(start + "\nf5a1\n", source="game.txt")
    with pytest.raises(GameTextError, match=r"^game.txt: board: bad board character 'Q'"):
        parse_game_text(start.replace("X", "Q", 1) + "\nf5\n", source="game.txt")
    with pytest.raises(GameTextError, match=r"^game.txt: board: board text has 10 non-space characters"):
        parse_game_text("----------", source="game.txt")
    with pytest.raises(GameTextError, match=r"^game.txt: no game in it"):
        parse_game_text(" \n", source="game.txt")
    with pytest.raises(GameTextError, match=r"^game.txt: holds one game \(a transcript, not GGF\); there is no game 2"):
        parse_game_text("f5", number=2, source="game.txt")
    with pytest.raises(GameTextError, match=r"^x.ggf: game 1 at character 0: .*never closed"):
        parse_game_text("(;GM[Othello]B[f5]", source="x.ggf")


def test_a_garbled_ggf_file_is_refused_as_ggf_not_read_as_a_transcript():
    """Junk before the game, or a .ggf file that does not open with '(;': the GGF parser's
    message (where the game should start), not a transcript's 'bad square' at its first letters."""
    with pytest.raises(GameTextError, match=r"^bad.ggf: game 1 at character 0: expected '\(;' to open a game"):
        parse_game_text("garbage(;GM[Othello]B[f5];)", source="bad.ggf")
    with pytest.raises(GameTextError, match=r"^bad.txt: game 1 at character 0: expected '\(;'"):
        parse_game_text("junk (;GM[Othello]B[f5];)", source="bad.txt")
    with pytest.raises(GameTextError, match=r"^x.ggf: game 1 .*'zz' is not a square"):
        parse_game_text("(;GM[Othello]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *]B[f5]W[zz];)", source="x.ggf")
