"""Paired comparison of two runs' evaluation games (experiments/ablation/run.sh's eval-*-games.jsonl).

Both runs' final networks played the same openings with the same colours against the same
opponents, so each game of one run has a twin in the other. Prints, per opponent and in all, each
run's score and the mean difference per game with its standard error over the paired games.

    python experiments/aux-targets/paired.py experiments/aux-targets/auto experiments/aux-targets/aux
"""

import json
import math
import sys
from pathlib import Path


def game_scores(path: Path, player: str) -> dict:
    """(opening, player is black) -> the player's score in that game (1, 0.5, 0)."""
    scores = {}
    for line in path.read_text().splitlines():
        game = json.loads(line)
        black = game["a_is_black"] if game["player_a"] == player else not game["a_is_black"]
        margin = game["black_margin"] if black else -game["black_margin"]
        scores[(game["opening"], black)] = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
    return scores


def main(first: str, second: str) -> None:
    a_dir, b_dir = Path(first), Path(second)
    total = []
    print(f"| opponent | games | {a_dir.name} | {b_dir.name} | {b_dir.name} - {a_dir.name} per game (+- s.e.) |")
    print("|---|---:|---:|---:|---|")
    for path in sorted(a_dir.glob("eval-*-games.jsonl")):
        twin = b_dir / path.name
        if not twin.is_file():
            continue
        a = game_scores(path, a_dir.name)
        b = game_scores(twin, b_dir.name)
        keys = sorted(set(a) & set(b))
        diffs = [b[k] - a[k] for k in keys]
        total += diffs
        print(f"| {path.name[5:-12]} | {len(keys)} | {sum(a[k] for k in keys) / len(keys):.3f} | "
              f"{sum(b[k] for k in keys) / len(keys):.3f} | {_mean_se(diffs)} |")
    print(f"| all | {len(total)} | | | {_mean_se(total)} |")


def _mean_se(diffs: list[float]) -> str:
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return f"{mean:+.3f} +- {math.sqrt(var / n):.3f}"


if __name__ == "__main__":
    main(*sys.argv[1:3])
