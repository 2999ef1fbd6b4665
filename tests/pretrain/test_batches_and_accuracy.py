"""Batches (epoch order, symmetries) and the accuracy measures, including the bench on a fixture."""

import numpy as np
import pytest
import torch

from alphazero.bench import accuracy as accuracy_bench
from alphazero.data.dataset import DatasetOptions, ensure_dataset
from alphazero.nn.checkpoint import build_network, save_checkpoint
from alphazero.nn.config import model_preset
from alphazero.othello.bitboard import START_BLACK, START_WHITE, legal_action_mask_batch
from alphazero.othello.symmetry import transform_action, transform_bitboard
from alphazero.othello.notation import parse_square, square_name
from alphazero.pretrain import batches
from alphazero.pretrain.batches import Batch
from alphazero.pretrain.accuracy import batch_statistics, evaluate_accuracy, symmetric_hits

from .helpers import FIXTURES, VALIDATION_YEAR, write_two_years

FIXTURE_DECISIONS = 719  # non-pass plies of the 12 games in tests/fixtures/WTH_1977.wtb


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("batches")
    write_two_years(tmp / "wthor")
    return ensure_dataset(tmp / "wthor", tmp / "dataset", DatasetOptions(validation_years=(VALIDATION_YEAR,)), progress=False)


def test_epoch_order_is_a_permutation_fixed_by_seed_and_epoch():
    order = batches.epoch_order(1000, seed=5, epoch=2)
    assert np.array_equal(np.sort(order), np.arange(1000))
    assert np.array_equal(order, batches.epoch_order(1000, seed=5, epoch=2))
    assert not np.array_equal(order, batches.epoch_order(1000, seed=5, epoch=3))
    assert batches.steps_per_epoch(1000, 64) == 16


def test_an_epoch_visits_every_row_once(dataset):
    split = dataset.train
    targets = batches.value_targets(split, "outcome")
    order = batches.epoch_order(len(split), seed=0, epoch=0)
    seen = [batches.training_batch(split, targets, order, b, 100, None) for b in range(batches.steps_per_epoch(len(split), 100))]
    assert sum(len(b) for b in seen) == len(split) == FIXTURE_DECISIONS
    keys = {(int(p[0]), int(p[1]), int(m)) for b in seen for p, m in zip(b.positions, b.moves)}
    assert keys == {(int(p[0]), int(p[1]), int(m)) for p, m in zip(split.positions, split.moves)}


def test_augmented_expert_moves_stay_legal_and_values_unchanged(dataset):
    split = dataset.train
    targets = batches.value_targets(split, "margin")
    order = batches.epoch_order(len(split), seed=0, epoch=0)
    plain = batches.training_batch(split, targets, order, 0, 256, None)
    rng = np.random.default_rng(1)
    symmetries = rng.integers(0, 8, len(plain))
    augmented = batches.augment(plain, symmetries)
    legal = legal_action_mask_batch(augmented.positions)
    assert legal[np.arange(len(plain)), augmented.moves].all()
    assert np.array_equal(augmented.values, plain.values)
    identity = symmetries == 0
    assert np.array_equal(augmented.positions[identity], plain.positions[identity])
    assert np.array_equal(augmented.moves[identity], plain.moves[identity])
    assert not np.array_equal(augmented.positions[~identity], plain.positions[~identity])


def test_a_symmetry_that_fixes_the_board_keeps_the_recorded_move_unless_asked_to_map_it():
    f5 = parse_square("f5")
    start = Batch(
        positions=np.array([[START_BLACK, START_WHITE]] * 8, dtype=np.uint64),
        moves=np.full(8, f5, dtype=np.int64),
        values=np.zeros(8, dtype=np.float32),
    )
    symmetries = np.arange(8)
    fixing = np.array([transform_bitboard(START_BLACK, s) == START_BLACK and transform_bitboard(START_WHITE, s) == START_WHITE for s in range(8)])
    assert fixing.sum() == 4  # identity, the half turn and the two diagonal reflections

    recorded = batches.augment(start, symmetries)
    mapped = batches.augment(start, symmetries, fixed_board_moves="mapped")
    assert np.array_equal(recorded.positions, mapped.positions)
    assert (recorded.moves[fixing] == f5).all()  # the start position always names WTHOR's f5
    assert sorted(square_name(int(m)) for m in mapped.moves[fixing]) == ["c4", "d3", "e6", "f5"]
    # a symmetry that moves the board maps the move with it, either way
    expected = [transform_action(f5, int(s)) for s in symmetries[~fixing]]
    assert list(recorded.moves[~fixing]) == list(mapped.moves[~fixing]) == expected
    legal = legal_action_mask_batch(recorded.positions)
    assert legal[np.arange(8), recorded.moves].all()
    with pytest.raises(ValueError, match="fixed_board_moves"):
        batches.augment(start, symmetries, fixed_board_moves="twins")


