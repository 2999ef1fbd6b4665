"""Export a run's key TensorBoard curves as PNG files, for reports and docs.

    python -m alphazero.train.plots RUN_DIR OUT_DIR [--prefix NAME]

Writes OUT_DIR/<prefix>losses.png, <prefix>selfplay.png, <prefix>strength.png. Needs matplotlib
(`pip install -e ".[plots]"`).
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


def export(run_dir: Path, out_dir: Path, prefix: str = "") -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit('matplotlib is needed for plots: pip install -e ".[plots]"') from None
    tb_dir = Path(run_dir) / "tb"
    if not tb_dir.is_dir():
        raise SystemExit(f"{tb_dir} does not exist: is {run_dir} a training run directory?")
    scalars = read_scalars(tb_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, tags in FIGURES.items():
        present = [tag for tag in tags if scalars.get(tag)]
        if not present:
            continue
        fig, axes = plt.subplots(1, len(present), figsize=(4.2 * len(present), 3.2), squeeze=False)
        for ax, tag in zip(axes[0], present):
            steps, values = zip(*scalars[tag])
            ax.plot(steps, values, marker="." if len(steps) < 30 else None)
            ax.set_title(tag, fontsize=10)
            ax.set_xlabel("training step")
            ax.grid(alpha=0.3)
        fig.suptitle(f"{Path(run_dir).name}: {name}", fontsize=11)
        fig.tight_layout()
        path = out_dir / f"{prefix}{name}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m alphazero.train.plots", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--prefix", default="", help="file name prefix, e.g. learn60-")
    args = parser.parse_args(argv)
    for path in export(args.run_dir, args.out_dir, args.prefix):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
