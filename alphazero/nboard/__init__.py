"""The NBoard protocol: our AI as an engine for the NBoard Othello GUI (`python -m alphazero.nboard`)."""
