"""Prefix every line (split on \n and \r, as a terminal shows them) with seconds since start."""
import sys, time
start = float(sys.argv[1])
buf = b""
out = sys.stdout
while True:
    chunk = sys.stdin.buffer.read1(4096)
    if not chunk:
        break
    buf += chunk
    while True:
        cut = min([i for i in (buf.find(b"\n"), buf.find(b"\r")) if i >= 0], default=-1)
        if cut < 0:
            break
        line, buf = buf[:cut], buf[cut + 1:]
        text = line.decode("utf-8", "replace").replace("\x1b[K", "").rstrip()
        if text:
            out.write(f"{time.time() - start:7.1f} {text}\n")
            out.flush()
if buf.strip():
    out.write(f"{time.time() - start:7.1f} {buf.decode('utf-8', 'replace')}\n")
