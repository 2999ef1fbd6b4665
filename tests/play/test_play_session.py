"""Scripted terminal sessions: setup, moves, undo, hint, forced passes, the end of the game, saving,
and bad input that must never change or lose the game."""

import random

from alphazero.data.ggf import read_ggf
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import format_transcript, parse_board_text, parse_square, parse_transcript
from alphazero.play.choosers import FunctionChooser, SearchChooser
from alphazero.play.session import PlaySession, Seat, transcript_text

PASS_GAME = "e6f6g6g7g8f4e3h6c4c3b2f8g3h8"  # then black (to move) has no legal move
NEAR_END = "OOXXOOO-XOXXOOO-XXOOOXOOXOOOOXXOXOXOOOOOXOOXOOOOXOXOOOOOXXOOOOOO X"  # h1, h2 empty


def first_legal_ai(name="first"):
    return FunctionChooser(lambda state: state.legal_actions()[0], name=name)


def random_ai(seed=0):
    rng = random.Random(seed)
    return FunctionChooser(lambda state: rng.choice(state.legal_actions()), name="random")


class Script:
    """Feeds scripted lines to the session and collects everything it writes."""

    def __init__(self, lines):
        self.lines = list(lines)
        self.output = []

    def read_line(self, prompt):
        self.output.append(prompt)
        return self.lines.pop(0) if self.lines else None

    def write(self, text):
        self.output.append(text)

    @property
    def text(self):
        return "\n".join(self.output)


def run_session(lines, black=None, white=None, **kwargs):
    script = Script(lines)
    session = PlaySession(
        black or Seat("you"),
        white or Seat("first", first_legal_ai()),
        read_line=script.read_line,
        write=script.write,
        **kwargs,
    )
    record = session.run()
    return session, script, record


def test_moves_in_either_case_and_the_ai_replies():
    session, script, _ = run_session(["F5", "c3"])
    # f5, the AI's first legal reply (f4), then c3 and its reply.
    assert session.actions[:3] == [parse_square("f5"), parse_square("f4"), parse_square("c3")]
    assert "Black (you) plays f5 (flips e5)." in script.text
    assert "White (first) plays f4" in script.text
    assert "End of input" in script.text


def test_bad_input_is_explained_with_the_legal_moves_and_changes_nothing():
    session, script, _ = run_session(["z9", "a1", "e4", "f5 d6", "pass", "hello world", "", "x" * 5000, "\ufffd\x00"])
    assert session.actions == []
    text = script.text
    assert "'z9' is neither a move nor a command" in text
    assert "a1 flips no disc. Legal moves: d3 c4 f5 e6." in text
    assert "e4 is already taken" in text
    assert "You cannot pass: you have legal moves (d3 c4 f5 e6)." in text
    assert text.count("Legal moves: d3 c4 f5 e6") >= 4
    assert "x" * 100 not in text  # a huge token is not echoed back whole


def test_undo_takes_back_your_move_and_the_ai_reply():
    session, script, _ = run_session(["f5", "d3", "undo"])
    assert session.actions == [parse_square("f5"), parse_square("f4")]
    assert "Took back d3" in script.text


def test_undo_with_nothing_to_undo_and_never_past_the_setup():
    setup = parse_transcript("f5d6c3")
    session, script, _ = run_session(["undo", "d3", "undo", "undo"], black=Seat("first", first_legal_ai()),
                                     white=Seat("you"), setup_actions=setup)
    # White (you) to move after the transcript; d3 then the AI's reply, then undo twice.
    assert session.actions == setup
    assert script.text.count("Nothing to undo") == 2


def test_setup_from_board_text_continues_from_that_position():
    start = parse_board_text(NEAR_END)
    session, script, record = run_session(["h1"], start=start)
    assert session.state.is_over()
    assert record.start == start and record.black_margin == session.state.black_margin()
    assert "Game over:" in script.text


def test_game_end_announces_winner_and_final_score():
    start = parse_board_text(NEAR_END)
    _, script, record = run_session(["h2"], start=start)
    final = start
    for action in record.actions:
        final = final.play(action)
    black, white = final.disc_counts()
    winner = "Black" if black > white else "White"
    assert f"Game over: {winner} wins {max(black, white)}-{min(black, white)}" in script.text


