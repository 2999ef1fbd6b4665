"""Every process that shares the cores with others runs one torch thread unless told otherwise, and
the lone ones (play, GTP, the benchmarks) default to the thread count measured best on the 2-core
machines (docs/threads.md): 1. torch's own default (a thread per core) spin-waits on busy cores
(a 2-game arena match took 63.6 s with it and 4.0 s with one thread)."""

import argparse

import pytest
import torch

from alphazero.arena.players import DEFAULT_PLAYER_THREADS, make_player
from alphazero.nn.checkpoint import build_network, save_checkpoint
from alphazero.nn.config import model_preset
from alphazero.play.choosers import SearchSettings, add_ai_arguments
from alphazero.pretrain.config import PretrainConfig
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.train.config import ArenaConfig, TrainConfig


@pytest.fixture
def restore_threads():
    previous = torch.get_num_threads()
    yield
    torch.set_num_threads(previous)


def test_processes_that_share_the_cores_default_to_one_thread():
    assert SelfPlayConfig().threads_per_worker == 1  # self-play workers
    assert TrainConfig().threads == 1  # the trainer beside them
    assert ArenaConfig().threads == 1  # gating and evaluation inside a run
    assert PretrainConfig().threads == 1
    assert DEFAULT_PLAYER_THREADS == 1  # arena and ladder players (and ladder shards)


def test_an_arena_checkpoint_player_sets_one_thread_unless_its_spec_says_otherwise(tmp_path, restore_threads):
    path = save_checkpoint(tmp_path / "tiny.pt", build_network(model_preset("tiny")))
    torch.set_num_threads(2)
    make_player(f"mcts:checkpoint={path},simulations=2,device=cpu,precision=fp32").close()
    assert torch.get_num_threads() == 1
    make_player(f"mcts:checkpoint={path},simulations=2,device=cpu,precision=fp32,threads=2").close()
    assert torch.get_num_threads() == 2


def test_lone_processes_default_to_the_measured_thread_count():
    parser = argparse.ArgumentParser()
    add_ai_arguments(parser)  # play and GTP
    assert SearchSettings.from_args(parser.parse_args([])).threads == 1
    from alphazero.bench import network

    assert network.DEFAULT_THREADS == 1
