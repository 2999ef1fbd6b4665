"""GTP conformance of `GTPEngine`, in process: framing, every command, passes, undo, scoring, time
control, and robustness against malformed input (the engine never raises and keeps its state)."""

import io
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from search_doubles import DiscCountEvaluator, FlakyEvaluator

from alphazero.gtp.engine import (
    MAX_LINE_CHARS,
    Clock,
    GTPEngine,
    TimeControl,
    clean_line,
    move_time_budget,
    serve,
)
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import action_name, parse_board_text
from alphazero.play.choosers import FunctionChooser, SearchChooser

# A random game with a forced pass: black (on move at ply 14) has no move after white's h8.
PASS_GAME = "e6 f6 g6 g7 g8 f4 e3 h6 c4 c3 b2 f8 g3 h8".split()
REQUIRED_COMMANDS = [
    "protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
    "clear_board", "play", "genmove", "undo", "showboard", "final_score", "time_settings", "time_left",
    "set_game", "list_games",
]


class RecordingChooser(FunctionChooser):
    """Random legal moves (seeded); remembers the time budgets it was given."""

    def __init__(self, seed=0):
        rng = random.Random(seed)
        super().__init__(lambda state: rng.choice(state.legal_actions()), name="random")
        self.budgets = []

    def choose(self, state, seconds=None):
        self.budgets.append(seconds)
        return super().choose(state, seconds)


def make_engine(seed=0, start=None):
    kwargs = {"start": start} if start is not None else {}
    return GTPEngine(RecordingChooser(seed), **kwargs)


def ok(engine, line):
    response = engine.handle(line)
    assert response.startswith("=") and response.endswith("\n\n"), f"{line!r} -> {response!r}"
    return response.split(" ", 1)[1][:-2] if " " in response.split("\n")[0] else response[1:].strip()


def fails(engine, line):
    response = engine.handle(line)
    assert response.startswith("?") and response.endswith("\n\n"), f"{line!r} -> {response!r}"
    return response[1:].strip()


def snapshot(engine):
    return (
        engine.state,
        tuple((move.before, move.actions) for move in engine.history),
        engine.time_control,
        dict(engine.clocks),
        engine.finished,
    )


def test_protocol_identification_commands():
    engine = make_engine()
    assert ok(engine, "protocol_version") == "2"
    assert ok(engine, "name") == "AlphaZero-Othello"
    assert ok(engine, "version")
    listed = engine.handle("list_commands")[2:-2].split("\n")
    assert set(REQUIRED_COMMANDS) <= set(listed)
    for command in listed:
        assert ok(engine, f"known_command {command}") == "true"
    assert ok(engine, "known_command fly") == "false"
    assert ok(engine, "list_games") == "Othello"
    assert engine.handle("set_game Othello") == "=\n\n"
    assert fails(engine, "set_game Go").startswith("unsupported game")


def test_ids_are_echoed_on_success_and_on_error():
    engine = make_engine()
    assert engine.handle("12 protocol_version") == "=12 2\n\n"
    assert engine.handle("7 clear_board") == "=7\n\n"
    assert engine.handle("13 boardsize 9") == "?13 unacceptable size\n\n"
    assert engine.handle("99 frobnicate").startswith("?99 unknown command")
    assert engine.handle("5").startswith("?5 ")


def test_comments_blank_lines_tabs_and_control_characters():
    engine = make_engine()
    assert engine.handle("") is None
    assert engine.handle("   ") is None
    assert engine.handle("# only a comment") is None
    assert engine.handle("3\tname # trailing comment") == "=3 AlphaZero-Othello\n\n"
    assert engine.handle("proto\x01col_version\r") == "= 2\n\n"
    assert clean_line("play b f5 # why") == "play b f5"


def test_boardsize_accepts_only_8_and_resets_the_game():
    engine = make_engine()
    ok(engine, "play b f5")
    assert fails(engine, "boardsize 6") == "unacceptable size"
    assert engine.state != GameState.start()  # a failed command changes nothing
    assert fails(engine, "boardsize x").startswith("syntax error")
    assert fails(engine, "boardsize").startswith("syntax error")
    ok(engine, "boardsize 8")
    assert engine.state == GameState.start() and engine.history == []


