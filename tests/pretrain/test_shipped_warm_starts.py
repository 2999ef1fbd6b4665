"""The networks shipped in checkpoints/ (the warm starts and the trained zoo): each loads as the
model preset it is documented as, and predicts the expert moves of the 1977 fixture games far
above chance, so a preset whose definition drifts from the shipped weights, or a file that is
damaged or swapped, is caught here rather than by a user."""

from pathlib import Path

import numpy as np
import pytest

from alphazero.data.dataset import DatasetOptions, ensure_dataset
from alphazero.nn.checkpoint import load_checkpoint, load_network
from alphazero.nn.config import model_preset
from alphazero.pretrain.accuracy import evaluate_accuracy

from .helpers import VALIDATION_YEAR, write_two_years

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
SHIPPED = {  # file -> (model preset, the split its test figures come from)
    "warmstart.pt": ("small", "year"),
    "warmstart-small.pt": ("small", "year"),
    "warmstart-medium.pt": ("medium", "year"),
    **{f"zoo/{split}/{model}.pt": (model, split) for split in ("year", "random5") for model in ("seed_mlp", "small", "seed_cnn", "seed_cnn_rnn")},
}


@pytest.fixture(scope="module")
def fixture_games(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shipped")
    write_two_years(tmp / "wthor")
    return ensure_dataset(tmp / "wthor", tmp / "dataset", DatasetOptions(validation_years=(VALIDATION_YEAR,)), progress=False).train


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_network_is_its_preset_and_predicts_expert_moves(name, fixture_games):
    path = CHECKPOINTS / name
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    preset, split = SHIPPED[name]
    checkpoint = load_checkpoint(path)
    assert checkpoint.model_config == model_preset(preset), f"{name} is not model={preset}"
    dataset = checkpoint.extra["dataset"]  # what its documented test figures were held out from
    assert dataset.get("split", "year") == split and (split != "year" or dataset["validation_years"] == [2018])
    net = load_network(path)
    history = fixture_games.history(np.arange(len(fixture_games)), checkpoint.model_config.history) if checkpoint.model_config.history else None
    report = evaluate_accuracy(net, fixture_games.positions, np.asarray(fixture_games.moves, dtype=np.int64), fixture_games.values, history=history)
    # 719 decisions of 12 games from 1977; a legal move drawn at random is right ~12% of the time
    assert report.top1 > 0.35, f"{name}: top-1 {report.top1:.3f} on the fixture"
