"""`python -m alphazero.gtp` as a real GTP program: a whole game through its stdin/stdout, every
command of the brief, bad input on the wire, and a real game against GRhino relayed by a small
controller (skipped when gtp-rhino is not installed)."""

import subprocess
import sys

import pytest

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import action_name, parse_action


class Engine:
    """A GTP program in a subprocess: `ask(command) -> (ok, text)`."""

    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)

    def send_raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def read_line(self) -> str:
        return self.process.stdout.readline().decode("utf-8", errors="replace")

    def read_response(self):
        lines = []
        while True:
            line = self.read_line()
            assert line, f"engine closed its output after {lines!r}"
            if line == "\n" and lines:
                break
            lines.append(line.rstrip("\n"))
        head = lines[0]
        assert head[0] in "=?", lines
        return head[0] == "=", "\n".join([head[1:].lstrip("0123456789").strip()] + lines[1:]).strip()

    def ask(self, command):
        self.send_raw((command if isinstance(command, bytes) else command.encode()) + b"\n")
        return self.read_response()

    def ok(self, command):
        success, text = self.ask(command)
        assert success, f"{command!r} failed: {text}"
        return text

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)


OUR_ENGINE = [sys.executable, "-m", "alphazero.gtp", "--player", "random:seed=5"]


def move_of(reply: str) -> int:
    return parse_action(reply.lower())


@pytest.mark.timeout(120)
def test_our_engine_subprocess_plays_a_whole_game_and_answers_every_command():
    engine = Engine(OUR_ENGINE)
    try:
        assert engine.ok("protocol_version") == "2"
        assert engine.ok("name") == "AlphaZero-Othello"
        assert engine.ok("version")
        assert "genmove" in engine.ok("list_commands").split("\n")
        assert engine.ok("known_command final_score") == "true"
        assert engine.ok("list_games") == "Othello"
        engine.ok("set_game Othello")
        assert engine.ask("boardsize 10") == (False, "unacceptable size")
        engine.ok("boardsize 8")
        engine.ok("clear_board")
        engine.ok("time_settings 600 0 0")
        # Framing: ids echoed, comments and blank lines ignored.
        engine.send_raw(b"\n# a comment\n42 name\n")
        assert engine.read_line() == "=42 AlphaZero-Othello\n"
        assert engine.read_line() == "\n"
        # Bad input on the wire: garbage, a huge line; then the game goes on.
        assert engine.ask(b"\xff\xfe\x01 play b")[0] is False
        assert engine.ask("play b " + "e6" * 3000)[0] is False
        state = GameState.start()
        engine.ok("play b f5")
        state = state.play(move_of("f5"))
        assert engine.ask("play b d3")[0] is False  # white is on move and has moves
        engine.ok("undo")
        state = GameState.start()
        while not state.is_over():
            colour = "b" if state.black_to_move else "w"
            engine.ok(f"time_left {colour} 300 0")
            reply = engine.ok(f"genmove {colour}")
            action = PASS if reply == "PASS" else move_of(reply)
            assert reply == reply.upper() and state.is_legal(action)
            state = state.play(action)
        board = engine.ok("showboard")
        assert "game over" in board
        margin = state.black_margin()
        expected = f"B+{margin}" if margin > 0 else f"W+{-margin}" if margin < 0 else "0"
        assert engine.ok("final_score") == expected
        engine.ok("undo")
        assert engine.ask("final_score")[0] is False  # the undone move had ended the game
        assert engine.ok("quit") == ""
        assert engine.process.wait(timeout=30) == 0
    finally:
        engine.close()


@pytest.mark.timeout(60)
def test_our_engine_subprocess_exits_cleanly_at_end_of_input():
    done = subprocess.run(OUR_ENGINE, input=b"name\n\xff\xfe\x00\n", capture_output=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.decode().startswith("= AlphaZero-Othello\n\n?")
    assert b"Traceback" not in done.stderr


@pytest.mark.grhino
@pytest.mark.timeout(180)
def test_a_real_game_against_grhino_relayed_by_a_controller(gtp_rhino):
    """Our engine plays black against GRhino level 1. GRhino never receives a pass (its dialect:
    the side that cannot move is skipped); our engine infers the pass from the same colour moving
    twice. Every move is checked by our rules, and both engines agree on the final score."""
    ours = Engine(OUR_ENGINE)
    rhino = Engine([gtp_rhino, "-l", "1"])
    try:
        for engine in (ours, rhino):
            engine.ok("boardsize 8")
            engine.ok("clear_board")
        players = {True: ours, False: rhino}  # black_to_move -> engine
        state = GameState.start()
        moves = []
        while not state.is_over():
            if state.must_pass():
                state = state.play(PASS)
                moves.append(PASS)
                continue
            colour = "b" if state.black_to_move else "w"
            mover, other = players[state.black_to_move], players[not state.black_to_move]
            reply = mover.ok(f"genmove {colour}")
            action = move_of(reply)
            assert state.is_legal(action), f"{reply} from {'us' if mover is ours else 'GRhino'} is illegal"
            other.ok(f"play {colour} {action_name(action)}")
            state = state.play(action)
            moves.append(action)
        margin = state.black_margin()
        expected = f"B+{margin}" if margin > 0 else f"W+{-margin}" if margin < 0 else "0"
        assert ours.ok("final_score") == expected
        assert rhino.ok("final_score") == expected
        assert len(moves) >= 58
    finally:
        for engine in (ours, rhino):
            try:
                engine.ask("quit")
            except (AssertionError, BrokenPipeError, OSError):
                pass
            engine.close()
