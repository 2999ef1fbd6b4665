"""Training: the loop, the trainer, checkpoints, metrics. Entry point: `python -m alphazero.train`."""
