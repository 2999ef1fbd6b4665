"""NetworkEvaluator honours the Evaluator protocol and tracks the weights of the net it wraps."""

import json
import logging
import re

import numpy as np
import pytest
import torch

from alphazero.nn import cpu_inference, precision as precisions
from alphazero.nn.config import model_preset
from alphazero.nn.encoding import encode_positions_and_mask, pack_positions_and_mask
from alphazero.nn.inference import CUDA_CHANNELS_LAST_MIN_BATCH, NetworkEvaluator, resolve_device
from alphazero.nn.model import AlphaZeroNet, masked_softmax
from alphazero.othello.bitboard import PASS
from alphazero.othello.playout import random_positions

from .helpers import randomize_batch_norm


@pytest.fixture
def net():
    return randomize_batch_norm(AlphaZeroNet(model_preset("tiny")))


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_priors_are_float32_zero_on_illegal_and_sum_to_one_over_legal(net, positions, precision):
    priors, values = NetworkEvaluator(net, device="cpu", precision=precision)(positions)
    _, legal = encode_positions_and_mask(positions)
    assert priors.dtype == np.float32 and priors.shape == (len(positions), 65)
    assert values.dtype == np.float32 and values.shape == (len(positions),)
    assert (priors[~legal] == 0).all()
    assert (priors[legal] > 0).all()
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, atol=1e-5)
    assert (np.abs(values) <= 1).all()


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_pass_gets_all_the_mass_when_forced_and_none_otherwise(net, positions, precision):
    priors, _ = NetworkEvaluator(net, device="cpu", precision=precision)(positions)
    _, legal = encode_positions_and_mask(positions)
    forced = legal[:, PASS]
    assert forced[-1], "the fixture's last position is a forced pass"
    assert (priors[forced, PASS] == 1).all()
    assert (priors[~forced, PASS] == 0).all()


def test_outputs_match_the_unfused_network_in_eval_mode(net, positions):
    priors, values = NetworkEvaluator(net, device="cpu", precision="fp32")(positions)
    planes, legal = encode_positions_and_mask(positions)
    with torch.no_grad():
        logits, expected_values = net.eval()(torch.from_numpy(planes))
    expected_priors = masked_softmax(logits, torch.from_numpy(legal))
    np.testing.assert_allclose(priors, expected_priors.numpy(), atol=1e-5)
    np.testing.assert_allclose(values, expected_values.numpy(), atol=1e-5)


def test_empty_batch_returns_empty_arrays(net):
    priors, values = NetworkEvaluator(net, device="cpu")(np.zeros((0, 2), dtype=np.uint64))
    assert priors.shape == (0, 65) and values.shape == (0,)
    assert priors.dtype == np.float32 and values.dtype == np.float32


def test_evaluator_follows_optimizer_steps_and_load_state_dict(net, positions):
    evaluator = NetworkEvaluator(net, device="cpu", precision="fp32")
    before, _ = evaluator(positions)
    net.train()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    planes, _ = encode_positions_and_mask(positions)
    logits, value = net(torch.from_numpy(planes))
    (logits.square().mean() + value.mean()).backward()
    optimizer.step()
    after_step, _ = evaluator(positions)
    assert not np.allclose(before, after_step)
    np.testing.assert_allclose(after_step, NetworkEvaluator(net, device="cpu", precision="fp32")(positions)[0], atol=1e-6)

    other = AlphaZeroNet(model_preset("tiny"))
    net.load_state_dict(other.state_dict())
    np.testing.assert_allclose(evaluator(positions)[0], NetworkEvaluator(other, device="cpu", precision="fp32")(positions)[0], atol=1e-6)


def test_evaluating_does_not_change_the_nets_mode_or_weights(net, positions):
    net.train()
    state = {k: v.clone() for k, v in net.state_dict().items()}
    NetworkEvaluator(net, device="cpu")(positions)
    assert net.training
    for name, tensor in net.state_dict().items():
        assert torch.equal(tensor, state[name]), name


def test_threads_sets_torchs_thread_count(net):
    NetworkEvaluator(net, device="cpu", threads=1)
    assert torch.get_num_threads() == 1
    with pytest.raises(ValueError, match="threads must be a positive int"):
        NetworkEvaluator(net, device="cpu", threads=0)