def test_forced_pass_is_played_for_you_and_announced():
    setup = parse_transcript(PASS_GAME)
    session, script, _ = run_session([], setup_actions=setup)
    assert session.actions[len(setup)] == PASS
    assert "You have no legal move: Black passes." in script.text
    assert session.actions[len(setup) + 1] != PASS  # then the AI (white) moved


def test_hint_shows_the_ai_evaluation_with_visit_share_and_value():
    ai = SearchChooser(UniformEvaluator(), simulations=64)
    start = parse_board_text(NEAR_END)
    session, script, _ = run_session(["hint"], white=Seat("mcts", ai), start=start)
    assert session.actions == []  # a hint plays nothing
    text = script.text
    assert "move  visits  value  win%" in text
    hint_lines = [line for line in text.split("\n") if line.startswith(("h1 ", "h2 "))]
    assert len(hint_lines) == 2 and all("%" in line for line in hint_lines)


def test_hint_without_an_explaining_ai_says_so():
    _, script, _ = run_session(["hint"])
    assert "No hints" in script.text


def test_save_command_writes_ggf_and_transcript_that_read_back(tmp_path):
    prefix = tmp_path / "games" / "mine"
    session, script, _ = run_session(["f5", "d3", f"save {prefix}"])
    assert f"Saved {prefix}.ggf and {prefix}.txt." in script.text
    (record,) = read_ggf(f"{prefix}.ggf")
    assert list(record.actions) == session.actions and record.start == GameState.start()
    assert record.metadata["PB"] == "you" and record.metadata["PW"] == "first"
    assert parse_transcript((tmp_path / "games" / "mine.txt").read_text()) == session.actions


def test_save_to_a_bad_path_reports_and_keeps_the_game(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    session, script, _ = run_session(["f5", f"save {blocker}/sub/game", "d3"])
    assert "Could not save" in script.text
    assert len(session.actions) == 4  # f5, reply, d3, reply: the game went on


def test_game_is_saved_automatically_at_the_end_with_save_prefix(tmp_path):
    start = parse_board_text(NEAR_END)
    run_session(["h1", "quit"], start=start, save_prefix=str(tmp_path / "end"))
    (record,) = read_ggf(tmp_path / "end.ggf")
    assert record.start == start and record.black_margin is not None
    assert (tmp_path / "end.txt").read_text().splitlines()[0] == NEAR_END  # non-standard start first


def test_transcript_text_of_a_standard_game_is_one_line():
    session, _, _ = run_session(["f5", "d3"])
    assert transcript_text(session.record()) == format_transcript(session.actions) + "\n"


def test_ai_versus_ai_plays_to_the_end_with_delay_and_no_input():
    pauses = []
    script = Script([])
    session = PlaySession(Seat("random", random_ai(1)), Seat("first", first_legal_ai()), script.read_line,
                          script.write, delay=0.25, sleep=pauses.append)
    record = session.run()
    assert session.state.is_over() and record.black_margin is not None
    assert not any(line.endswith(": ") for line in script.output)  # nobody was asked for input
    assert pauses == [0.25] * sum(1 for a in record.actions if a != PASS)
    assert "Game over:" in script.text


def test_after_the_end_you_can_undo_and_play_on():
    start = parse_board_text(NEAR_END)
    session, script, _ = run_session(["h1", "f5", "undo", "h2", "quit"], start=start)
    assert "The game is over; 'f5' cannot be played" in script.text
    assert session.actions[0] == parse_square("h2")
    assert script.text.count("Game over:") == 2


class FailingChooser(FunctionChooser):
    def __init__(self):
        super().__init__(lambda state: state.legal_actions()[0], name="flaky")

    def choose(self, state, seconds=None):
        raise RuntimeError("engine died")


def test_a_failing_ai_ends_the_session_but_saves_the_game(tmp_path):
    session, script, record = run_session(["f5"], white=Seat("flaky", FailingChooser()),
                                          save_prefix=str(tmp_path / "rescued"))
    assert "failed: RuntimeError: engine died" in script.text
    assert list(read_ggf(tmp_path / "rescued.ggf")[0].actions) == [parse_square("f5")]


def test_you_can_play_white_and_the_ai_opens():
    session, script, _ = run_session(["c5"], black=Seat("first", first_legal_ai()), white=Seat("you"))
    assert session.actions[:2] == [parse_square("d3"), parse_square("c5")]
    assert script.output[0] == "Black: first   White: you"
