"""`alphazero COMMAND ...` (alphazero/__main__.py): one program in front of every `python -m alphazero.X`,
which lists its commands without loading torch and hands each one its arguments untouched."""

import contextlib
import io
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from alphazero.__main__ import COMMANDS, available, help_text, main

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGE = REPO_ROOT / "alphazero"


def _run(argv: list[str]) -> tuple[int, str, str]:
    """main(argv) in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code
    return (0 if code is None else code), out.getvalue(), err.getvalue()


def _python(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=180, env=env,
                          stdin=subprocess.DEVNULL)


def test_help_lists_every_command_on_one_line_each():
    code, out, _ = _run(["--help"])
    assert code == 0 and out == help_text()
    expected = {"train", "play", "gtp", "nboard", "web", "arena", "solve", "review", "export", "bench", "games", "report", "pretrain"}
    assert set(COMMANDS) == expected
    for name, (_, about) in COMMANDS.items():
        assert len([line for line in out.splitlines() if re.match(rf"  {name} +{re.escape(about)}", line)]) == 1, name
        assert 20 < len(about) < 100


def test_every_command_of_the_package_is_in_the_table():
    """A new `python -m alphazero.X` (a package with a __main__, or a root module that starts a
    command) gets a line in the table rather than being left out unnoticed."""
    entry_points = {f"alphazero.{path.parent.name}" for path in PACKAGE.glob("*/__main__.py")}
    entry_points |= {f"alphazero.{path.stem}" for path in PACKAGE.glob("*.py")
                     if path.stem != "__main__" and 'if __name__ == "__main__"' in path.read_text()}
    assert entry_points - {module for module, _ in COMMANDS.values()} == set()
    for name, (module, _) in COMMANDS.items():
        if name != "review":  # built beside this command; see the next tests
            assert available(name), module


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_answers_its_own_help(name):
    if not available(name):
        pytest.skip(f"{COMMANDS[name][0]} is not in this checkout")
    code, out, _ = _run([name, "--help"])
    assert code == 0
    usage = out.splitlines()[0]
    assert name in usage or COMMANDS[name][0] in out, usage  # the command's own help, not ours


def test_a_missing_command_module_is_said_in_one_line(monkeypatch):
    monkeypatch.setitem(COMMANDS, "review", ("alphazero.no_such_module", "a command this installation lacks"))
    code, out, err = _run(["review", "GAME"])
    assert code == 2 and out == ""
    assert err.splitlines() == ["error: alphazero review is not available in this installation (no module alphazero.no_such_module)"]


@pytest.mark.parametrize("typed, nearest", [("trian", "train"), ("raport", "report"), ("sovle", "solve"), ("webb", "web")])
def test_an_unknown_command_gets_one_line_naming_the_nearest(typed, nearest):
    code, out, err = _run([typed, "experiment=smoke"])
    assert code == 2 and out == ""
    assert err.splitlines() == [f"error: alphazero: unknown command '{typed}'; the nearest is '{nearest}' "
                                "(`alphazero --help` lists the commands)"]


def test_no_command_shows_the_list_and_fails():
    code, out, err = _run([])
    assert code == 2 and out == "" and err == help_text()


def test_the_list_loads_no_command_and_no_torch():
    proc = _python("-c", "import sys; from alphazero.__main__ import main; code = main(['--help']); "
                         "print(code, 'torch' in sys.modules, 'numba' in sys.modules, 'hydra' in sys.modules)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "0 False False False"


def test_python_m_alphazero_passes_hydra_overrides_and_the_sweep_flag_through_untouched(tmp_path):
    """As `python -m alphazero.train ...`: the same refusal, naming the same key, before any run directory."""
    for args in (["experiment=smoke", f"run.dir={tmp_path / 'run'}", "selfplay.wokers=3"],
                 ["-m", "experiment=smoke", f"run.dir={tmp_path / 'sweep'}", "selfplay.wokers=1,2"]):
        proc = _python("-m", "alphazero", "train", *args, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1
        assert "selfplay.wokers" in proc.stderr and "did you mean 'selfplay.workers'" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_console_scripts_are_declared():
    scripts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["alphazero"] == "alphazero.__main__:main"
    assert scripts["alphazero-train"] == "alphazero.train.__main__:main"  # kept: it was the only one


def test_the_reference_page_names_every_command_with_its_module():
    text = (REPO_ROOT / "docs" / "reference.md").read_text()
    for name, (module, _) in COMMANDS.items():
        assert re.search(rf"\| `{name}` \| `{re.escape(module)}`", text), name