def test_only_boards_a_symmetry_fixes_keep_their_move_in_game_batches(dataset):
    split = dataset.train
    plain = batches.training_batch(split, batches.value_targets(split, "outcome"), np.arange(len(split)), 0, len(split), None)
    symmetries = np.random.default_rng(3).integers(0, 8, len(plain))
    recorded = batches.augment(plain, symmetries)
    mapped = batches.augment(plain, symmetries, fixed_board_moves="mapped")
    fixed = np.array([
        transform_bitboard(p[0], int(s)) == p[0] and transform_bitboard(p[1], int(s)) == p[1]
        for p, s in zip(plain.positions, symmetries)
    ])
    assert fixed.any() and (~fixed).any()
    assert np.array_equal(recorded.moves[fixed], plain.moves[fixed])
    assert np.array_equal(recorded.moves[~fixed], mapped.moves[~fixed])


def test_an_illegal_move_with_the_top_logit_never_counts_as_the_prediction():
    logits = torch.zeros(1, 65)
    logits[0, 0] = 10.0  # illegal
    logits[0, 5], logits[0, 6], logits[0, 7] = 3.0, 2.0, 1.0
    legal = torch.zeros(1, 65, dtype=torch.bool)
    legal[0, [5, 6, 7, 8]] = True
    for move, top1, top3 in ((5, 1, 1), (7, 0, 1), (8, 0, 0)):
        stats = batch_statistics(logits, torch.tensor([0.5]), legal, torch.tensor([move]), torch.tensor([-1.0]))
        assert (stats["top1"].item(), stats["top3"].item()) == (top1, top3), move
        assert stats["sign_hits"].item() == 0 and stats["squared_error"].item() == pytest.approx(2.25)


def test_evaluate_accuracy_is_one_for_a_network_that_knows_the_answers(dataset):
    split = dataset.validation
    moves = split.moves.astype(np.int64)

    class Oracle(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, planes):
            rows = slice(self.calls * 128, (self.calls + 1) * 128)
            self.calls += 1
            logits = torch.zeros(planes.shape[0], 65)
            logits[torch.arange(planes.shape[0]), torch.from_numpy(moves[rows])] = 50.0
            return logits, torch.tensor(np.asarray(split.values[rows], dtype=np.float32))

    report = evaluate_accuracy(Oracle(), split.positions, moves, split.values, batch_size=128)
    assert report.positions == FIXTURE_DECISIONS
    assert report.top1 == report.top3 == report.top1_symmetric == 1.0 and report.value_mse == 0.0 and report.value_sign_accuracy == 1.0
    assert report.policy_loss < 1e-6


def test_accuracy_bench_reports_every_non_pass_decision_of_the_years(tmp_path):
    torch.manual_seed(0)
    path = save_checkpoint(tmp_path / "net.pt", build_network(model_preset("tiny")), extra={"value_target": "margin"})
    result = accuracy_bench.main(["--checkpoint", str(path), "--data", str(FIXTURES), "--years", "1977"])
    assert result["positions"] == FIXTURE_DECISIONS and result["games"] == 12 and result["years"] == [1977]
    assert result["value_target"] == "margin"
    assert 0 <= result["top1"] <= result["top3"] <= 1
    assert result["value_mse"] >= 0 and 0 <= result["value_sign_accuracy"] <= 1
    # An untrained net is close to uniform over the legal moves: about ln(mean legal count).
    assert 1.0 < result["policy_loss"] < 3.0
    outcome = accuracy_bench.main(["--checkpoint", str(path), "--data", str(FIXTURES), "--years", "1977", "--value-target", "outcome"])
    assert outcome["value_target"] == "outcome" and outcome["top1"] == result["top1"]


def test_symmetric_hits_count_the_start_positions_four_first_moves_as_one():
    """f5 (37), e6 (44), d3 (19), c4 (26) are the same first move: the start position is fixed by
    the symmetries that map them onto each other. A move that is not legal there never counts."""
    start = np.array([[START_BLACK, START_WHITE]] * 5, dtype=np.uint64)
    predicted = np.array([37, 44, 19, 26, 0])
    assert symmetric_hits(start, predicted, np.full(5, 37)).tolist() == [True, True, True, True, False]


def test_symmetric_hits_match_a_slow_reference_on_game_positions(dataset):
    """Every fixture position against every legal prediction: a hit exactly when the prediction is
    the expert move or its image under a symmetry fixing the board (checked square by square)."""
    split = dataset.train
    positions = np.asarray(split.positions)
    moves = np.asarray(split.moves, dtype=np.int64)
    legal = legal_action_mask_batch(positions)
    rows, predicted = np.nonzero(legal[:, :64])
    hits = symmetric_hits(positions[rows], predicted, moves[rows])
    fixing = {}
    for row in np.unique(rows):
        black, white = (int(x) for x in positions[row])
        fixing[row] = [k for k in range(8) if int(transform_bitboard(np.uint64(black), k)) == black and int(transform_bitboard(np.uint64(white), k)) == white]
    expected = [any(transform_action(int(moves[r]), k) == p for k in fixing[r]) for r, p in zip(rows, predicted)]
    assert hits.tolist() == expected
    assert sum(len(f) > 1 for f in fixing.values()) > 0, "the fixture has no symmetric position: the test would prove nothing"
    assert hits.sum() > (predicted == moves[rows]).sum()
