"""A first start that talks: on a cold numba cache the training command says within seconds that the
search kernels are compiling, and counts the time until self-play begins; the self-play bar's clock
starts with play (alphazero.train.waiting)."""

import fcntl
import io
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from alphazero.console import TickingLine
from alphazero.numba_cache import compiled_here
from alphazero.train.waiting import COMPILING, STARTING, PlayWait

from .helpers import train_command

REPO_ROOT = Path(__file__).resolve().parents[2]


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_line_ticks_by_the_clock_steps_aside_for_log_records_and_leaves_the_terminal_clean():
    stream, now = _Terminal(), [100.0]
    line = TickingLine("compiling", stream=stream, clock=lambda: now[0]).start(thread=False)
    for second in (1, 2, 9, 65):
        now[0] = 100.0 + second
        line.tick()
    with line.cleared():
        stream.write("a log record\n")
    assert line.stop() == 65
    line.tick()  # stopped: nothing more
    frames = stream.getvalue().split("\r")
    assert frames[1:6] == ["compiling | 0 s", "compiling | 1 s", "compiling | 2 s", "compiling | 9 s", "compiling | 1 min 05 s"]
    # The record starts on a clean line, the line comes back under it, and stop() wipes it.
    assert frames[6].strip() == "" and frames[7] == "a log record\n" and frames[8] == "compiling | 1 min 05 s"
    assert frames[9].strip() == "" and frames[10] == ""


def test_in_a_log_the_line_is_written_once_a_minute_and_log_records_are_not_interrupted():
    stream, now = io.StringIO(), [0.0]
    line = TickingLine("compiling", stream=stream, clock=lambda: now[0]).start(thread=False)
    for second in range(0, 130, 10):
        now[0] = float(second)
        line.tick()
        with line.cleared():
            stream.write(f"record {second}\n")
    line.stop()
    lines = stream.getvalue().splitlines()
    assert [text for text in lines if text.startswith("compiling")] == ["compiling | 0 s", "compiling | 1 min 00 s", "compiling | 2 min 00 s"]
    assert len(lines) == 3 + 13


def test_the_thread_redraws_the_line_without_anyone_calling_it():
    stream = _Terminal()
    line = TickingLine("waiting", stream=stream, tick=0.3).start()  # a terminal's line: at most 4 redraws a second
    time.sleep(1.5)
    line.stop()
    assert stream.getvalue().count("\rwaiting | ") >= 3  # the first, and the thread's


@pytest.mark.parametrize("cached, text, started", [(False, COMPILING, True), (True, STARTING, False), (None, STARTING, False)])
def test_the_wait_starts_at_once_only_when_the_kernels_must_be_compiled(monkeypatch, cached, text, started):
    import alphazero.mcts.search as search
    from alphazero.train.schema import Config

    monkeypatch.setattr(search, "search_kernels_cached", lambda: cached)
    cfg = Config()
    cfg.run.progress = False
    wait = PlayWait.at_start(cfg)
    assert wait.kernels_cached is cached and wait.line.text == text and wait.line.running is started
    starting = wait.workers_starting(2, False)
    assert starting.startswith("starting 2 self-play workers: ") and wait.line.running
    assert ("compiling the search kernels first" in starting) is (cached is False)
    assert ("from numba's cache" in starting) is (cached is True)
    assert wait.playing(12.4).startswith("self-play workers playing after 12 s") and not wait.line.running


def test_the_cache_is_asked_without_compiling_and_answers_for_this_source(tmp_path, monkeypatch):
    """numba's own index: nothing before the first call, the kernel after it, nothing once the
    source changes (numba would compile it again)."""
    source = tmp_path / "az_cache_probe.py"
    source.write_text("from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import az_cache_probe

    assert compiled_here(az_cache_probe.twice) is False
    assert not az_cache_probe.twice.signatures  # asking compiled nothing
    assert az_cache_probe.twice(21) == 42
    assert compiled_here(az_cache_probe.twice) is True
    source.write_text(source.read_text() + "\n# edited\n")
    os.utime(source, (time.time() + 5, time.time() + 5))
    reloaded = __import__("importlib").reload(az_cache_probe)
    assert compiled_here(reloaded.twice) is False
    sys.modules.pop("az_cache_probe", None)


def test_the_search_kernels_cache_can_be_read_with_this_numba():
    """None would mean numba's internals moved: the cold start would go silent again."""
    from alphazero.mcts.search import search_kernels_cached

    assert search_kernels_cached() in (True, False)


def _frames(master: int, proc: subprocess.Popen, until: str, timeout: float) -> list[tuple[float, str]]:
    """(seconds since launch, text) of everything the terminal shows, split where a line is
    rewritten (\\r) or ended (\\n), until `until` appears."""
    started, buffer, frames = time.monotonic(), b"", []
    while time.monotonic() - started < timeout:
        ready, _, _ = select.select([master], [], [], 0.2)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        buffer += chunk
        *complete, buffer = re.split(rb"[\r\n]", buffer)
        now = time.monotonic() - started
        frames += [(now, text.decode(errors="replace").strip()) for text in complete if text.strip()]
        if any(until in text for _, text in frames):
            return frames
    pytest.fail(f"no {until!r} within {timeout} s (exit {proc.poll()}):\n" + "\n".join(f"{t:6.1f} {x}" for t, x in frames[-40:]))


@pytest.mark.slow  # compiles every search kernel into an empty cache: 2-4 minutes on 2 cores; run by name in .ci/run
def test_a_cold_start_says_within_5_s_that_the_kernels_compile_and_counts_until_play(tmp_path):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 150, 0, 0))  # a terminal of 150 columns
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), PYTHONUNBUFFERED="1",
               PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(train_command(tmp_path / "run", "run.max_iterations=1"), stdin=slave, stdout=slave, stderr=slave,
                            env=env, start_new_session=True, close_fds=True)
    os.close(slave)
    try:
        frames = _frames(master, proc, "self-play workers playing after", timeout=900)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=120)
        os.close(master)
    ticks = [(at, text) for at, text in frames if text.startswith(COMPILING + " | ")]
    playing = next(at for at, text in frames if "self-play workers playing after" in text)
    assert ticks and ticks[0][0] <= 5.0, frames[:10]
    gaps = [later - earlier for (earlier, _), (later, _) in zip(ticks, ticks[1:] + [(playing, "")])]
    assert max(gaps) <= 10.0, [(round(at, 1), text) for at, text in ticks]
    assert ticks[-1][0] - ticks[0][0] >= 10  # it counted through a real compile, not one frame
    assert re.search(r"\| (\d+ min \d\d s|\d+ s)$", ticks[-1][1])
    # The log says the same, and no self-play bar was drawn before play began.
    assert any("starting 1 self-play worker: compiling the search kernels first" in text for _, text in frames)
    assert not any("self-play:" in text for at, text in frames if at < playing)
