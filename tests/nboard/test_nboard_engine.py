"""The NBoard engine: every reply's format in a scripted exchange (in process, on a uniform-prior
MCTS), a search interrupted by ping, garbage answered without a crash or a change, and the real
command on the shipped default network playing a whole game through the protocol."""

import io
import re
import subprocess
import sys
import threading
import time

import pytest

from alphazero.data.ggf import format_ggf
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.nboard.engine import NBoardEngine, evaluation, move_text, serve
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_transcript
from alphazero.othello.record import GameRecord
from alphazero.play.choosers import PlayerChooser, SearchChooser, default_checkpoint
from tests.conftest import REPO_ROOT

NBOARD_GAME = ("(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]"
               "BO[8 ---------------------------O*------*O--------------------------- *]"
               "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)")
GO_ANSWER = re.compile(r"^=== (?:[A-H][1-8]|PA)(?:/-?\d+\.\d+(?:/\d+\.\d+)?)?$")
SEARCH_LINE = re.compile(r"^search (?:[A-H][1-8]|PA)+ -?\d+\.\d+ 0 (?:\d+|100%)(?: .*)?$")
NODESTATS = re.compile(r"^nodestats \d+ \d+\.\d+$")


class Recorder:
    def __init__(self):
        self.lines = []

    def __call__(self, line):
        self.lines.append(line)

    def take(self):
        lines, self.lines = self.lines, []
        return lines


def make_engine(simulations_per_depth=4, chooser=None):
    out = Recorder()
    chooser = chooser or SearchChooser(UniformEvaluator(), simulations=8)
    return NBoardEngine(chooser, out, simulations_per_depth=simulations_per_depth, log=io.StringIO()), out


def run(engine, out, line):
    engine.handle(line)
    engine.wait()
    return out.take()


def after(transcript):
    state = GameState.start()
    for action in parse_transcript(transcript):
        state = state.play(action)
    return state


def test_a_scripted_session_answers_every_command_in_the_protocols_format():
    engine, out = make_engine()
    assert run(engine, out, "nboard 2") == ["set myname AlphaZero"]
    assert run(engine, out, "set depth 6") == ["set myname AlphaZero6"]
    assert engine.chooser.simulations == 24  # 6 x 4 simulations per depth
    assert run(engine, out, f"set game {NBOARD_GAME}") == []
    assert engine.state == after("f5f6d3c5e6f7e7f4")
    assert run(engine, out, "set contempt 0") == [] and engine.contempt == 0
    assert run(engine, out, "ping 1") == ["pong 1"]

    lines = run(engine, out, "go")
    assert lines[0] == "status AlphaZero is thinking" and lines[-1] == "status"
    assert NODESTATS.match(lines[1]) and SEARCH_LINE.match(lines[2]), lines
    assert GO_ANSWER.match(lines[3]) and lines[3].count("/") == 2, lines
    assert engine.state == after("f5f6d3c5e6f7e7f4")  # go does not play its move

    lines = run(engine, out, "hint 3")
    assert lines[0].startswith("status ") and lines[-1] == "status" and NODESTATS.match(lines[1])
    hints = lines[2:-1]
    assert 1 <= len(hints) <= 3 and all(SEARCH_LINE.match(line) for line in hints), hints
    for hint in hints:  # every PV is a legal line from the position
        pv = hint.split()[1]
        state = engine.state
        for i in range(0, len(pv), 2):
            action = PASS if pv[i:i + 2] == "PA" else parse_transcript(pv[i:i + 2].lower(), state)[-1]
            if action != PASS and state.must_pass():
                state = state.play(PASS)
            state = state.play(action)

    assert run(engine, out, "move D6/-1.00/0.5") == [] and engine.state == after("f5f6d3c5e6f7e7f4d6")
    assert run(engine, out, "C3") == [] and engine.state == after("f5f6d3c5e6f7e7f4d6c3")  # NBoard 1.1's bare move
    assert run(engine, out, "learn") == ["learned"]
    assert run(engine, out, "quit") == [] and engine.finished


def test_ping_stops_a_search_that_would_run_for_minutes_and_its_answer_comes_before_pong():
    engine, out = make_engine(simulations_per_depth=10**5)
    engine.handle("set depth 60")  # 6 million simulations
    engine.handle("go")
    time.sleep(0.3)
    assert engine.thinking
    started = time.perf_counter()
    engine.handle("ping 7")
    assert time.perf_counter() - started < 10
    lines = out.take()
    assert lines[-1] == "pong 7" and any(GO_ANSWER.match(line) for line in lines[:-1])
    assert lines.index("pong 7") > max(i for i, line in enumerate(lines) if line.startswith("==="))


