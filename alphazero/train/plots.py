"""Export a run's key TensorBoard curves as PNG files, for reports and docs.

    python -m alphazero.train.plots RUN_DIR [RUN_DIR ...] OUT_DIR [--prefix NAME]

Writes OUT_DIR/<prefix>losses.png, <prefix>selfplay.png, <prefix>strength.png. With several run
directories every panel overlays the runs (one line each, labelled by the directory's name), which is
how an ablation's runs are compared. Needs matplotlib (`pip install -e ".[plots]"`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FIGURES = {
    "losses": ["loss/policy", "loss/value", "loss/policy_entropy", "train/lr"],
    "selfplay": ["selfplay/positions_per_second", "selfplay/simulations_per_second", "selfplay/mean_game_length", "speed/train_samples_per_second"],
    "strength": ["arena/score", "elo/best", "eval/score_vs_greedy", "eval/score_vs_alphabeta_depth2", "eval/score_vs_random", "eval/score_vs_grhino_1"],
}


def read_scalars(tb_dir: Path) -> dict[str, list[tuple[int, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(tb_dir), size_guidance={"scalars": 0})
    accumulator.Reload()
    return {tag: [(e.step, e.value) for e in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]}


def export(run_dir: Path | list[Path], out_dir: Path, prefix: str = "") -> list[Path]:
    """Write one PNG per figure in FIGURES; `run_dir` may be a list of runs to overlay."""
    run_dirs = [Path(d) for d in run_dir] if isinstance(run_dir, (list, tuple)) else [Path(run_dir)]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit('matplotlib is needed for plots: pip install -e ".[plots]"') from None
    runs = {}
    for directory in run_dirs:
        tb_dir = directory / "tb"
        if not tb_dir.is_dir():
            raise SystemExit(f"{tb_dir} does not exist: is {directory} a training run directory?")
        runs[_label(directory, run_dirs)] = read_scalars(tb_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    overlay = len(runs) > 1
    for name, tags in FIGURES.items():
        present = [tag for tag in tags if any(scalars.get(tag) for scalars in runs.values())]
        if not present:
            continue
        fig, axes = plt.subplots(1, len(present), figsize=(4.2 * len(present), 3.4 if overlay else 3.2), squeeze=False)
        for ax, tag in zip(axes[0], present):
            for label, scalars in runs.items():
                if not scalars.get(tag):
                    continue
                steps, values = zip(*scalars[tag])
                ax.plot(steps, values, marker="." if len(steps) < 30 else None, label=label if overlay else None)
            ax.set_title(tag, fontsize=10)
            ax.set_xlabel("training step")
            ax.grid(alpha=0.3)
            if overlay:
                ax.legend(fontsize=7)
        title = ", ".join(runs) if overlay else next(iter(runs))
        fig.suptitle(f"{title}: {name}", fontsize=11)
        fig.tight_layout()
        path = out_dir / f"{prefix}{name}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def _label(directory: Path, all_dirs: list[Path]) -> str:
    """The run's directory name, or its last two parts where two runs share a name."""
    if sum(d.name == directory.name for d in all_dirs) > 1:
        return f"{directory.parent.name}/{directory.name}"
    return directory.name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m alphazero.train.plots", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, nargs="+", help="one run directory, or several to overlay")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--prefix", default="", help="file name prefix, e.g. learn60-")
    args = parser.parse_args(argv)
    for path in export(args.run_dir, args.out_dir, args.prefix):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
