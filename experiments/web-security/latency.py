"""How long a 1-simulation analysis waits while the largest analysis the web board allows runs.

    python experiments/web-security/latency.py CHECKOUT [--cheap N] [--out FILE.json]

Starts `python -m alphazero.web --port 0 --threads 1` from CHECKOUT (its alphazero package, by
PYTHONPATH), loads the default network with a 1-simulation analysis, then sends the largest
analysis allowed (100,000 simulations, no seconds) on a socket of its own, waits 3 s, and times
N 1-simulation analyses of another position, one after the other. Then it closes the long
analysis's socket (a browser giving up) and times how long the long request took in all, from
the server's log line where it says (the checkout with cancellation) or from its answer (one
without: it waits for the answer instead). One JSON object on stdout (and in --out): the
latencies in seconds, the machine's CPU and load, the date, and the checkout's commit.

Works against a checkout before the token and Host check (it reads the token from the page when
there is one, and always sends 127.0.0.1:PORT as Host).
"""

import argparse
import datetime
import http.client
import json
import os
import platform
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

LONG = {"moves": [], "simulations": 100_000}
CHEAP = {"moves": ["f5"], "simulations": 1}


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def request(port, method, path, payload=None, token=None, timeout=3600):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Host": f"127.0.0.1:{port}"}
    if token:
        headers["X-Board-Token"] = token
    body = None
    if payload is not None:
        body = json.dumps(payload)
        headers["Content-Type"] = "application/json"
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read().decode()
    connection.close()
    return response.status, data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout")
    parser.add_argument("--cheap", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    checkout = Path(args.checkout).resolve()
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    process = subprocess.Popen([sys.executable, "-m", "alphazero.web", "--port", "0", "--threads", "1"], cwd=checkout,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = []
    threading.Thread(target=lambda: log.extend(process.stderr), daemon=True).start()
    try:
        line = process.stdout.readline()
        port = int(re.search(r":(\d+)/", line).group(1))
        _, page = request(port, "GET", "/")
        match = re.search(r'name="board-token" content="([^"]+)"', page)
        token = match.group(1) if match else None
        status, _ = request(port, "POST", "/api/analyse", {"moves": [], "simulations": 1}, token)
        assert status == 200, status
        load_before = load()

        body = json.dumps(LONG).encode()
        long_started = time.monotonic()
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall((f"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                            + (f"X-Board-Token: {token}\r\n" if token else "")
                            + f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
        time.sleep(3)
        cheap = []
        for _ in range(args.cheap if token else 1):  # without cancellation the first waits for the whole long one
            started = time.monotonic()
            status, data = request(port, "POST", "/api/analyse", CHEAP, token)
            cheap.append(round(time.monotonic() - started, 3))
            assert status == 200, data[:200]
        if token:
            connection.close()
            deadline = time.monotonic() + 60
            while not any("cancelled" in line for line in log) and time.monotonic() < deadline:
                time.sleep(0.05)
            stopped = next((line.strip() for line in log if "cancelled" in line), None)
            long_seconds = round(time.monotonic() - long_started, 1)
        else:
            connection.settimeout(3600)
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += connection.recv(65536)
            long_seconds = round(time.monotonic() - long_started, 1)
            stopped = "ran to the end: " + answer.split(b"\r\n", 1)[0].decode()
            connection.close()
        result = {
            "checkout": str(checkout),
            "commit": subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip(),
            "cheap_latency_s": cheap, "long_request_s": long_seconds, "long_stopped": stopped,
            "cpu": cpu_model(), "load_before": load_before, "load_after": load(),
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
        }
        print(json.dumps(result))
        if args.out:
            Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
        return 0
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
