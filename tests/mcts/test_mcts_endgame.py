"""Playing strength where the truth is known: endgames checked against an exact minimax solver.

The evaluator is uniform with value 0, so exact results at finished games (and the solver's
proofs) are the search's only signal, and every zero-valued leaf dilutes the averages. Measured on
larger samples than these tests use (default c_puct and fpu): with 2-6 empties, 800 simulations
missed the optimal move in 2 (solver) or 3 (no solver) of 300 positions, all at 6 empties, and
1,600 in none; with 7-8 empties plain PUCT still erred in 2 of 40 at 20,000 simulations, the
solver in 1 of 40 at 20,000 and in 0 of 60 at 40,000. Hence the budgets below. The exact
endgame solver (`endgame_solve_empties`) is off here: these tests measure the tree search itself.
"""

import random

import numpy as np
import pytest
from mcts_testing import action_values, random_endgame, solve

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch


def endgames_with_a_wrong_choice(seed, empties_range, count):
    """Random endgame positions where not every action has the same exact result."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        empties = empties_range[len(found) % len(empties_range)]
        state = random_endgame(rng, empties)
        if state is None:
            continue
        values = action_values(state.player, state.opponent)
        if len(set(values.values())) >= 2:
            found.append((state, values))
    return found


def misses(cases, cfg, chunk):
    wrong = []
    for start in range(0, len(cases), chunk):
        part = cases[start:start + chunk]
        search = BatchedSearch(cfg, UniformEvaluator(), len(part))
        positions = np.array([state.as_array() for state, _ in part], dtype=np.uint64)
        result = search.search(positions, np.full(len(part), 60), add_noise=False)
        for (state, values), action in zip(part, result.action):
            if values[int(action)] != max(values.values()):
                wrong.append((state, values, int(action)))
    return wrong


@pytest.mark.parametrize("solver", [True, False])
def test_search_always_plays_an_optimal_move_with_up_to_six_empties(solver):
    cases = endgames_with_a_wrong_choice(seed=2024, empties_range=[2, 3, 4, 5, 6], count=40)
    cfg = MCTSConfig(simulations=1600, temperature_plies=0, tree_reuse=False, endgame_solve_empties=0, solver=solver)
    assert misses(cases, cfg, chunk=40) == []


def test_search_always_plays_an_optimal_move_with_seven_or_eight_empties():
    cases = endgames_with_a_wrong_choice(seed=7, empties_range=[7, 8], count=20)
    cfg = MCTSConfig(simulations=40_000, temperature_plies=0, tree_reuse=False, endgame_solve_empties=0, solver=True)
    assert misses(cases, cfg, chunk=5) == []


def test_search_finds_the_only_winning_move():
    cases = [(s, v) for s, v in endgames_with_a_wrong_choice(seed=99, empties_range=[4, 5, 6], count=60)
             if sorted(v.values()).count(1) == 1][:12]
    assert len(cases) >= 8
    cfg = MCTSConfig(simulations=800, temperature_plies=0, tree_reuse=False, endgame_solve_empties=0)
    assert misses(cases, cfg, chunk=12) == []


def test_solver_proofs_agree_with_the_exact_solver():
    cases = endgames_with_a_wrong_choice(seed=5, empties_range=[5, 6, 7], count=9)
    cfg = MCTSConfig(simulations=3000, temperature_plies=0, tree_reuse=False, endgame_solve_empties=0)
    search = BatchedSearch(cfg, UniformEvaluator(), len(cases))
    positions = np.array([state.as_array() for state, _ in cases], dtype=np.uint64)
    result = search.search(positions, np.full(len(cases), 60), add_noise=False)
    tree = search.tree
    proven_interior = 0
    for b, (state, values) in enumerate(cases):
        for node in np.flatnonzero(tree.nodes["proven"][b, : tree.next_free[b]])[:60]:
            exact = solve(int(tree.nodes["player"][b, node]), int(tree.nodes["opponent"][b, node]))
            assert tree.nodes["exact_value"][b, node] == exact
            proven_interior += tree.nodes["status"][b, node] == 1
        if tree.nodes["proven"][b, 0]:
            assert result.root_value[b] == max(values.values())
    assert proven_interior > 0
