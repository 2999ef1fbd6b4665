"""precision: auto measures fp32 against bf16 and caches the verdict; fp32/bf16 force one; bf16
computes what fp32 computes within a stated tolerance (alphazero.nn.precision)."""

import json
import logging

import numpy as np
import pytest
import torch

from alphazero.nn import int8_inference, precision as precisions
from alphazero.nn.config import model_preset
from alphazero.nn.inference import NetworkEvaluator
from alphazero.nn.model import AlphaZeroNet

from .helpers import randomize_batch_norm

CPU = torch.device("cpu")
KEY = "test cpu | torch x | inference | net | batch 32 | threads 1"


class FakeTimer:
    """A clock that only moves when a fake network call says it took so long."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def call_taking(self, seconds_per_call):
        """A function standing for a network call of the given durations (one per call, the
        last repeated)."""
        durations = list(seconds_per_call)
        calls = []

        def run():
            self.now += durations[min(len(calls), len(durations) - 1)]
            calls.append(self.now)

        run.calls = calls
        return run


class Measure:
    """A stand-in probe: returns fixed (fp32, bf16) seconds and counts its calls."""

    def __init__(self, fp32_seconds, bf16_seconds):
        self.result = (fp32_seconds, bf16_seconds)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.result


# ----------------------------------------------------------------------------------------------
# The decision


def test_bf16_is_chosen_only_when_it_measures_clearly_faster():
    assert precisions.decide(fp32_seconds=0.010, bf16_seconds=0.004) == "bf16"
    assert precisions.decide(fp32_seconds=0.004, bf16_seconds=0.010) == "fp32"
    # A gain under BF16_MIN_SPEEDUP is noise: keep the exact arithmetic.
    assert precisions.decide(fp32_seconds=0.0102, bf16_seconds=0.0100) == "fp32"
    assert precisions.decide(fp32_seconds=0.0100 * precisions.BF16_MIN_SPEEDUP, bf16_seconds=0.0100) == "bf16"
    with pytest.raises(ValueError, match="probe times must be positive"):
        precisions.decide(0.0, 0.01)


def test_the_probe_alternates_warms_up_untimed_and_keeps_each_sides_best_call():
    timer = FakeTimer()
    # The first call of each is a slow warm-up (compilation): it must not count.
    fp32 = timer.call_taking([5.0, 0.030, 0.020, 0.025])
    bf16 = timer.call_taking([5.0, 0.012, 0.010, 0.011])
    fp32_best, bf16_best = precisions.time_alternately(fp32, bf16, clock=timer, budget=0.1, min_rounds=2, max_rounds=10)
    assert fp32_best == pytest.approx(0.020) and bf16_best == pytest.approx(0.010)
    # Rounds go on while the timed calls took less than the budget: 0.042 after round 1,
    # 0.072 after round 2, 0.108 after round 3 -> stop.
    assert len(fp32.calls) == 1 + 3 and len(bf16.calls) == 1 + 3


def test_the_probe_stops_at_min_rounds_when_calls_are_slow_and_at_max_rounds_when_fast():
    timer = FakeTimer()
    slow = [timer.call_taking([1.0]), timer.call_taking([1.0])]
    precisions.time_alternately(*slow, clock=timer, budget=0.3, min_rounds=2, max_rounds=10)
    assert [len(run.calls) for run in slow] == [3, 3]
    fast = [timer.call_taking([1e-4]), timer.call_taking([1e-4])]
    precisions.time_alternately(*fast, clock=timer, budget=0.3, min_rounds=2, max_rounds=10)
    assert [len(run.calls) for run in fast] == [11, 11]


@pytest.mark.parametrize("fp32_seconds, bf16_seconds, verdict", [(0.020, 0.010, "bf16"), (0.010, 0.020, "fp32")])
def test_auto_measures_once_then_reads_the_cache(tmp_path, fp32_seconds, bf16_seconds, verdict):
    cache = tmp_path / "precision.json"
    measure = Measure(fp32_seconds, bf16_seconds)
    first = precisions.choose("auto", CPU, measure, KEY, cache)
    assert (first.precision, first.how, measure.calls) == (verdict, "measured", 1)
    assert first.speedup == pytest.approx(fp32_seconds / bf16_seconds)
    stored = json.loads(cache.read_text())["verdicts"][KEY]
    assert stored["precision"] == verdict and stored["fp32_seconds"] == fp32_seconds

    again = precisions.choose("auto", CPU, measure, KEY, cache)
    assert (again.precision, again.how, measure.calls) == (verdict, "cached", 1)
    # Another network, batch or thread count is another key: measured on its own.
    other = precisions.choose("auto", CPU, Measure(bf16_seconds, fp32_seconds), KEY.replace("batch 32", "batch 1"), cache)
    assert other.how == "measured" and other.precision != verdict
    assert len(json.loads(cache.read_text())["verdicts"]) == 2


def test_forced_precisions_never_measure_nor_touch_the_cache(tmp_path):
    cache = tmp_path / "precision.json"
    measure = Measure(0.01, 0.02)
    for forced in ("fp32", "bf16", "int8"):
        choice = precisions.choose(forced, CPU, measure, KEY, cache, int8=True)
        assert (choice.precision, choice.how) == (forced, "forced")
    assert measure.calls == 0 and not cache.exists()


def test_int8_is_chosen_only_when_it_measures_clearly_faster_than_the_other_verdict():
    assert precisions.decide_int8(otherwise_seconds=0.010, int8_seconds=0.005)
    assert not precisions.decide_int8(otherwise_seconds=0.0105, int8_seconds=0.0100)
    assert precisions.decide_int8(otherwise_seconds=0.0100 * precisions.INT8_MIN_SPEEDUP, int8_seconds=0.0100)
    with pytest.raises(ValueError, match="probe times must be positive"):
        precisions.decide_int8(0.01, 0.0)


@pytest.mark.parametrize(
    "seconds, verdict, stored",
    [
        ((0.020, 0.010, 0.0095), "bf16", ("bf16", False)),  # int8 at 1.05x bf16's speed is not enough
        ((0.020, 0.010, 0.005), "int8", ("bf16", True)),  # 2x bf16's: int8
        ((0.010, 0.0099, 0.008), "int8", ("fp32", True)),  # bf16 not taken; int8 1.25x fp32's
        ((0.010, 0.020, None), "fp32", ("fp32", False)),  # int8 failed to run: not a candidate
    ],
)
def test_auto_weighs_int8_against_what_it_would_pick_otherwise(tmp_path, seconds, verdict, stored):
    cache = tmp_path / "precision.json"
    measure = Measure(*seconds[:2])
    measure.result = seconds
    choice = precisions.choose("auto", CPU, measure, KEY, cache, int8=True)
    assert (choice.precision, choice.how, choice.int8_seconds) == (verdict, "measured", seconds[2])
    entry = precisions.read_cache(cache)[KEY]
    # "precision" stays the fp32/bf16 verdict: a checkout from before int8 reads that one.
    assert (entry["precision"], entry["int8"]) == stored
    assert precisions.choose("auto", CPU, measure, KEY, cache, int8=True).precision == verdict
    # A caller that cannot run int8 (training, another network) reads the fp32/bf16 verdict.
    assert precisions.choose("auto", CPU, measure, KEY, cache).precision == stored[0]
    assert measure.calls == 1


def test_int8_is_refused_for_training_and_off_the_cpu():
    with pytest.raises(ValueError, match="precision 'int8' is for network calls only"):
        precisions.choose("int8", CPU, Measure(1, 1), KEY)
    with pytest.raises(ValueError, match="precision 'int8' runs on a CPU"):
        precisions.choose("int8", torch.device("cuda"), Measure(1, 1), KEY, int8=True)


def test_fp16_off_cuda_and_unknown_names_are_refused():
    with pytest.raises(ValueError, match="precision 'fp16' needs a CUDA device"):
        precisions.choose("fp16", CPU, Measure(1, 1), KEY)
    with pytest.raises(ValueError, match="unknown precision 'half'; expected one of auto, fp32, bf16, fp16"):
        precisions.choose("half", CPU, Measure(1, 1), KEY)


@pytest.mark.parametrize(
    "content, problem",
    [
        ("{not json", "is not JSON"),
        ('["a list"]', "has no 'verdicts' object"),
        ('{"verdicts": {"k": {"precision": "fp8"}}}', "entry 'k' has no precision fp32 or bf16"),
        ('{"verdicts": {"k": {"precision": "fp32", "int8": "yes"}}}', "entry 'k' has an int8 verdict that is not true or false"),
        (b"\xff\xfe\x00garbage", "cannot be read"),
    ],
)
def test_a_corrupt_cache_is_refused_with_its_name_and_measured_again(tmp_path, caplog, content, problem):
    cache = tmp_path / "precision.json"
    cache.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ValueError, match=problem):
        precisions.read_cache(cache)
    measure = Measure(0.02, 0.01)
    with caplog.at_level(logging.WARNING, logger="alphazero.nn.precision"):
        choice = precisions.choose("auto", CPU, measure, KEY, cache)
    assert (choice.precision, choice.how, measure.calls) == ("bf16", "measured", 1)
    warning = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning and str(cache) in warning[0] and problem in warning[0] and "measuring again" in warning[0]
    # The file was rewritten whole, and the next process reads it.
    assert precisions.read_cache(cache)[KEY]["precision"] == "bf16"
    assert precisions.choose("auto", CPU, measure, KEY, cache).how == "cached" and measure.calls == 1


def test_the_user_cache_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(precisions.CACHE_ENV, str(tmp_path / "mine.json"))
    assert precisions.user_cache_file() == tmp_path / "mine.json"
    monkeypatch.delenv(precisions.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert precisions.user_cache_file() == tmp_path / "xdg" / "alphazero" / "precision.json"
    assert precisions.run_cache_file(tmp_path / "run") == tmp_path / "run" / "precision.json"


def test_cuda_auto_is_bf16_without_measuring():
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    measure = Measure(1, 1)
    assert precisions.choose("auto", torch.device("cuda"), measure, KEY).how == "cuda" and measure.calls == 0


# ----------------------------------------------------------------------------------------------
# The evaluator


@pytest.fixture
def net():
    torch.manual_seed(0)
    return randomize_batch_norm(AlphaZeroNet(model_preset("tiny")))


def _evaluator_key(net, batch=32):
    return precisions.cache_key("inference", precisions.network_signature(net), batch, torch.get_num_threads())


@pytest.mark.parametrize("verdict", ["fp32", "bf16", "int8"])
def test_the_evaluator_runs_in_the_cached_verdict(tmp_path, net, positions, verdict):
    cache = tmp_path / "precision.json"
    entry = {"precision": "fp32" if verdict == "int8" else verdict, "fp32_seconds": 1, "bf16_seconds": 1,
             "int8_seconds": 0.5, "int8": verdict == "int8"}
    cache.write_text(json.dumps({"verdicts": {_evaluator_key(net): entry}}))
    evaluator = NetworkEvaluator(net, device="cpu", precision="auto", probe_batch=64, precision_cache=cache)
    assert (evaluator.precision, evaluator.choice.how) == (verdict, "cached")
    dtype = torch.bfloat16 if verdict == "bf16" else torch.float32
    assert all(p.dtype == dtype for p in evaluator._model.parameters())
    assert isinstance(evaluator._large_batch_model, int8_inference.Int8Forward) == (verdict == "int8")
    priors, values = evaluator(positions)
    assert priors.dtype == np.float32 and values.dtype == np.float32


def test_an_entry_from_before_int8_is_measured_again_for_network_calls_but_serves_training(tmp_path, net):
    """A verdict cached before int8 existed never timed it: a network call that could run int8
    measures again (and keeps `precision` fp32/bf16 for a checkout from before int8 sharing the
    cache); a training step, which cannot run int8, still reads it."""
    cache = tmp_path / "precision.json"
    old = {"precision": "bf16", "fp32_seconds": 1, "bf16_seconds": 1}
    training_key = KEY.replace("inference", "training")
    cache.write_text(json.dumps({"verdicts": {_evaluator_key(net): old, training_key: old}}))
    evaluator = NetworkEvaluator(net, device="cpu", precision="auto", probe_batch=32, precision_cache=cache)
    assert evaluator.choice.how == "measured" and evaluator.choice.int8_seconds > 0
    entry = precisions.read_cache(cache)[_evaluator_key(net)]
    assert entry["precision"] in ("fp32", "bf16") and isinstance(entry["int8"], bool) and entry["int8_seconds"] > 0
    assert (evaluator.precision == "int8") == entry["int8"]
    training = precisions.choose("auto", CPU, Measure(1, 1), training_key, cache)
    assert (training.precision, training.how) == ("bf16", "cached")


def test_the_evaluator_measures_at_the_callers_batch_and_caches_it(tmp_path, net):
    cache = tmp_path / "precision.json"
    evaluator = NetworkEvaluator(net, device="cpu", precision="auto", probe_batch=4, precision_cache=cache)
    assert evaluator.choice.how == "measured" and evaluator.precision in ("fp32", "bf16", "int8")
    entry = precisions.read_cache(cache)[_evaluator_key(net, batch=4)]
    assert entry["fp32_seconds"] > 0 and entry["bf16_seconds"] > 0 and entry["int8_seconds"] > 0
    assert evaluator.precision == ("int8" if entry["int8"] else entry["precision"])
    assert NetworkEvaluator(net, device="cpu", probe_batch=4, precision_cache=cache).choice.how == "cached"


# Stated tolerance of bf16 against fp32 (8 mantissa bits: ~0.4% per rounding): on the warm-start
# networks and 20,000 WTHOR positions the measured differences were far inside these
# (docs/benchmarks.md, "Network and precision"); random networks here, so a little looser.
PRIOR_TOLERANCE = 0.03
VALUE_TOLERANCE = 0.05
MEAN_VALUE_TOLERANCE = 0.01


@pytest.mark.parametrize("preset", ["tiny", "small"])
def test_bf16_evaluations_agree_with_fp32_within_the_stated_tolerance(positions, preset):
    torch.manual_seed(1)
    net = randomize_batch_norm(AlphaZeroNet(model_preset(preset)))
    fp32 = NetworkEvaluator(net, device="cpu", precision="fp32")
    bf16 = NetworkEvaluator(net, device="cpu", precision="bf16")
    for batch in (positions, positions[:3]):  # the fused oneDNN route and the eager one
        p32, v32 = fp32(batch)
        p16, v16 = bf16(batch)
        np.testing.assert_allclose(p16, p32, atol=PRIOR_TOLERANCE)
        np.testing.assert_allclose(v16, v32, atol=VALUE_TOLERANCE)
        assert np.abs(v16 - v32).mean() <= MEAN_VALUE_TOLERANCE
        assert (p16[p32 == 0] == 0).all(), "illegal moves stay exactly 0"
        np.testing.assert_allclose(p16.sum(axis=1), 1.0, atol=1e-5)


def test_describe_says_what_was_chosen_and_why():
    choice = precisions.Choice("bf16", "auto", "measured", KEY, "/x/precision.json", 0.02, 0.01)
    text = choice.describe()
    assert text.startswith("bf16 (precision=auto, measured: bf16 ran 2.00x fp32's speed, inference at batch 32")
    assert "/x/precision.json" in text
    assert precisions.Choice("fp32", "fp32", "forced").describe() == "fp32 (precision=fp32, forced)"


def test_a_probe_that_fails_in_bf16_falls_back_to_fp32_and_says_so(tmp_path, caplog):
    def measure():
        raise RuntimeError("no bf16 kernel for this op\nlong details")

    with caplog.at_level(logging.WARNING, logger="alphazero.nn.precision"):
        choice = precisions.choose("auto", CPU, measure, KEY, tmp_path / "precision.json")
    assert (choice.precision, choice.how, choice.speedup) == ("fp32", "measured", None)
    assert any("bf16 probe failed here (no bf16 kernel for this op): using fp32" in r.getMessage() for r in caplog.records)
    assert precisions.read_cache(tmp_path / "precision.json")[KEY]["precision"] == "fp32"


def test_a_measurement_under_the_cache_lock_can_consult_the_same_cache(tmp_path):
    """The precision probe builds evaluators while it holds the cache's file lock; one that asks
    the same cache (a small-batch kernels verdict, say) must not wait for that lock forever, and
    both verdicts are kept. In a subprocess: a deadlock fails on its timeout instead of hanging."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from alphazero.nn import precision as p\n"
        "cache = sys.argv[1]\n"
        "inner_key, outer_key = p.cache_key(p.KERNELS_KIND, 'fp32 net', 4, 1), p.cache_key('inference', 'net', 4, 1)\n"
        "inner = lambda: p.cached_verdict(inner_key, cache, lambda: {'kernels': 'eager'}) and {'precision': 'fp32'}\n"
        "p.cached_verdict(outer_key, cache, inner)\n"
        "print(sorted(key.split(' | ')[2] for key in p.read_cache(p.Path(cache))))\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "precision.json")], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['inference', 'kernels']"
