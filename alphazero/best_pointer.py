"""The run directory's best-network pointer, `checkpoints/best.json`: the one file the trainer and
the self-play processes (workers, inference servers) agree on to say which network plays.

It lives at the bottom of the package because stages on both sides of it read it: the trainer
(alphazero.train.checkpoints, which writes it at each promotion) and self-play, which must not
import the training stage. `best.json` = {"id", "file", "elo", "step"}; `file` names a numbered
network in the same folder, written before the pointer (the pointer is the commit point).
"""

from __future__ import annotations

import json
from pathlib import Path

BEST_POINTER = "best.json"


def checkpoint_dir(run_dir) -> Path:
    return Path(run_dir) / "checkpoints"


def read_best_pointer(run_dir) -> dict:
    """The pointer with `path` added (the numbered network's full path); FileNotFoundError when the
    run has no best network yet, ValueError naming the file when it is not valid JSON or not a pointer."""
    path = checkpoint_dir(run_dir) / BEST_POINTER
    try:
        with open(path) as handle:
            pointer = json.load(handle)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} is missing: the run has no best network yet") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not valid JSON ({err}); restore it from checkpoints/net-*.pt") from None
    if not _names_a_network(pointer):
        raise ValueError(f'{path} does not name a network (expected {{"id", "file", "elo", "step"}}, got {json.dumps(pointer)[:80]}); '
                         "restore it from checkpoints/net-*.pt")
    pointer["path"] = str(checkpoint_dir(run_dir) / pointer["file"])
    return pointer


def _names_a_network(pointer) -> bool:
    """Valid JSON of another shape would fail later as a KeyError or TypeError in whoever reads it."""
    return (isinstance(pointer, dict) and isinstance(pointer.get("id"), int) and isinstance(pointer.get("file"), str)
            and isinstance(pointer.get("elo"), (int, float)) and isinstance(pointer.get("step"), int))
