"""GTP client: fake engines for the failure paths (no GRhino needed), GRhino for the real quirks."""

import re
import textwrap
import time

import pytest

from alphazero.arena.gtp_client import (
    GTPEngine,
    GTPError,
    parse_score,
    parse_showboard,
    parse_vertex,
    verify_board_convention,
)
from alphazero.arena.openings import random_openings
from alphazero.arena.players import AlphaBetaPlayer, GTPPlayer
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, WHITE, GameState
from alphazero.othello.notation import parse_square

from tests.arena.helpers import (
    check_engine_plays_around_a_forced_pass,
    check_short_arena_match,
    engine_plays_itself_to_the_end,
    fake_engine,
    random_game_states,
)

# ----------------------------------------------------------------------------------------------
# Parsing and failure paths, with scripted engines


def test_vertices_parse_in_either_case_and_pass_in_lower_case():
    assert parse_vertex("E6") == parse_vertex("e6") == parse_square("e6")
    assert parse_vertex("pass") == parse_vertex("PASS") == PASS
    with pytest.raises(GTPError, match="'resign'"):
        parse_vertex("resign")


def test_final_score_parses_black_and_white_margins():
    assert parse_score("B+10") == 10
    assert parse_score("W+4") == -4
    assert parse_score("0") == 0
    with pytest.raises(GTPError, match="final_score"):
        parse_score("cannot score")


def test_a_garbled_answer_names_the_command_and_the_output():
    engine = GTPEngine(fake_engine('print("hello there", flush=True); print(flush=True)'), timeout=5)
    with pytest.raises(GTPError, match=r"(?s)failed on 'boardsize 8'.*does not start with '=' or '\?'.*hello there"):
        engine.setup()
    with pytest.raises(GTPError, match="unusable"):
        engine.clear_board()


@pytest.mark.parametrize(
    "script, reason",
    [
        # Garbage without end: refused at its first line, not after the (startup) time limit.
        ('while True: print("garbage", flush=True)', "does not start with '=' or '?'"),
        ('while True: print("= garbage", flush=True)', "runs past 1000 lines"),
        ('sys.stdout.buffer.write(b"\\xff\\xfe= ok\\n\\n"); sys.stdout.flush()', "does not start with '=' or '?'"),
    ],
)
def test_an_engine_printing_garbage_fails_at_once_naming_it(script, reason):
    engine = GTPEngine(fake_engine(script), timeout=60)
    started = time.monotonic()
    with pytest.raises(GTPError, match=rf"(?s)failed on 'boardsize 8': [^\n]*{re.escape(reason)}"):
        engine.setup()
    assert time.monotonic() - started < 30, "not left to the time limit"


@pytest.mark.parametrize("script", ['while True: print("garbage", flush=True)', 'while True: print("= garbage", flush=True)'])
def test_the_stdout_reader_of_an_engine_killed_for_garbage_ends(script):
    # The reader blocks on the bounded line queue once the engine floods it; after the failure
    # kills the engine, nobody reads the queue, so the reader must drop lines and reach EOF, not
    # wait forever holding the pipe and up to MAX_ANSWER_LINES lines.
    engine = GTPEngine(fake_engine(script), timeout=60)
    with pytest.raises(GTPError):
        engine.setup()
    engine._stdout_pump.join(timeout=10)
    assert not engine._stdout_pump.is_alive(), "the stdout reader thread of a killed engine is still blocked"


def test_an_endless_line_is_read_in_bounded_pieces(monkeypatch):
    from alphazero.arena import gtp_client

    monkeypatch.setattr(gtp_client, "MAX_LINE_CHARS", 100)
    engine = GTPEngine(fake_engine('sys.stdout.write("=" + "x" * 100000 + "\\n\\n"); sys.stdout.flush()'), timeout=60)
    assert engine.command("boardsize 8") == "x" * 99, "the line's first MAX_LINE_CHARS characters, the rest dropped"


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan"), float("inf")])
def test_a_timeout_that_is_no_number_of_seconds_is_refused(timeout):
    with pytest.raises(ValueError, match="GTP timeout must be a number of seconds > 0"):
        GTPEngine("true", timeout=timeout)


