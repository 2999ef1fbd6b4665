"""`--help` of the commands a newcomer meets first says what there is to choose."""

import subprocess
import sys
from pathlib import Path

from alphazero.bench.__main__ import available, description
from alphazero.bench.__main__ import main as bench_main

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_bench_help_lists_every_benchmark_with_its_one_line_description(capsys):
    assert bench_main(["--help"]) == 0
    out = capsys.readouterr().out
    names = available()
    assert {"selfplay", "mcts", "network", "playout", "endgame"} <= set(names)
    for name in names:
        line = next(line for line in out.splitlines() if line.strip().startswith(name + " "))
        assert description(name) in line and len(description(name)) > 10, line
    # The command line that opens most docstrings is left out; what it measures stays.
    assert description("selfplay") == "The real self-play pipeline's speed"
    assert description("network") == "Network speed on this machine"


def test_train_help_shows_the_presets_and_the_config_groups_not_the_whole_config():
    proc = subprocess.run([sys.executable, "-m", "alphazero.train", "--help"], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    presets = sorted(path.stem for path in (REPO_ROOT / "conf" / "experiment").glob("*.yaml"))
    assert {"cpu", "gpu", "smoke", "warmstart"} <= set(presets)
    for preset in presets:
        assert f"\n  {preset} " in out, preset
    assert "The default: a self-play run sized for a 2-core laptop CPU." in out
    assert "presets (experiment=NAME; default cpu):" in out
    assert "small (default)" in out and "tiny: 2 blocks x 16 channels" in out
    for group in ("mcts", "selfplay", "train", "arena", "eval", "ray"):
        assert f"\n  {group} " in out, group
    assert "--hydra-help" in out and "--cfg job" in out
    assert "c_puct" not in out  # not the whole config: that is --cfg job
    assert len(out.splitlines()) < 60


def test_a_preset_summary_names_no_network_but_the_one_the_preset_uses():
    """`--help` called the gpu preset's network "large" (its file's opening comment) where the preset
    chooses, and the README says, medium."""
    import re

    from alphazero.nn.config import PRESET_NAMES
    from alphazero.train.usage import preset_summary

    checked = 0
    for path in sorted((REPO_ROOT / "conf" / "experiment").glob("*.yaml")):
        chosen = re.search(r"override /model: (\w+)", path.read_text())
        if chosen:
            named = {name for name in PRESET_NAMES if re.search(rf"(?<![\w-]){name}(?![\w-])", preset_summary(path))}
            assert named <= {chosen.group(1)}, (path.name, preset_summary(path))
            checked += 1
    assert checked >= 3
