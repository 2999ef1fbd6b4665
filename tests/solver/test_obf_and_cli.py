"""FForum positions solved exactly, the .obf reader, and `python -m alphazero.solve`'s exit codes."""

import signal
import subprocess
import sys
import time

import pytest

from alphazero.solver.cli import EXIT_BAD_INPUT, EXIT_MISMATCH
from alphazero.solver.obf import ObfError, read_obf
from alphazero.solver.solver import Solver
from tests.conftest import FIXTURES, REPO_ROOT

FFORUM_1_19 = FIXTURES / "fforum-1-19.obf"


@pytest.fixture(scope="module")
def solver():
    solver = Solver(table_bits=18)
    solver.warm_up()
    return solver


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4, 8, 12])
def test_fforum_position_is_solved_exactly(solver, index):
    position = read_obf(FFORUM_1_19)[index]
    solution = solver.solve(position.state.player, position.state.opponent)
    assert solution.score == position.best_score
    assert solution.best_move in position.best_moves
    wld = solver.solve(position.state.player, position.state.opponent, wld=True)
    assert wld.outcome == (position.best_score > 0) - (position.best_score < 0)


def test_obf_reader_reads_boards_and_move_scores():
    positions = read_obf(FFORUM_1_19)
    assert len(positions) == 19
    first = positions[0]
    assert first.line == 1 and first.state.black_to_move
    assert first.best_score == 18 and first.best_moves == {62}  # g8
    assert first.state.empties() == 14


def test_obf_reader_names_file_and_line_of_a_bad_line(tmp_path):
    path = tmp_path / "bad.obf"
    path.write_text(FFORUM_1_19.read_text().splitlines()[0] + "\n" + "--XX X; G8:+18;\n")
    with pytest.raises(ObfError, match=r"bad\.obf:2: board text"):
        read_obf(path)
    path.write_text(FFORUM_1_19.read_text().splitlines()[0].replace("G8:+18", "G8:plenty") + "\n")
    with pytest.raises(ObfError, match=r"bad\.obf:1: bad move field 'G8:plenty'"):
        read_obf(path)


def _solve(*args):
    return subprocess.run(
        [sys.executable, "-m", "alphazero.solve", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )


def test_cli_checks_an_obf_file_and_reports_every_position(tmp_path):
    path = tmp_path / "five.obf"
    path.write_text("\n".join(FFORUM_1_19.read_text().splitlines()[:5]) + "\n")
    result = _solve("--obf", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("line 1: best g8 score +18 nodes ")
    assert "nodes/s" in lines[0] and "seconds" in lines[0]
    assert lines[-1].startswith("5 positions, 0 mismatches")


def test_cli_exits_nonzero_on_a_wrong_score_in_the_file(tmp_path):
    path = tmp_path / "wrong.obf"
    lines = FFORUM_1_19.read_text().splitlines()[:2]
    lines[1] = lines[1].replace("A4:+10", "A4:+12")  # the true best score of line 2 is +10
    path.write_text("\n".join(lines) + "\n")
    result = _solve("--obf", str(path))
    assert result.returncode == EXIT_MISMATCH
    assert "line 2: best a4 score +10" in result.stdout and "MISMATCH" in result.stdout
    assert "1 mismatches" in result.stdout


def test_cli_bad_input_is_one_line_naming_file_and_line(tmp_path):
    missing = _solve("--obf", str(tmp_path / "absent.obf"))
    assert missing.returncode == EXIT_BAD_INPUT
    assert missing.stderr.strip() == f"error: {tmp_path / 'absent.obf'}: no such file"
    bad = tmp_path / "bad.obf"
    bad.write_text("--XX-- Q; G8:+2\n")
    result = _solve("--obf", str(bad), "--wld")
    assert result.returncode == EXIT_BAD_INPUT
    assert len(result.stderr.strip().splitlines()) == 1 and f"{bad}:1:" in result.stderr
    assert "Traceback" not in result.stderr
    board = _solve("--board", "-" * 64 + " Z")
    assert board.returncode == EXIT_BAD_INPUT and "Traceback" not in board.stderr


def test_cli_solves_one_board_in_wld_mode():
    board = FFORUM_1_19.read_text().splitlines()[0].split(";")[0]
    result = _solve("--board", board, "--wld")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("board: best ") and " outcome win nodes " in result.stdout  # FForum #1: +18


def test_cli_table_bits_out_of_range_is_refused_by_argparse_in_one_line():
    result = _solve("--board", "-" * 64 + " X", "--table-bits", "40")
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr.strip().splitlines()[-1] == "python -m alphazero.solve: error: argument --table-bits: must be in 8..28, got 40"


def test_cli_announces_a_far_solve_and_ctrl_c_ends_it_at_once():
    """The start position (60 empties) would never finish: the command says so on stderr before
    searching, and SIGINT ends it although the search runs in compiled code."""
    start = "-" * 27 + "OX------XO" + "-" * 27 + " X"
    process = subprocess.Popen(_with_sigint("SIG_DFL", "-m", "alphazero.solve", "--board", start), cwd=REPO_ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        announcement = process.stderr.readline()  # written just before the search starts
        assert announcement.startswith("board: 60 empty squares: an exact solve this far from the end") and "Ctrl-C" in announcement
        time.sleep(0.5)
        assert process.poll() is None  # searching
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == -signal.SIGINT
    finally:
        process.kill()
        process.communicate()


def _with_sigint(disposition: str, *args: str) -> list[str]:
    """A command line running Python with `args` after setting SIGINT to `disposition` ("SIG_DFL"
    or "SIG_IGN"; an exec keeps both), whatever this test runner inherited (a CI job run in the
    background of a script starts with SIGINT ignored)."""
    code = f"import os, signal, sys; signal.signal(signal.SIGINT, signal.{disposition}); os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    return [sys.executable, "-c", code, *args]


def test_cli_keeps_a_sigint_it_was_started_ignoring():
    """A solve started with SIGINT ignored (`solve ... &` in a shell script) is not ended by the
    terminal's Ctrl-C meant for the script: the CLI sets the default action only over Python's."""
    start = "-" * 27 + "OX------XO" + "-" * 27 + " X"
    process = subprocess.Popen(_with_sigint("SIG_IGN", "-m", "alphazero.solve", "--board", start), cwd=REPO_ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr.readline().startswith("board: 60 empty squares")  # searching from here on
        process.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=2)
    finally:
        process.kill()
        process.communicate()
