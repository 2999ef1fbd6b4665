"""Benchmarks: `python -m alphazero.bench <name> [options]`, each printing one JSON line.

Each benchmark is a module `alphazero.bench.<name>` with a `main(argv) -> dict` function; the
dispatcher prints the dict as JSON. JIT warm-up always happens before the measured part.
"""
