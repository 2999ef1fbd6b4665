"""`python -m alphazero.review GAME`: a GGF game, a saved transcript, a run's replay and a shard
each reviewed one line per ply; JSON lines; progress; and one line, exit 2 and nothing written for
every kind of bad input."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from alphazero.data.ggf import read_ggf
from alphazero.nn.checkpoint import build_network, save_checkpoint
from alphazero.nn.config import model_preset
from alphazero.othello.notation import format_board_text
from alphazero.othello.record import GameRecord
from alphazero.play.session import save_game
from alphazero.replay.buffer import ShardWriter
from alphazero.review.__main__ import main
from tests.replay.replay_games import random_records

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SAMPLES = FIXTURES / "samples.ggf"
REPO = Path(__file__).resolve().parents[2]
FAST = ["--simulations", "4"]


@pytest.fixture(scope="module")
def tiny_network(tmp_path_factory) -> str:
    """A randomly initialised tiny network: the lines' structure, not their figures, is tested."""
    return str(save_checkpoint(tmp_path_factory.mktemp("net") / "tiny.pt", build_network(model_preset("tiny"))))


def move_lines(out: str) -> list[str]:
    """The per-ply lines: after the column header, up to the summary."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("move  side")) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("result: "))
    return lines[start:end]


def test_a_ggf_game_gets_one_line_per_move_and_a_summary(tiny_network, capsys):
    game = read_ggf(SAMPLES)[1]  # the komi game, won by Black
    assert main([str(SAMPLES), "--game", "2", "--checkpoint", tiny_network, *FAST]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"review of {SAMPLES} game 2: {len(game.actions)} plies, result Black +{game.black_margin}")
    lines = move_lines(out)
    assert len(lines) == len(game.actions)
    assert lines[0].split()[:3] == ["1", "Black", "e6"]
    solved = [line for line in lines if "->" in line]  # the exact part, from 20 empties (play's default reach)
    assert solved and lines[-len(solved):] == solved and len(solved) >= 20
    assert "Black's biggest mistakes:" in out and "White's biggest mistakes:" in out
    assert "where the game was lost:" in out and "simulations in" in out
    assert err == ""  # no progress in a pipe without --progress


def test_json_lines_hold_the_game_every_move_and_the_summary(tiny_network, capsys):
    game = read_ggf(SAMPLES)[0]
    assert main([str(SAMPLES), "--checkpoint", tiny_network, *FAST, "--json", "--endgame", "10"]) == 0
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["type"] for o in objects] == ["game"] + ["move"] * len(game.actions) + ["summary"]
    moves = objects[1:-1]
    assert [m["ply"] for m in moves] == list(range(1, len(game.actions) + 1))
    assert all(0.0 <= m["win_before"] <= 1.0 and 0.0 <= m["win_after"] <= 1.0 and m["loss"] >= 0 for m in moves)
    assert [m["exact_before"] is not None for m in moves] == [m["empties"] <= 10 for m in moves]
    assert objects[-1]["black_margin"] == 0 and objects[-1]["loser"] is None and objects[-1]["plies"] == len(game.actions)


def test_a_game_saved_by_play_from_a_board_is_reviewed(tiny_network, tmp_path, capsys):
    start = read_ggf(SAMPLES)[0].states()[40]
    moves = [int(a) for a in read_ggf(SAMPLES)[0].actions[40:]]
    paths = save_game(tmp_path / "mine", GameRecord(start=start, actions=moves))
    assert (tmp_path / "mine.txt").read_text().startswith(format_board_text(start))
    for path in paths:  # mine.ggf and mine.txt
        assert main([str(path), "--checkpoint", tiny_network, *FAST]) == 0
        assert len(move_lines(capsys.readouterr().out)) == len(moves)


def test_a_runs_newest_game_and_a_shards_game(tmp_path, capsys):
    writer = ShardWriter(tmp_path / "run" / "replay", "w0")
    games = random_records(2, seed=3) + random_records(2, seed=4)
    writer.write(games[:2])
    writer.write(games[2:])
    uniform = ["--player", "mcts:evaluator=uniform", *FAST]
    assert main([str(tmp_path / "run"), *uniform]) == 0  # the newest by default
    out = capsys.readouterr().out
    assert "game 4 of 4" in out.splitlines()[0] and len(move_lines(out)) == len(games[3].actions)
    shard = sorted((tmp_path / "run" / "replay").glob("shard-*.npz"))[0]
    assert main([str(shard), "--game", "2", *uniform]) == 0
    out = capsys.readouterr().out
    assert "game 2 of 2" in out.splitlines()[0] and len(move_lines(out)) == len(games[1].actions)


def test_moves_given_on_the_command_line_are_reviewed(capsys):
    assert main(["f5d6c3d3c4", "--player", "mcts:evaluator=uniform", *FAST]) == 0
    out = capsys.readouterr().out
    assert "review of the moves given: 5 plies, result unfinished" in out
    assert [line.split()[2] for line in move_lines(out)] == ["f5", "d6", "c3", "d3", "c4"]


def bad_inputs(tmp_path: Path) -> list[tuple[list[str], str]]:
    (tmp_path / "illegal.txt").write_text("f5d6c3d3c4f4f6f3e6e7\nf5\n")
    (tmp_path / "garbled.ggf").write_text("(;GM[Othello]PB[x]B[f5]W[d6\n")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "board.txt").write_text("-" * 27 + "OX------XQ" + "-" * 27 + " X\nf5\n")
    (tmp_path / "binary.dat").write_bytes(bytes(range(256)))
    return [
        ([str(tmp_path / "illegal.txt")], "illegal.txt: illegal move 'f5' at line 2, character 0 (ply 11): f5 is not legal for black"),
        ([str(tmp_path / "garbled.ggf")], "garbled.ggf: game 1 at character 24: the '[' of property W is never closed"),
        ([str(tmp_path / "empty.txt")], "empty.txt: no game in it"),
        ([str(tmp_path / "board.txt")], "board.txt: board: bad board character 'Q' at square 36 (e5)"),
        ([str(tmp_path / "binary.dat")], "binary.dat: bad square"),
        ([str(tmp_path / "missing.ggf")], "missing.ggf: no such file or directory"),
        (["f5f5"], "the moves given: illegal move 'f5' at character 2 (ply 2)"),
        ([str(SAMPLES), "--game", "4"], "holds 3 GGF game(s); there is no game 4"),
        ([str(tmp_path)], "has no replay/ directory"),
        ([str(SAMPLES), "--player", "greedy"], "--player greedy: a review needs a search"),
        ([str(SAMPLES), "--checkpoint", str(tmp_path / "none.pt")], "none.pt"),
        ([str(SAMPLES), "--mistake", "0.5", "--blunder", "0.2"], "mistake <= blunder"),
    ]


def test_bad_input_gets_one_line_exit_2_and_nothing_written(tmp_path, capsys):
    cases = bad_inputs(tmp_path)
    before = sorted(os.listdir(tmp_path))
    for argv, message in cases:
        usage = False
        try:
            code = main(argv)
        except SystemExit as exit:
            code, usage = exit.code, True
        out, err = capsys.readouterr()
        lines = [line for line in err.splitlines() if line.strip()]
        if usage:  # argparse's refusal of an option: its usage, then the one line
            assert lines[0].startswith("usage: ")
            lines = [line for line in lines if "error: " in line]
        assert code == 2, (argv, err)
        assert out == "", argv
        assert len(lines) == 1 and message in lines[0], (argv, err)
    assert sorted(os.listdir(tmp_path)) == before


def test_the_command_runs_as_a_module_with_progress_on_request(tmp_path):
    """`python -m alphazero.review` in a process of its own: --progress reports on stderr where
    stderr is no terminal, and the exit status is main's."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "alphazero.review", "f5d6c3d3", "--player", "mcts:evaluator=uniform",
                           *FAST, "--progress"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "reviewed 4/4 plies" in done.stderr
    assert len(move_lines(done.stdout)) == 4
    refused = subprocess.run([sys.executable, "-m", "alphazero.review", "f5f5"], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=300, check=False)
    assert refused.returncode == 2 and refused.stdout == ""
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the moves given: illegal move 'f5' at character 2 (ply 2)")
