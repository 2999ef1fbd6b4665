"""Run a command on a terminal of its own, as a person would, and stamp what the terminal shows.

    python3 pty_stamp.py SECONDS COMMAND...

The command gets a pseudo-terminal of 150 columns and 40 rows (script(1) gives one of 0 columns,
where tqdm draws no bars) in a session of its own. Everything it writes is split where a line is
rewritten (\\r) or ended (\\n), as a terminal shows it, and printed one frame a line with the
seconds since the start and the wall-clock time (UTC). After SECONDS the process group gets
SIGINT, as Ctrl-C at a terminal sends it; SIGKILL follows if it has not ended 180 s later. The
last line is the exit status.
"""

import fcntl
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

limit, command = float(sys.argv[1]), sys.argv[2:]
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 150, 0, 0))
start = time.monotonic()
proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, start_new_session=True, close_fds=True)
os.close(slave)
interrupted_at = None
buffer = b""


def emit(frames):
    now = time.monotonic() - start
    wall = time.strftime("%H:%M:%S", time.gmtime())
    for frame in frames:
        text = frame.decode("utf-8", "replace").replace("\x1b[K", "").replace("\x1b[A", "").rstrip()
        if text.strip():
            print(f"{now:7.1f} {wall} {text}", flush=True)


while True:
    now = time.monotonic() - start
    if interrupted_at is None and now >= limit:
        os.killpg(proc.pid, signal.SIGINT)
        interrupted_at = now
    if interrupted_at is not None and now - interrupted_at > 180:
        os.killpg(proc.pid, signal.SIGKILL)
    ready, _, _ = select.select([master], [], [], 0.2)
    if ready:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed: the command and its children are gone
            chunk = b""
        if not chunk:
            break
        buffer += chunk
        *frames, buffer = re.split(rb"[\r\n]", buffer)
        emit(frames)
    elif proc.poll() is not None:
        break
emit([buffer])
print(f"exit: {proc.wait()}", flush=True)
