"""`python -m alphazero.pretrain.zoo` end to end on the fixture: every model of the shared budget
is trained on both splits in its own run, exported small and scored; a model that fails leaves the
others alone and is named in the summary."""

import json
import sys
import time

import pytest

from alphazero.nn.checkpoint import load_checkpoint
from alphazero.nn.config import model_preset
from alphazero.pretrain import zoo

from .helpers import VALIDATION_YEAR, write_two_years


@pytest.mark.slow  # about 30 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_zoo_trains_every_model_on_both_splits_and_survives_a_failing_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the datasets go to pretraining's cache
    wthor = write_two_years(tmp_path / "wthor")
    out = tmp_path / "zoo"
    real_command = zoo.run_command

    def seed_cnn_fails(args, split, model, *rest):  # an unknown preset is now refused up front, so one run fails here
        return [sys.executable, "-c", "raise SystemExit(3)"] if model == "seed_cnn" else real_command(args, split, model, *rest)

    monkeypatch.setattr(zoo, "run_command", seed_cnn_fails)
    code = zoo.main([
        "--out", str(out), "--models", "seed_mlp", "seed_cnn", "--splits", "year", "random5",
        "--samples", "96", "--batch-size", "32", "--device", "cpu", "--wthor-dir", str(wthor),
        "--test-years", str(VALIDATION_YEAR), "--minutes", "4",
    ])
    assert code == 1  # seed_cnn failed
    rows = {(row["split"], row["model"]): row for row in json.loads((out / "summary.json").read_text())}
    for split in ("year", "random5"):
        assert "error" in rows[(split, "seed_cnn")] and rows[(split, "seed_cnn")]["exit_code"] == 3
        for model in ("seed_mlp",):
            row = rows[(split, model)]
            assert row["exit_code"] == 0 and row["samples"] == 96 and row["budget_reached"], row
            assert row["accuracy"]["split"] == split and row["accuracy"]["positions"] > 0
            assert row["network_cpu"]["parameters"] > 0
            assert load_checkpoint(out / split / f"{model}.pt").model_config == model_preset(model)
            assert not list((out / "runs" / split / model / "checkpoints").glob("*.pt"))  # large files dropped
    assert "seed_cnn | failed" in (out / "summary.md").read_text()


def test_summary_of_runs_exported_without_benches_leaves_their_cells_empty():
    """--skip-bench (train and export only) leaves rows without accuracy or timings: the table
    must still be written, with those cells empty, instead of failing on the missing numbers."""
    args = zoo.parse_args(["--out", "x", "--skip-bench"])
    rows = [{"split": "year", "model": "seed_mlp", "samples": 2_000_000, "budget_reached": True, "train_seconds": 12}]
    table = zoo.summary_markdown(rows, args)
    assert "| year | seed_mlp |  | 2,000,000 |" in table and table.splitlines()[2].count("|") == table.splitlines()[4].count("|")


