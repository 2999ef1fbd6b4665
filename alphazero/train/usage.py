"""`python -m alphazero.train --help`: what a person needs to start a run, on one screen.

Hydra's own help prints its generic text and then the whole composed config (over a hundred
lines), so the choices that matter first, the presets and the config groups, scroll away. This
text lists the presets (`experiment=NAME`) with the first sentence of each preset file's opening
comment, every config group with its options and default, and where to find the rest (the full
config with `--cfg job`, Hydra's help with `--hydra-help`). It is read from conf/ and the model
presets at the time of asking, so a new preset or option shows without editing this file.
"""

from __future__ import annotations

import re
from pathlib import Path

USAGE = "usage: python -m alphazero.train [GROUP=OPTION ...] [KEY=VALUE ...] [-m]"


def wants_help(argv: list[str]) -> bool:
    """`-h`/`--help` anywhere on the command line (Hydra's `--hydra-help` is left to Hydra)."""
    return any(arg in ("-h", "--help") for arg in argv)


def defaults(conf_dir: Path) -> dict[str, str]:
    """{group: option} of conf/config.yaml's defaults list (groups only; `override` entries skipped)."""
    from omegaconf import OmegaConf

    chosen = {}
    for entry in OmegaConf.to_container(OmegaConf.load(conf_dir / "config.yaml")).get("defaults", []):
        if isinstance(entry, dict):
            for key, value in entry.items():
                if not key.startswith("override ") and isinstance(value, str):
                    chosen[key] = value
    return chosen


def preset_summary(path: Path) -> str:
    """The first sentence of a preset file's opening comment (after `# @package`)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if not text.startswith("@package"):
            lines.append(text)
    sentence = re.split(r"(?<=\.)\s", " ".join(lines), maxsplit=1)[0]
    if len(sentence) > 100:  # a long one keeps its head: up to the first colon or parenthesis
        sentence = re.split(r":\s|\s\(", sentence, maxsplit=1)[0]
    return sentence


def model_options() -> dict[str, str]:
    """{model preset: `blocks x channels` (and its kind where it is not the ResNet)}."""
    from alphazero.nn.config import PRESET_NAMES, model_preset

    out = {}
    for name in PRESET_NAMES:
        cfg = model_preset(name)
        kind = "" if cfg.arch == "resnet" else "warm-start zoo architecture, "
        history = ", reads move history: not for self-play" if cfg.needs_history else ""
        out[name] = f"{kind}{cfg.blocks} blocks x {cfg.channels} channels{history}"
    return out


def help_text(conf_dir: str | Path, examples: str = "") -> str:
    conf_dir = Path(conf_dir)
    chosen = defaults(conf_dir)
    lines = [USAGE, "", "Trains an AlphaZero network for Othello by self-play, in a run directory (run.dir=DIR)."]
    if examples.strip():
        lines += ["", "examples:", examples.rstrip()]
    presets = sorted(path.stem for path in (conf_dir / "experiment").glob("*.yaml"))
    width = max(len(name) for name in presets)
    lines += ["", f"presets (experiment=NAME; default {chosen.get('experiment', '?')}):"]
    for name in presets:
        lines.append(f"  {name:<{width}}  {preset_summary(conf_dir / 'experiment' / f'{name}.yaml')}")
    groups = sorted({path.name for path in conf_dir.iterdir() if path.is_dir() and path.name != "experiment"} | {"model"})
    lines += ["", "config groups (GROUP=OPTION; a preset may choose some of them):"]
    models = model_options()
    for group in groups:
        options = models if group == "model" else {path.stem: "" for path in sorted((conf_dir / group).glob("*.yaml"))}
        default = chosen.get(group)
        marked = len(options) > 1
        listed = ", ".join(f"{name}{' (default)' if marked and name == default else ''}" for name in options)
        lines.append(f"  {group:<{width}}  {listed}")
        if group == "model":
            lines += [f"  {'':<{width}}    {name}: {about}" for name, about in options.items()]
    lines += [
        "",
        "Any key can be set on its own: mcts.simulations=100 selfplay.workers=4 run.max_minutes=60.",
        "  every key and its value for a command line:  python -m alphazero.train [overrides] --cfg job",
        "  the keys, typed and documented:               alphazero/train/schema.py and the dataclasses it names",
        "  Hydra's own options (sweeps, --cfg, ...):     python -m alphazero.train --hydra-help",
    ]
    return "\n".join(lines) + "\n"
