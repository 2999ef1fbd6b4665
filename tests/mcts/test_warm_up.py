"""The search compiles its kernels before the first move, not inside it.

numba compiles a kernel at its first call. The solver's kernels are first called at the first
position within its reach, deep into a game: on a fresh install that compile (about 40 s on a
2-core EPYC) landed inside a move's search, past any time budget and inside `bench selfplay`'s
measured window. These tests run in a fresh interpreter, where nothing is compiled or loaded yet,
and ask numba which kernels hold a compiled signature.
"""

import subprocess
import sys
import textwrap

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch, warm_up_search
from alphazero.othello.game import GameState
from alphazero.play.choosers import SearchChooser


def compiled_after(setup: str) -> dict:
    """{kernel name: has a compiled signature} in a fresh interpreter after running `setup`."""
    code = textwrap.dedent(
        """
        import json
        from alphazero.mcts import kernels, tree
        from alphazero.solver import endgame
        kernels_to_check = {"solve_root": endgame.solve_root, "settle_solved_leaves": kernels.settle_solved_leaves,
                            "select_leaves": kernels.select_leaves, "backup": kernels.backup,
                            "advance_trees": tree.advance_trees}
        before = {name: bool(kernel.signatures) for name, kernel in kernels_to_check.items()}
        assert not any(before.values()), before
        """
    ) + textwrap.dedent(setup) + textwrap.dedent(
        """
        print(json.dumps({name: bool(kernel.signatures) for name, kernel in kernels_to_check.items()}))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_search_with_the_solver_compiles_the_endgame_kernels_when_built_not_at_the_first_endgame():
    compiled = compiled_after(
        """
        from alphazero.mcts.config import MCTSConfig
        from alphazero.mcts.evaluator import UniformEvaluator
        from alphazero.mcts.search import BatchedSearch
        BatchedSearch(MCTSConfig(simulations=8), UniformEvaluator(), 2)
        """
    )
    assert compiled["solve_root"] and compiled["settle_solved_leaves"]
    assert not compiled["select_leaves"]  # the walks compile at the first search, as before


def test_warm_up_search_compiles_every_kernel_a_game_calls():
    compiled = compiled_after(
        """
        from alphazero.mcts.config import MCTSConfig
        from alphazero.mcts.search import warm_up_search
        warm_up_search(MCTSConfig(simulations=8))
        """
    )
    assert all(compiled.values()), compiled


def test_a_search_without_the_solver_compiles_no_solver():
    compiled = compiled_after(
        """
        from alphazero.mcts.config import MCTSConfig
        from alphazero.mcts.evaluator import UniformEvaluator
        from alphazero.mcts.search import BatchedSearch
        BatchedSearch(MCTSConfig(simulations=8, endgame_solve_empties=0, endgame_wld_empties=0), UniformEvaluator(), 2)
        """
    )
    assert not compiled["solve_root"]


def test_the_warm_up_leaves_the_solver_table_empty_and_searches_unchanged():
    config = MCTSConfig(simulations=16)
    search = BatchedSearch(config, UniformEvaluator(), 1)
    assert not search.endgame_solver.tt_keys.any()
    # A position within the solver's reach: the warmed search answers exactly as the solver does.
    state = GameState.start()
    rng = np.random.default_rng(3)
    while state.empties() > 12:
        state = state.play(int(rng.choice(state.legal_actions())) if not state.must_pass() else 64)
    result = search.search(state.as_array().reshape(1, 2), np.array([60 - state.empties()]), add_noise=False)
    assert result.exact_score[0] == search.endgame_solver.solve(state.player, state.opponent).score


def test_a_warmed_up_chooser_plays_the_moves_of_one_never_warmed_up():
    def game(warm: bool) -> list[int]:
        chooser = SearchChooser(UniformEvaluator(), simulations=24, seed=5)
        if warm:
            chooser.warm_up()
        warm_up_search(MCTSConfig(simulations=8))  # another throwaway search in between changes nothing either
        state, moves = GameState.start(), []
        while not state.is_over():
            move = chooser.choose(state)
            moves.append(move)
            state = state.play(move)
        return moves

    assert game(True) == game(False)
