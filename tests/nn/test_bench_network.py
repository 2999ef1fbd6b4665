"""`python -m alphazero.bench network` reports the figures docs/benchmarks.md quotes."""

from alphazero.bench.network import main


def test_network_benchmark_reports_inference_and_training_rates():
    result = main(["--preset", "tiny", "--threads", "1", "--repeats", "1", "--window", "0.01"])
    for key in (
        "evals_per_second_batch1",
        "evals_per_second_batch64",
        "evals_per_second_batch256",
        "train_samples_per_second_batch256",
    ):
        assert result[key] > 0, key
    assert result["preset"] == "tiny" and result["threads"] == 1 and result["parameters"] > 0
