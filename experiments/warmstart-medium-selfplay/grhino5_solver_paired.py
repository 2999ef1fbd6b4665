"""selfplay-medium.pt against GRhino level 5 at 400 simulations with the default endgame solver,
game for game beside its games without the solver (`endgame=0`, grhino5-games.jsonl) on the same
openings and colours, and the exact value at 18 empties of every game the network did not win
(did the solver's reach hold a win the network alone gave away?).

    python experiments/warmstart-medium-selfplay/grhino5_solver_paired.py [GAMES.jsonl]

GAMES.jsonl defaults to grhino5-solver-games.jsonl beside this script (the cell may be partial:
its shards resume from the log).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from grhino5_paired import games, score  # noqa: E402


def value_at(moves, black, empties, solver):
    """The exact final margin (the network's view) at the first position of the game with at most
    `empties` empty squares, or None if the game ended before."""
    from alphazero.othello.game import GameState
    from alphazero.othello.notation import parse_transcript

    state = GameState.start()
    for action in parse_transcript(moves):
        if 64 - bin(state.player | state.opponent).count("1") <= empties:
            value = solver.solve(state.player, state.opponent).score
            return value if state.black_to_move == black else -value
        state = state.play(action)
    return None


def main(path):
    from alphazero.solver.solver import Solver

    solver = Solver(22)
    without = games(HERE / "grhino5-games.jsonl", "selfplay-medium-400")
    with_solver = games(path, "selfplay-medium-400-solver")
    points = [0.0, 0.0]
    differ = 0
    for key, (margin, moves) in sorted(with_solver.items()):
        before, before_moves = without[key]
        points[0] += score(margin)
        points[1] += score(before)
        differ += score(margin) != score(before)
        notes = []
        for name, m, mv in (("solver", margin, moves), ("no solver", before, before_moves)):
            if m <= 0:
                notes.append(f"{name} game at 18 empties: {value_at(mv, key[1], 18, solver):+d}")
        print(f"{key[0]} {'black' if key[1] else 'white'}: solver {margin:+d}, no solver {before:+d}"
              + (f"   ({'; '.join(notes)})" if notes else ""))
    n = len(with_solver)
    print(f"{n} games: with the solver {points[0]:g} points ({points[0] / max(n, 1):.3f}), without it on the same "
          f"openings and colours {points[1]:g} ({points[1] / max(n, 1):.3f}); {differ} end differently")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE / "grhino5-solver-games.jsonl")
