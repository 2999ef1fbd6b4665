"""The self-play kill campaign (`python -m alphazero.bench faults --inference-server`): workers
and the inference server killed during one run are replaced, and no finished game is lost."""

import pytest

from alphazero.faults.selfplay_kills import RECOVERY_TARGET_S, run_kill_campaign

pytestmark = pytest.mark.faults


@pytest.mark.slow  # about 31 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_killed_workers_and_server_recover_without_hangs_or_lost_games(tmp_path):
    report = run_kill_campaign(tmp_path, kills_each=1, seed=3)
    summary = report.summary()
    assert (summary["worker_kills"], summary["server_kills"]) == (1, 1), summary
    assert summary["recoveries"] == 2 and summary["hangs"] == 0, summary
    assert summary["games_lost"] == 0 and summary["unreadable_shards"] == 0, summary
    assert not report.crashes and not report.problems, summary
    assert summary["recovery_seconds_max"] < 2 * RECOVERY_TARGET_S, summary  # two busy cores: some slack
