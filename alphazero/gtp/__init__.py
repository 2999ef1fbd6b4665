"""Our engine as a GTP program (`python -m alphazero.gtp`), the dialect Othello GUIs and GRhino speak."""
