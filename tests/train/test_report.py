"""`python -m alphazero.train.report RUN_DIR`: a run's networks, gates and baseline scores over time."""

import json
import time
from pathlib import Path

import pytest

from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import model_preset
from alphazero.train import checkpoints
from alphazero.train.plots import read_scalar_events
from alphazero.train.report import build_report, main, run_clock

T0 = 1_790_000_000.0  # a whole second, as sessions.jsonl records them


def _started(wall: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall))


def fake_run(run_dir: Path) -> Path:
    """Two sessions: gates at steps 100 (no promotion) and 200 (network #1, Elo +35) with an
    evaluation against two baselines at 200; the run was stopped for 990 s in between."""
    from torch.utils.tensorboard import SummaryWriter

    net = build_network(model_preset("tiny"))
    checkpoints.publish_best(run_dir, net, 0, 0.0, 0)
    checkpoints.publish_best(run_dir, net, 1, 35.0, 200)
    (run_dir / "sessions.jsonl").write_text(
        json.dumps({"started": _started(T0), "iteration": 0, "step": 0, "commit": None, "dirty": None}) + "\n"
        + json.dumps({"started": _started(T0 + 1000), "iteration": 3, "step": 150, "commit": None, "dirty": None}) + "\n"
    )
    writer = SummaryWriter(str(run_dir / "tb"))
    writer.add_scalar("loss/policy", 2.0, 50, walltime=T0 + 5)
    writer.add_scalar("arena/score", 0.45, 100, walltime=T0 + 10)
    writer.add_scalar("arena/games", 40, 100, walltime=T0 + 10)
    writer.add_scalar("loss/policy", 1.9, 150, walltime=T0 + 1005)
    writer.add_scalar("arena/score", 0.62, 200, walltime=T0 + 1010)
    writer.add_scalar("arena/games", 60, 200, walltime=T0 + 1010)
    writer.add_scalar("arena/llr", 2.9, 200, walltime=T0 + 1010)
    writer.add_scalar("elo/best", 35.0, 200, walltime=T0 + 1010)
    writer.add_scalar("elo/best_id", 1, 200, walltime=T0 + 1010)
    writer.add_scalar("eval/score_vs_greedy", 0.8, 200, walltime=T0 + 1020)
    writer.add_scalar("eval/score_vs_alphabeta_depth2", 0.55, 200, walltime=T0 + 1020)
    writer.close()
    return run_dir


def test_the_report_lists_networks_gates_and_baselines_with_run_time(tmp_path):
    report = build_report(fake_run(tmp_path / "run"))
    assert [(n.id, n.step, n.elo) for n in report.networks] == [(0, 0, 0.0), (1, 200, 35.0)]
    # Run time leaves out the 990 s between the sessions: 10 s, then 10 s after the resume.
    assert report.networks[1].run_seconds == pytest.approx(20.0)
    first, second = report.measurements
    assert (first.step, first.gate_score, first.gate_games, first.promoted, first.best_id, first.best_elo) == (100, 0.45, 40, False, 0, 0.0)  # gate scores rounded to 4 places
    assert first.run_seconds == pytest.approx(10.0) and first.baselines == {}
    assert (second.step, second.gate_score, second.gate_games, second.promoted, second.best_id, second.best_elo) == (200, 0.62, 60, True, 1, 35.0)
    assert first.gate_llr is None and second.gate_llr == 2.9  # a gate without its LLR (no gating) has none
    assert second.baselines == {"greedy": 0.8, "alphabeta_depth2": 0.55}
    assert report.step == 200 and report.run_seconds == pytest.approx(30.0)


