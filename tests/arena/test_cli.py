"""`python -m alphazero.arena`: a match prints one JSON line; a ladder writes a markdown table."""

import json
import subprocess
import sys

import pytest

from alphazero.arena.__main__ import main
from alphazero.arena.ladder import play_ladder
from alphazero.arena.players import AlphaBetaPlayer, GreedyPlayer, RandomPlayer


def test_match_command_prints_one_json_line_with_the_results(tmp_path):
    games = tmp_path / "games.ggf"
    completed = subprocess.run(
        [sys.executable, "-m", "alphazero.arena", "alphabeta:depth=1", "random:seed=2", "--pairs", "3",
         "--opening-plies", "3", "--seed", "5", "--save-ggf", str(games)],
        capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    for key in ("wins", "draws", "losses", "score", "elo_diff", "elo_ci95", "games_per_second", "wipeouts"):
        assert key in result
    assert result["wins"] + result["draws"] + result["losses"] == 6
    assert games.read_text().count("(;GM[Othello]") == 6


def test_ladder_command_writes_scores_and_fitted_elo_as_markdown(tmp_path, capsys):
    out = tmp_path / "ladder.md"
    assert main(["ladder", "random", "greedy", "alphabeta:depth=2", "--pairs", "3", "--out", str(out)]) == 0
    report = out.read_text()
    assert report.splitlines()[0].startswith("| rank | player | Elo |")
    assert "alphabeta(depth=2)" in report and "greedy" in report and "random(seed=0)" in report
    assert "(wins-draws-losses)" in report
    printed = capsys.readouterr().out.strip().splitlines()
    ratings = json.loads(printed[-1])
    assert set(ratings) == {"random(seed=0)", "greedy", "alphabeta(depth=2)"}
    assert abs(sum(ratings.values())) < 1.0


def test_ladder_ranks_the_stronger_player_first_and_tables_agree():
    ladder = play_ladder([RandomPlayer(seed=1), AlphaBetaPlayer(depth=2), GreedyPlayer()], num_pairs=4, seed=2)
    points, games, record = ladder.tables()
    assert (games + games.T == 2 * games).all() and games[0, 1] == 8
    assert (points + points.T)[0, 1] == 8
    assert ladder.ratings[1] == max(ladder.ratings)
    assert ladder.to_markdown().splitlines()[2].startswith("| 1 | alphabeta(depth=2)")


def test_gauntlet_plays_only_pairings_with_the_first_players():
    from alphazero.arena.ladder import ladder_pairings

    assert ladder_pairings(4) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert ladder_pairings(4, gauntlet=1) == [(0, 1), (0, 2), (0, 3)]
    assert ladder_pairings(4, gauntlet=2) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]
    with pytest.raises(ValueError, match="no field"):
        ladder_pairings(3, gauntlet=3)
    ladder = play_ladder([AlphaBetaPlayer(depth=1), RandomPlayer(seed=1), GreedyPlayer()], num_pairs=2, gauntlet=1)
    _, games, _ = ladder.tables()
    assert games[0, 1] == games[0, 2] == 4 and games[1, 2] == 0


class _MustNotPlay(GreedyPlayer):
    def select_moves(self, *args, **kwargs):
        raise AssertionError("a finished match was played again")

    def select_move(self, *args, **kwargs):
        raise AssertionError("a finished match was played again")


def test_a_restarted_ladder_reuses_the_matches_in_its_results_file(tmp_path):
    results = tmp_path / "ladder.jsonl"
    first = play_ladder([RandomPlayer(seed=1), GreedyPlayer()], num_pairs=3, seed=4, results_path=results)
    with results.open("a") as handle:
        handle.write('{"player_a": "torn')  # a line cut by a kill is ignored
    again = play_ladder([RandomPlayer(seed=1), _MustNotPlay()], num_pairs=3, seed=4, results_path=results)
    assert again.matches[(0, 1)].wins == first.matches[(0, 1)].wins
    assert again.tables()[0].tolist() == first.tables()[0].tolist()
    other_openings = play_ladder([RandomPlayer(seed=1), GreedyPlayer()], num_pairs=3, seed=5, results_path=results)
    assert other_openings.matches[(0, 1)].num_games == 6
    assert len(results.read_text().splitlines()) == 3  # two matches + the torn line


