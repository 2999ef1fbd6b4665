"""`alphazero COMMAND [ARGS...]` (or `python -m alphazero COMMAND ...`): every command under one name.

    alphazero --help                                  # the commands, one line each
    alphazero train experiment=smoke run.dir=/tmp/smoke
    alphazero train -m mcts.c_puct=1.0,2.5            # a Hydra sweep, as with python -m alphazero.train
    alphazero play --color white --seconds 2
    alphazero report runs/X

`alphazero X ARGS` runs the command's module exactly as `python -m MODULE ARGS` does (runpy, with
the module as `__main__` and sys.argv[1:] = ARGS), so the arguments reach it untouched: Hydra's
overrides and `-m` for `train` and `pretrain`, argparse options for the rest, and `--help` is the
command's own. Every `python -m alphazero.X` (and `alphazero-train`) keeps working: this is only a
table in front of them.

This module imports none of the commands: `alphazero --help` lists them from the table below
without loading torch (which takes seconds), and a command's module is imported only when it runs.
"""

from __future__ import annotations

import difflib
import importlib.util
import runpy
import sys

PROGRAM = "alphazero"

# name -> (module run as `python -m MODULE`, what it does in one line). The order is the one a
# newcomer meets them in: train and watch a run, play the network, then the tools.
COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("alphazero.train", "train a network by self-play (Hydra overrides: experiment=smoke run.dir=DIR; -m sweeps)"),
    "report": ("alphazero.train.report", "a run's strength over time: its networks, gates, Elo and baseline scores"),
    "games": ("alphazero.games", "a run's self-play games: list them, replay one, write them as GGF"),
    "play": ("alphazero.play", "play Othello at the terminal against the network (or watch two players)"),
    "web": ("alphazero.web", "the web board: play, analyse, watch a run in the browser (the web extra)"),
    "review": ("alphazero.review", "review a finished game: the search's and the solver's verdict on every move"),
    "gtp": ("alphazero.gtp", "the network as a GTP engine on stdin/stdout (GRhino/Edax dialect)"),
    "nboard": ("alphazero.nboard", "the network as an engine for the NBoard GUI"),
    "arena": ("alphazero.arena", "a match between two players, or a round-robin ladder"),
    "solve": ("alphazero.solve", "the exact endgame solver: one board, or every position of an .obf file"),
    "export": ("alphazero.export", "a checkpoint as an ONNX model (the onnx extra)"),
    "pretrain": ("alphazero.pretrain", "supervised warm start on the WTHOR expert games (needs ../shared)"),
    "bench": ("alphazero.bench", "benchmarks, one JSON line each (`alphazero bench --help` lists them)"),
}

EXIT_USAGE = 2


def help_text() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [
        f"usage: {PROGRAM} COMMAND [ARGS...]      (also: python -m alphazero COMMAND [ARGS...])",
        "",
        "AlphaZero for Othello: self-play training, play, analysis and tools, one command each.",
        "",
        "commands:",
        *(f"  {name:<{width}}  {about}{'' if available(name) else ' [not in this installation]'}"
          for name, (_, about) in COMMANDS.items()),
        "",
        f"`{PROGRAM} COMMAND --help` shows the command's own options. Each command is also a module:",
        f"`{PROGRAM} train ARGS` runs `python -m alphazero.train ARGS`, `{PROGRAM} report` runs",
        "`python -m alphazero.train.report`, and so on. README.md and docs/ say more.",
    ]
    return "\n".join(lines) + "\n"


def available(name: str) -> bool:
    """Whether the command's module is in this installation (found without importing it)."""
    return importlib.util.find_spec(COMMANDS[name][0]) is not None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        sys.stderr.write(help_text())
        return EXIT_USAGE
    name, args = argv[0], argv[1:]
    if name in ("-h", "--help"):
        sys.stdout.write(help_text())
        return 0
    if name not in COMMANDS:
        if name.startswith("-"):
            what = f"unknown option '{name}': the options follow the command, `{PROGRAM} COMMAND {name}`"
        else:
            what = f"unknown command '{name}'; the nearest is '{difflib.get_close_matches(name, COMMANDS, n=1, cutoff=0.0)[0]}'"
        print(f"error: {PROGRAM}: {what} (`{PROGRAM} --help` lists the commands)", file=sys.stderr)
        return EXIT_USAGE
    module = COMMANDS[name][0]
    if not available(name):
        print(f"error: {PROGRAM} {name} is not available in this installation (no module {module})", file=sys.stderr)
        return EXIT_USAGE
    # As `python -m MODULE ARGS`: runpy sets sys.argv[0] to the module's file, makes it __main__
    # (Hydra then names the job and finds the config as it does under -m; multiprocessing's
    # spawned children re-import it by its module name), and restores both afterwards. The
    # command ends with its own exit status: SystemExit from it passes through.
    saved_argv = sys.argv
    sys.argv = [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        sys.argv = saved_argv
    return 0


if __name__ == "__main__":
    sys.exit(main())