@pytest.mark.parametrize("precision, tolerance", [("fp32", 1e-5), ("bf16", 2e-2)])
def test_large_cpu_batches_use_the_fused_onednn_kernels_with_the_same_outputs(net, positions, precision, tolerance):
    """bf16 goes through the same fused kernels where oneDNN runs bf16 convolutions on this CPU
    (avx512bw/vl/dq or avx_ne_convert; torch's own `_is_mkldnn_bf16_supported` says so), and
    falls back to the eager channels-last model where it does not (an avx2-only CPU: the fused op
    raises there, so the evaluator does not try it). The two routes round differently, hence
    bf16's looser tolerance."""
    assert len(positions) >= cpu_inference.MIN_BATCH
    fast = NetworkEvaluator(net, device="cpu", precision=precision)
    fused_runs_here = cpu_inference.available() and (
        precision == "fp32" or torch.ops.mkldnn._is_mkldnn_bf16_supported())
    assert isinstance(fast._large_batch_model, cpu_inference.MkldnnForward) == fused_runs_here
    eager = NetworkEvaluator(net, device="cpu", cpu_kernels="eager", precision=precision)
    for batch in (positions, positions[:3]):
        np.testing.assert_allclose(fast(batch)[0], eager(batch)[0], atol=tolerance)
        np.testing.assert_allclose(fast(batch)[1], eager(batch)[1], atol=tolerance)


ONEDNN_RUNS_HERE = pytest.mark.skipif(not cpu_inference.available(), reason="this torch build lacks oneDNN's pointwise conv")


def _kernels_key(net, precision, batch):
    signature = f"{precision} {precisions.network_signature(net)}"
    return precisions.cache_key(precisions.KERNELS_KIND, signature, batch, torch.get_num_threads())


@ONEDNN_RUNS_HERE
@pytest.mark.parametrize("verdict", ["onednn", "eager"])
def test_a_small_callers_batch_runs_in_the_kernels_the_cached_probe_chose(tmp_path, net, positions, verdict):
    """Below MIN_BATCH the caller's batch goes where the (cached) probe found it faster; smaller
    batches stay eager, larger ones from MIN_BATCH up always take oneDNN's kernels."""
    cache = tmp_path / "precision.json"
    entry = {"kernels": verdict, "eager_seconds": 0.002, "onednn_seconds": 0.001}
    cache.write_text(json.dumps({"verdicts": {_kernels_key(net, "fp32", 4): entry}}))
    evaluator = NetworkEvaluator(net, device="cpu", precision="fp32", probe_batch=4, precision_cache=cache)
    assert evaluator.small_batch_kernels["how"] == "cached" and evaluator.small_batch_kernels["kernels"] == verdict
    routes = {batch: isinstance(evaluator._model_and_layout(batch)[0], cpu_inference.MkldnnForward) for batch in (3, 4, 31, 32)}
    assert routes == {3: False, 4: verdict == "onednn", 31: verdict == "onednn", 32: True}
    eager = NetworkEvaluator(net, device="cpu", cpu_kernels="eager", precision="fp32")
    for batch in (positions[:3], positions[:4], positions[:9]):
        np.testing.assert_allclose(evaluator(batch)[0], eager(batch)[0], atol=1e-5)
        np.testing.assert_allclose(evaluator(batch)[1], eager(batch)[1], atol=1e-5)
    # A new network's weights (refresh) keep the choice.
    with torch.no_grad():
        next(net.parameters()).mul_(0.5)
    evaluator(positions[:4])
    assert isinstance(evaluator._model_and_layout(4)[0], cpu_inference.MkldnnForward) == (verdict == "onednn")


@ONEDNN_RUNS_HERE
def test_the_small_batch_probe_measures_once_caches_and_is_skipped_where_nothing_is_chosen(tmp_path, net):
    cache = tmp_path / "precision.json"
    first = NetworkEvaluator(net, device="cpu", precision="fp32", probe_batch=4, precision_cache=cache)
    assert first.small_batch_kernels["how"] == "measured"
    entry = precisions.read_cache(cache)[_kernels_key(net, "fp32", 4)]
    assert entry["kernels"] in ("onednn", "eager") and entry["eager_seconds"] > 0 and entry["onednn_seconds"] > 0
    assert entry["kernels"] == ("onednn" if entry["onednn_seconds"] < entry["eager_seconds"] else "eager")
    assert NetworkEvaluator(net, device="cpu", precision="fp32", probe_batch=4, precision_cache=cache).small_batch_kernels["how"] == "cached"
    # Nothing to choose: a caller's batch from MIN_BATCH up, or eager kernels asked for by name.
    assert NetworkEvaluator(net, device="cpu", precision="fp32", probe_batch=64, precision_cache=cache).small_batch_kernels is None
    assert NetworkEvaluator(net, device="cpu", precision="fp32", probe_batch=2, cpu_kernels="eager", precision_cache=cache).small_batch_kernels is None
    assert set(precisions.read_cache(cache)) == {_kernels_key(net, "fp32", 4)}


