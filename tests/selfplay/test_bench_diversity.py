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
