"""Playout cap randomisation: selfplay.playout_cap_fraction / playout_cap_small, the policy mask
in records and shards, and the trainer's policy loss that skips masked rows."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from alphazero.train.schema import Config
from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import NO_EXACT_SCORE, BatchedSearch
from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import model_preset
from alphazero.othello.bitboard import PASS
from alphazero.replay.buffer import ReplayBuffer
from alphazero.replay.shard import _OPTIONAL, _checksum, encode_shard, read_shard, write_shard
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.games import SelfPlayRunner
from alphazero.train.config import TrainConfig
from alphazero.train.trainer import Trainer
from alphazero.validation import ConfigValueError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "replay"))
from replay_games import random_records  # noqa: E402

FULL, SMALL = 12, 3


class SpySearch(BatchedSearch):
    """Logs every search call: (active slots, add_noise, simulations, root visits after, and
    whether the endgame solver answered the root: such a root is not searched)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = []

    def search(self, positions, ply, active=None, add_noise=True, simulations=None):
        result = super().search(positions, ply, active=active, add_noise=add_noise, simulations=simulations)
        fresh = result.visits.sum(axis=1) - result.reused_visits
        self.calls.append((np.array(active), add_noise, simulations, fresh, result.exact_score != NO_EXACT_SCORE))
        return result


def _play(fraction, games=3, seed=5, root_policy="puct"):
    search = SpySearch(MCTSConfig(simulations=FULL, root_policy=root_policy, gumbel_considered_actions=4),
                       UniformEvaluator(), 1, seed=seed)
    runner = SelfPlayRunner(search, np.random.default_rng(seed), random_opening_plies=2,
                            playout_cap_fraction=fraction, playout_cap_small=SMALL)
    return runner.play(games), search.calls


def test_full_searches_get_policy_targets_and_small_ones_do_not():
    records, calls = _play(0.5)
    # One slot: every call searches it, one call per searched (non-pass) ply, in order.
    masks = np.concatenate([r.policy_mask if r.policy_mask is not None else np.ones(len(r), bool) for r in records])
    searched = np.concatenate([r.actions != PASS for r in records])
    assert len(calls) == searched.sum()
    full_calls = np.array([noise for _, noise, _, _, _ in calls])
    np.testing.assert_array_equal(masks[searched], full_calls)
    assert masks[~searched].all()  # a forced pass keeps its one-hot (unused) target
    assert 0 < full_calls.sum() < len(calls)  # both kinds happened
    assert any(solved[0] for *_, solved in calls)  # the games reached the solver's reach
    for active, noise, simulations, fresh, solved in calls:
        assert active.all()
        if noise:
            assert simulations is None and fresh[0] == (0 if solved[0] else FULL)
        else:
            assert simulations == SMALL and fresh[0] == (0 if solved[0] else SMALL)
    # Small-search positions still become training samples (value targets) with the mask off.
    shard = encode_shard(records)
    assert shard.num_positions == searched.sum()
    np.testing.assert_array_equal(shard.policy_mask, masks[searched])


def test_gumbel_small_searches_keep_their_noise_so_their_moves_are_sampled():
    # Under a Gumbel root the noise is the move's sampling: small searches without it would play
    # one deterministic move per position. They still get no policy target.
    records, calls = _play(0.5, games=4, root_policy="gumbel")
    searched = np.concatenate([r.actions != PASS for r in records])
    masks = np.concatenate([r.policy_mask for r in records])[searched]
    kinds = np.array([simulations is None for _, _, simulations, _, _ in calls])
    np.testing.assert_array_equal(masks, kinds)
    assert 0 < kinds.sum() < len(calls)
    assert all(noise for _, noise, _, _, _ in calls)
    # With a uniform evaluator only the noise tells the moves apart: the first small search from
    # the same position picks different moves under different seeds.
    first_small = []
    for seed in range(8):
        search = BatchedSearch(MCTSConfig(simulations=FULL, root_policy="gumbel", gumbel_considered_actions=4),
                               UniformEvaluator(), 1, seed=seed)
        runner = SelfPlayRunner(search, np.random.default_rng(0), playout_cap_fraction=1e-9, playout_cap_small=SMALL)
        first_small.append(int(runner.play(1)[0].actions[0]))
    assert len(set(first_small)) > 1


