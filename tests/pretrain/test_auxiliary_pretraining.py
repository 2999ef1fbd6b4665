"""Pretraining with KataGo's auxiliary heads: the targets ride in the batch under the position's
symmetry, the loss adds `score_weight * score + ownership_weight * ownership`, validation reports
them, and the weights are config keys checked against the heads."""

from dataclasses import replace

import numpy as np
import pytest
import torch
from hydra import compose, initialize_config_dir

from alphazero.nn.auxiliary import SCORE_BINS, ownership_targets
from alphazero.nn.config import model_preset
from alphazero.othello.symmetry import NUM_SYMMETRIES, transform_positions
from alphazero.pretrain import batches
from alphazero.pretrain.accuracy import pretraining_auxiliary_losses
from alphazero.pretrain.__main__ import CONF_DIR
from alphazero.pretrain.config import PretrainConfig, PretrainRootConfig, PretrainRunConfig, register_pretrain_configs, to_typed
from alphazero.pretrain.loop import PretrainRun
from alphazero.validation import ConfigValueError

from .helpers import tiny_config, workspace_with_two_years

register_pretrain_configs()


def _with_heads(workspace, run_dir, score=True, ownership=True, **pretrain):
    """tiny_config with the heads asked for and their recommended weights (0 without the head)."""
    weights = dict(score_weight=0.1 if score else 0.0, ownership_weight=0.5 if ownership else 0.0)
    model = replace(model_preset("tiny"), score_head=score, ownership_head=ownership)
    return tiny_config(workspace, run_dir, model=model, **{**weights, **pretrain})


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return workspace_with_two_years(tmp_path_factory, "auxiliary")


def _random_final_boards(rng, n):
    """Disjoint (player, opponent) bitboards with some empty squares."""
    owner = rng.integers(-1, 2, size=(n, 64))
    weights = np.uint64(1) << np.arange(64, dtype=np.uint64)
    player = np.bitwise_or.reduce(np.where(owner == 1, weights, np.uint64(0)), axis=1)
    opponent = np.bitwise_or.reduce(np.where(owner == -1, weights, np.uint64(0)), axis=1)
    return np.stack([player, opponent], axis=1).astype(np.uint64)


def test_ownership_moves_with_the_board_under_each_symmetry():
    boards = _random_final_boards(np.random.default_rng(0), 6)
    ownership = ownership_targets(boards[:, 0], boards[:, 1]).astype(np.float32)
    for symmetry in range(NUM_SYMMETRIES):
        symmetries = np.full(len(boards), symmetry, dtype=np.int64)
        moved = transform_positions(boards, symmetries)
        np.testing.assert_array_equal(batches.transform_ownership(ownership, symmetries), ownership_targets(moved[:, 0], moved[:, 1]))
    # A mean ownership (a merged row) moves the same way, square by square.
    mean = ownership * 0.25
    np.testing.assert_array_equal(batches.transform_ownership(mean, np.arange(6) % NUM_SYMMETRIES),
                                  batches.transform_ownership(ownership, np.arange(6) % NUM_SYMMETRIES) * 0.25)


def test_augment_moves_ownership_with_the_position_and_keeps_score_and_mask(workspace):
    cfg = _with_heads(workspace, workspace / "unused")
    from alphazero.data.dataset import ensure_dataset

    split = ensure_dataset(cfg.pretrain.resolved_wthor_dir(), cfg.pretrain.resolved_dataset_dir(), cfg.pretrain.dataset_options(), progress=False).train
    batch = batches.read_batch(split, split.values, np.arange(40), auxiliary=True)
    assert batch.score.shape == (40, SCORE_BINS) and batch.ownership.shape == (40, 64) and batch.ownership_known.dtype == bool
    symmetries = np.arange(40) % NUM_SYMMETRIES
    for mode in batches.FIXED_BOARD_MOVES:
        moved = batches.augment(batch, symmetries, mode)
        # The symmetry each sample really took, read off its position and move.
        for i in range(40):
            taken = [s for s in range(NUM_SYMMETRIES)
                     if (transform_positions(batch.positions[i : i + 1], np.array([s]))[0] == moved.positions[i]).all()
                     and batches.ACTION_MAP[s, batch.moves[i]] == moved.moves[i]]
            assert any((batches.transform_ownership(batch.ownership[i : i + 1], np.array([s]))[0] == moved.ownership[i]).all() for s in taken)
        np.testing.assert_array_equal(moved.score, batch.score)
        np.testing.assert_array_equal(moved.ownership_known, batch.ownership_known)
    # Under "recorded" the start position (fixed by 4 symmetries) keeps its recorded ownership.
    start = batches.augment(batch, np.full(40, 3), "recorded")
    np.testing.assert_array_equal(start.ownership[0], batch.ownership[0])


