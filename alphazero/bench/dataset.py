"""`python -m alphazero.bench dataset [--data DIR] [--out DIR]`: read and validate every WTHOR game,
then build the supervised dataset (see alphazero.data.dataset).

Reports the time to read + replay/validate all games and the time to expand, split and write the
dataset, separately. JIT compilation (or cache load) is done first on the smallest file.
"""

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from alphazero.data.dataset import DatasetOptions, expand_positions, input_fingerprint, write_dataset
from alphazero.data.wthor import read_wthor_directory, replay_database, wtb_paths

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "wthor"


def _warm_up(data: Path) -> None:
    smallest = min(wtb_paths(data), key=lambda p: p.stat().st_size)
    replay = replay_database(read_wthor_directory(data, years=[int(smallest.stem[4:])]))
    expand_positions(replay.actions, replay.num_plies, replay.black_margin, replay.usable)


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench dataset")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory with WTH_*.wtb files")
    parser.add_argument("--out", type=Path, default=None, help="dataset directory (default: a temporary one, removed)")
    parser.add_argument("--dedup", action="store_true", help="also merge identical (position, move) rows")
    args = parser.parse_args(argv)
    if not wtb_paths(args.data):
        parser.error(f"no WTHOR files (WTH_*.wtb) in {args.data}")
    _warm_up(args.data)

    out = args.out or Path(tempfile.mkdtemp(prefix="wthor-dataset-"))
    try:
        start = time.perf_counter()
        replay = replay_database(read_wthor_directory(args.data))
        read_seconds = time.perf_counter() - start
        start = time.perf_counter()
        manifest = write_dataset(replay, out, DatasetOptions(dedup=args.dedup), input_fingerprint(args.data), progress=False)
        build_seconds = time.perf_counter() - start
    finally:
        if args.out is None:
            shutil.rmtree(out, ignore_errors=True)
    counts = replay.counts()
    return {
        "games": counts["games"],
        "usable_games": counts["usable"],
        "skipped_games": counts["games"] - counts["usable"],
        "positions": int(sum(s["positions"] for s in manifest["splits"].values())),
        "rows": {name: s["rows"] for name, s in manifest["splits"].items()},
        "read_seconds": round(read_seconds, 3),
        "build_seconds": round(build_seconds, 3),
        "total_seconds": round(read_seconds + build_seconds, 3),
        "dedup": args.dedup,
        "unfinished_games": counts["unfinished"],
        "plies_per_game": round(float(np.mean(replay.num_plies[replay.usable])), 2),  # passes included
    }