@pytest.mark.parametrize("args, words", [
    (["--models", "nosuch"], "argument --models: invalid choice: 'nosuch'"),
    (["--batch-size", "0"], "argument --batch-size: must be >= 1, got 0"),
    (["--threads", "0"], "argument --threads: must be >= 1, got 0"),
    (["--minutes", "-1"], "argument --minutes: must be a number > 0, got -1"),
    (["--warmup-steps", "x"], "argument --warmup-steps: expected a whole number, got 'x'"),
    (["--wthor-dir", "nowhere"], "--wthor-dir nowhere: no such directory"),
    (["--out", "a-file"], "--out a-file is a file, not a directory"),
])
def test_a_bad_argument_is_refused_before_any_run_directory_exists(tmp_path, monkeypatch, capsys, args, words):
    """Each used to start every run, which then failed on it in turn (a ZeroDivisionError for
    --batch-size 0), after creating the output directory and each run's directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("notes")
    with pytest.raises(SystemExit) as exit_:
        zoo.parse_args(["--out", "zoo", *args])
    assert exit_.value.code == 2 and words in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_a_sigterm_to_the_zoo_is_forwarded_to_its_runs_which_stop_instead_of_training_on(tmp_path, monkeypatch):
    """The runs live in sessions of their own (so that the cap's SIGTERM reaches one run), so a
    signal to the zoo did not reach them: stopped by `timeout`, the zoo died and its runs trained on."""
    import os
    import signal
    import threading

    stopped = tmp_path / "stopped"
    child = ("import signal, sys, time, pathlib\n"
             f"signal.signal(signal.SIGTERM, lambda *a: (pathlib.Path({str(stopped)!r}).touch(), sys.exit(7)))\n"
             "time.sleep(120)\n")
    monkeypatch.setattr(zoo, "run_command", lambda *a: [sys.executable, "-c", child])
    args = zoo.parse_args(["--out", str(tmp_path / "zoo"), "--models", "seed_mlp", "--splits", "year"])
    threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGTERM)).start()
    before = signal.getsignal(signal.SIGTERM)
    codes, interrupted = zoo.train_all(args, {"year": (tmp_path / "dataset", 1000)}, tmp_path / "zoo", time.monotonic() + 600)
    assert interrupted and codes == {("year", "seed_mlp"): 7} and stopped.exists()
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_signal_while_the_runs_start_stops_those_started_and_starts_no_more(tmp_path, monkeypatch):
    """The handlers went in only once every run had started: a SIGTERM (or Ctrl-C) in between
    killed the zoo and left the runs it had started training on, in sessions of their own."""
    import os
    import signal
    import subprocess

    class ZooDied(Exception):
        pass

    def die(*_):  # the default action, without killing pytest
        raise ZooDied

    stopped = tmp_path / "stopped"
    child = ("import signal, sys, time, pathlib\n"
             f"signal.signal(signal.SIGTERM, lambda *a: (pathlib.Path({str(stopped)!r}).touch(), sys.exit(7)))\n"
             "time.sleep(120)\n")
    monkeypatch.setattr(zoo, "run_command", lambda *a: [sys.executable, "-c", child])
    real_popen, started = subprocess.Popen, []

    def popen(*a, **k):
        started.append(real_popen(*a, **k))
        if len(started) == 1:
            time.sleep(1.0)  # let the child set its handler
            os.kill(os.getpid(), signal.SIGTERM)
        return started[-1]

    monkeypatch.setattr(zoo.subprocess, "Popen", popen)
    args = zoo.parse_args(["--out", str(tmp_path / "zoo"), "--models", "seed_mlp", "small", "--splits", "year"])
    previous = signal.signal(signal.SIGTERM, die)
    try:
        codes, interrupted = zoo.train_all(args, {"year": (tmp_path / "dataset", 1000)}, tmp_path / "zoo", time.monotonic() + 600)
    finally:
        signal.signal(signal.SIGTERM, previous)
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert interrupted and codes == {("year", "seed_mlp"): 7} and stopped.exists()
    assert len(started) == 1, "no run is started after the signal"


@pytest.mark.parametrize("stage", ["build_datasets", "export_and_score"])
def test_ctrl_c_outside_the_runs_wait_ends_the_zoo_with_one_line_saying_what_was_kept(tmp_path, monkeypatch, capsys, stage):
    """Ctrl-C while the datasets are built or the runs are exported and scored (the runs' wait
    forwards it to the runs instead): exit 130, no traceback, one line naming what is kept."""
    out = tmp_path / "zoo"

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(zoo, "missing_modules", lambda: [])
    monkeypatch.setattr(zoo, "warm_numba_caches", lambda: None)
    monkeypatch.setattr(zoo, "build_datasets", ctrl_c if stage == "build_datasets" else (lambda args: {"year": (tmp_path, 1)}))
    monkeypatch.setattr(zoo, "train_all", lambda *args: ({("year", "seed_mlp"): 0}, False))
    monkeypatch.setattr(zoo, "export_and_score", ctrl_c)
    assert zoo.main(["--out", str(out), "--models", "seed_mlp", "--splits", "year", "--device", "cpu"]) == 130
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.strip() == (f"alphazero.pretrain.zoo: interrupted: the runs and exported networks finished so far are kept in "
                                    f"{out.resolve()}, the datasets built in their cache; the same command resumes from them")
    assert sorted(p.name for p in out.iterdir()) == []