def test_batches_without_heads_carry_no_auxiliary_targets(workspace):
    cfg = tiny_config(workspace, workspace / "unused")
    from alphazero.data.dataset import ensure_dataset

    split = ensure_dataset(cfg.pretrain.resolved_wthor_dir(), cfg.pretrain.resolved_dataset_dir(), cfg.pretrain.dataset_options(), progress=False).train
    batch = batches.augment(batches.read_batch(split, split.values, np.arange(10)), np.arange(10) % NUM_SYMMETRIES)
    assert batch.score is None and batch.ownership is None and batch.ownership_known is None


def test_ownership_loss_counts_only_rows_with_a_known_end():
    logits = torch.randn(4, 64)
    ownership = torch.from_numpy(np.random.default_rng(1).integers(-1, 2, size=(4, 64)).astype(np.float32))
    known = torch.tensor([True, False, True, False])
    masked = pretraining_auxiliary_losses(None, logits, None, ownership, known)["ownership"]
    kept = pretraining_auxiliary_losses(None, logits[known], None, ownership[known], torch.ones(2, dtype=torch.bool))["ownership"]
    torch.testing.assert_close(masked, kept)
    none_known = pretraining_auxiliary_losses(None, logits.requires_grad_(), None, ownership, torch.zeros(4, dtype=torch.bool))["ownership"]
    assert float(none_known.detach()) == 0.0
    none_known.backward()
    assert float(logits.grad.abs().sum()) == 0.0


def test_soft_score_target_is_the_mean_of_one_hot_losses():
    """A merged row's histogram target gives the mean of its occurrences' cross-entropies."""
    logits = torch.randn(1, SCORE_BINS)
    soft = torch.zeros(1, SCORE_BINS)
    soft[0, 10], soft[0, 40] = 0.25, 0.75
    one_hot = [torch.nn.functional.cross_entropy(logits, torch.tensor([c])) for c in (10, 40)]
    terms = pretraining_auxiliary_losses(logits, None, soft, None, None)
    torch.testing.assert_close(terms["score"], 0.25 * one_hot[0] + 0.75 * one_hot[1])


def test_training_steps_with_heads_lower_the_auxiliary_losses(workspace):
    run_dir = workspace / "steps"
    cfg = _with_heads(workspace, run_dir, lr=0.01, lr_warmup_steps=0)
    run = PretrainRun(cfg, run_dir)
    run._setup()
    run.writer.close()
    batch = batches.read_batch(run.train_split, run.train_targets, np.arange(64), auxiliary=True)
    first = run.train_step(batch)
    for _ in range(30):
        last = run.train_step(batch)
    assert {"score", "score_error", "ownership"} <= first.keys()
    assert float(last["score"]) < 0.7 * float(first["score"]), (float(first["score"]), float(last["score"]))
    assert float(last["ownership"]) < 0.9 * float(first["ownership"]), (float(first["ownership"]), float(last["ownership"]))
    expected_total = first["policy"] + first["value"] + 0.1 * first["score"] + 0.5 * first["ownership"]
    torch.testing.assert_close(first["total"], expected_total)


def test_a_run_with_heads_reports_the_auxiliary_measures(workspace):
    run_dir = workspace / "run"
    cfg = _with_heads(workspace, run_dir, ownership=False, epochs=1)
    state = PretrainRun(cfg, run_dir).run()
    assert state.finished
    assert state.validation["score_error"] > 0 and state.validation["score_loss"] > 0
    assert "ownership_loss" not in state.validation  # no ownership head, no measure
    log = (run_dir / "log.txt").read_text()
    assert "auxiliary heads: score weight 0.1, ownership weight 0" in log and "score error" in log and " score " in log


