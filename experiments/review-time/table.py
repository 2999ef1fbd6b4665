"""The table of experiments/review-time/README.md from run.sh's outputs: per reviewed game, the
plies, the positions searched and solved with their seconds, and the command's wall and CPU time."""

import json
import re
import sys
from pathlib import Path


def time_fields(path: Path) -> dict:
    text = path.read_text()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
    minutes, seconds = wall.split(":")[-2:]
    return {
        "wall": 60 * int(minutes) + float(seconds),
        "cpu": float(re.search(r"User time \(seconds\): (\S+)", text).group(1))
        + float(re.search(r"System time \(seconds\): (\S+)", text).group(1)),
        "load": re.search(r"load before (\S+)", text).group(1) + " / " + re.search(r"load after (\S+)", text).group(1),
    }


def main(out: Path) -> None:
    print("| run | plies | searched (simulations) | search s | solved from 18 empties | solve s | command wall s | command CPU s | load (1 min) before / after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in ("game1.jsonl", "game2.jsonl", "game1.txt"):
        times = time_fields(out / f"{name}.time")
        if name.endswith(".jsonl"):
            rows = [json.loads(line) for line in (out / name).read_text().splitlines()]
            moves = [row for row in rows if row["type"] == "move"]
            searched = [m for m in moves if m["simulations"] > 0]
            solved = [m for m in moves if m["exact_before"] is not None and m["move"] != "pass"]
            figures = (f"{len(moves)} | {len(searched)} ({sum(m['simulations'] for m in searched):,}) | "
                       f"{sum(m['seconds'] for m in searched):.1f} | {len(solved)} | {sum(m['seconds'] for m in solved):.2f}")
        else:
            lines = (out / name).read_text().splitlines()
            plies = re.search(r": (\d+) plies", lines[0]).group(1)
            simulations, seconds = re.fullmatch(r"searched: ([\d,]+) simulations in (\S+) s", lines[-1]).groups()
            figures = f"{plies} | ({simulations}) | {seconds} | | "
        print(f"| {name} | {figures} | {times['wall']:.1f} | {times['cpu']:.1f} | {times['load']} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
