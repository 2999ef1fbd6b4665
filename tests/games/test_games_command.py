"""`python -m alphazero.games RUN_DIR`: list, export as GGF and replay a run's self-play games."""

import numpy as np
import pytest

from alphazero.data.ggf import read_ggf
from alphazero.games.__main__ import main
from alphazero.othello.bitboard import PASS
from alphazero.othello.notation import action_name
from alphazero.play.render import render_result
from alphazero.replay.buffer import ShardWriter
from tests.replay.replay_games import random_records


@pytest.fixture
def run(tmp_path):
    """A run directory whose replay/ holds 12 games in 4 shards, written oldest first."""
    writer = ShardWriter(tmp_path / "run" / "replay", "w0")
    games = []
    for shard in range(4):
        records = random_records(3, seed=shard, first_id=3 * shard)
        writer.write(records)
        games += records
    return tmp_path / "run", games


def test_the_listing_numbers_the_games_and_shows_the_newest(run, capsys):
    run_dir, games = run
    assert main([str(run_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{run_dir / 'replay'}: 12 games in 4 shards"
    rows = lines[2:-1]
    assert [int(row.split()[0]) for row in rows] == list(range(3, 13))
    newest = games[-1]
    margin = newest.black_margin
    result = "draw" if margin == 0 else f"Black +{margin}" if margin > 0 else f"White +{-margin}"
    assert rows[-1].split()[1:4] == ["net-0007", str(int(np.count_nonzero(newest.actions != PASS))), *result.split()[:1]]
    assert "--show K" in lines[-1]
    assert main([str(run_dir), "--last", "2"]) == 0
    assert [int(row.split()[0]) for row in capsys.readouterr().out.splitlines()[2:]] == [11, 12]


def test_ggf_export_of_all_games_and_of_the_newest(run, tmp_path, capsys):
    run_dir, games = run
    out = tmp_path / "all.ggf"
    assert main([str(run_dir), "--ggf", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote 12 of 12 games to {out}"
    back = read_ggf(out)
    assert [list(r.actions) for r in back] == [list(g.actions) for g in games]
    assert [r.black_margin for r in back] == [g.black_margin for g in games]
    assert back[0].metadata["PB"] == "alphazero-net-0007"
    newest = tmp_path / "newest.ggf"
    assert main([str(run_dir / "replay"), "--ggf", str(newest), "--last", "5"]) == 0  # the replay directory itself
    assert [list(r.actions) for r in read_ggf(newest)] == [list(g.actions) for g in games[-5:]]


def test_show_replays_a_game_move_by_move_with_the_search(run, capsys):
    run_dir, games = run
    assert main([str(run_dir), "--show", "-1"]) == 0
    text = capsys.readouterr().out
    assert main([str(run_dir), "--show", "12"]) == 0
    assert capsys.readouterr().out == text  # -1 is the newest, game 12
    game = games[-1]
    assert text.startswith("game 12 of 12: shard-") and "its game 3;" in text and "8 simulations" in text
    ply_lines = [line for line in text.splitlines() if line.startswith("ply ")]
    assert len(ply_lines) == len(game.actions)
    first = ply_lines[0]
    assert first.startswith(f"ply 1: Black plays {action_name(int(game.actions[0]))} (flips ")
    assert f"value {game.root_values[0]:+.2f} for Black" in first
    top = int(np.argmax(game.policies[0]))
    assert f"search: {action_name(top)} {100 * float(game.policies[0][top]):.0f}%" in first
    assert text.rstrip().endswith(render_result(game.final_state()))
    assert text.count("    a b c d e f g h") == int(np.count_nonzero(game.actions != PASS))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--show", "13"], "no game 13 in"),
        (["--show", "-13"], "no game -13 in"),
    ],
)
def test_a_game_that_is_not_there_is_one_line(run, capsys, argv, message):
    run_dir, _ = run
    assert main([str(run_dir), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "games 1..12" in err


def test_a_directory_without_games_and_bad_numbers_are_refused(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    assert "has no replay/ directory" in capsys.readouterr().err
    for bad in (["--show", "0"], ["--last", "0"], ["--show", "x"]):
        with pytest.raises(SystemExit):
            main([str(tmp_path), *bad])
    assert "argument --show: expected a game number" in capsys.readouterr().err


def test_an_unreadable_shard_is_skipped_with_a_warning(run, capsys):
    run_dir, _ = run
    shards = sorted((run_dir / "replay").glob("shard-*.npz"))
    shards[1].write_bytes(b"not a shard")
    assert main([str(run_dir), "--last", "20"]) == 0
    captured = capsys.readouterr()
    assert "9 games in 3 shards" in captured.out and shards[1].name in captured.err


def test_ctrl_c_ends_the_command_with_one_line_and_no_partial_ggf(run, tmp_path, capsys, monkeypatch):
    """A KeyboardInterrupt while the games are read: exit 130, no traceback, one line, and --ggf
    not written (the write is atomic and had not started)."""
    import alphazero.games.__main__ as cli

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "write_ggf", ctrl_c)
    run_dir, _ = run
    out = tmp_path / "out.ggf"
    assert main([str(run_dir), "--ggf", str(out)]) == cli.EXIT_INTERRUPTED == 130
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.err.strip() == f"alphazero.games: interrupted; {out} was not written"
    assert not out.exists() and not list(tmp_path.glob(".out.ggf.*"))
