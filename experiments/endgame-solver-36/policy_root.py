"""Would the network's policy as the root ordering make a band node's WLD solve cheaper?

For WTHOR positions with E empties: solve WLD with the solver's own root ordering (one Solver),
and emulate a root ordered by the network's policy with another Solver: the children in policy
order, each solved WLD from the child's side; stop at the first child that is a loss for its mover
(a proved win), else keep the best (draw or loss). Node counts, per outcome of the root."""
import sys
import numpy as np
from alphazero.bench.endgame import wthor_positions
from alphazero.engine.factory import build_evaluator
from alphazero.othello.bitboard import flips
from alphazero.solver.solver import Solver

wtb, empties, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
states = [p.state for p in wthor_positions(wtb, empties, count)]
states = [s for s in states if not s.must_pass()]
evaluator = build_evaluator("checkpoints/warmstart.pt", device="cpu", threads=1, precision="fp32")
priors, _ = evaluator(np.array([s.as_array() for s in states], dtype=np.uint64))
own, by_policy = Solver(18), Solver(18)
own.warm_up(); by_policy.warm_up()
totals = {1: [0, 0, 0], 0: [0, 0, 0], -1: [0, 0, 0]}  # outcome -> [positions, own nodes, policy nodes]
first_right = 0
for state, prior in zip(states, priors):
    solution = own.solve(state.player, state.opponent, wld=True)
    outcome = solution.outcome
    moves = sorted(state.legal_actions(), key=lambda a: -prior[a])
    by_policy.nodes[0] = 0
    best = -2
    for i, move in enumerate(moves):
        child = state.play(move)
        result = -by_policy.outcome(child.player, child.opponent) if not child.must_pass() or not child.is_over() else None
        if result is None:
            continue
        best = max(best, result)
        if result == 1:
            first_right += i == 0
            break
    assert best == outcome, (best, outcome)
    totals[outcome][0] += 1
    totals[outcome][1] += solution.nodes
    totals[outcome][2] += int(by_policy.nodes[0])
for outcome, (n, a, b) in totals.items():
    if n:
        print(f"outcome {outcome:+d}: {n} positions, own ordering {a / n:,.0f} nodes, policy-ordered root {b / n:,.0f} nodes ({b / a:.2f}x)")
wins = totals[1][0]
print(f"wins where the policy's first move wins: {first_right} of {wins}")
