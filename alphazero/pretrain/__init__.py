"""Supervised warm start: train the policy/value network on expert WTHOR games.

Modules: `config` (the typed Hydra config), `batches` (index batches from the memory-mapped
dataset, with a random board symmetry per sample), `accuracy` (top-k move accuracy and value error,
shared with `python -m alphazero.bench accuracy`), `loop` (the resumable training run).
Entry point: `python -m alphazero.pretrain`.
"""
