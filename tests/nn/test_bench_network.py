"""`python -m alphazero.bench network` reports the figures docs/benchmarks.md quotes: each
precision side by side, the ratios, and what auto chose."""

from alphazero.bench.network import main


def test_network_benchmark_reports_inference_and_training_rates_per_precision():
    result = main(["--preset", "tiny", "--threads", "1", "--repeats", "1", "--window", "0.01", "--batches", "1", "64"])
    for precision in ("fp32", "bf16", "auto"):
        for key in ("evals_per_second_batch1", "evals_per_second_batch64", "train_samples_per_second_batch256"):
            assert result[f"{key}_{precision}"] > 0, (key, precision)
    assert result["evals_per_second_batch64"] == result["evals_per_second_batch64_auto"]
    assert result["bf16_speedup_evals_batch64"] == round(result["evals_per_second_batch64_bf16"] / result["evals_per_second_batch64_fp32"], 3)
    assert result["auto_choice"]["inference_batch64"] in ("fp32", "bf16") and result["auto_choice"]["training"] in ("fp32", "bf16")
    assert result["preset"] == "tiny" and result["threads"] == 1 and result["parameters"] > 0 and result["cpu"]


def test_one_precision_keeps_the_unsuffixed_keys():
    result = main(["--preset", "tiny", "--repeats", "1", "--window", "0.01", "--batches", "1", "--precisions", "fp32", "--skip-training"])
    assert result["evals_per_second_batch1"] == result["evals_per_second_batch1_fp32"] > 0
    assert "auto_choice" not in result and "bf16_speedup_evals_batch1" not in result


def test_threads_benchmark_reports_each_thread_count():
    from alphazero.bench.threads import main as threads_main

    result = threads_main(["--preset", "tiny", "--threads", "1", "--batches", "1", "4", "--repeats", "1", "--window", "0.01", "--skip-training"])
    assert result["evals_per_second_batch1_threads1"] > 0 and result["evals_per_second_batch4_threads1"] > 0
    assert result["cores"] >= 1 and result["precision"] == "fp32"