def test_fraction_one_searches_every_move_fully_and_records_no_mask():
    records, calls = _play(1.0)
    assert all(r.policy_mask is None for r in records)
    assert all(noise and simulations is None for _, noise, simulations, _, _ in calls)


def test_policy_mask_round_trips_through_a_shard_and_reaches_the_batch(tmp_path):
    records = random_records(3, seed=4)
    for record in records:
        record.policy_mask = np.arange(len(record)) % 3 != 0
    write_shard(tmp_path / "s.npz", records)
    back = read_shard(tmp_path / "s.npz").to_records()
    for record, again in zip(records, back):
        is_pass = record.actions == PASS
        np.testing.assert_array_equal(again.policy_mask[~is_pass], record.policy_mask[~is_pass])
    buffer = ReplayBuffer(tmp_path / "replay", window_positions=10_000)
    buffer.add_games(records, writer_id="t")
    batch = buffer.sample(512, np.random.default_rng(0))
    assert batch.policy_mask.dtype == np.bool_ and 0 < batch.policy_mask.sum() < 512


def test_shards_written_before_the_masks_existed_still_load(tmp_path):
    records = random_records(2, seed=6)
    arrays = encode_shard(records).arrays()
    for name in _OPTIONAL:
        del arrays[name]  # the format-1 shard as written before this change
    arrays["checksum"] = np.array([_checksum(arrays)], dtype=np.uint32)
    path = tmp_path / "old.npz"
    np.savez_compressed(path, **arrays)
    data = read_shard(path)
    assert data.policy_mask.all() and not data.exact_mask.any()
    assert all(r.policy_mask is None and r.exact_values is None for r in data.to_records())


def test_policy_loss_ignores_masked_rows():
    torch.manual_seed(0)
    trainer = Trainer(build_network(model_preset("tiny")), TrainConfig(device="cpu", precision="fp32"), torch.device("cpu"))
    records = random_records(2, seed=7)
    shard = encode_shard(records)
    positions = shard.positions[:16]
    policies = shard.policies[:16].astype(np.float32)
    values = shard.outcomes[:16].astype(np.float32)
    mask = np.arange(16) % 2 == 0
    scrambled = policies.copy()
    scrambled[~mask] = np.roll(policies[~mask], 1, axis=0)  # other targets on the masked rows
    trainer.net.eval()
    with torch.no_grad():
        masked = trainer.losses(positions, policies, values, mask)
        masked_scrambled = trainer.losses(positions, scrambled, values, mask)
        subset = trainer.losses(positions[mask], policies[mask], values[mask])
        unmasked = trainer.losses(positions, policies, values)
        all_true = trainer.losses(positions, policies, values, np.ones(16, bool))
    assert float(masked["policy"]) == pytest.approx(float(masked_scrambled["policy"]), abs=1e-6)
    assert float(masked["policy"]) == pytest.approx(float(subset["policy"]), abs=1e-5)
    assert float(masked["value"]) == pytest.approx(float(unmasked["value"]), abs=1e-7)  # value loss keeps all rows
    assert float(all_true["policy"]) == pytest.approx(float(unmasked["policy"]), abs=1e-6)


def test_playout_cap_settings_are_validated_with_their_keys():
    with pytest.raises(ConfigValueError, match="selfplay.playout_cap_fraction"):
        SelfPlayConfig(playout_cap_fraction=0.0)
    with pytest.raises(ConfigValueError, match="selfplay.playout_cap_small"):
        SelfPlayConfig(playout_cap_small=0)
    with pytest.raises(ConfigValueError, match="selfplay.playout_cap_small"):
        Config(mcts=MCTSConfig(simulations=10), selfplay=SelfPlayConfig(playout_cap_fraction=0.5, playout_cap_small=20))
