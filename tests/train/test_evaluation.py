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
        return SimpleNamespace(score=0.5, wins=1, draws=0, losses=1, elo_diff=0.0, pentanomial=lambda: (0, 0, 1, 0, 0))

    monkeypatch.setattr(evaluation, "play_match", fake_match)
    return players


def test_gate_uses_the_runs_search_settings_with_noise_and_temperature_off(monkeypatch):
    players = _capture_matches(monkeypatch)
    net = AlphaZeroNet(model_preset("tiny"))
    evaluation.gate(net, net, ArenaConfig(simulations=16, pairs=1), seed=0, threads=1, mcts=RUN_MCTS, device="cpu")
    assert [p.name for p in players[:2]] == ["candidate", "best"]
    for player in players[:2]:
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


def _scripted_matches(monkeypatch, results):
    """play_match answers each call with the next result, given as pairs (LL, split, WW: the
    candidate lost both games, won one, won both); records the openings."""
    calls = []

    def fake_match(first, second, num_pairs=None, openings=None, **kwargs):
        lost_both, split, won_both = results[len(calls)]
        calls.append([tuple(o) for o in openings])
        assert lost_both + split + won_both == len(openings)
        wins, draws, losses = split + 2 * won_both, 0, split + 2 * lost_both
        from alphazero.arena.elo import estimate_elo

        return SimpleNamespace(score=wins / (wins + losses), wins=wins, draws=draws, losses=losses,
                               elo_diff=estimate_elo(wins, draws, losses).diff, pentanomial=lambda: (lost_both, 0, split, 0, won_both))

    monkeypatch.setattr(evaluation, "play_match", fake_match)
    return calls


def test_a_gate_plays_rounds_until_the_test_decides_then_measures_the_step_on_fresh_games(monkeypatch):
    # Rounds 1 and 2 unclear (12-8, 18-2), round 3 decisive (19-1); then the confirmation match: 11-9.
    calls = _scripted_matches(monkeypatch, [(1, 6, 3), (0, 2, 8), (0, 1, 9), (0, 9, 1)])
    net = AlphaZeroNet(model_preset("tiny"))
    cfg = ArenaConfig(pairs=10, max_pairs=60, elo_pairs=10, sprt_elo0=0, sprt_elo1=50)
    result = evaluation.gate(net, net, cfg, seed=3, threads=1, mcts=RUN_MCTS, device="cpu")
    assert result.promoted and result.rounds == 3 and not result.truncated
    assert (result.wins, result.losses) == (49, 11) and result.llr >= 2.77
    assert result.pairs == (1, 0, 9, 0, 20)  # the test's unit: the pairs, summed over the rounds
    # The step comes from the confirmation games (11-9: about +35), not from the selected 49-11 (+250).
    assert 30 < result.elo_step < 40 and result.elo_diff > 150
    openings = [o for call in calls for o in call]
    assert len(calls) == 4 and len(openings) == len(set(openings)) == 40  # every game its own opening


def test_a_gate_that_cannot_decide_keeps_the_best_at_its_cap(monkeypatch):
    _scripted_matches(monkeypatch, [(3, 4, 3)] * 3)  # level, but not the all-split evidence that ends a gate early
    net = AlphaZeroNet(model_preset("tiny"))
    result = evaluation.gate(net, net, ArenaConfig(pairs=10, max_pairs=30), seed=0, threads=1, mcts=RUN_MCTS, device="cpu")
    assert not result.promoted and result.truncated and result.rounds == 3 and result.elo_step is None


def test_without_gating_one_round_measures_the_step_of_the_network_that_becomes_the_best(monkeypatch):
    calls = _scripted_matches(monkeypatch, [(4, 7, 9)])  # 25-15
    net = AlphaZeroNet(model_preset("tiny"))
    result = evaluation.gate(net, net, ArenaConfig(gating=False, pairs=20), seed=0, threads=1, mcts=RUN_MCTS, device="cpu")
    assert len(calls) == 1 and result.llr is None and result.elo_step == result.elo_diff