def test_a_results_line_with_bytes_that_are_not_utf8_is_ignored_alone(tmp_path, capsys):
    results = tmp_path / "ladder.jsonl"
    first = play_ladder([RandomPlayer(seed=1), AlphaBetaPlayer(depth=1), GreedyPlayer()], num_pairs=2, seed=4, results_path=results)
    lines = results.read_bytes().split(b"\n")
    lines[0] = b"\xff" + lines[0][1:]
    results.write_bytes(b"\n".join(lines))
    again = play_ladder([RandomPlayer(seed=1), AlphaBetaPlayer(depth=1), _MustNotPlay()], num_pairs=2, seed=4, results_path=results)
    assert again.matches[(0, 1)].wins == first.matches[(0, 1)].wins, "the damaged match is played again"
    assert "ladder.jsonl:1: unreadable ladder result ignored" in capsys.readouterr().err


def test_the_ladder_table_says_who_gave_and_who_suffered_the_wipeouts(tmp_path):
    results = tmp_path / "ladder.jsonl"
    ladder = play_ladder([RandomPlayer(seed=0), AlphaBetaPlayer(depth=2)], num_pairs=20, seed=1, results_path=results)
    match = ladder.matches[(0, 1)]
    assert match.a_wiped_out > 0 and match.b_wiped_out == 0
    rows = {line.split("|")[2].strip(): line.split("|")[6].strip() for line in ladder.to_markdown().splitlines()[2:4]}
    assert rows == {"random(seed=0)": f"0-{match.a_wiped_out}", "alphabeta(depth=2)": f"{match.a_wiped_out}-0"}
    # Read back from the results file, the split survives; a line written before it was recorded
    # (no a_wiped_out / b_wiped_out) counts its wipeouts as unattributed.
    stand_in = _MustNotPlay()
    stand_in.name = "alphabeta(depth=2)"
    again = play_ladder([RandomPlayer(seed=0), stand_in], num_pairs=20, seed=1, results_path=results)
    assert again.to_markdown() == ladder.to_markdown()
    row = json.loads(results.read_text())
    del row["a_wiped_out"], row["b_wiped_out"]
    results.write_text(json.dumps(row) + "\n")
    old = play_ladder([RandomPlayer(seed=0), stand_in], num_pairs=20, seed=1, results_path=results)
    assert f"| 0-0 (+{match.wipeouts} unattributed) |" in old.to_markdown()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["greedy"], "the following arguments are required"),
        (["greedy", "random"], "--pairs"),
        (["greedy", "random", "--pairs", "0"], "must be >= 1"),
        (["greedy", "minimax", "--pairs", "2"], "unknown player kind 'minimax'"),
        (["greedy", "random", "--pairs", "20", "--opening-plies", "1"], "distinct 1-ply openings"),
        (["ladder", "greedy", "--pairs", "2"], "at least 2 players"),
    ],
)
def test_bad_arguments_exit_with_status_2_and_a_clear_message(argv, message, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def _stderr_is_a_terminal(monkeypatch, answer: bool) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: answer)


MATCH = ["alphabeta:depth=1", "random:seed=2", "--pairs", "2", "--opening-plies", "3"]


def test_a_match_on_a_terminal_shows_its_progress_on_stderr_by_default(capsys, monkeypatch):
    _stderr_is_a_terminal(monkeypatch, True)
    assert main(MATCH) == 0
    captured = capsys.readouterr()
    assert len(captured.out.strip().splitlines()) == 1 and json.loads(captured.out)["games"] == 4
    # Rewritten in place (\r), ending with the finished match and a newline.
    assert captured.err.startswith("\r[arena] alphabeta(depth=1) vs random(seed=2): 0/4 games over")
    assert "4/4 games over, 100% of the moves" in captured.err.splitlines()[-1] and captured.err.endswith("\n")


