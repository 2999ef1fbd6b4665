"""Pretraining the warm-start zoo: every zoo option trains a few steps on the fixture and writes a
checkpoint that scores through the accuracy code; the history reaches seed_cnn_rnn (mapped
through the sample's symmetry); the random5 split holds out whole positions."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from alphazero.data.dataset import DatasetOptions, ensure_dataset
from alphazero.nn.checkpoint import load_checkpoint, load_network
from alphazero.nn.config import ZOO_ARCHS, model_preset
from alphazero.othello.history import HISTORY_PAD
from alphazero.othello.symmetry import ACTION_MAP
from alphazero.pretrain import batches
from alphazero.pretrain.accuracy import evaluate_accuracy
from alphazero.pretrain.loop import PretrainRun

from .helpers import VALIDATION_YEAR, tiny_config, write_two_years

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("zoo")
    write_two_years(tmp / "wthor")
    return tmp


@pytest.mark.parametrize("arch", ZOO_ARCHS)
def test_zoo_option_pretrains_and_its_checkpoint_scores(workspace, arch):
    run_dir = workspace / f"run-{arch}"
    cfg = tiny_config(workspace, run_dir, epochs=1, validation_positions=0)
    cfg = dataclasses.replace(cfg, model=model_preset(arch), run=dataclasses.replace(cfg.run, max_steps=3))
    state = PretrainRun(cfg, run_dir).run()
    assert state.step == 3 and 0 <= state.validation["top1"] <= 1
    checkpoint = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    assert checkpoint.model_config == model_preset(arch)
    net = load_network(run_dir / "checkpoints" / "best.pt")
    validation = ensure_dataset(workspace / "wthor", workspace / "dataset", cfg.pretrain.dataset_options(), progress=False).validation
    rows = np.arange(len(validation))
    history = validation.history(rows, net.cfg.history) if net.cfg.needs_history else None
    report = evaluate_accuracy(net, validation.positions, validation.moves, validation.values, history=history)
    assert report.positions == len(validation) and 0 <= report.top3 <= 1


def test_history_of_a_row_is_the_actions_before_it_in_its_game(workspace):
    dataset = ensure_dataset(workspace / "wthor", workspace / "hist", DatasetOptions(validation_years=(VALIDATION_YEAR,)), progress=False)
    train = dataset.train
    first = np.flatnonzero(train.ply == 0)[0]
    assert train.history(np.array([first]), 4).tolist() == [[HISTORY_PAD] * 4]
    later = np.flatnonzero(train.ply >= 5)[0]
    game, ply = train.game[later], train.ply[later]
    expected = train.game_actions[game, ply - 5 : ply]
    assert train.history(np.array([later]), 5)[0].tolist() == expected.tolist()
    # The row's own move is the next action of that game.
    assert train.game_actions[game, ply] == train.moves[later]


def test_augmented_history_follows_the_samples_symmetry(workspace):
    dataset = ensure_dataset(workspace / "wthor", workspace / "hist", DatasetOptions(validation_years=(VALIDATION_YEAR,)), progress=False)
    targets = batches.value_targets(dataset.train, "outcome")
    plain = batches.read_batch(dataset.train, targets, np.arange(40), history=6)
    symmetries = np.arange(40) % 8
    moved = batches.augment(plain, symmetries)
    for i in range(40):
        for before, after in zip(plain.history[i], moved.history[i]):
            assert after == (HISTORY_PAD if before == HISTORY_PAD else ACTION_MAP[symmetries[i], before])


def test_random5_split_deduplicates_and_holds_out_whole_positions(workspace):
    dataset = ensure_dataset(workspace / "wthor", workspace / "r5", DatasetOptions(split="random5"), progress=False)
    assert dataset.manifest["options"]["dedup"] is True
    train, validation = dataset.train, dataset.validation
    keys = lambda split: {(int(a), int(b)) for a, b in np.asarray(split.positions)}
    assert keys(train).isdisjoint(keys(validation))
    rows = {(int(a), int(b), int(m)) for (a, b), m in zip(np.asarray(train.positions), train.moves)}
    assert len(rows) == len(train)  # no duplicate (position, move) row
    distinct = len(keys(train)) + len(keys(validation))
    assert len(keys(validation)) == round(0.05 * distinct)
    again = ensure_dataset(workspace / "wthor", workspace / "r5b", DatasetOptions(split="random5"), progress=False)
    assert np.array_equal(again.validation.positions, validation.positions)  # fixed seed: reproducible


def test_pretrain_command_line_takes_a_zoo_model_and_the_random5_split(workspace, tmp_path):
    command = [
        sys.executable, "-m", "alphazero.pretrain", "model=seed_cnn_rnn", f"run.dir={tmp_path / 'cli'}", "run.max_steps=2",
        f"pretrain.wthor_dir={workspace / 'wthor'}", f"pretrain.dataset_dir={tmp_path / 'ds'}", "pretrain.split=random5",
        "pretrain.batch_size=32", "pretrain.progress=false", "pretrain.validation_positions=0",
    ]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert load_checkpoint(tmp_path / "cli" / "checkpoints" / "best.pt").model_config == model_preset("seed_cnn_rnn")


def test_accuracy_bench_scores_a_history_network_on_both_splits(workspace, tmp_path):
    import torch

    from alphazero.bench import accuracy
    from alphazero.nn.checkpoint import build_network, save_checkpoint

    torch.manual_seed(0)
    path = save_checkpoint(tmp_path / "rnn.pt", build_network(model_preset("seed_cnn_rnn")))
    by_year = accuracy.main(["--checkpoint", str(path), "--data", str(workspace / "wthor"), "--years", str(VALIDATION_YEAR)])
    assert by_year["split"] == "year" and by_year["positions"] > 0 and by_year["parameters"] > 0
    random5 = accuracy.main(["--checkpoint", str(path), "--data", str(workspace / "wthor"), "--split", "random5", "--dataset-dir", str(tmp_path / "r5")])
    dataset = ensure_dataset(workspace / "wthor", tmp_path / "r5", DatasetOptions(split="random5"), progress=False)
    assert random5["split"] == "random5" and random5["positions"] == len(dataset.validation)
