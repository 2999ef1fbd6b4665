"""Every reader of outside data meets corrupt input with a documented error that names the
problem, or accepts it; never another exception, a hang, or code run from a checkpoint."""

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphazero.faults import badinput
from alphazero.gtp.engine import GTPEngine, serve
from alphazero.play.choosers import FunctionChooser

pytestmark = pytest.mark.faults


def _judge(cases):
    results = badinput.run_cases(cases)
    bad = [r for r in results if r.outcome in ("crash", "unclear")]
    assert not bad, "\n".join(f"{r.outcome}: {r.name}: {r.detail}" for r in bad)
    return results


@pytest.mark.parametrize("seed", [0, 1])
def test_wthor_truncations_wrong_counts_and_flipped_bytes_fail_cleanly(tmp_path, seed):
    results = _judge(badinput.wthor_cases(np.random.default_rng(seed), tmp_path, 60))
    assert results[0].outcome == "accepted"  # the synthesized base file is valid
    assert sum(r.outcome == "clean_error" for r in results) > 40


@pytest.mark.parametrize("seed", [0, 1])
def test_ggf_unbalanced_brackets_unknown_properties_and_illegal_moves_fail_cleanly(seed):
    results = _judge(badinput.ggf_cases(np.random.default_rng(seed), 80))
    assert {r.name: r.outcome for r in results}["unknown property kept"] == "accepted"


def test_transcripts_with_bad_tokens_fail_cleanly():
    _judge(badinput.transcript_cases(np.random.default_rng(0), 150))


def test_corrupt_foreign_and_malicious_checkpoints_fail_cleanly_without_running_code(tmp_path):
    results = _judge(badinput.checkpoint_cases(np.random.default_rng(0), tmp_path, 60))
    by_name = {r.name: r for r in results}
    assert by_name["pickled code (zip)"].outcome == "clean_error" and "refused" in by_name["pickled code (zip)"].detail
    assert by_name["pickled code (plain pickle)"].outcome == "clean_error"
    assert not list(tmp_path.glob("pwned-*"))
    assert "shape" in by_name["another architecture (24 channels into 16): shape mismatch named"].detail
    flipped = [r for r in results if "flipped" in r.name]
    assert flipped and all(r.outcome == "clean_error" for r in flipped)  # crc32 catches every flip


def test_gtp_random_sessions_long_lines_binary_and_out_of_order_commands():
    _judge(badinput.gtp_cases(np.random.default_rng(0), 40))


def _engine():
    return GTPEngine(FunctionChooser(lambda state: state.legal_actions()[0], name="first"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(max_size=80), max_size=8))
def test_gtp_engine_answers_any_text_lines_with_success_or_failure(lines):
    engine = _engine()
    for line in lines:
        response = engine.handle(line)
        if response is not None:
            assert response[0] in "=?" and response.endswith("\n\n") and "internal error" not in response


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=3000))
def test_gtp_serve_survives_any_bytes_on_stdin(data):
    out = io.StringIO()
    assert serve(_engine(), stdin=io.BytesIO(data), stdout=out) == 0
    assert "internal error" not in out.getvalue()


def test_training_command_line_refuses_bad_overrides_naming_the_key(tmp_path):
    # Three subprocesses (a few seconds each): a wrong type, an out-of-range value, an unknown key.
    chosen = {"mcts.simulations=many", "train.lr=-1", "selfplay.wokers=3"}
    cases = [c for c in badinput.hydra_cases(tmp_path) if c.name in chosen]
    assert len(cases) == 3
    _judge(cases)


@pytest.mark.slow
def test_every_bad_override_of_the_command_line_is_refused(tmp_path):
    _judge(badinput.hydra_cases(tmp_path))
