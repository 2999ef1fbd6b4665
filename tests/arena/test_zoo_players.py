"""Warm-start zoo checkpoints in the arena: raw-policy play for every zoo network (the history
network gets its game's moves), MCTS for the board-only ones, a one-line refusal of MCTS for the
history network."""

import pytest
import torch

from alphazero.arena.history_player import HistoryPolicyPlayer
from alphazero.arena.match import play_match
from alphazero.arena.players import GameInProgress, RandomPlayer, make_player
from alphazero.nn.checkpoint import build_network, save_checkpoint
from alphazero.nn.config import model_preset
from alphazero.othello.game import GameState


@pytest.fixture(scope="module")
def zoo_checkpoints(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("zoo-players")
    torch.manual_seed(0)
    return {arch: save_checkpoint(tmp / f"{arch}.pt", build_network(model_preset(arch))) for arch in ("seed_mlp", "seed_cnn_rnn")}


@pytest.mark.parametrize("arch", ["seed_mlp", "seed_cnn_rnn"])
def test_zoo_raw_policy_player_plays_a_match(zoo_checkpoints, arch):
    player = make_player(f"mcts:checkpoint={zoo_checkpoints[arch]},simulations=0,device=cpu,threads=1")
    result = play_match(player, RandomPlayer(seed=1), num_pairs=1, opening_plies=2, seed=0)
    assert len(result.games) == 2


def test_board_only_zoo_network_searches_with_mcts(zoo_checkpoints):
    player = make_player(f"mcts:checkpoint={zoo_checkpoints['seed_mlp']},simulations=4,device=cpu,threads=1")
    assert player.select_move(GameState.start()) in (19, 26, 37, 44)


def test_history_network_refuses_mcts_in_one_line(zoo_checkpoints):
    with pytest.raises(ValueError, match="only simulations=0 plays its raw policy") as error:
        make_player(f"mcts:checkpoint={zoo_checkpoints['seed_cnn_rnn']},simulations=10,device=cpu")
    assert "only simulations=0 plays its raw policy" in str(error.value).splitlines()[0]  # the arena appends its valid forms below


def test_history_player_reads_the_games_moves(zoo_checkpoints):
    player = make_player(f"mcts:checkpoint={zoo_checkpoints['seed_cnn_rnn']},simulations=0,device=cpu")
    assert isinstance(player, HistoryPolicyPlayer)
    start = GameState.start()
    after = start.play(37)
    moves = player.select_moves_in_games([GameInProgress(start, (), start), GameInProgress(start, (37,), after)])
    assert moves[0] in (19, 26, 37, 44) and after.is_legal(moves[1])
    with pytest.raises(ValueError, match="needs each game's move history"):
        player.select_moves([start])


def test_play_and_gtp_refuse_the_history_network_in_one_line(zoo_checkpoints):
    from alphazero.play.choosers import NoAIError, network_chooser

    with pytest.raises(NoAIError, match="play and GTP") as error:
        network_chooser(zoo_checkpoints["seed_cnn_rnn"])
    assert "\n" not in str(error.value)
