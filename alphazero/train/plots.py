"""Export a run's key TensorBoard curves as PNG files, for reports and docs.

    python -m alphazero.train.plots RUN_DIR [RUN_DIR ...] OUT_DIR [--prefix NAME]

Writes OUT_DIR/<prefix>losses.png, <prefix>selfplay.png, <prefix>strength.png; a figure with no
data yet (a run that has not trained, or not gated, so far) is not written, and one line on stderr
says so. With several run directories every panel overlays the runs, one line each, which is how an
ablation's runs are compared: labelled by the overrides that differ between them (the jobs of a
sweep, `run.dir/0`, `run.dir/1`, ..., read from each one's `.hydra/overrides.yaml`: `mcts.c_puct=1.0`)
or else by the directory's name. The Elo curve starts at the first best network (Elo 0 at step 0)
and holds its value to the run's last gate, so a run that never promotes still has one.
Needs matplotlib (`pip install -e ".[plots]"`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import re
import sys
import threading
from pathlib import Path

from alphazero.atomic import check_target, write_atomic

# What each figure waits for, said when there is none yet.
MISSING = {
    "losses": "no loss points yet (they come with the first training steps)",
    "selfplay": "no self-play figures yet (they come with the first status line)",
    "strength": "no strength data yet (it comes with the first gate or baseline evaluation)",
}
# Command-line keys that say where or how a run ran, not what it tried: never a label.
_NOT_LABELS = ("run.dir", "run.resume", "hydra.")

FIGURES = {
    "losses": ["loss/policy", "loss/value", "loss/policy_entropy", "train/lr"],
    "selfplay": ["selfplay/positions_per_second", "selfplay/simulations_per_second", "selfplay/mean_game_length", "speed/train_samples_per_second"],
    "strength": ["arena/score", "elo/best", "eval/score_vs_greedy", "eval/score_vs_alphabeta_depth2", "eval/score_vs_random", "eval/score_vs_grhino_1"],
}


def read_scalars(tb_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """{tag: [(step, value), ...]} of every scalar in a run's TensorBoard directory."""
    return {tag: [(step, value) for step, value, _ in events] for tag, events in read_scalar_events(tb_dir).items()}


