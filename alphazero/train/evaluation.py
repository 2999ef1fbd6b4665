"""Arena work inside a training run: gating (candidate vs best) and scores against fixed baselines.

Both use the same arena code as `python -m alphazero.arena` (paired openings, batched MCTS).
"""

from __future__ import annotations

import logging
import math
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from alphazero.arena.elo import estimate_elo
from alphazero.arena.match import play_match
from alphazero.arena.openings import random_openings
from alphazero.arena.sprt import SPRT, RoundResult, run_sequential
from alphazero.arena.players import build_player, make_player
from alphazero.mcts.config import MCTSConfig
from alphazero.train.config import ArenaConfig, EvalConfig

log = logging.getLogger(__name__)

GRHINO = "/usr/games/gtp-rhino"


@dataclass
class GateResult:
    """A gate's games (the decision's, from the candidate's view), its verdict, and the Elo step
    the new best would take: from fresh confirmation games with gating, else from the match."""

    score: float
    wins: int
    draws: int
    losses: int
    elo_diff: float  # of the decision's games (biased upwards for a promoted candidate)
    promoted: bool
    elo_step: float | None = None  # unbiased step of the network that becomes the best; None if it does not
    llr: float | None = None  # the sequential test's log-likelihood ratio (gating only)
    rounds: int = 1
    truncated: bool = False
    pairs: tuple | None = None  # the decision's pairs by pentanomial category, LL LD WL+DD WD WW (gating only)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


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
    """Candidate vs best. With `cfg.gating`, rounds of `cfg.pairs` paired games until the
    sequential test decides (`arena.sprt`: each pair, one opening with both colours, is one
    pentanomial outcome), then, on a promotion, `cfg.elo_pairs` fresh pairs for
    its Elo step; without, one round, whose Elo is the step of the candidate (the best anyway).

    Both search with the run's `mcts` settings (noise off, temperature 0; see
    `engine.factory.play_config`) at `cfg.simulations`, on `device` (the training GPU when there
    is one), in `cfg.precision` (verdicts cached in `precision_cache`: the run's). Every game of a
    gate has its own opening (`random_openings` with `seed`)."""
    rounds = cfg.rounds() if cfg.gating else 1
    openings = random_openings(rounds * cfg.pairs + (cfg.elo_pairs if cfg.gating else 0), cfg.opening_plies, seed)
    with torch_threads(threads):
        options = dict(device=device, threads=threads, precision=cfg.precision, precision_cache=precision_cache)
        candidate = build_player(candidate_net, mcts, cfg.simulations, name="candidate", **options)
        best = build_player(best_net, mcts, cfg.simulations, name="best", **options)

        def play(first: int, count: int):
            return play_match(candidate, best, num_pairs=None, openings=openings[first : first + count], seed=seed)

        if not cfg.gating:
            result = play(0, cfg.pairs)
            return GateResult(result.score, result.wins, result.draws, result.losses, result.elo_diff, promoted=False,
                              elo_step=finite_elo(result.elo_diff))

        def play_round(index: int) -> RoundResult:
            result = play(index * cfg.pairs, cfg.pairs)
            return RoundResult(result.wins, result.draws, result.losses, result.pentanomial())

        test = SPRT(cfg.sprt_elo0, cfg.sprt_elo1, cfg.sprt_alpha, cfg.sprt_beta)
        decided = run_sequential(test, play_round, rounds)
        promoted = decided.decision == "H1"
        elo_step = finite_elo(play(rounds * cfg.pairs, cfg.elo_pairs).elo_diff) if promoted else None
    return GateResult(decided.score, decided.wins, decided.draws, decided.losses,
                      estimate_elo(decided.wins, decided.draws, decided.losses).diff, promoted=promoted, elo_step=elo_step,
                      llr=decided.llr, rounds=decided.rounds, truncated=decided.truncated, pairs=tuple(decided.pairs))


def finite_elo(diff: float) -> float:
    """An Elo difference as a finite step: a clean sweep counts as 400."""
    return diff if math.isfinite(diff) else math.copysign(400.0, diff)


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
