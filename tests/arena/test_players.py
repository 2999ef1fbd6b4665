"""Players: legal moves everywhere (forced passes included), greedy's rule, determinism, MCTS batching."""

import numpy as np
import pytest
import torch

from alphazero.arena.players import (
    AlphaBetaPlayer,
    GreedyPlayer,
    MCTSPlayer,
    RandomPlayer,
    make_player,
)
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_board_text, parse_transcript

from tests.arena.helpers import sample_positions

POSITIONS = sample_positions(160, seed=7)


def _players():
    return [
        RandomPlayer(seed=3),
        GreedyPlayer(),
        AlphaBetaPlayer(depth=1),
        AlphaBetaPlayer(depth=2),
        MCTSPlayer(UniformEvaluator(), simulations=0),
        MCTSPlayer(UniformEvaluator(), simulations=8),
    ]


@pytest.mark.parametrize("player", _players(), ids=lambda p: p.name)
def test_every_player_returns_a_legal_move_for_every_position_and_pass_when_forced(player):
    assert any(state.must_pass() for state in POSITIONS)
    moves = player.select_moves(POSITIONS)
    assert len(moves) == len(POSITIONS)
    for state, move in zip(POSITIONS, moves):
        assert isinstance(move, int)
        assert move in state.legal_actions(), (player.name, state, move)
        if state.must_pass():
            assert move == PASS


@pytest.mark.parametrize("player", _players(), ids=lambda p: p.name)
def test_players_refuse_a_finished_game(player):
    finished = parse_board_text("X" * 64 + " O")
    with pytest.raises(ValueError, match="finished"):
        player.select_moves([GameState.start(), finished])


@pytest.mark.parametrize("player", _players()[1:], ids=lambda p: p.name)
def test_deterministic_players_answer_the_same_alone_as_in_a_batch(player):
    batch = POSITIONS[:40]
    assert player.select_moves(batch) == [player.select_move(state) for state in batch]


def test_random_player_repeats_its_moves_for_the_same_seed_and_varies_with_another():
    first = RandomPlayer(seed=11).select_moves(POSITIONS)
    assert RandomPlayer(seed=11).select_moves(POSITIONS) == first
    assert RandomPlayer(seed=12).select_moves(POSITIONS) != first


def test_greedy_plays_a_move_flipping_the_most_discs():
    player = GreedyPlayer()
    for state, move in zip(POSITIONS, player.select_moves(POSITIONS)):
        if state.must_pass():
            continue
        flips = {action: state.flipped_by(action).bit_count() for action in state.legal_actions()}
        assert flips[move] == max(flips.values())


def test_greedy_breaks_ties_by_the_lowest_square():
    # After f5, white's d6 (43), f4 (29) and f6 (45) each flip one disc: f4 has the lowest index.
    state = GameState.start().play(parse_transcript("f5")[0])
    flips = {action: state.flipped_by(action).bit_count() for action in state.legal_actions()}
    assert set(flips.values()) == {1}
    assert GreedyPlayer().select_move(state) == min(flips) == parse_transcript("f5f4")[1]


def test_mcts_with_zero_simulations_plays_the_highest_prior():
    class FavourLast(UniformEvaluator):
        def __call__(self, positions):
            priors, values = super().__call__(positions)
            legal = priors > 0
            priors = np.where(legal, np.arange(65, dtype=np.float32) + 1, 0).astype(np.float32)
            return priors / priors.sum(axis=1, keepdims=True), values

    player = MCTSPlayer(FavourLast(), simulations=0)
    for state, move in zip(POSITIONS, player.select_moves(POSITIONS)):
        assert move == max(state.legal_actions())


def test_mcts_player_batches_all_positions_into_one_search_per_step():
    calls = []

    class Counting(UniformEvaluator):
        def __call__(self, positions):
            calls.append(len(positions))
            return super().__call__(positions)

    states = [s for s in POSITIONS if not s.must_pass()][:12]
    MCTSPlayer(Counting(), simulations=6).select_moves(states)
    # One root evaluation call plus at most one call per simulation step, each for many games.
    assert len(calls) <= 1 + 6
    assert max(calls) > 1


