"""Arena work inside a training run: gating (candidate vs best) and scores against fixed baselines.

Both use the same arena code as `python -m alphazero.arena` (paired openings, batched MCTS).
"""

from __future__ import annotations

import logging
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from alphazero.arena.match import play_match
from alphazero.arena.players import build_player, make_player
from alphazero.mcts.config import MCTSConfig
from alphazero.train.config import ArenaConfig, EvalConfig

log = logging.getLogger(__name__)

GRHINO = "/usr/games/gtp-rhino"


@dataclass
class GateResult:
    score: float
    wins: int
    draws: int
    losses: int
    elo_diff: float
    promoted: bool


@contextmanager
def torch_threads(threads: int):
    """Run a block with `threads` torch threads and restore the trainer's count afterwards
    (torch's thread count is process-wide)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def gate(candidate_net, best_net, cfg: ArenaConfig, seed: int, threads: int, mcts: MCTSConfig | None = None,
         device="cpu", precision_cache=None) -> GateResult:
    """Candidate vs best over 2 * cfg.pairs games; promotion at score >= cfg.threshold.

    Both search with the run's `mcts` settings (noise off, temperature 0; see
    `engine.factory.play_config`) at `cfg.simulations`, on `device` (the training GPU when there
    is one), in `cfg.precision` (verdicts cached in `precision_cache`: the run's)."""
    with torch_threads(threads):
        options = dict(device=device, threads=threads, precision=cfg.precision, precision_cache=precision_cache)
        candidate = build_player(candidate_net, mcts, cfg.simulations, name="candidate", **options)
        best = build_player(best_net, mcts, cfg.simulations, name="best", **options)
        result = play_match(candidate, best, num_pairs=cfg.pairs, opening_plies=cfg.opening_plies, seed=seed)
    return GateResult(
        score=result.score,
        wins=result.wins,
        draws=result.draws,
        losses=result.losses,
        elo_diff=result.elo_diff,
        promoted=result.score >= cfg.threshold,
    )


def baseline_spec(name: str) -> str | None:
    """Arena player spec of a baseline name; `grhino:L` means GRhino level L (None if not installed)."""
    if name.startswith("grhino"):
        level = name.partition(":")[2] or "1"
        path = GRHINO if os.path.exists(GRHINO) else shutil.which("gtp-rhino")
        if path is None:
            return None
        return f'gtp:"{path} -l {level} -r 0 -b 0"'
    return name


def evaluate_baselines(best_net, cfg: EvalConfig, seed: int, threads: int, mcts: MCTSConfig | None = None,
                       device="cpu", precision: str = "auto", precision_cache=None) -> dict[str, float]:
    """Score of the best network against each baseline (the run's `mcts` settings at
    `cfg.simulations`, noise off, temperature 0, on `device`, in `precision`); skipped baselines
    are logged once."""
    scores = {}
    with torch_threads(threads):
        ours = build_player(best_net, mcts, cfg.simulations, device=device, threads=threads, name="best", precision=precision,
                            precision_cache=precision_cache)
        for name in cfg.baselines:
            spec = baseline_spec(name)
            if spec is None:
                log.info("eval: skipping baseline %s (GRhino not installed: apt-get install grhino)", name)
                continue
            opponent = make_player(spec)
            try:
                result = play_match(ours, opponent, num_pairs=cfg.pairs, opening_plies=cfg.opening_plies, seed=seed)
            finally:
                opponent.close()
            scores[name] = result.score
    return scores