def test_a_dying_engine_reports_the_command_exit_code_and_stderr():
    body = """
    if name == "genmove":
        sys.stderr.write("boom: out of memory\\n"); sys.stderr.flush(); sys.exit(3)
    reply("false" if name == "known_command" else "")
    """
    engine = GTPEngine(fake_engine(body), timeout=5)
    engine.setup()
    with pytest.raises(GTPError, match=r"(?s)'genmove black'.*exited.*exit code 3.*boom: out of memory"):
        engine.genmove(BLACK)


def test_a_silent_engine_times_out_with_a_clear_error():
    body = """
    if name == "genmove":
        import time; time.sleep(30)
    reply()
    """
    # Set-up gets a generous limit: on a loaded machine the fake engine's interpreter can take
    # longer than 0.5 s to start, and the limit under test is the genmove's.
    engine = GTPEngine(fake_engine(body), timeout=30)
    engine.setup()
    engine.timeout = 0.5
    with pytest.raises(GTPError, match=r"'genmove white'.*no complete answer within 0.5 s.*timeout=SECONDS"):
        engine.genmove(WHITE)
    assert engine.process.poll() is not None, "a timed-out engine is killed"


def test_the_first_answer_may_wait_for_the_engine_to_start_the_next_ones_may_not(monkeypatch):
    from alphazero.arena import gtp_client

    monkeypatch.setattr(gtp_client, "STARTUP_TIMEOUT", 30.0)
    body = """
    if name == "genmove":
        import time; time.sleep(30)
    reply()
    """
    # An engine that takes 2 s to start (loading a network, compiling its search), under a
    # per-command limit of 0.5 s: its first answer is waited for, a slow later one is not.
    started = 'if "started" not in globals():\n    import time; time.sleep(2); started = True\n'
    engine = GTPEngine(fake_engine(started + textwrap.dedent(body)), timeout=0.5)
    engine.setup()
    with pytest.raises(GTPError, match=r"'genmove white'.*no complete answer within 0.5 s \(a slow engine"):
        engine.genmove(WHITE)


def test_an_engine_that_never_starts_times_out_naming_the_start(monkeypatch):
    from alphazero.arena import gtp_client

    monkeypatch.setattr(gtp_client, "STARTUP_TIMEOUT", 1.0)
    engine = GTPEngine(fake_engine("import time; time.sleep(30)\nreply()\n"), timeout=0.2)
    with pytest.raises(GTPError, match=r"'boardsize 8'.*within 1 s, its first answer, which waits for the engine to start"):
        engine.setup()


def test_a_rejected_command_is_a_gtp_error_quoting_the_answer():
    engine = GTPEngine(fake_engine('reply() if name != "play" else print("? illegal move\\n", flush=True)'), timeout=5)
    engine.setup()
    with pytest.raises(GTPError, match=r"rejected 'play black C4': 'illegal move'"):
        engine.play(BLACK, parse_square("c4"))
    engine.quit()


def test_a_move_our_rules_reject_names_the_move_our_position_and_the_engine_board():
    body = """
    answers = {"known_command": "false", "genmove": "A1", "showboard": "the engine's own board"}
    reply(answers.get(name, ""))
    """
    player = GTPPlayer(fake_engine(body), timeout=5)
    with pytest.raises(GTPError, match=r"(?s)genmove black with a1, which our rules reject \(legal: d3 c4 f5 e6\).*"
                       r"Next move: Black.*the engine's own board"):
        player.select_move(GameState.start())
    player.close()


def test_an_engine_with_other_coordinates_is_refused_at_start():
    rows = {4: ". . . X O . . .", 5: ". . . O X . . ."}  # the start mirrored left-right
    board = "\\n".join(["    a b c d e f g h"] + [f"  {r} " + rows.get(r, ". " * 7 + ".") for r in range(1, 9)])
    body = f"""
    if name == "known_command":
        reply("true")
    elif name == "showboard":
        reply("Next move: Black\\n" + "{board}")
    else:
        reply()
    """
    with pytest.raises(GTPError, match="does not share our board convention after clear_board"):
        GTPPlayer(fake_engine(body), timeout=5)


