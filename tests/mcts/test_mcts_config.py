import dataclasses

import numpy as np
import pytest

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator, uniform_priors
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE
from alphazero.othello.notation import parse_board_text


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("simulations", -5, "mcts.simulations must be an integer >= 1, got -5"),
        ("simulations", 2.5, "mcts.simulations must be an integer >= 1, got 2.5"),
        ("c_puct", -1.0, "mcts.c_puct must be a finite number >= 0, got -1.0"),
        ("fpu_reduction", float("nan"), "mcts.fpu_reduction must be a finite number, got nan"),
        ("dirichlet_alpha", 0.0, "mcts.dirichlet_alpha must be > 0, got 0.0"),
        ("noise_fraction", 1.5, "mcts.noise_fraction must be in [0, 1], got 1.5"),
        ("temperature", -0.1, "mcts.temperature must be >= 0, got -0.1"),
        ("temperature_plies", -1, "mcts.temperature_plies must be an integer >= 0, got -1"),
        ("virtual_loss", -1.0, "mcts.virtual_loss must be >= 0, got -1.0"),
        ("leaves_per_step", 0, "mcts.leaves_per_step must be an integer >= 1, got 0"),
        ("reuse_capacity", -0.5, "mcts.reuse_capacity must be >= 0, got -0.5"),
        ("endgame_solve_empties", -1, "mcts.endgame_solve_empties must be an integer in 0..24 (0 = off), got -1"),
        ("endgame_solve_empties", 25, "mcts.endgame_solve_empties must be an integer in 0..24 (0 = off), got 25"),
        ("endgame_solve_empties", True, "mcts.endgame_solve_empties must be an integer in 0..24 (0 = off), got True"),
        ("endgame_table_bits", 40, "mcts.endgame_table_bits must be an integer in 8..28, got 40"),
        ("endgame_timed_probe_share", 1.0, "mcts.endgame_timed_probe_share must be in [0, 1) (0 = off), got 1.0"),
        ("endgame_timed_probe_share", -0.1, "mcts.endgame_timed_probe_share must be in [0, 1) (0 = off), got -0.1"),
    ],
)
def test_config_rejects_bad_values_naming_the_field(field, value, message):
    with pytest.raises(ValueError) as error:
        MCTSConfig(**{field: value})
    assert str(error.value) == message


def test_config_defaults_are_valid_and_replace_revalidates():
    config = MCTSConfig()
    assert config.simulations == 100 and config.leaves_per_step == 1 and config.tree_reuse
    with pytest.raises(ValueError, match="mcts.simulations"):
        dataclasses.replace(config, simulations=0)


def test_node_capacity_is_root_plus_simulations_plus_reuse_headroom():
    assert MCTSConfig(simulations=100).node_capacity == 100 + 1 + 100
    assert MCTSConfig(simulations=100, reuse_capacity=0.25).node_capacity == 100 + 1 + 25
    assert MCTSConfig(simulations=100, tree_reuse=False).node_capacity == 101


def test_uniform_evaluator_spreads_priors_over_legal_actions_with_value_zero():
    forced_pass = parse_board_text("XO" + "-" * 62 + " O")
    positions = np.array([[START_BLACK, START_WHITE], forced_pass.as_array()], dtype=np.uint64)
    priors, values = UniformEvaluator()(positions)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    np.testing.assert_array_equal(np.flatnonzero(priors[0]), [19, 26, 37, 44])
    np.testing.assert_allclose(priors[0, [19, 26, 37, 44]], 0.25)
    np.testing.assert_array_equal(np.flatnonzero(priors[1]), [PASS])
    np.testing.assert_array_equal(values, [0.0, 0.0])
    assert uniform_priors(np.zeros((0, 2), dtype=np.uint64)).shape == (0, 65)


def test_the_documented_dirichlet_alpha_is_the_default_and_its_rule_is_worked_out_for_othello():
    """The docstring once gave a rule (10 / legal moves) that the default contradicted; now it
    states the default, what the rule gives for Othello's move count and why the default differs."""
    from pathlib import Path

    from alphazero.data.wthor import read_wtb
    from alphazero.othello.game import GameState

    legal_moves = []
    for game in read_wtb(Path(__file__).resolve().parents[1] / "fixtures" / "WTH_1977.wtb"):
        state = GameState.start()
        for square in game.squares:
            if square < 0 or state.is_over():
                break
            if state.must_pass():
                state = state.play(PASS)
            legal_moves.append(len(state.legal_actions()))
            state = state.play(int(square))
    mean = float(np.mean(legal_moves))
    assert 6 < mean < 10 and len(legal_moves) > 500
    doc = " ".join(MCTSConfig.__doc__.split())
    assert f"dirichlet_alpha: concentration of the PUCT root's Dirichlet noise, default {MCTSConfig().dirichlet_alpha:g}." in doc
    assert f"that rule gives {10 / 8:g}" in doc and 10 / mean == pytest.approx(1.25, rel=0.15)
