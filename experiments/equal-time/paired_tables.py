"""Two games logs of the same ladder (the same players' names, openings and colours), game for game:
for each pairing, the score of the first-named player in each log over the games both logs have, and
how many of those games ended differently.

    python experiments/equal-time/paired_tables.py experiments/equal-time/zen3-s0.5/games.jsonl \
        experiments/equal-time/zen3-timed-s0.5/games.jsonl
"""

import argparse
import json
from collections import defaultdict


def results(path):
    """{(player_a, player_b): {(opening, a_is_black, occurrence): score of a (1, 0.5, 0)}}."""
    games = defaultdict(dict)
    for line in open(path):
        game = json.loads(line)
        a_black = game["a_is_black"]
        margin = game["black_margin"] if a_black else -game["black_margin"]
        key = (game["opening"], a_black)
        pairing = games[(game["player_a"], game["player_b"])]
        occurrence = sum(1 for k in pairing if k[:2] == key)
        pairing[key + (occurrence,)] = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
    return games


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    args = parser.parse_args()
    before, after = results(args.before), results(args.after)
    print("| pairing (score of the first) | games in both | before | after | games ending differently |")
    print("|---|---:|---:|---:|---:|")
    for pairing in sorted(set(before) & set(after)):
        common = sorted(set(before[pairing]) & set(after[pairing]))
        if not common:
            continue
        old = sum(before[pairing][k] for k in common)
        new = sum(after[pairing][k] for k in common)
        changed = sum(before[pairing][k] != after[pairing][k] for k in common)
        n = len(common)
        print(f"| {pairing[0]} vs {pairing[1]} | {n} | {old / n:.3f} | {new / n:.3f} | {changed} |")


if __name__ == "__main__":
    main()
