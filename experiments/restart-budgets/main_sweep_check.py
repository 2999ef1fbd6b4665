"""On main: a channel file named with a PID that is dead here, while its owner (elsewhere) holds it."""
import fcntl, os, subprocess, sys
from alphazero.selfplay import inference_server as srv
dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout)
path = srv._shared_directory() / f"{srv.PREFIX}{dead}-deadbeef"
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)  # held by a live process (this one)
os.write(fd, b"\0" * 64)
srv._remove_orphaned_files()
print("main's sweep beside a live, locked file named with a dead PID:", "LEFT IT" if path.exists() else "REMOVED IT")
path.unlink(missing_ok=True)
