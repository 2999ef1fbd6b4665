"""selfplay-medium.pt against GRhino level 5 at 400 simulations, game for game beside
warmstart-medium.pt's games on the same openings and colours (experiments/ladders/, medium3-400).

    python experiments/warmstart-medium-selfplay/grhino5_paired.py GAMES.jsonl

Prints each played game's margin (the network's view) beside the old network's, and the totals.
"""

import json
import sys
from pathlib import Path

OLD = Path(__file__).resolve().parents[1] / "ladders" / "ladder-warmstart3-games.jsonl"


def games(path, player):
    """(opening, player is black) -> (the player's final margin, the game's moves), for its games
    against GRhino 5."""
    out = {}
    for line in open(path):
        game = json.loads(line)
        if {game["player_a"], game["player_b"]} != {player, "grhino-5"}:
            continue
        black = (game["player_a"] == player) == game["a_is_black"]
        out[(game["opening"], black)] = (game["black_margin"] if black else -game["black_margin"], game["moves"])
    return out


def margins(path, player):
    """(opening, player is black) -> the player's final margin, for its games against GRhino 5."""
    return {key: margin for key, (margin, _) in games(path, player).items()}


def score(margin):
    return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0


def main(games_path):
    old, new = margins(OLD, "medium3-400"), margins(games_path, "selfplay-medium-400")
    better = worse = 0
    for key, margin in sorted(new.items()):
        before = old.get(key)
        print(f"{key[0]} {'black' if key[1] else 'white'}: {margin:+d}  (warmstart-medium: {before:+d})")
        better += score(margin) > score(before)
        worse += score(margin) < score(before)
    n = len(new)
    print(f"selfplay-medium.pt: {sum(map(score, new.values())):g}/{n} = {sum(map(score, new.values())) / max(n, 1):.3f}; "
          f"warmstart-medium.pt on the same {n} games: {sum(score(old[k]) for k in new) / max(n, 1):.3f} "
          f"({sum(map(score, old.values())) / len(old):.3f} over its {len(old)}); "
          f"{better} games go the new network's way, {worse} the old one's")


if __name__ == "__main__":
    main(sys.argv[1])
