"""`python -m alphazero.bench selfplay` measures the real pipeline and reports every figure."""

from alphazero.bench import selfplay


def test_selfplay_bench_reports_pipeline_and_network_only_figures():
    result = selfplay.main(["--preset", "smoke", "--seconds", "4", "--warmup", "0", "--inference-server", "on", "--network-seconds", "0.3"])
    for key in ("positions_per_second", "simulations_per_second", "pipeline_evals_per_second", "network_only_evals_per_second",
                "pipeline_efficiency", "mean_batch", "device", "gpu_utilization"):
        assert key in result, key
    assert result["device"] == "cpu" and result["inference_server"] is True
    assert result["positions_per_second"] > 0 and result["pipeline_evals_per_second"] > 0
    assert 0 < result["mean_batch"] <= 8  # one worker of 8 games, one leaf per game and step
    assert 0 < result["pipeline_efficiency"]
    assert 0 < result["worker_waiting"] <= 1.05  # progress messages straddle the window's ends
    shares = result["server_time"]
    assert set(shares) == {"idle", "window", "io", "compute"} and abs(sum(shares.values()) - 1) < 0.01 and shares["compute"] > 0
