"""The pretraining config: composed from conf/pretrain.yaml with the shared model presets; bad
overrides fail naming the key."""

import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf.errors import ConfigKeyError, ValidationError

from alphazero.data.dataset import ensure_dataset
from alphazero.nn.config import model_preset
from alphazero.pretrain.__main__ import CONF_DIR
from alphazero.pretrain.config import PretrainConfig, register_pretrain_configs, to_typed
from alphazero.pretrain.loop import check_wthor_inputs
from alphazero.validation import ConfigValueError

from .helpers import FIXTURES, TRAIN_YEAR, VALIDATION_YEAR, write_two_years

register_pretrain_configs()


def composed(*overrides):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return to_typed(compose(config_name="pretrain", overrides=list(overrides)))


def test_default_model_is_the_small_preset_that_cpu_self_play_uses():
    cfg = composed()
    assert cfg.model == model_preset("small")
    assert cfg.pretrain.value_target == "outcome" and cfg.pretrain.validation_years == [2018]


def test_model_group_and_typed_overrides_apply():
    cfg = composed("model=medium", "pretrain.value_target=margin", "pretrain.years=[2016,2017,2018]", "run.max_minutes=1.5")
    assert cfg.model == model_preset("medium")
    assert cfg.pretrain.years == [2016, 2017, 2018] and cfg.run.max_minutes == 1.5
    assert cfg.pretrain.dataset_options().years == (2016, 2017, 2018)


@pytest.mark.parametrize(
    "override, key",
    [
        ("pretrain.epochs=-1", "pretrain.epochs"),
        ("pretrain.value_target=score", "pretrain.value_target"),
        ("pretrain.optimizer=lion", "pretrain.optimizer"),
        ("pretrain.lr=0", "pretrain.lr"),
        ("run.max_minutes=-5", "run.max_minutes"),
        ("pretrain.years=[2016,2017]", "pretrain.validation_years"),
    ],
)
def test_out_of_range_values_name_the_key(override, key):
    with pytest.raises(ConfigValueError, match=key.replace(".", r"\.")):
        composed(override)


def test_unknown_key_wrong_type_and_unknown_preset_fail_while_composing():
    with pytest.raises((ConfigCompositionException, ConfigKeyError), match="nonsense"):
        composed("pretrain.nonsense=1")
    with pytest.raises((ConfigCompositionException, ValidationError), match="batch_size"):
        composed("pretrain.batch_size=big")
    with pytest.raises(ConfigCompositionException, match="huge"):
        composed("model=huge")


def test_cli_exits_with_the_key_named(tmp_path):
    command = [sys.executable, "-m", "alphazero.pretrain", f"run.dir={tmp_path / 'run'}", f"pretrain.wthor_dir={FIXTURES}", "pretrain.value_target=score"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "pretrain.value_target must be one of outcome, margin" in result.stderr
    assert not (tmp_path / "run" / "checkpoints").exists()


def _pretrain_config(tmp_path, **settings):
    settings = {"wthor_dir": str(write_two_years(tmp_path / "wthor")), "dataset_dir": str(tmp_path / "dataset"),
                "validation_years": [VALIDATION_YEAR], **settings}
    return PretrainConfig(**settings)


def test_wthor_inputs_that_fit_pass_the_start_check(tmp_path):
    check_wthor_inputs(_pretrain_config(tmp_path))


@pytest.mark.parametrize(
    "damage, settings, message",
    [
        ("empty", {}, r"pretrain\.wthor_dir: no WTHOR files"),
        ("truncated", {}, r"WTH_1978\.wtb: size \d+ bytes is not 16 \+ 68\*n"),
        (None, {"years": [1990], "validation_years": [1990]}, r"pretrain\.years: no WTHOR files .* for years \[1990\]"),
        (None, {"validation_years": [2018]}, r"pretrain\.validation_years=\[2018\]: no games of \[2018\] .*2 years, 1977-1978"),
        (None, {"validation_years": [TRAIN_YEAR, VALIDATION_YEAR]}, r"holds out every game .* nothing is left to train on"),
    ],
)
def test_wthor_inputs_a_build_would_refuse_are_refused_at_the_start(tmp_path, damage, settings, message):
    pre = _pretrain_config(tmp_path, **settings)
    wthor = Path(pre.wthor_dir)
    if damage == "empty":
        for path in wthor.glob("*.wtb"):
            path.unlink()
    elif damage == "truncated":
        path = wthor / f"WTH_{VALIDATION_YEAR}.wtb"
        path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(ValueError, match=message):
        check_wthor_inputs(pre)
    assert not Path(pre.dataset_dir).exists()


def test_a_current_dataset_is_not_checked_against_its_games_again(tmp_path):
    pre = _pretrain_config(tmp_path)
    ensure_dataset(pre.resolved_wthor_dir(), pre.resolved_dataset_dir(), pre.dataset_options(), progress=False)
    check_wthor_inputs(pre)  # current: nothing read
    (Path(pre.wthor_dir) / f"WTH_{VALIDATION_YEAR}.wtb").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="WTH_1978.wtb"):  # no longer current: read, and refused
        check_wthor_inputs(pre)


@pytest.mark.parametrize(
    "override, message",
    [
        ("pretrain.validation_years=[2030]", "pretrain.validation_years=[2030]: no games of [2030]"),
        ("pretrain.teacher={tmp}/missing.pt", "pretrain.teacher: checkpoint"),
    ],
)
def test_a_start_refused_for_its_inputs_leaves_no_run_directory(tmp_path, override, message):
    wthor = write_two_years(tmp_path / "wthor")
    command = [sys.executable, "-m", "alphazero.pretrain", f"run.dir={tmp_path / 'run'}", f"pretrain.wthor_dir={wthor}",
               f"pretrain.dataset_dir={tmp_path / 'dataset'}", "pretrain.validation_years=[1978]", override.format(tmp=tmp_path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists() and not (tmp_path / "dataset").exists()
