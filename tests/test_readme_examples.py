"""Every shell example in README.md runs as written, or is listed here with the reason it is not run.

The README's ```bash blocks are read line by line (one command a line, the trailing `# comment`
dropped). Each command is either in RUN (run here with `bash -c`, as written, in a scratch
directory whose `checkpoints/` and `tests/` are the repository's, and its output checked) or in SKIPPED with
the reason: a training run of minutes, an install, a server. A command in neither list fails the
first test, so a new example is never silently untested (the solver example once read
`--board "<64 squares> X"` and failed as written).

`alphazero` is this checkout's command: a stand-in on PATH runs `python -m alphazero` from it
(the console script `pip install -e .` writes calls the same function), so the test needs no
reinstall and never runs another checkout's code.
"""

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

FFORUM_1 = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
FFORUM_2 = "-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X"


def readme_commands() -> list[str]:
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", README, flags=re.S | re.M):
        for line in block.splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command:
                commands.append(command)
    return commands


@dataclass
class Example:
    expect: str  # a regular expression the output (stdout and stderr) must match
    stdin: str = ""
    needs: str = ""  # a module the command needs (an optional extra): skipped without it
    check: object = None  # a function of the output, for what a pattern cannot say
    slow: bool = False  # loads a network and searches: 10-60 s on 2 cores, run by .ci/run's long stage


def _arena_wins_all_40(output: str) -> None:
    result = json.loads(output.strip().splitlines()[-1])
    assert (result["wins"], result["draws"], result["losses"]) == (40, 0, 0), result  # "It should win all 40"


RUN = {
    "alphazero --help": Example(r"commands:\n  train "),
    f'alphazero solve --board "{FFORUM_1}"': Example(r"board: best g8 score \+18 "),  # FForum #1: G8:+18
    f'alphazero solve --board "{FFORUM_2}"': Example(r"board: best a4 score \+10 "),  # FForum #2: A4:+10
    "alphazero play": Example(r"Leaving the game", stdin="quit\n", slow=True),
    "alphazero play --color white --seconds 2": Example(r"White \(you\) to move.*Leaving the game", stdin="quit\n", slow=True),
    "alphazero gtp --simulations 400": Example(r"= 2\n\n= [A-Ha-h][1-8]\n\n=", stdin="protocol_version\ngenmove b\nquit\n", slow=True),
    "alphazero nboard": Example(r"set myname AlphaZero", stdin="nboard 2\nquit\n", slow=True),
    "alphazero export --out model.onnx": Example(r"model\.onnx", needs="onnxruntime", slow=True),
    "alphazero arena mcts:checkpoint=checkpoints/selfplay.pt,simulations=100,threads=1 greedy --pairs 20":
        Example(r'"wins": 40', check=_arena_wins_all_40, slow=True),
    "alphazero train --help": Example(r"presets \(experiment=NAME; default cpu\)"),
    "alphazero review tests/fixtures/samples.ggf --game 2": Example(r"(?s)\n\s*60\s+White\s+a8 .*result: Black \+8\n.*biggest mistakes", slow=True),
}

_INSTALL = "installs packages: the environment this suite runs in (.ci/run runs the Test command in a fresh venv)"
_TRAINING = "a training run of minutes to hours"
SKIPPED = {
    "pip install torch==2.13.0 && pip install -e .": _INSTALL,
    "pip install torch==2.13.0 && pip install -e . && python -m alphazero.train": _INSTALL + ", then " + _TRAINING,
    'pip install torch==2.13.0 && pip install -e ".[test]" && python -m pytest': _INSTALL + ", then the whole suite",
    'pip install -e ".[web,onnx]"': _INSTALL,
    "alphazero train experiment=smoke run.dir=runs/smoke": "a few minutes of training: tests/train/test_smoke_run.py runs the smoke preset",
    "alphazero train experiment=smoke run.dir=/tmp/smoke": "a few minutes of training: tests/train/test_smoke_run.py runs the smoke preset",
    "alphazero train mcts.simulations=128 selfplay.workers=4 run.max_minutes=90": _TRAINING + " (90 minutes)",
    "alphazero train experiment=warmstart": _TRAINING + " (until Ctrl-C)",
    "alphazero train -m mcts.c_puct=1.0,1.5,2.5 run.max_minutes=30": _TRAINING + " (three of 30 minutes)",
    "alphazero arena mcts:checkpoint=checkpoints/selfplay.pt,simulations=100 greedy --pairs 20":
        "the same match as the check under 'How strong is it?' (run here) with the search's default threads",
    "alphazero web --run runs/smoke": "a server that runs until stopped, on a run directory: tests/web/ drive the board in Chromium",
}


def test_every_readme_command_is_run_or_skipped_with_a_reason():
    commands = readme_commands()
    unlisted = [command for command in commands if command not in RUN and command not in SKIPPED]
    assert not unlisted, f"README commands neither run nor skipped in tests/test_readme_examples.py: {unlisted}"
    stale = [command for command in {**RUN, **SKIPPED} if command not in commands]
    assert not stale, f"listed here but no longer in README.md: {stale}"
    assert not set(RUN) & set(SKIPPED)
    assert all(len(reason) > 20 for reason in SKIPPED.values())


def test_the_quick_start_is_five_lines_above_the_contents():
    head = README.split("## Contents", 1)[0]
    (block,) = re.findall(r"^```bash\n(.*?)^```", head, flags=re.S | re.M)
    assert len(block.strip().splitlines()) == 5


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> tuple[Path, dict]:
    """A directory to run in (the repository's checkpoints/ and tests/ linked in, as the README's
    examples run from the repository's root: the review example reads tests/fixtures/) and an
    environment whose `alphazero` is this checkout's."""
    here = tmp_path_factory.mktemp("readme")
    for shared in ("checkpoints", "tests"):
        (here / shared).symlink_to(ROOT / shared)
    bin_dir = here / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "alphazero"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m alphazero "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return here, env


@pytest.mark.parametrize("command", [pytest.param(command, marks=[pytest.mark.slow] if example.slow else [])
                                     for command, example in RUN.items()])
def test_a_readme_example_runs_as_written(command, scratch):
    example = RUN[command]
    if example.needs and find_spec(example.needs) is None:
        pytest.skip(f"needs {example.needs} (an optional extra)")
    if "checkpoints/" in command or command.startswith(("alphazero play", "alphazero gtp", "alphazero nboard", "alphazero export")):
        if not any((ROOT / "checkpoints").glob("*.pt")):
            pytest.skip("no shipped networks in checkpoints/")
    cwd, env = scratch
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, input=example.stdin, capture_output=True, text=True, timeout=600)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{command!r} exited {proc.returncode}:\n{output[-3000:]}"
    assert re.search(example.expect, output, flags=re.S), f"{command!r} printed:\n{output[-3000:]}"
    if example.check:
        example.check(proc.stdout)
