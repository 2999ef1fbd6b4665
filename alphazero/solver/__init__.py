"""Exact endgame solver: negamax alpha-beta to the end of the game on bitboards (numba).

`endgame` holds the kernels, `table` the transposition table, `solver` the Python-facing `Solver`,
`obf` the Edax .obf test-file reader. The package imports `alphazero.othello` only; the search
(`alphazero.mcts`) imports it.
"""
