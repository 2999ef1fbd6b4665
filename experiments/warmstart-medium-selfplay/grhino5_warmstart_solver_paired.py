"""warmstart-medium.pt against GRhino level 5 at 400 simulations with the default endgame solver,
game for game beside selfplay-medium.pt's games with the same solver (grhino5-solver-games.jsonl)
and beside its own games without it (experiments/ladders/, medium3-400), on the same openings and
colours: the like-for-like pairing of issue 35's GRhino cell.

    python experiments/warmstart-medium-selfplay/grhino5_warmstart_solver_paired.py [GAMES.jsonl]

GAMES.jsonl defaults to grhino5-solver-warmstart-medium-games.jsonl beside this script (the cell
may be partial: its shards resume from the log).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from grhino5_paired import OLD, games, margins, score  # noqa: E402


def main(path):
    warm = games(path, "warmstart-medium-400-solver")
    selfplay = margins(HERE / "grhino5-solver-games.jsonl", "selfplay-medium-400-solver")
    warm_without = margins(OLD, "medium3-400")
    points = {"warm": 0.0, "selfplay": 0.0, "warm_without": 0.0}
    selfplay_way = warm_way = solver_way = no_solver_way = 0
    for key, (margin, _) in sorted(warm.items()):
        other, before = selfplay[key], warm_without[key]
        points["warm"] += score(margin)
        points["selfplay"] += score(other)
        points["warm_without"] += score(before)
        selfplay_way += score(other) > score(margin)
        warm_way += score(other) < score(margin)
        solver_way += score(margin) > score(before)
        no_solver_way += score(margin) < score(before)
        print(f"{key[0]} {'black' if key[1] else 'white'}: warmstart-medium {margin:+d}, "
              f"selfplay-medium {other:+d}, warmstart-medium without the solver {before:+d}")
    n = max(len(warm), 1)
    print(f"{len(warm)} games: warmstart-medium.pt with the solver {points['warm']:g} points "
          f"({points['warm'] / n:.3f}); on the same openings and colours selfplay-medium.pt with the solver "
          f"{points['selfplay']:g} ({points['selfplay'] / n:.3f}), warmstart-medium.pt without it "
          f"{points['warm_without']:g} ({points['warm_without'] / n:.3f})")
    print(f"against selfplay-medium.pt: {selfplay_way} games go the self-play network's way, {warm_way} the warm "
          f"start's; against its own games without the solver: {solver_way} go the solver's way, {no_solver_way} "
          f"the other")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE / "grhino5-solver-warmstart-medium-games.jsonl")
