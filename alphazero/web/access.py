"""Who may drive the web board, and which files a request may name.

The board listens on this machine only, but every web page open in a browser on this machine is
on this machine too. A page from another site cannot read the board's answers (the browser's
same-origin rule) unless it rebinds its own host name to 127.0.0.1 (DNS rebinding): then its
requests reach the server with the other site's name in `Host`. And any page may send requests
that name paths. So:

- every request's `Host` must be an address the server listens on (`listen_hosts`: 127.0.0.1,
  localhost or [::1], or the --host given, with the port), else 403;
- every /api/ request must carry the token this process put into the page it served
  (`TOKEN_HEADER`; a new one each start), else 403: a page elsewhere cannot send it, since a
  custom header makes the browser ask the server first, and the server never says yes;
- a request names only the checkpoints and the run the board offers (`Offered`: --checkpoint,
  the checkpoints/ directories, the run's checkpoints/, --run), compared after resolving `..`
  and symbolic links; anything else gets one refusal (`Refused`, 403, the same words whatever
  the path: no answer says whether a path exists). `--allow-any-path` lifts this for a trusted
  setting.
"""

from __future__ import annotations

import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from alphazero.web.positions import InputError
from alphazero.web.runs import RunReader

TOKEN_HEADER = "X-Board-Token"
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
CHECKPOINT_REFUSED = ("checkpoint not offered: this board opens only the checkpoints it lists (--checkpoint, "
                      "checkpoints/, the run's checkpoints/); start it with --allow-any-path to open any file")
RUN_REFUSED = ("run directory not offered: this board shows only the run it was started with (--run); "
               "start it with --allow-any-path to open any directory")


class Refused(Exception):
    """A request the board does not serve (403): from another site, without the page's token, or
    naming a path not offered. The message says what to do and nothing about the file system."""


def new_token() -> str:
    return secrets.token_urlsafe(24)


def listen_hosts(host: str, port: int) -> frozenset[str]:
    """The `Host` values (lower case) a request to this server may carry: the loopback names and
    `host` (the --host given), each with `port`; bare too on port 80, where browsers leave the port
    out. Listening on every interface (0.0.0.0, ::) adds this machine's own names, since clients
    then type those; an address of another name (another site's) is never one of them."""
    names = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host}
    if host in WILDCARD_HOSTS:
        names |= {socket.gethostname(), socket.getfqdn()}
    names = {name.lower() for name in names if name}
    return frozenset({f"{name}:{port}" for name in names} | (names if port == 80 else set()))


def _resolved(path: str | Path) -> Path | None:
    """`path` with `~`, `..` and symbolic links resolved; None when it cannot be (a link loop)."""
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError):
        return None


@dataclass(frozen=True)
class Offered:
    """The checkpoints and the run directory a request may name (what the page lists).

    default_checkpoint: the network played when a request names none (--checkpoint, else the
    shipped default). run: the --run directory, or None. allow_any: --allow-any-path (any path,
    checked only for being a checkpoint file or a run directory, with messages that say which).
    """

    default_checkpoint: str
    run: str | None = None
    allow_any: bool = False

    def checkpoints(self) -> list[str]:
        """Checkpoints the page offers: the default, the run's checkpoints/*.pt, then those of
        checkpoints/ in the working directory and in the repository (a symbolic link among them
        only when it points into the same directory, as best.pt may). Listed afresh each time,
        so a run's new checkpoints appear."""
        from alphazero.play.choosers import DEFAULT_CHECKPOINT

        found, seen = [self.default_checkpoint], {_resolved(self.default_checkpoint)}
        shipped = Path(__file__).resolve().parents[2] / DEFAULT_CHECKPOINT.parent
        directories = ([Path(self.run) / "checkpoints"] if self.run else []) + [DEFAULT_CHECKPOINT.parent, shipped]
        for directory in directories:
            place = _resolved(directory)
            if place is None or not place.is_dir():
                continue
            for path in sorted(directory.glob("*.pt")):
                target = _resolved(path)
                # A link out of the directory is not offered: a file there is the directory's.
                if target is not None and target.parent == place and target not in seen and target.is_file():
                    found.append(str(path))
                    seen.add(target)
        return found

    def checkpoint(self, requested) -> str:
        """The checkpoint a request names (the default when it names none), if offered; Refused
        otherwise, with the same message for a missing file, a directory or a path elsewhere."""
        if requested is not None and not isinstance(requested, str):
            raise InputError(f"checkpoint must be a file path (a string), got a {type(requested).__name__}")
        if requested is None or not requested.strip():
            return self.default_checkpoint
        if self.allow_any:
            return requested
        target = _resolved(requested)
        if target is not None and target in {_resolved(path) for path in self.checkpoints()}:
            return requested
        raise Refused(CHECKPOINT_REFUSED)

    def run_dir(self, requested) -> Path:
        """The run directory a request names (--run when it names none), if offered; Refused
        otherwise, with the same message for a missing directory, a file, one that is not a run
        or one elsewhere."""
        text = "" if requested is None else str(requested)
        if not text.strip():
            if self.run is None:
                raise InputError("no run directory: start the board with --run DIR")
            return RunReader.check_run(self.run)
        if self.allow_any:
            return RunReader.check_run(text)
        if self.run is not None and _resolved(text) is not None and _resolved(text) == _resolved(self.run):
            return RunReader.check_run(self.run)
        raise Refused(RUN_REFUSED)
