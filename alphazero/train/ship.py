"""`python -m alphazero.train.ship RUN OUT [--network best|latest|ID]`: a run's network as a file to ship.

A run directory's networks carry optimizer state and counters that only a resume needs; a shipped
network (checkpoints/selfplay.pt) should carry the weights and what a reader needs to trust and
reproduce it instead: the run's resolved config, the commits its sessions ran (RUN/sessions.jsonl,
`alphazero.train.provenance`), which network of the run it is and the run's counters.

    python -m alphazero.train.ship /work/runs/selfplay-headline checkpoints/selfplay.pt

`--network best` (the default) takes the run's gated best network (checkpoints/best.json), `latest`
the trainer's latest weights, a number the numbered network `net-NNNNNN.pt`. `--commit SHA`
(repeatable) adds commits for sessions that ran before the run recorded them itself. The file is
written atomically; nothing is written when any input is missing or damaged (one line says which).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from alphazero.best_pointer import checkpoint_dir, read_best_pointer
from alphazero.console import count
from alphazero.nn.checkpoint import CheckpointError, load_checkpoint, load_network, save_checkpoint
from alphazero.train.provenance import code_version, read_sessions

RUN_COUNTERS = ("iteration", "step", "samples_trained", "best_id", "best_elo", "promotions", "gates", "seconds", "elo_ladder")


class ShipError(ValueError):
    """The run cannot be shipped as asked (missing directory, network or config)."""


def _network_path(run_dir: Path, network: str) -> tuple[Path, dict]:
    """The file of the chosen network and what is known about it (id, Elo, step)."""
    if network == "best":
        try:
            pointer = read_best_pointer(run_dir)
        except FileNotFoundError as err:
            raise ShipError(f"{err}: is {run_dir} a training run directory?") from None
        except ValueError as err:  # a damaged best.json: the message names it and the way out
            raise ShipError(str(err)) from None
        return Path(pointer["path"]), {"choice": "best", "id": pointer["id"], "elo": pointer["elo"], "step": pointer["step"]}
    if network == "latest":
        return checkpoint_dir(run_dir) / "latest.pt", {"choice": "latest"}
    if not network.isdigit():
        raise ShipError(f"--network must be best, latest or a network number, not {network!r}")
    return checkpoint_dir(run_dir) / f"net-{int(network):06d}.pt", {"choice": "numbered", "id": int(network)}


def ship(run_dir, out, network: str = "best", commits: tuple[str, ...] = ()) -> dict:
    """Write the chosen network of `run_dir` to `out` (weights and provenance only); returns `extra`."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ShipError(f"no run directory at {run_dir}")
    config_path = run_dir / "config.yaml"
    if not config_path.exists():
        raise ShipError(f"{config_path} is missing: is {run_dir} a training run directory?")
    path, about = _network_path(run_dir, network)
    if not path.exists():
        raise ShipError(f"{path} is missing (--network {network})")
    latest_path = checkpoint_dir(run_dir) / "latest.pt"
    try:
        net = load_network(path)
        latest = load_checkpoint(latest_path) if latest_path.exists() else None
    except CheckpointError as err:
        raise ShipError(str(err)) from None
    if about["choice"] == "latest" and latest is not None:
        about["step"] = latest.extra.get("step")
    counters = {k: latest.extra[k] for k in RUN_COUNTERS if latest is not None and k in latest.extra}
    extra = {
        "kind": "selfplay",
        "run_dir": str(run_dir.resolve()),
        "network": {"file": path.name, **about},
        "run": counters,
        "config": config_path.read_text(),
        "sessions": read_sessions(run_dir),
        "commits_given": list(commits),
        "shipped": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "shipped_by": code_version(),
    }
    save_checkpoint(out, net, extra=extra)
    return extra


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m alphazero.train.ship", description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", help="the training run directory")
    parser.add_argument("out", help="the file to write, e.g. checkpoints/selfplay.pt")
    parser.add_argument("--network", default="best", help="best (default), latest, or a network number")
    parser.add_argument("--commit", action="append", default=[], help="a commit of a session that did not record it (repeatable)")
    args = parser.parse_args(argv)
    try:
        extra = ship(args.run_dir, args.out, args.network, tuple(args.commit))
    except (ShipError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    about = extra["network"]
    run = extra["run"]
    print(
        f"wrote {args.out}: {about['file']} ({about['choice']}"
        + (f", network #{about['id']}" if "id" in about else "")
        + (f", step {about['step']}" if about.get("step") is not None else "")
        + f") of {args.run_dir}, run at step {run.get('step')}, {run.get('seconds', 0) / 60:.0f} min; "
        + f"{count(len(extra['sessions']), 'recorded session')}, {count(len(extra['commits_given']), 'commit')} given"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