def test_showboard_text_parses_into_a_position():
    text = "Next move: White\n    a b c d e f g h\n" + "\n".join(
        f"  {r} " + ({4: ". . X X X . . .", 5: ". . . X O . . ."}.get(r, ". . . . . . . .")) for r in range(1, 9)
    )
    assert parse_showboard(text) == GameState.start().play(parse_square("c4"))
    assert parse_showboard("= nothing like a board") is None


# ----------------------------------------------------------------------------------------------
# GRhino


def _rhino(path, level=1):
    return f"{path} -l {level} -r 0 -b 0"


@pytest.mark.grhino
def test_grhino_shares_our_squares_and_colours(gtp_rhino):
    with GTPEngine(_rhino(gtp_rhino)) as engine:
        engine.setup()
        assert parse_showboard(engine.showboard()) == GameState.start()
        engine.play(BLACK, parse_square("c4"))
        assert parse_showboard(engine.showboard()) == GameState.start().play(parse_square("c4"))
        verify_board_convention(engine)  # the same check GTPPlayer runs at start


@pytest.mark.grhino
def test_grhino_quirks_passes_rejected_and_pass_for_the_colour_not_on_move(gtp_rhino):
    with GTPEngine(_rhino(gtp_rhino)) as engine:
        engine.setup()
        with pytest.raises(GTPError, match="rejected 'play black pass'"):
            engine.command("play black pass")
        with pytest.raises(ValueError, match="passes are not sent"):
            engine.play(BLACK, PASS)
        assert engine.genmove(WHITE) == PASS  # white is not on move: GRhino says pass, not an error
        move = engine.genmove(BLACK)  # answered upper case, e.g. "= C4"
        assert GameState.start().is_legal(move)


@pytest.mark.grhino
def test_grhino_self_play_from_a_random_opening_ends_with_our_final_margin(gtp_rhino):
    with GTPEngine(_rhino(gtp_rhino)) as engine:
        state = engine_plays_itself_to_the_end(engine, random_openings(1, 6, seed=3)[0])
        assert engine.final_score() == state.black_margin()


@pytest.mark.grhino
def test_grhino_plays_around_a_forced_pass_it_is_never_told_about(gtp_rhino):
    check_engine_plays_around_a_forced_pass(_rhino(gtp_rhino))


@pytest.mark.grhino
def test_grhino_follows_a_game_given_only_positions_one_move_at_a_time(gtp_rhino):
    """The way a terminal or GTP front end uses a player: select_move(state) per turn, no history."""
    gtp = GTPPlayer(_rhino(gtp_rhino))
    opponent = AlphaBetaPlayer(depth=1)
    try:
        for opening in random_openings(2, 3, seed=11):
            gtp.new_game()
            state = GameState.start()
            for action in opening:
                state = state.play(action)
            while not state.is_over():
                mover = gtp if state.black_to_move else opponent
                move = mover.select_move(state)
                assert state.is_legal(move)
                state = state.play(move)
    finally:
        gtp.close()


@pytest.mark.grhino
def test_a_short_match_against_grhino_level_1_through_the_arena(gtp_rhino):
    result = check_short_arena_match(f'gtp:"{_rhino(gtp_rhino)}",processes=2', AlphaBetaPlayer(depth=2))
    assert result.summary()["player_b"].startswith("gtp(")


def test_a_position_out_of_nowhere_needs_a_setup_command_the_engine_lacks():
    body = """
    reply({"known_command": "false", "genmove": "D3"}.get(name, ""))
    """
    midgame = [s for s in random_game_states(3, seed=2) if s.empties() == 40][0]
    player = GTPPlayer(fake_engine(body), timeout=5)
    try:
        assert player.select_move(GameState.start()) == parse_square("d3")
        with pytest.raises(GTPError, match="not reachable from the engine's game and the engine has no grhino-setup_board"):
            player.select_move(midgame)
    finally:
        player.close()


@pytest.mark.grhino
def test_grhino_is_set_up_directly_on_a_position_with_no_known_history(gtp_rhino):
    player = GTPPlayer(_rhino(gtp_rhino))
    try:
        for state in [s for s in random_game_states(4, seed=5) if not s.must_pass()][10::15]:
            player.new_game()
            assert state.is_legal(player.select_move(state)), state
    finally:
        player.close()
