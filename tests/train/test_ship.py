"""Shipping a run's network: weights plus the provenance a reader needs (config, commits, which
network), and one line with nothing written when the run cannot be shipped."""

import json

import pytest
import torch

from alphazero.nn.checkpoint import build_network, load_checkpoint, load_network, save_checkpoint
from alphazero.nn.config import ModelConfig
from alphazero.train import checkpoints
from alphazero.train.provenance import SESSIONS_FILE, code_version, describe, read_sessions, record_session
from alphazero.train.ship import main, ship

SMALL = ModelConfig(blocks=1, channels=8, value_hidden=8)


def fake_run(run_dir, promotions=2):
    """A run directory as the loop leaves it: config, best pointer, numbered networks, latest.pt."""
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "config.yaml").write_text("model:\n  blocks: 1\n")
    nets = []
    for network_id in range(promotions + 1):
        torch.manual_seed(network_id)
        net = build_network(SMALL)
        checkpoints.publish_best(run_dir, net, network_id, 50.0 * network_id, 100 * network_id)
        nets.append(net)
    torch.manual_seed(99)
    latest = build_network(SMALL)
    save_checkpoint(run_dir / "checkpoints" / "latest.pt", latest,
                    extra={"iteration": 7, "step": 321, "seconds": 600.0, "best_id": promotions, "rng": {"x": 1}})
    record_session(run_dir, 0, 0, {"commit": "a" * 40, "dirty": False})
    record_session(run_dir, 3, 150, {"commit": "b" * 40, "dirty": True})
    return nets, latest


def same_weights(a, b):
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def test_ships_the_best_network_with_config_sessions_and_counters(tmp_path):
    nets, _ = fake_run(tmp_path / "run")
    out = tmp_path / "selfplay.pt"
    ship(tmp_path / "run", out, commits=("c" * 7,))
    shipped = load_checkpoint(out)
    assert shipped.optimizer_state is None and shipped.scheduler_state is None
    assert same_weights(load_network(out), nets[2])
    extra = shipped.extra
    assert extra["network"] == {"file": "net-000002.pt", "choice": "best", "id": 2, "elo": 100.0, "step": 200}
    assert extra["config"] == "model:\n  blocks: 1\n"
    assert [s["commit"] for s in extra["sessions"]] == ["a" * 40, "b" * 40]
    assert extra["sessions"][1]["dirty"] is True and extra["commits_given"] == ["c" * 7]
    assert extra["run"] == {"iteration": 7, "step": 321, "seconds": 600.0, "best_id": 2}  # no RNG state


def test_the_summary_line_counts_in_words(tmp_path, capsys):
    fake_run(tmp_path / "run")
    assert main([str(tmp_path / "run"), str(tmp_path / "a.pt")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("2 recorded sessions, 0 commits given")
    assert main([str(tmp_path / "run"), str(tmp_path / "b.pt"), "--commit", "c" * 7]) == 0
    assert capsys.readouterr().out.rstrip().endswith("2 recorded sessions, 1 commit given")


def test_ships_latest_or_a_numbered_network_on_request(tmp_path):
    nets, latest = fake_run(tmp_path / "run")
    ship(tmp_path / "run", tmp_path / "latest.pt", network="latest")
    assert same_weights(load_network(tmp_path / "latest.pt"), latest)
    assert load_checkpoint(tmp_path / "latest.pt").extra["network"]["step"] == 321
    ship(tmp_path / "run", tmp_path / "one.pt", network="1")
    assert same_weights(load_network(tmp_path / "one.pt"), nets[1])


@pytest.mark.parametrize(
    "damage, args, message",
    [
        (None, ["missing-run"], "no run directory at"),
        ("config", [], "config.yaml is missing"),
        ("pointer", [], "best.json is missing"),
        ("garbled pointer", [], "best.json is not valid JSON"),
        ("pointer without step", [], "best.json does not name a network"),
        ("out is a directory", [], "selfplay.pt is a directory: name a file to write"),
        (None, ["--network", "9"], "net-000009.pt is missing"),
        (None, ["--network", "newest"], "--network must be best, latest or a network number"),
        ("corrupt", [], "net-000002.pt"),
    ],
)
def test_a_run_that_cannot_be_shipped_gets_one_line_and_no_file(tmp_path, capsys, damage, args, message):
    run_dir = tmp_path / "run"
    fake_run(run_dir)
    if damage == "config":
        (run_dir / "config.yaml").unlink()
    elif damage == "pointer":
        (run_dir / "checkpoints" / "best.json").unlink()
    elif damage == "corrupt":
        (run_dir / "checkpoints" / "net-000002.pt").write_bytes(b"not a checkpoint")
    elif damage == "garbled pointer":  # a traceback from read_best_pointer's ValueError
        (run_dir / "checkpoints" / "best.json").write_text("{garbage")
    elif damage == "pointer without step":  # passed the pointer check, then a KeyError traceback in ship
        (run_dir / "checkpoints" / "best.json").write_text('{"id": 2, "file": "net-000002.pt", "elo": 0.0}')
    elif damage == "out is a directory":  # the message named the temp file: ".selfplay.pt.1a2b.tmp -> selfplay.pt"
        (tmp_path / "selfplay.pt").mkdir()
    target = str(tmp_path / "missing-run") if args[:1] == ["missing-run"] else str(run_dir)
    out = tmp_path / "selfplay.pt"
    assert main([target, str(out), *[a for a in args if a != "missing-run"]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]
    assert not out.is_file()


def test_sessions_skip_a_torn_line_and_say_what_they_ran(tmp_path):
    record_session(tmp_path, 0, 0, {"commit": "a" * 40, "dirty": False})
    with open(tmp_path / SESSIONS_FILE, "a") as handle:
        handle.write('{"started": "2026-')  # a kill mid-write
    record_session(tmp_path, 2, 40, {"commit": None, "dirty": None})
    rows = read_sessions(tmp_path)
    assert [(r["iteration"], r["commit"]) for r in rows] == [(0, "a" * 40), (2, None)]
    assert describe(rows[0]) == "commit aaaaaaa" and describe(rows[1]) == "no git checkout"
    assert describe({"commit": "b" * 40, "dirty": True}) == "commit bbbbbbb with uncommitted changes"


def test_code_version_names_this_checkout_or_none(tmp_path):
    here = code_version()
    assert here["commit"] is None or (len(here["commit"]) == 40 and isinstance(here["dirty"], bool))
    assert code_version(tmp_path) == {"commit": None, "dirty": None}
    json.dumps(here)
