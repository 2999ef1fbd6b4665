"""`python -m alphazero.bench NAME` answers a bad argument or input file with one line naming it
(exit 2, no traceback), and still shows the traceback of an error that is a bug."""

import argparse

import pytest

from alphazero.bench.__main__ import is_documented
from alphazero.bench.__main__ import main as bench_main
from alphazero.nn.checkpoint import CheckpointError
from alphazero.validation import ConfigValueError


@pytest.mark.parametrize(
    "argv, message",
    [
        (["accuracy", "--checkpoint", "{tmp}/missing.pt"], "checkpoint {tmp}/missing.pt does not exist"),
        (["accuracy", "--checkpoint", "{tmp}/missing.pt", "--batch-size", "0"], "argument --batch-size: must be >= 1, got 0"),
        (["endgame_search", "--checkpoint", "{tmp}/missing.pt"], "checkpoint {tmp}/missing.pt does not exist"),
        (["endgame_search", "--games", "0"], "argument --games: must be >= 1, got 0"),
        (["network", "--checkpoint", "{tmp}"], "is not a file"),
        (["auxiliary", "--preset", "huge"], "invalid choice: 'huge'"),
        (["auxiliary", "--data", "{tmp}", "--steps", "1", "--repeats", "1"], "no WTHOR files (WTH_*.wtb) in {tmp}"),
        (["network", "--device", "tpu"], "unknown device 'tpu'"),
    ],
)
def test_a_bad_argument_or_input_is_one_line_naming_it(tmp_path, capsys, argv, message):
    argv = [arg.format(tmp=tmp_path) for arg in argv]
    try:
        status = bench_main(argv)
    except SystemExit as exit_:  # argparse's own refusals
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2
    assert message.format(tmp=tmp_path) in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(f"python -m alphazero.bench {argv[0]}: error: ")


class WorkStarted(Exception):
    """Raised where a command line has been read whole: the benchmark would start working next."""


@pytest.mark.parametrize(
    "argv, option, reason",
    [
        (["accuracy", "--checkpoint", "x.pt", "--threads", "0"], "--threads", "must be >= 1, got 0"),
        (["accuracy", "--checkpoint", "x.pt", "--positions", "-1"], "--positions", "must be >= 0, got -1"),
        (["auxiliary", "--steps", "x"], "--steps", "expected a whole number, got 'x'"),
        (["diversity", "--slots", "0"], "--slots", "must be >= 1, got 0"),
        (["diversity", "--run", "runs/r", "--shards", "0"], "--shards", "must be >= 1, got 0"),
        (["endgame", "--table-bits", "30"], "--table-bits", "must be in 8..28, got 30"),
        (["endgame", "--table-bits", "7"], "--table-bits", "must be in 8..28, got 7"),
        (["endgame", "--wthor", "x.wtb", "--count", "0"], "--count", "must be >= 1, got 0"),
        (["endgame", "--max-positions", "-3"], "--max-positions", "must be >= 1, got -3"),
        (["endgame_search", "--opening-plies", "-1"], "--opening-plies", "must be >= 0, got -1"),
        (["faults", "--trials", "0"], "--trials", "must be >= 1, got 0"),
        (["mcts", "--leaves-per-step", "0"], "--leaves-per-step", "must be >= 1, got 0"),
        (["network", "--batches", "1", "0"], "--batches", "must be >= 1, got 0"),
        (["network", "--window", "nan"], "--window", "must be a number > 0, got nan"),
        (["perft", "--depth", "-1"], "--depth", "must be >= 0, got -1"),
        (["playout", "--games", "0"], "--games", "must be >= 1, got 0"),
        (["selfplay", "--seconds", "inf"], "--seconds", "must be a number > 0, got inf"),
        (["selfplay", "--seconds", "0"], "--seconds", "must be a number > 0, got 0"),
        (["selfplay", "--warmup", "-1"], "--warmup", "must be a number >= 0, got -1"),
        (["selfplay", "--network-seconds", "nan"], "--network-seconds", "must be a number > 0, got nan"),
        (["selfplay", "--rounds", "0"], "--rounds", "must be >= 1, got 0"),
        (["threads", "--threads", "2", "0"], "--threads", "must be >= 1, got 0"),
        (["threads", "--repeats", "1.5"], "--repeats", "expected a whole number, got '1.5'"),
        (["threads", "--window=-inf"], "--window", "must be a number > 0, got -inf"),
        (["network", "--repeats", "0"], "--repeats", "must be >= 1, got 0"),
        (["network", "--blocks", "0"], "--blocks", "must be >= 1, got 0"),
        (["perft", "--repeats", "0"], "--repeats", "must be >= 1, got 0"),
        (["playout", "--repeats", "0"], "--repeats", "must be >= 1, got 0"),
        (["diversity", "--threads", "0"], "--threads", "must be >= 1, got 0"),
        (["mcts", "--threads", "0"], "--threads", "must be >= 1, got 0"),
        (["mcts", "--opening-plies", "-3"], "--opening-plies", "must be >= 0, got -3"),
        (["faults", "--inference-server", "--kills", "0"], "--kills", "must be >= 1, got 0"),
        (["faults", "--bad-inputs-per-family", "-1"], "--bad-inputs-per-family", "must be >= 0, got -1"),
        (["learning", "--run", "a=", "--minutes", "0"], "--minutes", "must be a number > 0, got 0"),
        (["learning", "--run", "a=", "--minutes", "nan"], "--minutes", "must be a number > 0, got nan"),
        (["learning", "--run", "a=", "--pairs", "0"], "--pairs", "must be >= 1, got 0"),
        (["learning", "--run", "a=", "--reference-pairs", "0"], "--reference-pairs", "must be >= 1, got 0"),
        (["learning", "--run", "a=", "--simulations", "-1"], "--simulations", "must be >= 0, got -1"),
    ],
)
def test_a_bad_number_is_refused_by_argparse_in_one_line_before_any_work(monkeypatch, capsys, argv, option, reason):
    """Refused while the command line is read (argparse's own `argument --X:` line, exit 2): a
    check after parse_args, or none (--seconds inf ran forever), meets WorkStarted instead."""
    parse_args = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, *args, **kwargs):
        parse_args(self, *args, **kwargs)
        raise WorkStarted(f"{argv} was read whole")

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    with pytest.raises(SystemExit) as exit_:
        bench_main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    lines = err.strip().splitlines()
    assert lines[-1] == f"python -m alphazero.bench {argv[0]}: error: argument {option}: {reason}"
    assert all(line.startswith(("usage:", " ")) for line in lines[:-1]), err  # argparse's usage, then the one line


def test_only_the_projects_own_refusals_and_unreadable_files_are_shortened():
    assert is_documented(CheckpointError("checkpoint x does not exist"))
    assert is_documented(ConfigValueError("selfplay.workers must be >= 1, got 0"))
    assert is_documented(FileNotFoundError("no WTHOR files (WTH_*.wtb) in x"))
    assert not is_documented(ValueError("range() arg 3 must not be zero"))  # a bug: keep its traceback


def test_ctrl_c_ends_a_benchmark_with_one_line_and_no_traceback(monkeypatch, capsys):
    import alphazero.bench.perft as perft
    from alphazero.bench.__main__ import EXIT_INTERRUPTED

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(perft, "main", interrupted)
    assert bench_main(["perft"]) == EXIT_INTERRUPTED == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "python -m alphazero.bench perft: interrupted, no result\n"