def test_markdown_by_default_and_one_json_line_on_request(tmp_path, capsys):
    run = fake_run(tmp_path / "run")
    assert main([str(run)]) == 0
    text = capsys.readouterr().out
    # The Elo says what it is relative to: a run's own first network, not an outside anchor (a
    # report printed "Elo +1148" beside a 0.30 score against alpha-beta depth 2, unexplained).
    assert "Step 200, 0 min 30 s of run time; best network #1 (Elo +35 over the run's first network #0 (in-run ladder), since step 200)." in text
    assert "Elo: over this run's first network #0 (Elo 0: random weights, or train.init_from's network)" in text
    assert "not strength against outside players: the vs columns are scores (0-1)" in text
    assert "| #1 | 200 | 0 min 20 s | +35 |" in text
    assert "| step | run time | gate score | gate games | gate LLR | promoted | best | Elo vs #0 | vs alphabeta_depth2 | vs greedy |" in text
    assert "| 100 | 0 min 10 s | 0.450 | 40 |  |  | #0 | +0 |  |  |" in text
    assert "| 200 | 0 min 20 s | 0.620 | 60 | +2.90 | yes | #1 | +35 | 0.550 | 0.800 |" in text
    assert main([str(run), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert [n["id"] for n in data["networks"]] == [0, 1]
    assert data["elo_relative_to"] == "network #0 of this run (in-run ladder)"
    assert data["measurements"][1]["baselines"]["greedy"] == 0.8  # rounded from the events' float32


def test_a_run_without_gates_yet_says_so_and_a_non_run_is_one_line(tmp_path, capsys):
    from torch.utils.tensorboard import SummaryWriter

    run = tmp_path / "young"
    writer = SummaryWriter(str(run / "tb"))
    writer.add_scalar("loss/policy", 2.0, 10)
    writer.close()
    assert main([str(run)]) == 0
    text = capsys.readouterr().out
    assert "No gate or baseline evaluation yet" in text and "| #0 | 0 | 0 min 00 s | +0 |" in text
    assert main([str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing/tb does not exist" in err


def test_the_run_clock_counts_only_the_time_sessions_ran():
    clock = run_clock([100.0, 110.0, 500.0, 520.0], starts=[95.0, 490.0])
    assert [clock(t) for t in (100.0, 110.0, 500.0, 520.0)] == [5.0, 15.0, 25.0, 45.0]
    assert run_clock([7.0, 9.0], starts=[])(9.0) == 2.0


@pytest.mark.slow
def test_report_and_games_on_a_real_smoke_run(tmp_path, capsys):
    """The two commands on what a training run really writes (about a minute of smoke training)."""
    from alphazero.games.__main__ import main as games_main
    from tests.train.helpers import run_training, scalars

    run = tmp_path / "run"
    run_training(run)
    report = build_report(run)
    gates = scalars(run, "arena/score")
    assert [m.step for m in report.measurements if m.gate_score is not None] == [step for step, _ in gates]
    assert report.networks[0].id == 0 and all(m.best_id is not None for m in report.measurements)
    assert main([str(run)]) == 0 and "## Gates and evaluations" in capsys.readouterr().out
    assert games_main([str(run), "--show", "-1"]) == 0
    text = capsys.readouterr().out
    assert "network #" in text and "simulations" in text and ("Game over" in text)
    assert games_main([str(run), "--ggf", str(tmp_path / "games.ggf")]) == 0
    assert "games to" in capsys.readouterr().out


def test_a_damaged_events_file_is_named_in_a_warning_and_a_torn_last_record_is_not(tmp_path, caplog):
    """TensorBoard stops reading a file at a record whose checksum fails and says so only at debug
    level: the report showed a shorter run (step 0, no gates) without a word."""
    run = fake_run(tmp_path / "run")
    (events,) = (run / "tb").glob("events.out.tfevents.*")
    data = events.read_bytes()
    torn = tmp_path / "torn"
    torn.mkdir()
    (torn / events.name).write_bytes(data[:-7])  # a killed writer's last record
    with caplog.at_level("WARNING"):
        read_scalar_events(torn)
    assert "checksum" not in caplog.text
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0xFF  # inside a record of the middle of the file
    events.write_bytes(bytes(damaged))
    with caplog.at_level("WARNING"):
        report = build_report(run)
    assert f"{events}: a record fails its checksum (damaged on disk)" in caplog.text
    assert report.step < 200  # the events after the damage are lost, as TensorBoard loses them


def test_a_garbled_session_line_is_named_in_a_warning_and_a_torn_last_one_is_not(tmp_path, caplog):
    from alphazero.train.provenance import read_sessions

    run = fake_run(tmp_path / "run")
    sessions = run / "sessions.jsonl"
    lines = sessions.read_text().splitlines()
    sessions.write_text(lines[0] + "\n" + lines[1][:20])  # torn by a kill while appending
    with caplog.at_level("WARNING"):
        assert len(read_sessions(run)) == 1
    assert "sessions.jsonl" not in caplog.text
    sessions.write_text("#garbage\n" + lines[1] + "\n")
    with caplog.at_level("WARNING"):
        assert len(read_sessions(run)) == 1
    assert f"{sessions}:1: not a session record, skipped ('#garbage')" in caplog.text
