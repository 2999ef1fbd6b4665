"""The pretraining config: composed from conf/pretrain.yaml with the shared model presets; bad
overrides fail naming the key."""

import subprocess
import sys

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf.errors import ConfigKeyError, ValidationError

from alphazero.nn.config import model_preset
from alphazero.pretrain.__main__ import CONF_DIR
from alphazero.pretrain.config import register_pretrain_configs, to_typed
from alphazero.validation import ConfigValueError

from .helpers import FIXTURES

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
