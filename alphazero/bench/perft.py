"""`python -m alphazero.bench perft --depth D`: leaves of the game tree from the start position.

Counts use bulk counting at the last ply (see alphazero.othello.perft). Single-threaded.
"""

import argparse

from alphazero.argtypes import non_negative_int, positive_int
from alphazero.bench._timing import best_of
from alphazero.othello.bitboard import START_BLACK, START_WHITE
from alphazero.othello.perft import perft


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench perft")
    parser.add_argument("--depth", type=non_negative_int, default=10)
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed runs; the best is reported")
    args = parser.parse_args(argv)
    perft(START_BLACK, START_WHITE, 3)  # JIT warm-up (or cache load) outside the timing
    best, median, nodes = best_of(args.repeats, lambda: perft(START_BLACK, START_WHITE, args.depth))
    return {
        "depth": args.depth,
        "nodes": int(nodes),
        "seconds": round(best, 4),
        "nodes_per_second": round(nodes / best),
        "median_seconds": round(median, 4),
        "bulk_counting": True,
    }