def test_play_accepts_colours_and_moves_in_any_case():
    engine = make_engine()
    for line in ("play b f5", "play WHITE D6", "play Black c3", "play w d3", "play BLACK C4"):
        ok(engine, line)
    moves = [action_name(m.actions[-1]) for m in engine.history]
    assert moves == ["f5", "d6", "c3", "d3", "c4"]


@pytest.mark.parametrize(
    "line, reason",
    [
        ("play x f5", "syntax error"),
        ("play b z9", "syntax error"),
        ("play b f", "syntax error"),
        ("play b", "syntax error"),
        ("play", "syntax error"),
        ("play b f5 extra", "syntax error"),
        ("play b a1", "illegal move"),
        ("play b e4", "illegal move"),
        ("play w f4", "illegal move"),  # white is not on move and black is not forced to pass
        ("play b pass", "illegal move"),  # black has moves
        ("genmove purple", "syntax error"),
        ("genmove", "syntax error"),
        ("genmove w", "illegal move"),
        ("undo", "cannot undo"),
        ("final_score", "cannot score"),
        ("time_settings 1 2", "syntax error"),
        ("time_settings a 0 0", "syntax error"),
        ("time_settings -5 0 0", "syntax error"),
        ("time_left b 10", "syntax error"),
        ("time_left q 10 0", "syntax error"),
        ("komi abc", "syntax error"),
        ("komi nan", "syntax error"),
        ("komi 1e999", "syntax error"),
        ("known_command", "syntax error"),
    ],
)
def test_malformed_or_illegal_commands_fail_and_keep_the_state(line, reason):
    engine = make_engine()
    before = snapshot(engine)
    assert fails(engine, line).startswith(reason)
    assert snapshot(engine) == before


def test_illegal_move_error_names_the_move_and_the_legal_moves():
    engine = make_engine()
    message = fails(engine, "play b a1")
    assert "a1" in message and "d3 c4 f5 e6" in message


def test_genmove_answers_upper_case_and_plays_the_move():
    engine = make_engine()
    move = ok(engine, "genmove b")
    assert move == move.upper() and len(move) == 2
    assert action_name(engine.history[-1].actions[-1]) == move.lower()
    assert not engine.state.black_to_move


def test_reg_genmove_does_not_play():
    engine = make_engine()
    move = ok(engine, "reg_genmove black")
    assert GameState.start().is_legal(int((int(move[1]) - 1) * 8 + "ABCDEFGH".index(move[0])))
    assert engine.state == GameState.start()


def test_whole_game_by_genmove_ends_with_the_rules_score():
    """A controller asks whoever is on move; the engine's state follows our rules, passes included,
    and final_score agrees with them once the game is over."""
    for seed in range(5):
        engine = make_engine(seed)
        mirror = GameState.start()
        while not mirror.is_over():
            colour = "b" if mirror.black_to_move else "w"
            move = ok(engine, f"genmove {colour}")
            action = PASS if move == "PASS" else (int(move[1]) - 1) * 8 + "ABCDEFGH".index(move[0])
            assert (move == "PASS") == mirror.must_pass()
            mirror = mirror.play(action)
            assert engine.state == mirror
        margin = mirror.black_margin()
        expected = f"B+{margin}" if margin > 0 else f"W+{-margin}" if margin < 0 else "0"
        assert ok(engine, "final_score") == expected
        assert ok(engine, "genmove b") == "PASS"  # after the end: a pass that changes nothing
        assert engine.state == mirror


def test_whole_game_by_play_then_undo_back_to_the_start():
    rng = random.Random(3)
    engine = make_engine()
    state = GameState.start()
    count = 0
    while not state.is_over():
        action = rng.choice(state.legal_actions())
        colour = "black" if state.black_to_move else "white"
        ok(engine, f"play {colour} {action_name(action)}")
        state = state.play(action)
        count += 1
    assert engine.state == state
    for _ in range(count):
        ok(engine, "undo")
    assert engine.state == GameState.start()
    assert fails(engine, "undo").startswith("cannot undo")


def _play_pass_game(engine):
    for index, move in enumerate(PASS_GAME):
        ok(engine, f"play {'bw'[index % 2]} {move}")
    assert engine.state.must_pass() and engine.state.black_to_move


