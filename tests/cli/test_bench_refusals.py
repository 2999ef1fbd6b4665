"""`python -m alphazero.bench NAME` answers a bad argument or input file with one line naming it
(exit 2, no traceback), and still shows the traceback of an error that is a bug."""

import pytest

from alphazero.bench.__main__ import is_documented
from alphazero.bench.__main__ import main as bench_main
from alphazero.nn.checkpoint import CheckpointError
from alphazero.validation import ConfigValueError


@pytest.mark.parametrize(
    "argv, message",
    [
        (["accuracy", "--checkpoint", "{tmp}/missing.pt"], "checkpoint {tmp}/missing.pt does not exist"),
        (["accuracy", "--checkpoint", "{tmp}/missing.pt", "--batch-size", "0"], "--batch-size and --threads must be >= 1"),
        (["endgame_search", "--checkpoint", "{tmp}/missing.pt"], "checkpoint {tmp}/missing.pt does not exist"),
        (["endgame_search", "--games", "0"], "--games must be >= 1, got 0"),
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


def test_only_the_projects_own_refusals_and_unreadable_files_are_shortened():
    assert is_documented(CheckpointError("checkpoint x does not exist"))
    assert is_documented(ConfigValueError("selfplay.workers must be >= 1, got 0"))
    assert is_documented(FileNotFoundError("no WTHOR files (WTH_*.wtb) in x"))
    assert not is_documented(ValueError("range() arg 3 must not be zero"))  # a bug: keep its traceback
