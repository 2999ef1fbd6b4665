"""Find positions with 30-34 empties whose exact answer is a wipe-out (+-64), for issue 67.

Games where one side (the attacker) plays a greedy one-ply policy that keeps the other side's
discs and mobility low and the other side (the victim) plays uniformly at random or greedily (most flips); the position at
each target empties count is kept when one side has few discs, the pattern evaluation gives the
other side at least endgame.WIPEOUT_EVAL discs (where the probe runs), and the solver with the wipe-out
probe (`default+wipeout`) solves it within a node limit to +-64. Prints one board text per line with its empties and answer.

    PYTHONPATH=. python experiments/endgame-solver-67/wipeout_positions.py --games 400 --limit 2000000
"""

import argparse
import random

import numpy as np

from alphazero.othello import bitboard as bb
from alphazero.othello.notation import format_board_text
from alphazero.othello.game import GameState
from alphazero.solver import endgame, patterns
from alphazero.solver.solver import SearchOptions, Solver


def popcount(bits):
    return bin(int(bits)).count("1")


def play(rng, targets, victim_random):
    """Yield (player, opponent, black_to_move) at each empties count in `targets`."""
    player, opponent, black = bb.START_BLACK, bb.START_WHITE, True
    attacker_black = rng.random() < 0.5
    while True:
        empties = 64 - popcount(player | opponent)
        if empties in targets:
            yield player, opponent, black
        if empties <= min(targets):
            return
        moves = bb.squares_of(bb.legal_moves(player, opponent))
        if not moves:
            if bb.legal_moves(opponent, player) == 0:
                return
            player, opponent, black = opponent, player, not black
            continue
        if black == attacker_black:
            def cost(m):
                p, o = bb.make_move(np.uint64(player), np.uint64(opponent), np.int64(m))
                return popcount(p) * 4 + popcount(bb.legal_moves(np.uint64(p), np.uint64(o))) + rng.random()
            move = min(moves, key=cost)
        elif rng.random() < victim_random:
            move = rng.choice(moves)
        else:  # the victim's greedy reply: most discs now (a poor plan, but not a random one)
            move = max(moves, key=lambda m: popcount(bb.flips(np.uint64(player), np.uint64(opponent), np.int64(m)))
                       + rng.random())
        child_player, child_opponent = bb.make_move(np.uint64(player), np.uint64(opponent), np.int64(move))
        player, opponent, black = np.uint64(child_player), np.uint64(child_opponent), not black




def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=2_000_000)
    parser.add_argument("--empties", default="30,32,34")
    parser.add_argument("--max-victim", type=int, default=12)
    parser.add_argument("--victim-random", type=float, default=0.5, help="share of the victim's moves played at random")
    args = parser.parse_args()
    targets = {int(x) for x in args.empties.split(",")}
    rng = random.Random(args.seed)
    weights = patterns.shipped_weights()
    solver = Solver(table_bits=20, options=SearchOptions.parse("default+wipeout"))
    seen = set()
    for _ in range(args.games):
        for player, opponent, black in play(rng, targets, args.victim_random):
            if (int(player), int(opponent)) in seen:
                continue
            seen.add((int(player), int(opponent)))
            if min(popcount(player), popcount(opponent)) > args.max_victim:
                continue
            value = patterns.pattern_eval(np.uint64(player), np.uint64(opponent), weights) / 16
            if abs(value) < endgame.WIPEOUT_EVAL:  # the probe would not run: not what is looked for
                continue
            solution = solver.solve(int(player), int(opponent), node_limit=args.limit)
            if solution is not None and abs(solution.score) == 64:
                state = GameState.from_player_opponent(player, opponent, black)
                print(f"{format_board_text(state)} empties {64 - popcount(player | opponent)} "
                      f"answer {solution.score} move {solution.best_move} nodes {solution.nodes}", flush=True)


if __name__ == "__main__":
    main()
