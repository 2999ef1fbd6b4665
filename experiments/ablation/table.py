"""The ablation table for docs/benchmarks.md, from what experiments/ablation/run.sh left in experiments/ablation/.

    python experiments/ablation/table.py [NAME|DIRECTORY ...]

A NAME is a run in experiments/ablation/; a DIRECTORY (a path with a slash) is a run left anywhere
else by the same script (ABLATION_OUT, e.g. experiments/aux-targets/aux). Opponents a run was not
evaluated against show "-".

One row per run: its switches, its self-play games, positions and training steps (the run log's
last iteration line) and, against each opponent, the score (wins-draws-losses) and the Elo
difference with its 95% interval, as `python -m alphazero.arena` printed them.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = ("current", "playoutcap", "qblend", "reusedrop", "gumbel", "forced", "best")
OPPONENTS = ("alphabeta-2", "grhino-1", "grhino-2", "grhino-3", "grhino-4")


def cell(path: Path) -> str:
    if not path.is_file() or not path.stat().st_size:
        return "-"
    result = json.loads(path.read_text().strip().splitlines()[-1])
    return (f"{result['score']:.2f} ({result['wins']}-{result['draws']}-{result['losses']}), "
            f"{result['elo_diff']:+.0f} +-{result['elo_ci95']:.0f}")


def last_iteration(log: Path) -> dict:
    """games, positions and steps from the last `iter N | games G (+g) | positions P | ... | steps S` line."""
    lines = [line for line in log.read_text().splitlines() if " iter " in line] if log.is_file() else []
    if not lines:
        return {}
    found = {key: re.search(rf"\b{key} (\d+)", lines[-1]) for key in ("games", "positions", "steps")}
    return {key: f"{int(match.group(1)):,}" for key, match in found.items() if match}


def main(names: list[str]) -> None:
    print("| run | switches | games | positions | steps | " + " | ".join(f"vs {o}" for o in OPPONENTS) + " |")
    print("|---|---|---:|---:|---:|" + "---|" * len(OPPONENTS))
    for name in names or RUNS:
        run = Path(name) if "/" in name else HERE / name
        if not (run / "final.pt").is_file():
            continue
        switches = (run / "switches.txt").read_text().strip() if (run / "switches.txt").is_file() else ""
        counters = last_iteration(run / "log.txt")
        cells = [cell(run / f"eval-{o}.json") for o in OPPONENTS]
        print(f"| {run.name} | {'`' + switches + '`' if switches else '-'} | {counters.get('games', '?')} | "
              f"{counters.get('positions', '?')} | {counters.get('steps', '?')} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