def test_distillation_into_a_student_with_heads(workspace):
    teacher_dir = workspace / "teacher"
    PretrainRun(tiny_config(workspace, teacher_dir, epochs=1), teacher_dir).run()
    run_dir = workspace / "student"
    cfg = _with_heads(workspace, run_dir, epochs=1, teacher=str(teacher_dir / "checkpoints" / "latest.pt"))
    state = PretrainRun(cfg, run_dir).run()
    assert state.finished and state.validation["ownership_loss"] > 0
    assert "teacher pi" in (run_dir / "log.txt").read_text()


def _composed(*overrides):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return to_typed(compose(config_name="pretrain", overrides=list(overrides)))


def test_weights_compose_from_the_command_line():
    cfg = _composed("model.score_head=true", "model.ownership_head=true", "pretrain.score_weight=0.1", "pretrain.ownership_weight=0.5")
    assert (cfg.pretrain.score_weight, cfg.pretrain.ownership_weight) == (0.1, 0.5)
    assert cfg.model.score_head and cfg.model.ownership_head
    plain = _composed()
    assert (plain.pretrain.score_weight, plain.pretrain.ownership_weight) == (0.0, 0.0)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["pretrain.score_weight=0.1"], r"pretrain\.score_weight=0\.1 but the network has no score head: set model\.score_head=true"),
        (["pretrain.ownership_weight=1"], r"pretrain\.ownership_weight=1 but the network has no ownership head"),
        (["model.score_head=true"], r"model\.score_head=true but pretrain\.score_weight=0 would leave the head untrained"),
        (["model.ownership_head=true"], r"model\.ownership_head=true but pretrain\.ownership_weight=0"),
        (["model.score_head=true", "pretrain.score_weight=-0.1"], r"pretrain\.score_weight must be >= 0"),
    ],
)
def test_weights_and_heads_must_agree(overrides, message):
    with pytest.raises(ConfigValueError, match=message):
        _composed(*overrides)


def test_the_dataclasses_check_too(tmp_path):
    with pytest.raises(ConfigValueError, match=r"pretrain\.ownership_weight"):
        PretrainRootConfig(model=model_preset("tiny"), pretrain=PretrainConfig(ownership_weight=0.5), run=PretrainRunConfig(dir=str(tmp_path)))


def test_the_accuracy_bench_scores_the_heads_of_a_checkpoint(workspace):
    from alphazero.bench.accuracy import main as accuracy

    run_dir = workspace / "bench"
    PretrainRun(_with_heads(workspace, run_dir, epochs=1), run_dir).run()
    checkpoint = str(run_dir / "checkpoints" / "latest.pt")
    for split in (["--years", "1978"], ["--split", "random5", "--dataset-dir", str(workspace / "random5")]):
        result = accuracy(["--checkpoint", checkpoint, "--data", str(workspace / "wthor"), *split])
        assert result["score_error"] > 0 and result["score_loss"] > 0 and result["ownership_loss"] > 0
    plain = workspace / "bench-plain"
    PretrainRun(tiny_config(workspace, plain, epochs=1), plain).run()
    result = accuracy(["--checkpoint", str(plain / "checkpoints" / "latest.pt"), "--data", str(workspace / "wthor"), "--years", "1978"])
    assert "score_error" not in result and "ownership_loss" not in result


def test_the_auxiliary_bench_times_both_sides(workspace):
    from alphazero.bench.auxiliary import main as bench

    result = bench(["--data", str(workspace / "wthor"), "--validation-years", "1978", "--preset", "tiny", "--batch-size", "16",
                    "--steps", "1", "--repeats", "1"])
    assert set(result["samples_per_second"]) == {"plain", "heads"} and result["heads_vs_plain"] > 0
    assert result["batch_preparation_ms"]["heads"] > 0 and result["games"] == 24