def test_same_colour_twice_infers_the_forced_pass_grhino_dialect():
    engine = make_engine()
    _play_pass_game(engine)
    ok(engine, "play w d6")
    assert engine.history[-1].actions == (PASS, 19 + 24)
    assert engine.state.black_to_move
    ok(engine, "undo")  # takes back the move and the pass it implied
    assert engine.state.must_pass() and engine.state.black_to_move


def test_explicit_pass_is_accepted_when_forced_in_any_spelling():
    for spelling in ("pass", "PASS", "Pass", "pa", "--"):
        engine = make_engine()
        _play_pass_game(engine)
        ok(engine, f"play b {spelling}")
        assert not engine.state.black_to_move and engine.history[-1].actions == (PASS,)
        assert fails(engine, "play w pass").startswith("illegal move")


def test_genmove_passes_when_forced_and_for_the_other_colour_infers_the_pass():
    engine = make_engine()
    _play_pass_game(engine)
    assert ok(engine, "genmove b") == "PASS"
    ok(engine, "undo")
    move = ok(engine, "genmove w")  # black's forced pass is inferred
    assert move != "PASS" and engine.history[-1].actions[0] == PASS
    assert engine.state.black_to_move


@pytest.mark.parametrize(
    "board, score",
    [  # finished random games: one empty square each goes to the winner; a full-board draw
        ("XXXXXXXXXXXOOXXXXXXXOXOXXXOXXXXXXXXXXXXXXXXOXXXXXXXXXXXXXXXXXXX- O", "B+52"),  # 57-6
        ("OOOOOOOOOXXXXOOOOXOXXOOOOOXOOXOOOXOOOXOOOOOOOOOOOOOOOXOO-OOOOOOO X", "W+40"),  # 12-51
        ("XOOOOXOOXOOOXXXXOOOXXOXXOOXXXXXXOOOXOXXXOXOOXOXXOXXXOXXOOOOOOOXX X", "0"),
    ],
)
def test_final_score_gives_empties_to_the_winner(board, score):
    engine = make_engine(start=parse_board_text(board))
    assert engine.state.is_over()
    assert ok(engine, "final_score") == score


def test_showboard_has_coordinates_side_to_move_and_no_blank_line():
    engine = make_engine()
    ok(engine, "play b f5")
    response = engine.handle("showboard")
    assert response.startswith("=\n") and response.endswith("\n\n")
    body = response[2:-2]
    assert "\n\n" not in body
    lines = body.split("\n")
    assert lines[0].split() == list("abcdefgh")
    assert lines[5].split()[0] == "5" and "[X]" in lines[5]  # f5 marked as the last move
    assert "White to move" in lines[-1]


def test_clear_board_starts_a_new_game():
    engine = make_engine()
    ok(engine, "play b f5")
    ok(engine, "clear_board")
    assert engine.state == GameState.start() and not engine.history


# -- time control -------------------------------------------------------------------------------


def test_time_budget_shares_main_time_over_own_remaining_moves():
    control = TimeControl(main_time=60, byo_yomi_time=0, byo_yomi_stones=0)
    budget = move_time_budget(control, None, empties=60)
    assert 0.5 < budget < 60 / 30  # 30 own moves left, minus the safety margin
    assert move_time_budget(control, Clock(6, 0), empties=10) < move_time_budget(control, Clock(6, 0), empties=2)


def test_time_budget_in_byo_yomi_divides_the_period_by_its_stones():
    control = TimeControl(main_time=0, byo_yomi_time=30, byo_yomi_stones=10)
    assert move_time_budget(control, None, empties=40) == pytest.approx(3 * 0.8 - 0.05)
    assert move_time_budget(control, Clock(10, 5), empties=40) == pytest.approx(2 * 0.8 - 0.05)


def test_no_time_limit_cases():
    assert move_time_budget(None, None, 60) is None
    assert move_time_budget(TimeControl(0, 10, 0), None, 60) is None  # GTP: byo-yomi without stones
    assert move_time_budget(TimeControl(0, 0, 0), Clock(0, 0), 60) is None


def test_time_budget_never_drops_to_zero():
    assert move_time_budget(TimeControl(1, 0, 0), Clock(0, 0), 60) > 0


