"""Player specs: every valid form builds the right player; bad specs name the bad part."""

import pytest

from alphazero.arena.players import (
    AlphaBetaPlayer,
    GreedyPlayer,
    MCTSPlayer,
    PlayerSpecError,
    RandomPlayer,
    make_player,
    parse_player_spec,
)


def test_valid_specs_parse_into_kind_and_typed_options():
    assert parse_player_spec("random") == ("random", {})
    assert parse_player_spec("random:seed=4") == ("random", {"seed": 4})
    assert parse_player_spec("alphabeta:depth=3,endgame=8") == ("alphabeta", {"depth": 3, "endgame": 8})
    assert parse_player_spec('mcts:checkpoint="runs/a,b.pt",simulations=50')[1] == {"checkpoint": "runs/a,b.pt", "simulations": 50}
    assert parse_player_spec('gtp:"/usr/games/gtp-rhino -l 3",processes=2') == (
        "gtp",
        {"command": "/usr/games/gtp-rhino -l 3", "processes": 2},
    )
    assert parse_player_spec("gtp:/usr/games/gtp-rhino -l 3") == ("gtp", {"command": "/usr/games/gtp-rhino -l 3"})
    assert parse_player_spec("mcts:checkpoint='my net.pt'")[1] == {"checkpoint": "my net.pt"}


def test_make_player_builds_each_kind():
    assert isinstance(make_player("random:seed=2"), RandomPlayer)
    assert isinstance(make_player("greedy"), GreedyPlayer)
    player = make_player("alphabeta:depth=3")
    assert isinstance(player, AlphaBetaPlayer) and player.depth == 3
    mcts = make_player("mcts:evaluator=uniform,simulations=5")
    assert isinstance(mcts, MCTSPlayer) and mcts.simulations == 5
    assert make_player("greedy:name=G").name == "G"


def test_a_checkpoint_player_takes_its_cpu_thread_count(tmp_path):
    import torch

    from alphazero.nn.checkpoint import save_checkpoint
    from alphazero.nn.config import model_preset
    from alphazero.nn.model import AlphaZeroNet

    path = save_checkpoint(tmp_path / "net.pt", AlphaZeroNet(model_preset("tiny")))
    before = torch.get_num_threads()
    try:
        player = make_player(f"mcts:checkpoint={path},simulations=4,threads=1")
        assert isinstance(player, MCTSPlayer) and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize(
    "spec, named",
    [
        ("minimax:depth=2", "unknown player kind 'minimax'"),
        ("alphabeta:dept=2", "no option 'dept'"),
        ("alphabeta:depth=two", "depth='two' is not an integer"),
        ("alphabeta:depth=0", "depth must be an integer >= 1"),
        ("random:7", "'7' is not of the form option=value"),
        ("random:seed=1,seed=2", "'seed' is given twice"),
        ("mcts:simulations=10", "exactly one of checkpoint=PATH or evaluator=uniform"),
        ("mcts:evaluator=magic", "unknown evaluator 'magic'"),
        ("mcts:evaluator=uniform,threads=2", "threads= applies only to checkpoint players"),
        ("mcts:checkpoint=net.pt,threads=0", "threads must be >= 1"),
        ("mcts:checkpoint=/no/such/net.pt", "does not exist"),
        ('gtp:"/usr/games/gtp-rhino', "unterminated"),
        ("gtp:", "gtp needs the engine command"),
    ],
)
def test_bad_specs_raise_a_value_error_naming_the_part_and_listing_valid_forms(spec, named):
    with pytest.raises(PlayerSpecError) as caught:
        make_player(spec)
    message = str(caught.value)
    assert named in message
    assert repr(spec) in message
    assert "alphabeta[:depth=D]" in message and 'gtp:"COMMAND"' in message
    assert isinstance(caught.value, ValueError)
