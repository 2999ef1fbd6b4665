import pytest

from alphazero.bench.mcts import main


def test_mcts_benchmark_reports_speed_batching_and_network_share():
    report = main(["--games", "4", "--simulations", "8", "--moves", "2", "--repeats", "1"])
    assert report["evaluator"] == "uniform" and report["games"] == 4 and report["simulations"] == 8
    assert report["total_simulations"] == 4 * 8 * 2
    assert report["simulations_per_second"] > 0 and 0 < report["network_share"] < 1
    # one call per step (8 per move) plus the first move's root evaluation; 4 leaves each
    assert report["network_calls"] == 2 * 8 + 1 and report["leaves_per_network_call"] == 4.0


def test_endgame_search_reaches_name_every_solver_setting():
    from alphazero.bench.endgame_search import parse_reach

    config = parse_reach("18/17+19@5000:off:searched")
    assert (config.endgame_solve_empties, config.endgame_wld_empties) == (18, 17)
    assert (config.endgame_probe_empties, config.endgame_probe_nodes, config.leaf_probe_empties) == (19, 5000, 19)
    assert config.endgame_solver_options == "off" and config.search_solved_roots
    plain = parse_reach("16")
    assert (plain.endgame_solve_empties, plain.endgame_wld_empties, plain.leaf_probe_empties) == (16, 0, 0)
    assert not plain.search_solved_roots and plain.endgame_solver_options == "default"
    assert parse_reach("12+14").endgame_probe_nodes == 20_000  # the default limit
    revisit = parse_reach("18/17~18+19")
    assert (revisit.leaf_solve_empties, revisit.leaf_revisit_empties, revisit.leaf_probe_empties) == (17, 18, 19)
    assert revisit.endgame_revisit_visits == 2 and parse_reach("18/17~18v3").endgame_revisit_visits == 3
    with pytest.raises(ValueError, match="reach"):
        parse_reach("16::sometimes")


def test_mcts_benchmark_sets_and_reports_probes():
    report = main(["--games", "2", "--simulations", "4", "--moves", "1", "--repeats", "1",
                   "--endgame", "12", "--endgame-revisit", "13", "--endgame-revisit-visits", "3", "--endgame-probe", "14", "--endgame-probe-nodes", "500"])
    assert (report["endgame_solve_empties"], report["endgame_probe_empties"], report["endgame_probe_nodes"]) == (12, 14, 500)
    assert (report["endgame_revisit_empties"], report["endgame_revisit_visits"]) == (13, 3)
    assert main(["--games", "2", "--simulations", "4", "--moves", "1", "--repeats", "1",
                 "--endgame", "12"])["endgame_probe_empties"] == 0
