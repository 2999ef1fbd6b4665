"""The one way to build a network's evaluator, a self-play search and a playing MCTS player.

Self-play, gating, baseline evaluation, the arena, `play` and GTP all build their search from a
network, the run's `mcts` settings and a device here, so no caller can end up with the default
search settings on the wrong device by building its own (the gate once did: MCTSConfig()
defaults on the CPU while the run searched otherwise on a GPU).

- `build_evaluator(network, device, threads, precision)`: the network (a module or a checkpoint
  path) behind the Evaluator protocol on `device`, in float32, bf16 or int8 (`alphazero.nn.precision`).
- `build_search(mcts, evaluator, num_games, seed)`: self-play's BatchedSearch, the run's settings
  as they are (root noise, temperature schedule, tree reuse).
- `play_config(mcts, simulations)`: the same settings for playing to win: no root noise,
  temperature 0, no tree reuse between calls (the arena searches positions of many games).
- `alphazero.arena.players.build_player(network, mcts, device, ...)`: an arena `MCTSPlayer` on
  `build_evaluator` and `play_config` (in the arena, whose player class it builds).

This package sits between `nn`/`mcts` and the stages that use them (selfplay, train, arena,
play, gtp), and imports none of them.
"""

from __future__ import annotations

import dataclasses
import os

from alphazero.mcts.config import MCTSConfig


def build_evaluator(network, device="auto", threads: int | None = None, precision: str = "auto",
                    probe_batch: int | None = None, precision_cache=None):
    """A NetworkEvaluator on `device` for `network`: an AlphaZeroNet, or a checkpoint path
    (loaded weights-only). `threads`: torch CPU threads (process-wide), None keeps torch's.
    `precision`: auto, fp32, bf16, fp16 (CUDA) or int8 (a CPU); with auto on a CPU, `probe_batch` is the
    batch size the caller mostly sends (None: the probe's cap) and `precision_cache` the verdict
    cache file (None: the user's; a run passes the one in its run directory)."""
    from alphazero.nn.inference import NetworkEvaluator
    from alphazero.nn.precision import PROBE_BATCH_CAP

    if isinstance(network, (str, os.PathLike)):
        from alphazero.nn.checkpoint import load_network

        if not os.path.exists(network):
            raise FileNotFoundError(f"checkpoint {network} does not exist")
        network = load_network(network)
    return NetworkEvaluator(network, device=device, threads=threads, precision=precision,
                            probe_batch=probe_batch or PROBE_BATCH_CAP, precision_cache=precision_cache)


def build_search(mcts: MCTSConfig, evaluator, num_games: int, seed: int = 0):
    """Self-play's batched search over `num_games` games with the run's settings unchanged."""
    from alphazero.mcts.search import BatchedSearch

    return BatchedSearch(mcts, evaluator, num_games, seed=seed)


def play_config(mcts: MCTSConfig | None = None, simulations: int | None = None) -> MCTSConfig:
    """The run's search settings for playing to win: the run's c_puct, FPU, leaves per step,
    virtual loss and solver, with no root noise, temperature 0 and no tree reuse."""
    mcts = mcts or MCTSConfig()
    return dataclasses.replace(
        mcts,
        simulations=mcts.simulations if simulations is None else simulations,
        noise_fraction=0.0,
        temperature=0.0,
        temperature_plies=0,
        tree_reuse=False,
    )
