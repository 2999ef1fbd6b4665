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


class _FakePool:
    """Two workers that each report progress on every poll (no processes)."""

    def __init__(self):
        self.server = None
        self.restarts = 0

    def poll(self, timeout):
        import time

        from alphazero.selfplay.reports import ProgressReport

        time.sleep(0.05)
        return [ProgressReport(worker=w, task_id=0, moves=3, simulations=30) for w in range(2)]

    def server_stats(self):
        return None


class _NoGpu:
    def reset(self):
        pass

    def mean(self):
        return None


def _phases(status):
    pool = _FakePool()
    selfplay._wait_until_every_worker_plays(pool, 2, warmup=0.2, status=status)
    return selfplay._measure(pool, 0.3, _NoGpu(), status)


def test_the_phases_show_on_a_terminal_and_nothing_shows_in_a_pipe(capsys, monkeypatch):
    import sys

    from alphazero.console import StatusLine, progress_wanted

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    measured = _phases(StatusLine(progress_wanted(None)))
    assert measured["moves"] > 0
    err = capsys.readouterr().err
    for phase in ("starting 2 worker(s)", "2/2 worker(s) playing after", "warming up", "measuring:", "positions/s"):
        assert phase in err, phase
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    _phases(StatusLine(progress_wanted(None)))
    assert capsys.readouterr().err == ""
    # --progress into a log: whole lines, no carriage returns.
    _phases(StatusLine(progress_wanted(True)))
    err = capsys.readouterr().err
    assert "\r" not in err and "[bench selfplay] measured" in err.splitlines()[-1]


def test_progress_flags_are_accepted():
    assert selfplay._parse(["--no-progress"]).progress is False
    assert selfplay._parse(["--progress"]).progress is True
    assert selfplay._parse([]).progress is None
