"""`python -m alphazero.bench faults`: the fault-injection suite (see alphazero/faults/).

Randomized kill/resume trials of the `smoke` preset on one run directory (SIGKILL at random
moments and at every phase hook, a killed self-play worker, a second run on a locked directory),
disk-full runs (a small tmpfs when mounting is permitted, and ENOSPC through the hook), and
corrupt inputs for every reader. One JSON line: trials, faults_injected, resumes_succeeded,
files_checked, games_lost (must be 0), bad_inputs_tried, crashes (must be 0), problems (must be
0), seconds, and a breakdown. Trial-by-trial progress goes to stderr; the full report to
<work dir>/report.json. CPU-heavy: about 30 s per trial on two busy cores.

With --inference-server it runs the self-play kill campaign instead (alphazero/faults/
selfplay_kills.py): one async smoke run with the inference server, whose workers and server get
SIGKILL in turn (--kills of each); one JSON line with worker_kills, server_kills, recoveries,
hangs (must be 0), slow_recoveries (over 30 s), recovery times, games_lost (must be 0), crashes.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from alphazero.argtypes import non_negative_int, positive_int
from alphazero.faults import badinput
from alphazero.faults.suite import DISK_FULL_MODES, run_suite


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench faults", description=__doc__.split("\n\n")[1])
    parser.add_argument("--trials", type=positive_int, default=20, help="kill/resume trials (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bad-inputs-per-family", type=non_negative_int, default=30, help="random corrupt inputs per reader (default 30)")
    parser.add_argument("--disk-full", default=",".join(DISK_FULL_MODES), help=f"comma-separated, from {','.join(DISK_FULL_MODES)}; '' for none")
    parser.add_argument("--families", default=",".join(badinput.FAMILIES), help="bad-input families to run")
    parser.add_argument("--work-dir", default=None, help="where runs go (default: a temp dir, deleted unless something failed)")
    parser.add_argument("--quiet", action="store_true", help="no per-trial progress on stderr")
    parser.add_argument("--inference-server", action="store_true", help="kill workers and the inference server during one run instead")
    parser.add_argument("--kills", type=positive_int, default=20, help="with --inference-server: SIGKILLs of workers and as many of the server (default 20)")
    args = parser.parse_args(argv)
    if args.inference_server:
        return _kill_campaign(args)
    disk_full = [mode for mode in args.disk_full.split(",") if mode]
    families = [family for family in args.families.split(",") if family]
    for mode in disk_full:
        if mode not in DISK_FULL_MODES:
            parser.error(f"--disk-full: unknown mode {mode!r}; expected {', '.join(DISK_FULL_MODES)}")
    for family in families:
        if family not in badinput.FAMILIES:
            parser.error(f"--families: unknown family {family!r}; expected {', '.join(badinput.FAMILIES)}")

    work_dir = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="alphazero-faults-"))
    progress = None if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    report = run_suite(work_dir, args.trials, args.seed, args.bad_inputs_per_family, disk_full, families, progress)
    summary = report.summary()
    failed = summary["games_lost"] or summary["crashes"] or summary["problems"]
    if args.work_dir is None and not failed:
        shutil.rmtree(work_dir, ignore_errors=True)
    else:
        summary["work_dir"] = str(work_dir)
    return summary


def _kill_campaign(args):
    from alphazero.faults.selfplay_kills import run_kill_campaign

    work_dir = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="alphazero-kills-"))
    progress = None if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    report = run_kill_campaign(work_dir, kills_each=args.kills, seed=args.seed, progress=progress)
    summary = report.summary()
    if args.work_dir is None and not (summary["hangs"] or summary["games_lost"] or summary["crashes"] or summary["problems"]):
        shutil.rmtree(work_dir, ignore_errors=True)
    else:
        summary["work_dir"] = str(work_dir)
    return summary
