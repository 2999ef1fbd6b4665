"""Every shipped preset that gates keeps the gate's promise as configured: a candidate truly +50
Elo better is promoted with probability >= 0.80, an equal one with probability <= 0.05, and the
preset's own stated error rates (arena.sprt_alpha, arena.sprt_beta) hold at its cap.

The presets are composed from conf/ as a training run composes them, and their gates simulated as
configured (round size, cap, test) with pairs drawn as self-play's networks play them
(`gate_power.GATE_PAIRS`: draw rate and split pairs measured in experiments/gate-power/). Ten
thousand gates a setting: the simulation's own error is about 0.004, and the checks allow two of
it. The gates of before (at most 60 or 100 pairs, beta 0.1) fail the same check."""

from pathlib import Path

import pytest

from alphazero.arena.gate_power import GATE_PAIRS, simulate_gates
from alphazero.arena.sprt import SPRT
from alphazero.train.config import ArenaConfig
from alphazero.train.schema import register_configs
from alphazero.train.startup import compose_typed

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"
PRESETS = sorted(path.stem for path in (CONF_DIR / "experiment").glob("*.yaml"))
# Presets whose gate is not meant to decide anything, and why.
NOT_A_VERDICT = {"smoke": "gates with tiny caps on purpose (at most 2 rounds of 4 games): the gate's code paths, not a verdict"}
GATES = 10_000
PROMOTE_BETTER_AT_LEAST = 0.80  # +50 Elo
PROMOTE_EQUAL_AT_MOST = 0.05


def arena_of(overrides: list[str]) -> ArenaConfig:
    register_configs()
    return compose_typed([*overrides, "run.dir=/tmp/unused"], str(CONF_DIR)).arena


def promoted(arena: ArenaConfig, elo: float):
    test = SPRT(arena.sprt_elo0, arena.sprt_elo1, arena.sprt_alpha, arena.sprt_beta)
    return simulate_gates(test, arena.pairs, arena.rounds(), GATE_PAIRS.probabilities(elo), gates=GATES, seed=int(elo) + 7)


def keeps_the_promise(arena: ArenaConfig) -> tuple[bool, str]:
    better, equal = promoted(arena, 50.0), promoted(arena, 0.0)
    at_elo1 = better if arena.sprt_elo1 == 50.0 else promoted(arena, arena.sprt_elo1)
    at_elo0 = equal if arena.sprt_elo0 == 0.0 else promoted(arena, arena.sprt_elo0)
    checks = [
        better.promoted - 2 * better.promoted_error >= PROMOTE_BETTER_AT_LEAST,
        equal.promoted + 2 * equal.promoted_error <= PROMOTE_EQUAL_AT_MOST,
        at_elo1.promoted - 2 * at_elo1.promoted_error >= 1 - arena.sprt_beta,
        at_elo0.promoted + 2 * at_elo0.promoted_error <= arena.sprt_alpha,
    ]
    text = (f"+50 Elo promoted {better.promoted:.3f}, equal {equal.promoted:.3f} (rounds of {arena.pairs} pairs, at most "
            f"{arena.rounds()}, beta {arena.sprt_beta:g}; {better.games:.0f} and {equal.games:.0f} games a gate)")
    return all(checks), text


def test_every_preset_either_gates_and_is_checked_here_or_is_named_with_its_reason():
    assert PRESETS  # the glob found conf/experiment
    gating = [name for name in PRESETS if arena_of([f"experiment={name}"]).gating]
    assert set(NOT_A_VERDICT) <= set(gating)
    assert {"gpu", "warmstart", "warmstart-medium", "warmstart-medium-cpu"} <= set(gating)


@pytest.mark.parametrize("preset", [name for name in PRESETS if name not in NOT_A_VERDICT])
def test_the_shipped_gate_of_every_preset_keeps_its_promise(preset):
    arena = arena_of([f"experiment={preset}"])
    if not arena.gating:
        # No gate (the cpu preset: AlphaZero's "always the latest"): the one it gets back with
        # arena.gating=true, on its own round size and simulations.
        arena = arena_of([f"experiment={preset}", "arena.gating=true"])
    kept, text = keeps_the_promise(arena)
    assert kept, f"experiment={preset}: {text}"


def test_the_default_gate_keeps_its_promise():
    kept, text = keeps_the_promise(ArenaConfig())
    assert kept, text


@pytest.mark.parametrize("before", [
    dict(pairs=20, max_pairs=60, sprt_beta=0.1, opening_plies=4),  # warmstart, warmstart-medium until 2026-12
    dict(pairs=20, max_pairs=100, sprt_beta=0.1, opening_plies=4),  # the default until 2026-12
    dict(pairs=50, max_pairs=100, sprt_beta=0.1, opening_plies=4),  # gpu until 2026-12
])
def test_the_gates_of_before_fail_the_check(before):
    kept, text = keeps_the_promise(ArenaConfig(**before))
    assert not kept, text
