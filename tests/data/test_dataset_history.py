"""The move history stored with the supervised dataset (version 2): each row's (game, ply) points
at the actions that lead to its position, passes included; a version-1 dataset still loads."""


import numpy as np
import pytest

from alphazero.data.dataset import GAME_ACTIONS, DatasetOptions, build_dataset, load_dataset
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, make_move
from wthor_files import GAME_WITH_PASS, SHORTEST_GAME, build_dataset_of_version, write_wtb


@pytest.fixture
def wthor_directory(tmp_path):
    source = tmp_path / "wthor"
    source.mkdir()
    write_wtb(source, 2017, [(SHORTEST_GAME, 64), (GAME_WITH_PASS, 28)])
    write_wtb(source, 2018, [(SHORTEST_GAME, 64)])
    return source


@pytest.mark.parametrize("options", [DatasetOptions(), DatasetOptions(dedup=True), DatasetOptions(split="random5")])
def test_every_rows_history_replays_to_its_position(wthor_directory, tmp_path, options):
    build_dataset(wthor_directory, tmp_path / "ds", options, progress=False)
    dataset = load_dataset(tmp_path / "ds")
    passes_seen = 0
    for split in dataset.splits.values():
        for row in range(len(split)):
            actions = split.game_actions[split.game[row], : split.ply[row]]
            player, opponent = START_BLACK, START_WHITE
            for action in actions:
                player, opponent = (np.uint64(b) for b in make_move(player, opponent, int(action)))
            assert (int(player), int(opponent)) == tuple(int(b) for b in split.positions[row])
            assert split.game_actions[split.game[row], split.ply[row]] == split.moves[row]
            passes_seen += int((actions == PASS).sum())
    assert passes_seen > 0  # the pass game's later rows carry the pass in their history


def test_version_1_dataset_loads_without_history(wthor_directory, tmp_path):
    out = tmp_path / "ds"
    build_dataset_of_version(wthor_directory, out, 1)
    for path in [out / GAME_ACTIONS, *out.glob("*_game.npy"), *out.glob("*_ply.npy")]:
        path.unlink()
    dataset = load_dataset(out)
    assert len(dataset.train) > 0 and dataset.train.game is None
    with pytest.raises(ValueError, match="no move history; rebuild it"):
        dataset.train.history(np.arange(2), 4)