def test_mcts_player_from_checkpoint_plays_legal_moves(tmp_path):
    from alphazero.nn.checkpoint import build_network, save_checkpoint
    from alphazero.nn.config import model_preset

    path = tmp_path / "net.pt"
    save_checkpoint(path, build_network(model_preset("tiny")))
    player = make_player(f"mcts:checkpoint={path},simulations=4,device=cpu")
    states = POSITIONS[:10]
    for state, move in zip(states, player.select_moves(states)):
        assert state.is_legal(move)
    raw = MCTSPlayer.from_checkpoint(path, simulations=0, device="cpu")
    assert all(state.is_legal(move) for state, move in zip(states, raw.select_moves(states)))


def test_a_network_players_identity_is_its_checkpoints_digest_whatever_its_name(tmp_path):
    # Game logs and ladder results key games by name; the identity tells two networks of one file
    # name apart (runs/A/best.pt and runs/B/best.pt, or best.pt after training moved on).
    import shutil

    from alphazero.nn.checkpoint import build_network, save_checkpoint
    from alphazero.nn.config import model_preset

    torch.manual_seed(0)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = save_checkpoint(tmp_path / "a" / "net.pt", build_network(model_preset("tiny")))
    second = save_checkpoint(tmp_path / "b" / "net.pt", build_network(model_preset("tiny")))
    shutil.copy(first, tmp_path / "copy.pt")
    players = [make_player(f"mcts:checkpoint={path},simulations=2,device=cpu,precision=fp32{label}")
               for path, label in ((first, ""), (second, ""), (tmp_path / "copy.pt", ",name=renamed"))]
    assert players[0].name == players[1].name  # mcts(net.pt,simulations=2,precision=fp32)
    assert len(players[0].identity) == 16 and players[0].identity != players[1].identity
    assert players[2].identity == players[0].identity, "the same bytes under another name and path"
    assert GreedyPlayer().identity == "" and make_player("mcts:evaluator=uniform,simulations=2").identity == ""


@pytest.mark.parametrize("spec, probe_batch", [
    ("seconds=0.05", 4),  # TIMED_LEAVES_PER_STEP: a tree's leaves alone, as `play` and GTP send them
    ("seconds=0.05,leaves=2", 2),
    ("simulations=4", None),  # by simulations the arena batches many games: the probe's cap
])
def test_an_arena_players_auto_precision_is_measured_at_the_batch_its_search_sends(tmp_path, monkeypatch, spec, probe_batch):
    # A player by time measured `auto` at the probe's cap (32) while calling the network with 4
    # leaves: on a CPU where bf16 wins only at larger batches, the arena's timed players would
    # run a precision `play` does not.
    import alphazero.engine.factory as factory
    from alphazero.nn.checkpoint import build_network, save_checkpoint
    from alphazero.nn.config import model_preset

    path = tmp_path / "net.pt"
    save_checkpoint(path, build_network(model_preset("tiny")))
    asked = []
    real = factory.build_evaluator

    def recording(*args, probe_batch=None, **kwargs):
        asked.append(probe_batch)
        kwargs["precision"] = "fp32"  # no probe is run (nor written to the user's cache) by the test
        return real(*args, probe_batch=probe_batch, **kwargs)

    monkeypatch.setattr(factory, "build_evaluator", recording)
    make_player(f"mcts:checkpoint={path},{spec},device=cpu")
    assert asked == [probe_batch]


def test_an_arena_player_runs_int8_when_its_spec_says_so_and_refuses_an_unknown_precision(tmp_path):
    from alphazero.nn.checkpoint import build_network, save_checkpoint
    from alphazero.nn.config import model_preset

    torch.manual_seed(0)
    path = save_checkpoint(tmp_path / "net.pt", build_network(model_preset("tiny")))
    player = make_player(f"mcts:checkpoint={path},simulations=4,device=cpu,precision=int8")
    assert player.evaluator.precision == "int8" and "precision=int8" in player.name
    state = GameState.start()
    assert state.is_legal(player.select_moves([state])[0])
    with pytest.raises(ValueError, match="precision must be auto, fp32, bf16, fp16 \\(CUDA\\) or int8 \\(CPU\\), got 'int4'"):
        make_player(f"mcts:checkpoint={path},simulations=4,device=cpu,precision=int4")
