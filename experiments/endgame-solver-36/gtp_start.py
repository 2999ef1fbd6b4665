import subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen([sys.executable, "-m", "alphazero.gtp", "--seconds", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True, bufsize=1)
def ask(cmd):
    p.stdin.write(cmd + "\n"); p.stdin.flush()
    lines = []
    while True:
        line = p.stdout.readline()
        if line.strip() == "" and lines: break
        if line.strip(): lines.append(line.strip())
    return lines
for cmd in ["name", "boardsize 8", "clear_board", "genmove black", "genmove white"]:
    answer = ask(cmd)
    print(f"{time.perf_counter() - t0:7.2f} s  {cmd} -> {answer}", flush=True)
ask("quit"); p.wait()
print("stderr:", p.stderr.read().strip())
