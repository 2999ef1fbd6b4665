"""`python -m alphazero.play` end to end: options for the sides and the start position, scripted
input on stdin, saving, and clean exits on bad options, bad bytes and end of input."""

import io
import subprocess
import sys

import pytest

from alphazero.data.ggf import read_ggf, write_ggf
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_board_text, parse_transcript
from alphazero.othello.record import GameRecord
from alphazero.play.__main__ import main

NEAR_END = "OOXXOOO-XOXXOOO-XXOOOXOOXOOOOXXOXOXOOOOOXOOXOOOOXOXOOOOOXXOOOOOO X"


def run_main(monkeypatch, capsys, argv, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_play_against_a_player_from_a_transcript_and_save(monkeypatch, capsys, tmp_path):
    prefix = tmp_path / "g"
    code, out, _ = run_main(
        monkeypatch, capsys, ["--player", "greedy", "--transcript", "F5d6", "--save", str(prefix)], "c3\nsave\nquit\n"
    )
    assert code == 0
    assert "Black: you   White: greedy" in out
    assert "Black (you) to move: c3" in out  # scripted input is echoed after the prompt
    assert "Black (you) plays c3" in out and "White (greedy) plays" in out
    assert f"Saved {prefix}.ggf and {prefix}.txt." in out
    actions = parse_transcript((tmp_path / "g.txt").read_text())
    assert actions[:3] == parse_transcript("f5d6c3") and len(actions) == 4
    assert list(read_ggf(tmp_path / "g.ggf")[0].actions) == actions


def test_board_setup_to_the_end_of_the_game_saves_automatically(monkeypatch, capsys, tmp_path):
    code, out, _ = run_main(
        monkeypatch, capsys, ["--player", "greedy", "--board", NEAR_END, "--save", str(tmp_path / "end")], "h1\n"
    )
    assert code == 0 and "Game over:" in out and "Saved" in out
    record = read_ggf(tmp_path / "end.ggf")[0]
    assert record.start == parse_board_text(NEAR_END) and record.black_margin is not None


def test_continue_from_a_ggf_game(monkeypatch, capsys, tmp_path):
    path = tmp_path / "in.ggf"
    first = GameRecord(start=GameState.start(), actions=parse_transcript("f5f6"))
    second = GameRecord(start=GameState.start(), actions=parse_transcript("f5d6c3"))
    write_ggf(path, [first, second])
    code, out, _ = run_main(monkeypatch, capsys, ["--player", "greedy", "--ggf", str(path), "--game", "2",
                                                  "--color", "white"], "undo\nquit\n")
    assert code == 0
    assert "Nothing to undo" in out  # the GGF moves are the setup, not yours
    assert "White (you) to move" in out


def test_ai_versus_ai_runs_without_input(monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, ["--black", "greedy", "--white", "random:seed=2"])
    assert code == 0 and "Black: greedy   White: random" in out and "Game over:" in out
    assert "to move: " not in out


def test_a_delay_of_zero_is_no_pause_and_a_negative_one_is_refused(monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, ["--black", "greedy", "--white", "random:seed=2", "--delay", "0"])
    assert code == 0 and "Game over:" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit):
        main(["--black", "greedy", "--white", "greedy", "--delay", "-1"])
    assert "--delay: must be a number >= 0, got -1" in capsys.readouterr().err


def test_you_play_white_and_the_ai_opens(monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, ["--player", "greedy", "--color", "white"], "")
    assert code == 0
    assert out.index("Black (greedy) plays") < out.index("White (you) to move")
    assert "End of input: leaving the game." in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--player", "greedy", "--transcript", "f5z9"], "--transcript"),
        (["--player", "greedy", "--transcript", "f5f5"], "illegal move"),
        (["--player", "greedy", "--board", "XO"], "--board"),
        (["--player", "greedy", "--ggf", "/nonexistent.ggf"], "--ggf"),
    ],
)
def test_bad_setup_options_exit_with_a_clear_message(monkeypatch, capsys, argv, message):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert message in str(exc.value)


def test_no_network_and_no_player_explains_what_to_pass(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("alphazero.play.choosers.default_checkpoint", lambda: None)
    code, _, err = run_main(monkeypatch, capsys, [])
    assert code == 2 and "--checkpoint" in err and "--player" in err


def test_subprocess_survives_binary_garbage_and_ends_at_eof():
    script = b"\xff\xfe\x00garbage\nF5\n" + b"x" * 20_000 + b"\n"
    done = subprocess.run(
        [sys.executable, "-m", "alphazero.play", "--player", "greedy", "--style", "plain"],
        input=script, capture_output=True, timeout=120,
    )
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "is neither a move nor a command" in out
    assert "Black (you) plays f5" in out
    assert "End of input: leaving the game." in out
    assert "Traceback" not in done.stderr.decode()


@pytest.mark.parametrize("device, words", [
    ("tpu", "unknown device 'tpu'"),
    pytest.param("cuda", "device 'cuda' requested but CUDA is not available", marks=pytest.mark.skipif(
        __import__("torch").cuda.is_available(), reason="needs a machine without CUDA")),
])
def test_a_device_the_machine_lacks_is_refused_as_the_options_are_read(monkeypatch, capsys, device, words):
    """It was a ValueError traceback from inside load_network, after the network file was read."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as exit_:
        main(["--device", device])
    assert exit_.value.code == 2 and f"argument --device: {words}" in capsys.readouterr().err
