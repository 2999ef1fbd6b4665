"""`python -m alphazero.bench network` reports the figures docs/benchmarks.md quotes: each
precision side by side, the ratios, and what auto chose."""

from alphazero.bench.network import main
from alphazero.nn import cpu_inference


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


def test_the_kernels_chosen_for_a_small_batch_are_reported():
    """Below cpu_inference.MIN_BATCH the evaluator runs the batch in the kernels its probe chose;
    the figure says which, and nothing is chosen (so nothing reported) from MIN_BATCH up."""
    result = main(["--preset", "tiny", "--repeats", "1", "--window", "0.01", "--batches", "4", "64", "--precisions", "fp32", "--skip-training"])
    expected = {"kernels_batch4_fp32"} if cpu_inference.available() else set()
    assert {key for key in result if key.startswith("kernels_batch")} == expected
    assert all(result[key] in ("onednn", "eager") for key in expected)
    eager = main(["--preset", "tiny", "--repeats", "1", "--window", "0.01", "--batches", "4", "--precisions", "fp32", "--skip-training", "--cpu-kernels", "eager"])
    assert not any(key.startswith("kernels_batch") for key in eager)


def test_threads_benchmark_reports_each_thread_count():
    from alphazero.bench.threads import main as threads_main

    result = threads_main(["--preset", "tiny", "--threads", "1", "--batches", "1", "4", "--repeats", "1", "--window", "0.01", "--skip-training"])
    assert result["evals_per_second_batch1_threads1"] > 0 and result["evals_per_second_batch4_threads1"] > 0
    assert result["cores"] >= 1 and result["precision"] == "fp32"
