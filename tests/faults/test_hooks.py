"""The ALPHAZERO_FAULT hook: parsed strictly, silent when unset, fires exactly where asked."""

import errno
import os
import subprocess
import sys

import pytest

from alphazero import fault_hooks as hooks
from alphazero.fault_hooks import ENV_VAR, FIRED_MESSAGE, Fault, format_plan, parse_plan

pytestmark = pytest.mark.faults


def test_unset_or_empty_plan_means_no_faults():
    assert parse_plan(None) is None
    assert parse_plan("  ") is None


def test_plan_parses_phases_counts_and_actions():
    plan = parse_plan("train_step:3, shard_write:1:enospc,server_batch:7:raise")
    assert plan == {"train_step": Fault("train_step", 3, "kill"), "shard_write": Fault("shard_write", 1, "enospc"),
                    "server_batch": Fault("server_batch", 7, "raise")}
    assert parse_plan(format_plan(plan.values())) == plan


@pytest.mark.parametrize(
    "text, named",
    [("trainstep:3", "trainstep"), ("train_step:0", "'0'"), ("train_step:x", "'x'"), ("arena:1:explode", "explode"),
     ("arena", "phase:count"), ("arena:1,arena:2", "twice")],
)  # fmt: skip
def test_malformed_plan_is_refused_naming_the_problem(text, named):
    with pytest.raises(ValueError) as error:
        parse_plan(text)
    assert ENV_VAR in str(error.value) and named in str(error.value)


def test_fault_point_is_a_no_op_when_no_plan(monkeypatch):
    monkeypatch.setattr(hooks, "_plan", None)
    for phase in hooks.PHASES:
        hooks.fault_point(phase)


def test_enospc_fires_at_the_nth_entry_and_every_later_one(monkeypatch):
    monkeypatch.setattr(hooks, "_plan", parse_plan("checkpoint_write:2:enospc"))
    monkeypatch.setattr(hooks, "_entries", {})
    hooks.fault_point("checkpoint_write", "a.pt")
    hooks.fault_point("shard_write")  # other phases are not counted
    for _ in range(2):
        with pytest.raises(OSError) as error:
            hooks.fault_point("checkpoint_write", "b.pt")
        assert error.value.errno == errno.ENOSPC and error.value.filename == "b.pt"


def test_raise_fires_at_the_nth_entry_and_every_later_one_as_an_exception(monkeypatch):
    monkeypatch.setattr(hooks, "_plan", parse_plan("server_batch:2:raise"))
    monkeypatch.setattr(hooks, "_entries", {})
    hooks.fault_point("server_batch")
    hooks.fault_point("selfplay")  # other phases are not counted
    for entry in (2, 3):
        with pytest.raises(hooks.InjectedFault, match=rf"ALPHAZERO_FAULT=server_batch:2:raise: injected error at server_batch entry {entry}$"):
            hooks.fault_point("server_batch")


def test_raise_in_a_process_is_an_ordinary_uncaught_exception():
    proc = _python("from alphazero.fault_hooks import fault_point\nfor i in range(5):\n    print(i, flush=True)\n    fault_point('selfplay')",
                   "selfplay:2:raise")
    assert proc.returncode == 1
    assert proc.stdout.split() == ["0", "1"]
    assert proc.stderr.strip().splitlines()[-1] == ("alphazero.fault_hooks.InjectedFault: ALPHAZERO_FAULT=selfplay:2:raise: "
                                                    "injected error at selfplay entry 2")


def _python(code, fault):
    env = dict(os.environ, **{ENV_VAR: fault})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)


def test_kill_fires_at_the_nth_entry_with_sigkill():
    proc = _python("from alphazero.fault_hooks import fault_point\nfor i in range(5):\n    print(i, flush=True)\n    fault_point('arena')", "arena:3")
    assert proc.returncode == -9
    assert proc.stdout.split() == ["0", "1", "2"]
    assert FIRED_MESSAGE in proc.stderr and "arena entry 3" in proc.stderr


def test_kill_in_a_spawned_child_takes_its_parent_down_first(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text("""
import multiprocessing as mp, time
from alphazero.fault_hooks import fault_point

def child():
    fault_point('shard_write')

if __name__ == '__main__':
    mp.get_context('spawn').Process(target=child).start()
    time.sleep(20)
    print('parent survived', flush=True)
""")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=dict(os.environ, **{ENV_VAR: "shard_write:1"}), timeout=60)
    assert proc.returncode == -9, proc.stderr
    assert "parent survived" not in proc.stdout
    assert "parent" in proc.stderr and FIRED_MESSAGE in proc.stderr


def test_a_bad_plan_in_the_environment_fails_at_import_naming_the_variable():
    proc = _python("import alphazero.fault_hooks", "selfplay:-1")
    assert proc.returncode != 0 and ENV_VAR in proc.stderr