def test_a_cached_kernels_entry_without_a_known_verdict_is_refused_and_measured_again(tmp_path, caplog):
    cache = tmp_path / "precision.json"
    key = precisions.cache_key(precisions.KERNELS_KIND, "fp32 net", 4, 1)
    cache.write_text(json.dumps({"verdicts": {key: {"kernels": "fast"}}}))
    with pytest.raises(ValueError, match=f"entry {re.escape(repr(key))} has no kernels eager or onednn"):
        precisions.read_cache(cache)
    with caplog.at_level(logging.WARNING, logger="alphazero.nn.precision"):
        entry, how, _ = precisions.cached_verdict(key, cache, lambda: {"kernels": "eager"})
    assert (entry["kernels"], how) == ("eager", "measured") and "measuring again" in caplog.text
    assert precisions.cached_verdict(key, cache, lambda: pytest.fail("measured twice"))[1] == "cached"


def test_unknown_cpu_kernels_is_rejected(net):
    with pytest.raises(ValueError, match="unknown cpu_kernels 'fast'"):
        NetworkEvaluator(net, device="cpu", cpu_kernels="fast")


def test_resolve_device_names():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="unknown device 'gpu0'"):
        resolve_device("gpu0")
    with pytest.raises(ValueError, match="must be a string or torch.device"):
        resolve_device(0)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error raised where CUDA is absent")
def test_asking_for_cuda_without_cuda_is_a_clear_error():
    with pytest.raises(ValueError, match="CUDA is not available"):
        resolve_device("cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_evaluator_agrees_with_cpu_within_bf16_tolerance(net, positions):
    cpu_priors, cpu_values = NetworkEvaluator(net, device="cpu", precision="fp32")(positions)
    priors, values = NetworkEvaluator(net, device="cuda")(positions)
    _, legal = encode_positions_and_mask(positions)
    assert (priors[~legal] == 0).all()
    np.testing.assert_allclose(priors, cpu_priors, atol=0.05)
    np.testing.assert_allclose(values, cpu_values, atol=0.05)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_large_batches_go_through_the_channels_last_copy_and_agree_with_small_ones(net):
    positions = random_positions(CUDA_CHANNELS_LAST_MIN_BATCH, seed=3)
    evaluator = NetworkEvaluator(net, device="cuda")
    model, layout = evaluator._model_and_layout(len(positions))
    assert model is evaluator._large_batch_model and layout is torch.channels_last
    assert evaluator._model_and_layout(len(positions) - 1)[1] is torch.contiguous_format
    large_priors, large_values = evaluator(positions)
    chunks = [evaluator(chunk) for chunk in np.array_split(positions, 4)]  # each below the threshold
    np.testing.assert_allclose(large_priors, np.concatenate([p for p, _ in chunks]), atol=0.02)
    np.testing.assert_allclose(large_values, np.concatenate([v for _, v in chunks]), atol=0.02)
    packed, _ = pack_positions_and_mask(positions)
    with torch.inference_mode():
        packed_priors, packed_values = evaluator.evaluate_packed(torch.from_numpy(packed.view(np.int64)).cuda())
    np.testing.assert_allclose(packed_priors.cpu().numpy(), large_priors, atol=1e-5)
    np.testing.assert_allclose(packed_values.cpu().numpy(), large_values, atol=1e-5)


@ONEDNN_RUNS_HERE
def test_an_unwritable_cache_costs_a_warning_not_the_evaluator(tmp_path, net, caplog):
    """A forced precision measured nothing and wrote nothing before the small-batch kernels probe:
    a cache path that cannot be written (a read-only home, a missing mount) must not make it fail."""
    blocker = tmp_path / "a file"
    blocker.write_text("")
    cache = blocker / "precision.json"  # its directory is a file: mkdir and writes raise OSError
    with caplog.at_level(logging.WARNING, logger="alphazero.nn.precision"):
        evaluator = NetworkEvaluator(net, device="cpu", precision="fp32", probe_batch=4, precision_cache=cache)
    assert evaluator.small_batch_kernels["how"] == "measured" and "cannot be written" in caplog.text
    assert evaluator(random_positions(4, seed=3))[0].shape == (4, 65)


@ONEDNN_RUNS_HERE
def test_a_kernels_entry_stays_readable_by_a_reader_from_before_kernels_entries(tmp_path, net):
    """Older checkouts share the user's cache and require "precision" fp32/bf16 of every entry,
    rewriting the whole file without its verdicts otherwise: a kernels entry carries one."""
    cache = tmp_path / "precision.json"
    NetworkEvaluator(net, device="cpu", precision="fp32", probe_batch=4, precision_cache=cache)
    verdicts = json.loads(cache.read_text())["verdicts"]
    assert verdicts and all(entry.get("precision") in ("fp32", "bf16") for entry in verdicts.values())
