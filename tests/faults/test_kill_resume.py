"""Kill/resume trials of the smoke preset: whatever kills the run, resume finds every finished
game and every promoted network, and the counters match the data.

The CI subset: one run directory taken through a SIGKILL between a shard's write and its rename,
a killed self-play worker, a kill -9 after set-up (with a second run refused by the lock
meanwhile), a disk that fills during self-play, and a clean resume. It takes about a minute of
two cores (five training sessions), so it is marked slow to keep the README's default run under
its 10 minutes, and .ci/run runs it by name in a stage of its own. The full randomized suite (20
trials, every phase) and a real full tmpfs are slow too and are left to manual runs.
"""

import pytest

from alphazero.faults.suite import run_suite
from alphazero.faults.trials import Campaign, TrialPlan, disk_full_trial

pytestmark = pytest.mark.faults


def _assert_clean(outcome):
    assert not outcome.crashes, outcome.summary()
    assert not outcome.problems, outcome.summary()
    assert outcome.games_lost == 0


@pytest.mark.slow  # run by name in .ci/run ("long integration tests")
def test_kills_a_dead_worker_and_a_full_disk_each_resume_without_losing_games_or_networks(tmp_path):
    campaign = Campaign(tmp_path)
    first = campaign.run_trial(TrialPlan("hook", fault="shard_write:1"))
    _assert_clean(first)
    assert first.fault_injected and first.exit_code == -9  # the worker took the whole run down

    worker = campaign.run_trial(TrialPlan("worker_kill", delay=1.0))
    _assert_clean(worker)
    assert worker.fault_injected and worker.exit_code == 0 and worker.resume_ok
    log = (tmp_path / "run" / "log.txt").read_text()
    assert "self-play worker 0 died" in log and "restarting it" in log
    assert campaign.snapshot.worker_restarts >= 1

    timed = campaign.run_trial(TrialPlan("timed_kill", delay=3.0), check_lock=True)
    _assert_clean(timed)
    assert campaign.lock_checked and campaign.lock_problems == []
    games_before = campaign.snapshot.total_games

    disk_full = campaign.run_trial(TrialPlan("disk_full", fault="shard_write:1:enospc"))
    _assert_clean(disk_full)
    assert disk_full.fault_injected and disk_full.exit_code == 2

    final = campaign.final_resume()
    _assert_clean(final)
    assert final.exit_code == 0 and final.resume_ok
    assert campaign.snapshot.total_games > games_before
    assert campaign.snapshot.worker_restarts >= 1  # counted across sessions


@pytest.mark.slow
@pytest.mark.parametrize("how", ["tmpfs", "checkpoint_write"])
def test_a_full_disk_stops_the_run_clearly_and_it_resumes_once_space_is_back(tmp_path, how):
    outcome = disk_full_trial(tmp_path, how)
    skipped = [p for p in outcome.problems if p.startswith("skipped:")]
    if skipped:
        pytest.skip(skipped[0])
    assert outcome.crashes == [] and outcome.problems == []
    assert outcome.stopped_cleanly and outcome.resumed


@pytest.mark.slow
def test_full_suite_twenty_randomized_trials(tmp_path):
    report = run_suite(tmp_path, trials=20, seed=0, disk_full_modes=(), bad_inputs_per_family=10, bad_input_families=("wthor", "checkpoint"))
    summary = report.summary()
    assert summary["games_lost"] == 0 and summary["crashes"] == 0 and summary["problems"] == 0, summary["first_problems"]
    assert summary["trials"] == 20 and summary["faults_injected"] >= 15
    assert summary["resumes_succeeded"] >= 15
