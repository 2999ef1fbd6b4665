"""Shared fixtures: where ../shared is, and skips with a reason where it or GRhino is missing."""

import os
import shutil
import signal
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ALPHAZERO_SHARED", REPO_ROOT.parent / "shared"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GTP_RHINO = "/usr/games/gtp-rhino"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "data").is_dir():
        pytest.skip(f"shared data not found at {SHARED} (set ALPHAZERO_SHARED to its path)")
    return SHARED


@pytest.fixture(scope="session")
def wthor_dir(shared_dir) -> Path:
    path = shared_dir / "data" / "wthor"
    if not any(path.glob("WTH_*.wtb")):
        pytest.skip(f"no WTHOR files (WTH_*.wtb) in {path}")
    return path


@pytest.fixture(scope="session")
def gtp_rhino() -> str:
    if not (os.path.exists(GTP_RHINO) or shutil.which("gtp-rhino")):
        pytest.skip(f"GRhino not installed ({GTP_RHINO}); apt-get install -y grhino")
    return GTP_RHINO if os.path.exists(GTP_RHINO) else shutil.which("gtp-rhino")


@pytest.fixture(scope="session", autouse=True)
def precision_cache_of_the_session(tmp_path_factory):
    """precision=auto's verdicts (alphazero.nn.precision) go to a file of this test session, not to
    the user's cache directory; subprocesses inherit the variable."""
    from alphazero.nn.precision import CACHE_ENV

    patch = pytest.MonkeyPatch()
    path = tmp_path_factory.mktemp("precision") / "precision.json"
    patch.setenv(CACHE_ENV, str(path))
    yield path
    patch.undo()


@pytest.fixture(autouse=True)
def _signal_dispositions_restored():
    """Each test leaves SIGINT and SIGTERM as it found them: code run in this process (a worker's
    `leave_stopping_to_the_parent`, a rank's SIG_IGN, the channel files' handler) may set them, and
    an ignored SIGTERM is inherited by every process a later test starts (a web board that
    `terminate()` then could not stop: seen only when the whole suite ran)."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in saved.items():
        if signal.getsignal(number) is not handler and handler is not None:
            signal.signal(number, handler)