def test_time_settings_and_time_left_reach_the_chooser():
    engine = make_engine()
    ok(engine, "genmove b")
    assert engine.chooser.budgets[-1] is None
    ok(engine, "time_settings 300 0 0")
    ok(engine, "time_left w 12 0")
    ok(engine, "genmove w")
    assert engine.chooser.budgets[-1] == pytest.approx(move_time_budget(TimeControl(300, 0, 0), Clock(12, 0), 59))
    ok(engine, "time_settings 0 1 0")  # no limit
    ok(engine, "genmove b")
    assert engine.chooser.budgets[-1] is None


# -- robustness ---------------------------------------------------------------------------------


class BrokenChooser(FunctionChooser):
    def __init__(self):
        super().__init__(lambda state: 1 / 0, name="broken")


def test_a_failing_ai_gives_an_error_not_a_crash():
    engine = GTPEngine(BrokenChooser())
    assert fails(engine, "genmove b").startswith("internal error")
    assert engine.state == GameState.start()
    illegal = GTPEngine(FunctionChooser(lambda state: 0, name="a1-lover"))
    assert "internal error" in fails(illegal, "genmove b")
    assert illegal.state == GameState.start()


def test_very_long_line_is_refused():
    engine = make_engine()
    assert fails(engine, "play b " + "f5" * MAX_LINE_CHARS).startswith("line too long")
    assert engine.state == GameState.start()


_TOKENS = st.sampled_from(
    ["play", "genmove", "undo", "boardsize", "final_score", "time_left", "time_settings", "showboard",
     "clear_board", "komi", "set_game", "known_command", "b", "w", "BLACK", "white", "x", "f5", "D6",
     "c4", "e3", "pass", "PASS", "a1", "z9", "8", "9", "-1", "0", "1e999", "nan", "#", "12", "Othello"]
)
_GARBAGE = st.text(alphabet=st.characters(codec="utf-8"), max_size=30)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.one_of(_TOKENS, _GARBAGE), min_size=0, max_size=5).map(" ".join), max_size=25),
       st.integers(0, 1000))
def test_random_command_lines_never_crash_and_errors_keep_the_state(lines, seed):
    engine = make_engine(seed)
    for line in lines:
        before = snapshot(engine)
        response = engine.handle(line)
        if response is None:
            assert snapshot(engine) == before
            continue
        assert response[0] in "=?" and response.endswith("\n\n") and "\n\n" not in response[:-2]
        assert "internal error" not in response
        if response.startswith("?"):
            assert snapshot(engine) == before, f"{line!r} failed ({response!r}) but changed the state"


def test_serve_answers_each_line_survives_binary_garbage_and_stops_at_eof():
    engine = make_engine()
    data = (
        b"1 name\n"
        b"\xff\xfe\x00\x9c garbage \x80\n"
        b"2 play b " + b"f5" * 10_000 + b"\n"  # over-long: refused, not played
        b"3 play b f5\n"
        b"\n# nothing\n"
        b"4 showboard"  # last line without a newline, then end of input
    )
    out = io.StringIO()
    assert serve(engine, io.BytesIO(data), out) == 0
    responses = out.getvalue().split("\n\n")
    assert responses[0] == "=1 AlphaZero-Othello"
    assert responses[1].startswith("? unknown command")
    assert responses[2].startswith("?2 line too long")
    assert responses[3] == "=3"
    assert responses[4].startswith("=4\n")
    assert engine.state == GameState.start().play(37)


def test_serve_stops_reading_after_quit():
    engine = make_engine()
    out = io.StringIO()
    serve(engine, io.BytesIO(b"quit\nplay b f5\n"), out)
    assert out.getvalue() == "=\n\n"
    assert engine.state == GameState.start()


def test_genmove_after_an_ai_error_reports_it_and_then_plays_what_an_engine_that_never_failed_plays():
    flaky = GTPEngine(SearchChooser(FlakyEvaluator(fail_on=4), simulations=64))
    healthy = GTPEngine(SearchChooser(DiscCountEvaluator(), simulations=64))
    for engine in (flaky, healthy):
        for move in ("b f5", "w d6", "b c3", "w d3"):
            ok(engine, f"play {move}")
    error = flaky.handle("genmove b")
    assert error.startswith("? internal error in genmove: RuntimeError: evaluator failed"), error
    for ply in range(10):
        color = "bw"[ply % 2]
        expected = ok(healthy, f"genmove {color}")
        assert ok(flaky, f"genmove {color}") == expected, f"ply {ply}"
    assert ok(flaky, "showboard") == ok(healthy, "showboard")
