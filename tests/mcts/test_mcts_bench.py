from alphazero.bench.mcts import main


def test_mcts_benchmark_reports_speed_batching_and_network_share():
    report = main(["--games", "4", "--simulations", "8", "--moves", "2", "--repeats", "1"])
    assert report["evaluator"] == "uniform" and report["games"] == 4 and report["simulations"] == 8
    assert report["total_simulations"] == 4 * 8 * 2
    assert report["simulations_per_second"] > 0 and 0 < report["network_share"] < 1
    # one call per step (8 per move) plus the first move's root evaluation; 4 leaves each
    assert report["network_calls"] == 2 * 8 + 1 and report["leaves_per_network_call"] == 4.0
