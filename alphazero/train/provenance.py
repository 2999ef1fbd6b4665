"""Which code trained a run: every session of a run directory records the git commit it ran.

A long run is resumed many times, often after the code moved on; a shipped network has to say
which commits its training ran under (the shipping tool reads them back, `alphazero.train.ship`).
Each start or resume appends one JSON line to `RUN/sessions.jsonl`:

    {"started": "2026-11-25T02:30:59Z", "iteration": 39, "step": 4674,
     "commit": "173af75...", "dirty": false}

`commit` is None where the code is not a git checkout (an installed wheel); `dirty` says whether
tracked files differed from that commit, so "trained with 173af75" is never a silent half-truth.
"""

from __future__ import annotations

import json
import logging
import subprocess
import time
from pathlib import Path

from alphazero.atomic import append_json_line

SESSIONS_FILE = "sessions.jsonl"
log = logging.getLogger("alphazero.train.provenance")
SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str, cwd: Path) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def code_version(source_root: Path = SOURCE_ROOT) -> dict:
    """{"commit": full sha or None, "dirty": bool or None} of the checkout holding this package."""
    commit = _git("rev-parse", "HEAD", cwd=source_root)
    if commit is None:
        return {"commit": None, "dirty": None}
    status = _git("status", "--porcelain", "--untracked-files=no", cwd=source_root)
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def record_session(run_dir, iteration: int, step: int, version: dict | None = None) -> dict:
    """Append this session's line to RUN/sessions.jsonl and return it."""
    row = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "iteration": int(iteration), "step": int(step)}
    row.update(version if version is not None else code_version())
    append_json_line(Path(run_dir) / SESSIONS_FILE, row)
    return row


def read_sessions(run_dir) -> list[dict]:
    """The recorded sessions, oldest first. A last line torn by a kill is skipped quietly; any
    other line that is not a session is skipped with a warning naming it, since what reads them
    (the report's run time, the commits a shipped network names) is then short of a session."""
    path = Path(run_dir) / SESSIONS_FILE
    if not path.exists():
        return []
    sessions = []
    text = path.read_bytes().decode("utf-8", errors="replace")
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            row = None
        if isinstance(row, dict):
            sessions.append(row)
        elif line.strip() and not (number == len(lines) and not text.endswith("\n")):
            log.warning("%s:%d: not a session record, skipped (%.60r)", path, number, line)
    return sessions


def describe(version: dict) -> str:
    """'commit 173af75' / 'commit 173af75 with uncommitted changes' / 'no git checkout'."""
    if not version.get("commit"):
        return "no git checkout"
    return f"commit {version['commit'][:7]}" + (" with uncommitted changes" if version.get("dirty") else "")