def test_garbage_is_answered_with_a_status_line_and_changes_nothing():
    engine, out = make_engine()
    run(engine, out, "nboard 2")
    run(engine, out, f"set game {NBOARD_GAME}")
    before = engine.state
    garbage = ["xyzzy", "set depth banana", "set depth 0", "set depth 61", "move Z9", "move F5",
               "set game (;GM[Othello]B[F5", "set game (;GM[Chess];)", "hint -2", "hint many", "\x00\x01\x02",
               "nboard two", "set colour red", "zz", "ping abc", "é" * 70_000, "set contempt lots", "set contempt inf", "set contempt 1e999"]
    for line in garbage:
        replies = run(engine, out, line)
        assert replies and all(r.startswith("status ") or r == "pong 0" for r in replies), (line, replies)
        assert not any("internal error" in r for r in replies), (line, replies)
        assert engine.state == before and not engine.finished
    assert run(engine, out, "ping 3") == ["pong 3"]  # still talking


def test_go_and_hint_at_a_forced_pass_and_at_the_end_of_the_game():
    engine, out = make_engine()
    state = GameState.start()
    for action in parse_transcript("e6f6g6g7g8f4e3h6c4c3b2f8g3h8"):
        state = state.play(action)
    engine.state = state
    if state.must_pass():
        assert run(engine, out, "go")[1] == "=== PA"
    finished = "(;GM[Othello]BO[8 " + "*" * 63 + "- O];)"
    assert run(engine, out, f"set game {finished}") == [] and engine.state.is_over()
    assert run(engine, out, "go") == ["status error: go: the game is over"]


def test_an_ai_without_a_search_plays_but_gives_no_hints():
    from alphazero.arena.players import make_player

    engine, out = make_engine(chooser=PlayerChooser(make_player("greedy")))
    lines = run(engine, out, "go")
    assert GO_ANSWER.match(lines[1]) and lines[-1] == "status"
    assert run(engine, out, "hint 2")[0].startswith("status error: hint:")


def test_the_evaluation_scale():
    assert evaluation(0.5) == 25.0 and evaluation(-1.0) == -50.0 and evaluation(0.3, exact_score=-6) == -6.0
    assert move_text(PASS) == "PA" and move_text(37) == "F5"


def test_serve_reads_until_quit_and_refuses_an_over_long_line():
    engine, out = make_engine()
    stdin = io.BytesIO(b"nboard 2\n" + b"x" * 70_000 + b"\nping 5\nquit\nping 6\n")
    assert serve(engine, stdin) == 0
    lines = out.take()
    assert lines[0] == "set myname AlphaZero" and "line too long" in lines[1] and lines[2] == "pong 5"
    assert "pong 6" not in lines


class NBoardProcess:
    """The real command in a subprocess, talked to line by line as the GUI does."""

    def __init__(self, *args):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "alphazero.nboard", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, bufsize=1, cwd=REPO_ROOT,
        )
        self.lines = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, predicate, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for index, line in enumerate(self.lines):
                if predicate(line):
                    taken, self.lines[:] = self.lines[: index + 1], self.lines[index + 1:]
                    return taken
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.01)
        raise AssertionError(f"no such line within {timeout}s; got {self.lines}; stderr: {self.process.stderr.read() if self.process.poll() is not None else ''}")


def test_the_command_plays_a_whole_game_on_the_default_network_through_the_protocol():
    if default_checkpoint() is None:
        pytest.skip("no shipped default network")
    engine = NBoardProcess("--simulations-per-depth", "4", "--threads", "1")
    try:
        engine.send("nboard 2")
        engine.until(lambda line: line.startswith("set myname"))
        engine.send("set depth 2")
        engine.until(lambda line: line == "set myname AlphaZero2")
        engine.send("garbage in")
        assert engine.until(lambda line: line.startswith("status error"))[-1].startswith("status error: unknown command")
        state, actions, ping = GameState.start(), [], 0
        while not state.is_over():
            ping += 1
            engine.send(f"set game {format_ggf(GameRecord(start=GameState.start(), actions=actions))}")
            engine.send(f"ping {ping}")
            engine.until(lambda line, p=ping: line == f"pong {p}")
            engine.send("go")
            answer = engine.until(lambda line: line.startswith("==="))[-1]
            assert GO_ANSWER.match(answer), answer
            token = answer.split()[1].split("/")[0]
            action = PASS if token == "PA" else parse_transcript(token.lower(), state)[-1]
            if action != PASS and state.must_pass():
                actions.append(PASS)
                state = state.play(PASS)
            assert state.is_legal(action)
            engine.send(f"move {token}")
            actions.append(action)
            state = state.play(action)
        assert len(actions) >= 60
        engine.send("ping 999")
        engine.until(lambda line: line == "pong 999")
        engine.send("quit")
        assert engine.process.wait(timeout=30) == 0
    finally:
        if engine.process.poll() is None:
            engine.process.kill()
