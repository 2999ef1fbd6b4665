"""A 60-move review through the web board at the default budget, and what a cheap request waits
meanwhile: `python -m alphazero.web --port 0` started as a user starts it, warmed (one review of a
move: numba's kernels and the network loaded), then POST /api/review of a game of
tests/fixtures/samples.ggf read line by line while another thread sends a 1-simulation analysis
every 2 s and times its answer. Prints one JSON object: the review's wall time, the server
process's CPU time during it (/proc/PID/stat), the plies, the simulations and the latencies.

    python experiments/web-review/run.py [GAME_NUMBER] > OUT.json
"""

import json
import os
import re
import subprocess
import sys
import threading
import time
import http.client
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def post(port, token, path, payload, stream=False):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("POST", path, body=json.dumps(payload),
                       headers={"Host": f"127.0.0.1:{port}", "Content-Type": "application/json", "X-Board-Token": token})
    response = connection.getresponse()
    return connection, response


def main() -> int:
    number = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    text = (ROOT / "tests" / "fixtures" / "samples.ggf").read_text(encoding="latin-1")
    server = subprocess.Popen([sys.executable, "-m", "alphazero.web", "--port", "0"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
        token = re.search(r'name="board-token" content="([^"]+)"', connection.getresponse().read().decode()).group(1)
        connection, response = post(port, token, "/api/review", {"source": "text", "text": "f5d6c3", "simulations": 200})
        response.read()  # warm: kernels compiled or loaded, the network loaded
        connection.close()

        latencies, done = [], threading.Event()

        def cheap():
            while not done.wait(2.0):
                started = time.monotonic()
                c, r = post(port, token, "/api/analyse", {"moves": ["f5"], "simulations": 1})
                r.read()
                c.close()
                latencies.append(round(time.monotonic() - started, 3))

        load_before = Path("/proc/loadavg").read_text().split()[0]
        cpu_before, started = cpu_seconds(server.pid), time.monotonic()
        thread = threading.Thread(target=cheap, daemon=True)
        thread.start()
        connection, response = post(port, token, "/api/review", {"source": "text", "text": text, "game": number, "simulations": 200})
        events = [json.loads(line) for line in response]
        wall, cpu = time.monotonic() - started, cpu_seconds(server.pid) - cpu_before
        done.set()
        thread.join()
        moves = [e for e in events if e["type"] == "move"]
        print(json.dumps({
            "game": number, "plies": len(moves), "last": events[-1]["type"], "wall_s": round(wall, 1),
            "server_cpu_s": round(cpu, 1), "simulations": sum(m["simulations"] for m in moves),
            "searched_positions": sum(1 for m in moves if m["simulations"] > 0),
            "cheap_request_latency_s": latencies, "load_before": load_before,
            "load_after": Path("/proc/loadavg").read_text().split()[0],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }))
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
