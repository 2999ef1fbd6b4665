"""`python -m alphazero.bench playout`: complete uniformly random games per second on one core."""

import argparse

from alphazero.argtypes import positive_int
from alphazero.bench._timing import best_of
from alphazero.othello.playout import random_games


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench playout")
    parser.add_argument("--games", type=positive_int, default=200_000)
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    random_games(10, args.seed)  # JIT warm-up
    best, median, (plies, black_wins, white_wins) = best_of(args.repeats, lambda: random_games(args.games, args.seed))
    return {
        "games": args.games,
        "seconds": round(best, 4),
        "games_per_second": round(args.games / best),
        "plies_per_second": round(plies / best),
        "mean_plies": round(plies / args.games, 2),
        "median_seconds": round(median, 4),
        "black_wins": int(black_wins),
        "white_wins": int(white_wins),
    }
