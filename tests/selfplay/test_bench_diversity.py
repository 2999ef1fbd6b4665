"""`python -m alphazero.bench diversity` counts the distinct openings self-play plays."""

from pathlib import Path

import pytest

from alphazero.bench import diversity

WARMSTART = Path(__file__).resolve().parents[2] / "checkpoints" / "warmstart.pt"


def test_opening_counts_of_known_games():
    games = [(19, 18, 17, 9), (19, 18, 17, 10), (19, 34, 17, 9), (19, 18)]
    counts = diversity.opening_counts(games, lengths=(1, 2, 4))
    assert counts == {"distinct_1": 1, "most_common_1": 4, "distinct_2": 2, "most_common_2": 3,
                      "distinct_4": 4, "most_common_4": 1, "distinct_games": 4}


@pytest.mark.skipif(not WARMSTART.is_file(), reason="needs checkpoints/warmstart.pt")
@pytest.mark.slow  # about 45 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_gumbel_sample_plies_spread_the_warm_starts_openings():
    common = ["--checkpoint", str(WARMSTART), "--preset", "smoke", "--games", "16", "--slots", "16",
              "mcts.simulations=64", "mcts.root_policy=gumbel", "mcts.endgame_solve_empties=0"]
    winner = diversity.main(common)
    sampled = diversity.main(common + ["mcts.gumbel_sample_plies=20"])
    assert winner["games"] == sampled["games"] == 16
    assert sampled["gumbel_sample_plies"] == 20 and winner["gumbel_sample_plies"] == 0
    for result in (winner, sampled):
        distinct = [result[f"distinct_{k}"] for k in diversity.OPENING_LENGTHS]
        assert distinct == sorted(distinct) and distinct[-1] <= result["distinct_games"] <= 16
    # 64 simulations give the value enough weight for the winner to repeat itself (8 distinct 4-ply
    # openings in 16 games when this was written; 15 with the draw).
    assert sampled["distinct_4"] > winner["distinct_4"], (winner, sampled)


def test_a_missing_checkpoint_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        diversity.main(["--checkpoint", str(tmp_path / "none.pt")])
    assert exit_info.value.code == 2
    assert "none.pt: no such file" in capsys.readouterr().err


def test_run_mode_counts_the_latest_shards_of_a_run(tmp_path, capsys):
    import sys

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "replay"))
    from replay_games import random_records

    from alphazero.replay.shard import write_shard

    replay = tmp_path / "run" / "replay"
    replay.mkdir(parents=True)
    old, new = random_records(3, seed=1), random_records(4, seed=2)
    write_shard(replay / "shard-1000000000000000-w0.npz", old)
    write_shard(replay / "shard-2000000000000000-w1.npz", new)
    result = diversity.main(["--run", str(tmp_path / "run"), "--shards", "1"])
    expected = diversity.opening_counts([tuple(int(a) for a in r.actions) for r in new])
    assert result["games"] == 4 and result["shards"] == 1
    assert {key: result[key] for key in expected} == expected
    assert diversity.main(["--run", str(tmp_path / "run")])["games"] == 7
    assert np.all([result[f"distinct_{k}"] <= 4 for k in diversity.OPENING_LENGTHS])
    with pytest.raises(SystemExit):
        diversity.main(["--run", str(tmp_path / "run"), "mcts.simulations=8"])
    assert "overrides do not apply" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        diversity.main(["--run", str(tmp_path / "nothing")])
    assert "no replay shards" in capsys.readouterr().err
