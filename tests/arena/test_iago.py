"""Iago (Debian's cl-reversi behind `alphazero/arena/iago_gtp.lisp`): the arena's second external
engine speaks GTP with our squares, colours, passes and final score, and refuses bad commands
without changing its game. Skipped without SBCL and cl-reversi; the launcher's own refusals are
tested everywhere."""

import sys
import time

import pytest

from alphazero.arena import iago
from alphazero.arena.gtp_client import GTPEngine, GTPError, parse_showboard, verify_board_convention
from alphazero.arena.openings import random_openings
from alphazero.arena.players import AlphaBetaPlayer
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, GameState
from alphazero.othello.notation import parse_square

from tests.arena.helpers import (
    check_engine_plays_around_a_forced_pass,
    check_short_arena_match,
    engine_plays_itself_to_the_end,
    tell_opening,
)


def _command(depth=2):
    return f"{sys.executable} -m alphazero.arena.iago --depth {depth}"


@pytest.fixture(scope="module")
def iago_installed():
    missing = iago.missing_requirement()
    if missing is not None:
        pytest.skip(f"Iago needs SBCL and cl-reversi ({missing}): apt-get install -y sbcl cl-reversi")


def test_the_launcher_names_what_is_missing_and_refuses_a_depth_or_time_out_of_range(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(iago.shutil, "which", lambda name: None)
    assert iago.main(["--depth", "4"]) == 2
    assert "SBCL (sbcl) is not installed; apt-get install -y sbcl cl-reversi" in capsys.readouterr().err
    monkeypatch.setattr(iago.shutil, "which", lambda name: "/usr/bin/sbcl")
    monkeypatch.setattr(iago, "CL_REVERSI", tmp_path)  # no reversi.asd there
    assert iago.main([]) == 2
    assert f"cl-reversi ({tmp_path / 'reversi.asd'}) is not installed" in capsys.readouterr().err
    for depth in ("0", "40"):
        with pytest.raises(SystemExit) as stop:
            iago.main(["--depth", depth])
        assert stop.value.code == 2
        assert "--depth must be 1-39" in capsys.readouterr().err
    for seconds in ("0", "-1", "nan", "4000"):
        with pytest.raises(SystemExit) as stop:
            iago.main(["--seconds", seconds])
        assert stop.value.code == 2
        assert "--seconds must be above 0 and below 3600" in capsys.readouterr().err


def test_iago_shares_our_squares_colours_and_side_to_move(iago_installed):
    with GTPEngine(_command()) as engine:
        engine.setup()
        assert parse_showboard(engine.showboard()) == GameState.start()
        engine.play(BLACK, parse_square("c4"))
        assert parse_showboard(engine.showboard()) == GameState.start().play(parse_square("c4"))
        verify_board_convention(engine)  # the same check GTPPlayer runs at start


def test_iago_refuses_bad_commands_and_keeps_its_game(iago_installed):
    with GTPEngine(_command()) as engine:
        engine.setup()
        engine.play(BLACK, parse_square("c4"))
        before = engine.showboard()
        for command, reason in [
            ("play black a1", "illegal move"),
            ("play white c4", "illegal move"),  # an occupied square
            ("play black pass", "syntax error"),  # never told a pass, like GRhino
            ("play purple d3", "syntax error"),
            ("play black z9", "syntax error"),
            ("genmove", "syntax error"),
            ("boardsize 10", "only 8"),
            ("undo", "unknown command"),
        ]:
            with pytest.raises(GTPError, match=reason):
                engine.command(command)
        assert engine.showboard() == before
        assert engine.command("7 name").startswith("Iago")  # a numbered command, as GTP allows


def test_iago_plays_random_openings_to_the_end_with_our_rules_and_final_margin(iago_installed):
    for opening in random_openings(2, 6, seed=3):
        with GTPEngine(_command()) as engine:
            state = engine_plays_itself_to_the_end(engine, opening)
            assert engine.final_score() == state.black_margin()
            seen = parse_showboard(engine.showboard())  # its last board, disc for disc
            assert (seen.black, seen.white) == (state.black, state.white)


def test_iago_by_time_deepens_until_its_time_is_up_and_plays_a_legal_move(iago_installed):
    """`--seconds`: an interrupted deeper search leaves the game as it was and the last finished
    depth's move is played. The bounds are loose on purpose: the lower one holds because no depth up
    to the cap of 39 can finish in the middlegame (SBCL's timer was seen to fire a few milliseconds
    early, 0.297 s), the upper is a hang check for a busy machine."""
    opening = random_openings(1, 12, seed=4)[0]
    with GTPEngine(f"{sys.executable} -m alphazero.arena.iago --seconds 0.3") as engine:
        state = tell_opening(engine, opening)
        assert "0.3 s a move" in engine.command("name")
        before = engine.showboard()
        started = time.monotonic()
        move = engine.genmove(state.color_to_move)
        thought = time.monotonic() - started
        assert state.is_legal(move) and move != PASS
        assert 0.25 <= thought < 10.0, thought
        seen, played = parse_showboard(engine.showboard()), state.play(move)
        assert (seen.black, seen.white) == (played.black, played.white), before


def test_iago_plays_around_a_forced_pass_it_is_never_told_about(iago_installed):
    check_engine_plays_around_a_forced_pass(_command())


def test_a_short_match_against_iago_through_the_arena(iago_installed):
    result = check_short_arena_match(f'gtp:"{_command(3)}",processes=2,name=iago-3', AlphaBetaPlayer(depth=1))
    assert result.summary()["player_b"] == "iago-3"