def test_a_match_in_a_pipe_prints_only_its_json_line(capsys, monkeypatch):
    _stderr_is_a_terminal(monkeypatch, False)
    assert main(MATCH) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert len(captured.out.strip().splitlines()) == 1


def test_progress_flags_override_the_terminal_test(capsys, monkeypatch):
    _stderr_is_a_terminal(monkeypatch, True)
    assert main([*MATCH, "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    _stderr_is_a_terminal(monkeypatch, False)
    assert main([*MATCH, "--progress"]) == 0
    # Not a terminal: whole lines (no \r), the first and the last.
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("[arena] alphabeta(depth=1) vs random(seed=2): 0/4 games over") and "\r" not in "".join(lines)
    assert lines[-1].startswith("[arena] alphabeta(depth=1) vs random(seed=2): 4/4 games over, 100% of the moves")


def test_a_ladder_on_a_terminal_shows_each_match_and_in_a_pipe_only_its_results(capsys, monkeypatch):
    _stderr_is_a_terminal(monkeypatch, True)
    assert main(["ladder", "random", "greedy", "--pairs", "1"]) == 0
    err = capsys.readouterr().err
    assert "[arena] random(seed=0) vs greedy: 2/2 games over" in err and "ladder 1/1: random(seed=0) vs greedy" in err
    _stderr_is_a_terminal(monkeypatch, False)
    assert main(["ladder", "random", "greedy", "--pairs", "1"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", ["match", "ladder"])
@pytest.mark.parametrize("with_log", [True, False])
def test_ctrl_c_ends_a_match_or_ladder_with_one_line_saying_what_was_kept(tmp_path, capsys, monkeypatch, command, with_log):
    """A KeyboardInterrupt mid-match: exit 130, no traceback, the players closed, and one line
    saying how many finished games the games log holds for a resume (or that none are kept)."""
    import alphazero.arena.__main__ as cli

    log = tmp_path / "games.jsonl"
    closed = []

    def interrupted(*args, game_log=None, **kwargs):
        game_log.append("random(seed=0)", "greedy", [], True, [], 0)  # one game finished before the Ctrl-C
        raise KeyboardInterrupt

    def no_log(*args, game_log=None, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "play_match" if command == "match" else "play_ladder", interrupted if with_log else no_log)
    monkeypatch.setattr(RandomPlayer, "close", lambda self: closed.append(self.name), raising=False)
    argv = (["ladder"] if command == "ladder" else []) + ["random", "greedy", "--pairs", "1"] + (["--games-log", str(log)] if with_log else [])
    assert main(argv) == cli.EXIT_INTERRUPTED == 130
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    line = captured.err.strip()
    if with_log:
        assert line == f"alphazero.arena: interrupted: {log} holds 1 finished game; the same command resumes from them"
    else:
        assert line == "alphazero.arena: interrupted: the games finished so far are not kept (--games-log FILE keeps them for a resume)"
    assert closed == ["random(seed=0)"]


def test_ctrl_c_in_a_ladder_names_the_results_file_that_keeps_its_finished_matches(tmp_path, capsys, monkeypatch):
    """A ladder with --results (and no --games-log) keeps each finished match there, and a
    restarted ladder reuses them: the Ctrl-C line says so instead of "not kept"."""
    import alphazero.arena.ladder as ladder_module

    results = tmp_path / "results.jsonl"
    real = ladder_module._append_result

    def append_then_ctrl_c(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(ladder_module, "_append_result", append_then_ctrl_c)
    assert main(["ladder", "random", "greedy", "random:seed=1", "--pairs", "1", "--results", str(results)]) == 130
    line = capsys.readouterr().err.strip()
    assert line == f"alphazero.arena: interrupted: {results} holds 1 finished match; the same command resumes from them"
