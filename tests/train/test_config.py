"""Hydra composition: presets load, and bad overrides fail before anything starts, naming the key."""

import subprocess
import sys

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException

from alphazero.train.schema import Config, register_configs, to_typed
from alphazero.train.__main__ import CONF_DIR
from alphazero.validation import ConfigValueError

register_configs()


def _compose(overrides):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return compose(config_name="config", overrides=overrides)


@pytest.mark.parametrize("experiment", ["cpu", "smoke", "gpu", "warmstart"])
def test_every_experiment_preset_composes_into_typed_config(experiment):
    cfg = to_typed(_compose([f"experiment={experiment}"]))
    assert isinstance(cfg, Config)
    assert cfg.mcts.simulations >= 1


HEADLINE_OVERRIDES = [  # checkpoints/README.md: the command that made checkpoints/selfplay.pt (its 0.55-score gate is now a sequential test)
    "train.init_from=checkpoints/warmstart.pt", "mcts.root_policy=puct", "mcts.simulations=128",
    "train.optimizer=adamw", "train.lr=0.0003", "train.lr_warmup_steps=200", "train.lr_total_steps=10000",
    "train.lr_min_factor=0.1", "train.min_positions=6000", "arena.gating=true", "arena.every_steps=800",
    # The gate of 2026-12 (experiments/gate-power): the headline's 0.55-over-40-games gate, then an
    # SPRT capped at 60 pairs, promised power they did not have.
    "arena.pairs=20", "arena.simulations=100", "arena.max_pairs=300", "eval.every_steps=1600",
    "eval.pairs=20", "eval.simulations=100",
    "mcts.dirichlet_alpha=0.3",  # the default then; 1.25 since 2026-11-26
]


def test_warmstart_preset_is_the_headline_command_on_the_cpu_preset():
    preset = to_typed(_compose(["experiment=warmstart", "run.dir=/tmp/x"]))
    headline = to_typed(_compose(["experiment=cpu", "run.dir=/tmp/x", *HEADLINE_OVERRIDES,
                                  "eval.baselines=['mcts:checkpoint=checkpoints/warmstart.pt,simulations=100,endgame=16']"]))
    assert preset == headline


def test_default_preset_is_cpu_with_small_model():
    cfg = to_typed(_compose([]))
    assert cfg.selfplay.device == "cpu"
    assert (cfg.model.blocks, cfg.model.channels) == (4, 48) or cfg.model.blocks >= 2


def test_override_changes_value():
    cfg = to_typed(_compose(["mcts.simulations=200", "model=tiny"]))
    assert cfg.mcts.simulations == 200
    assert cfg.model.channels == 16


def test_unknown_key_fails_with_its_name():
    with pytest.raises(ConfigCompositionException) as err:
        _compose(["mcts.simulation=200"])
    assert "mcts.simulation" in str(err.value)


def test_wrong_type_fails_with_its_name():
    with pytest.raises(ConfigCompositionException) as err:
        _compose(["mcts.simulations=many"])
    assert "mcts.simulations" in str(err.value)
    assert "many" in str(err.value.__cause__)


def test_negative_simulations_fail_with_the_key():
    with pytest.raises(ValueError) as err:
        to_typed(_compose(["mcts.simulations=-5"]))
    assert "mcts.simulations" in str(err.value)


@pytest.mark.parametrize("override, key", [("train.lr=inf", "train.lr"), ("train.lr=1e999", "train.lr"),
                                           ("train.weight_decay=inf", "train.weight_decay")])
def test_an_infinite_value_is_refused_naming_the_key(override, key):
    with pytest.raises(ConfigValueError, match=f"{key} must be .*, got inf"):
        to_typed(_compose([override]))


def test_bad_choice_lists_the_valid_ones():
    with pytest.raises(ConfigValueError) as err:
        to_typed(_compose(["train.optimizer=adam"]))
    assert "sgd" in str(err.value) and "adamw" in str(err.value)


def test_int8_runs_the_network_calls_of_a_run_but_never_its_training():
    cfg = to_typed(_compose(["selfplay.precision=int8", "arena.precision=int8"]))
    assert (cfg.selfplay.precision, cfg.arena.precision, cfg.train.precision) == ("int8", "int8", "auto")
    for override in ("precision=int8", "train.precision=int8"):
        with pytest.raises(ConfigValueError, match="got 'int8', which is for network calls only .*selfplay.precision=int8 and arena.precision=int8"):
            to_typed(_compose([override]))


def test_command_line_bad_override_exits_fast_with_clear_message(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={tmp_path / 'run'}", "mcts.simulations=-3"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0
    assert "mcts.simulations" in proc.stderr
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_command_line_unknown_key_exits_fast(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={tmp_path / 'run'}", "selfplay.wokers=3"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0
    assert "wokers" in proc.stderr


def test_more_arena_pairs_than_distinct_openings_fails_naming_both_keys():
    with pytest.raises(ValueError) as err:
        to_typed(_compose(["arena.pairs=20", "arena.opening_plies=2"]))
    assert "arena.pairs" in str(err.value) and "arena.opening_plies" in str(err.value)


def test_endgame_solver_reach_is_a_validated_mcts_key():
    cfg = to_typed(_compose(["mcts.endgame_solve_empties=12", "selfplay.exact_value_targets=false"]))
    assert cfg.mcts.endgame_solve_empties == 12 and not cfg.selfplay.exact_value_targets
    assert to_typed(_compose([])).mcts.endgame_solve_empties > 0
    with pytest.raises(ValueError, match="mcts.endgame_solve_empties"):
        to_typed(_compose(["mcts.endgame_solve_empties=40"]))