def read_scalar_events(tb_dir: Path) -> dict[str, list[tuple[int, float, float]]]:
    """{tag: [(step, value, wall time in seconds since the epoch), ...]}: all of them (no sampling),
    with TensorBoard's own handling of the events a resumed run purged. An events file with a
    record that fails its checksum (damaged on disk) is read up to that record, as TensorBoard
    does, and named in a warning: TensorBoard says so only at debug level, and a report or plot
    would otherwise show a shorter run with no word why."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(tb_dir), size_guidance={"scalars": 0})
    with _checksum_failures() as damaged:
        accumulator.Reload()
    for name in sorted(damaged):
        log.warning("%s: a record fails its checksum (damaged on disk): the curves stop at the events before it in that file", name)
    return {tag: [(e.step, e.value, e.wall_time) for e in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]}


log = logging.getLogger("alphazero.train.plots")
# TensorBoard's record reader, at debug level, when a record's CRC does not match (a torn last
# record, normal in a running or killed run's file, is "truncated" without a failed check).
_CHECKSUM_FAILURE = re.compile(r"Truncated record in (.+) \(.*failed \w* ?crc32 check\)")


class _ChecksumFailures(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.files: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        match = _CHECKSUM_FAILURE.search(record.getMessage())
        if match:
            self.files.add(match.group(1))


_READING = threading.Lock()  # the web board reads runs from several threads; the logger is global


@contextlib.contextmanager
def _checksum_failures():
    """The files whose records failed a checksum while TensorBoard read inside the block (its
    debug messages are caught here and not passed on)."""
    logger = logging.getLogger("tensorboard")
    handler = _ChecksumFailures()
    _READING.acquire()
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler.files
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
        _READING.release()


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
    for directory, label in zip(run_dirs, labels(run_dirs)):
        runs[label] = with_initial_best(read_scalars(directory / "tb"))
    check_target(out_dir / f"{prefix}{next(iter(FIGURES))}.png")  # OUT_DIR a file, or under one: OSError naming it
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    overlay = len(runs) > 1
    for name, tags in FIGURES.items():
        present = [tag for tag in tags if any(scalars.get(tag) for scalars in runs.values())]
        if not present:
            where = ", ".join(str(d) for d in run_dirs)
            print(f"{prefix}{name}.png not written: {MISSING[name]} in {where}", file=sys.stderr)
            continue
        fig, axes = plt.subplots(1, len(present), figsize=(4.2 * len(present), 3.4 if overlay else 3.2), squeeze=False)
        for ax, tag in zip(axes[0], present):
            for label, scalars in runs.items():
                if not scalars.get(tag):
                    continue
                steps, values = zip(*scalars[tag])
                ax.plot(steps, values, marker="." if len(steps) < 30 else None, label=label if overlay else None,
                        drawstyle="steps-post" if tag == "elo/best" else "default")
            ax.set_title(tag, fontsize=10)
            ax.set_xlabel("training step")
            ax.grid(alpha=0.3)
            if overlay:
                ax.legend(fontsize=7)
        title = ", ".join(runs) if overlay else next(iter(runs))
        fig.suptitle(f"{title}: {name}", fontsize=11)
        fig.tight_layout()
        path = out_dir / f"{prefix}{name}.png"
        write_atomic(path, lambda handle: fig.savefig(handle, format="png", dpi=90))  # never a torn PNG over the last one
        plt.close(fig)
        written.append(path)
    return written


def with_initial_best(scalars: dict) -> dict:
    """`elo/best` from the first best network on: Elo 0 at step 0 (network #0, the start of
    every run's ladder), each promotion's value, held to the run's last gate or evaluation. A run
    that gated but never promoted thus gets a flat curve at 0 instead of none. A run with no
    strength data at all is left as it is."""
    strength = [step for tag in scalars if tag.startswith(("arena/", "eval/", "elo/")) for step, _ in scalars[tag]]
    if not strength:
        return scalars
    elo = sorted(scalars.get("elo/best", []))
    if not elo or elo[0][0] > 0:
        elo = [(0, 0.0)] + elo
    if max(strength) > elo[-1][0]:
        elo.append((max(strength), elo[-1][1]))
    return {**scalars, "elo/best": elo}


def labels(run_dirs: list[Path]) -> list[str]:
    """One legend label per run: the command-line overrides that differ between the runs (a
    sweep's jobs: `mcts.c_puct=1.0`), else the directory names (`_label`)."""
    run_dirs = [Path(d) for d in run_dirs]
    by_name = [_label(d, run_dirs) for d in run_dirs]
    if len(run_dirs) < 2:
        return by_name
    overrides = [_overrides(d) for d in run_dirs]
    if any(o is None for o in overrides):
        return by_name
    keys = sorted({key for o in overrides for key in o})
    differing = [key for key in keys if len({o.get(key) for o in overrides}) > 1]
    if not differing:
        return by_name
    found = [" ".join(f"{key}={o[key]}" if key in o else f"{key} unset" for key in differing) for o in overrides]
    return found if len(set(found)) == len(found) else by_name


def _overrides(run_dir: Path) -> dict | None:
    """{key: value} of the command line a run was started (or last resumed) with, from Hydra's
    `.hydra/overrides.yaml`, without the keys that only say where it ran; None if unreadable."""
    from omegaconf import OmegaConf

    path = run_dir / ".hydra" / "overrides.yaml"
    try:
        entries = OmegaConf.to_container(OmegaConf.load(path))
    except Exception:
        return None
    if not isinstance(entries, list):
        return None
    out = {}
    for entry in entries:
        key, sep, value = str(entry).partition("=")
        key = key.lstrip("+~")
        if sep and not key.startswith(_NOT_LABELS):
            out[key] = value
    return out


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
    try:
        written = export(args.run_dir, args.out_dir, args.prefix)
    except OSError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
