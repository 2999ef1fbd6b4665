"""Gating and baseline evaluation search with the run's settings (noise off, temperature 0)."""

from types import SimpleNamespace

import torch

from alphazero.arena.players import build_player
from alphazero.engine.factory import play_config
from alphazero.mcts.config import MCTSConfig
from alphazero.nn.config import model_preset
from alphazero.nn.model import AlphaZeroNet
from alphazero.train import evaluation
from alphazero.train.config import ArenaConfig, EvalConfig

RUN_MCTS = MCTSConfig(simulations=200, c_puct=3.25, fpu_reduction=0.1, leaves_per_step=2, noise_fraction=0.25, temperature=1.0, temperature_plies=20)


def _capture_matches(monkeypatch):
    players = []

    def fake_match(first, second, **kwargs):
        players.extend([first, second])
        return SimpleNamespace(score=0.5, wins=1, draws=0, losses=1, elo_diff=0.0)

    monkeypatch.setattr(evaluation, "play_match", fake_match)
    return players


def test_gate_uses_the_runs_search_settings_with_noise_and_temperature_off(monkeypatch):
    players = _capture_matches(monkeypatch)
    net = AlphaZeroNet(model_preset("tiny"))
    evaluation.gate(net, net, ArenaConfig(simulations=16, pairs=1), seed=0, threads=1, mcts=RUN_MCTS, device="cpu")
    assert [p.name for p in players] == ["candidate", "best"]
    for player in players:
        config = player._config
        assert (config.simulations, config.c_puct, config.fpu_reduction, config.leaves_per_step) == (16, 3.25, 0.1, 2)
        assert config.noise_fraction == 0 and config.temperature == 0 and config.temperature_plies == 0
        assert player.evaluator.device == torch.device("cpu")


def test_baseline_evaluation_uses_the_runs_search_settings(monkeypatch):
    players = _capture_matches(monkeypatch)
    net = AlphaZeroNet(model_preset("tiny"))
    evaluation.evaluate_baselines(net, EvalConfig(baselines=["random"], simulations=8, pairs=1), seed=0, threads=1, mcts=RUN_MCTS)
    ours = players[0]
    assert ours._config == play_config(RUN_MCTS, 8)
    assert ours._config.c_puct == 3.25


def test_build_player_with_zero_simulations_plays_the_raw_policy():
    player = build_player(AlphaZeroNet(model_preset("tiny")), RUN_MCTS, simulations=0, device="cpu")
    assert player.simulations == 0
