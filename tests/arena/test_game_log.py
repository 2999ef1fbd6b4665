"""Game logs: a killed match resumes at its first unfinished game; damaged records are replayed."""

import json

import pytest

from alphazero.arena.__main__ import main as arena_main
from alphazero.arena.game_log import GameLog
from alphazero.arena.match import play_match
from alphazero.arena.players import AlphaBetaPlayer, GreedyPlayer, Player


class CountingPlayer(Player):
    """Wraps a player and counts the positions it is asked about (to see which games were played)."""

    def __init__(self, inner: Player, fail_after: int | None = None):
        self.inner, self.name, self.identity, self.calls, self.fail_after = inner, inner.name, inner.identity, 0, fail_after

    def select_moves(self, states):
        self.calls += len(states)
        if self.fail_after is not None and self.calls > self.fail_after:
            raise KeyboardInterrupt("simulated kill")
        return self.inner.select_moves(states)


def _outcomes(result):
    return sorted((r.metadata["opening"], r.metadata["black_player"], r.black_margin, tuple(r.actions)) for r in result.games)


def test_a_match_interrupted_mid_way_resumes_with_the_logged_games(tmp_path):
    log = GameLog(tmp_path / "games.jsonl")
    reference = play_match(GreedyPlayer(), AlphaBetaPlayer(depth=1), num_pairs=4, seed=3)

    killed = CountingPlayer(GreedyPlayer(), fail_after=70)  # dies in the third game (~30 moves each)
    with pytest.raises(KeyboardInterrupt):
        play_match(killed, AlphaBetaPlayer(depth=1), num_pairs=4, seed=3, game_log=log, concurrency=1)
    logged = log.finished_games("greedy", "alphabeta(depth=1)")
    assert len(logged) == 2, "games finish one by one with concurrency=1 and each is logged as it ends"

    resumed_player = CountingPlayer(GreedyPlayer())
    resumed = play_match(resumed_player, AlphaBetaPlayer(depth=1), num_pairs=4, seed=3, game_log=log, concurrency=1)
    assert _outcomes(resumed) == _outcomes(reference), "deterministic players: resumed match == uninterrupted match"
    assert (resumed.wins, resumed.draws, resumed.losses) == (reference.wins, reference.draws, reference.losses)
    full_calls = CountingPlayer(GreedyPlayer())
    play_match(full_calls, AlphaBetaPlayer(depth=1), num_pairs=4, seed=3)
    assert 0 < resumed_player.calls < full_calls.calls, "the logged games were not played again"
    assert len(log.finished_games("greedy", "alphabeta(depth=1)")) == 8


def test_games_of_other_players_or_openings_are_not_reused(tmp_path):
    log = GameLog(tmp_path / "games.jsonl")
    play_match(GreedyPlayer(), AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=log)
    assert log.finished_games("alphabeta(depth=1)", "greedy") == {}, "A and B are not interchangeable"
    player = CountingPlayer(GreedyPlayer())
    play_match(player, AlphaBetaPlayer(depth=1), num_pairs=2, seed=4, game_log=log)
    assert player.calls > 0, "other openings: every game is played"


def test_torn_and_damaged_lines_are_reported_and_their_games_played_again(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    log = GameLog(path)
    play_match(GreedyPlayer(), AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=log)
    lines = path.read_text().splitlines()
    assert len(lines) == 4
    wrong_score = json.loads(lines[1])
    wrong_score["black_margin"] += 2
    unfinished = json.loads(lines[2])
    unfinished["moves"] = unfinished["moves"][:-4]
    path.write_text("\n".join([lines[0], json.dumps(wrong_score), json.dumps(unfinished), lines[3][:25]]))
    kept = log.finished_games("greedy", "alphabeta(depth=1)")
    err = capsys.readouterr().err
    assert len(kept) == 1
    assert "games.jsonl:2" in err and "record says" in err
    assert "games.jsonl:3" in err and "not finished" in err
    assert "games.jsonl:4" in err
    result = play_match(GreedyPlayer(), AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=log)
    assert result.num_games == 4
    assert len(log.finished_games("greedy", "alphabeta(depth=1)")) == 4, "a torn last line does not swallow the next record"


def test_a_line_with_bytes_that_are_not_utf8_is_reported_alone_and_its_game_played_again(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    log = GameLog(path)
    play_match(GreedyPlayer(), AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=log)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1][:40] + b"\xff\xfe" + lines[1][42:]
    missing = json.loads(lines[2])
    del missing["player_b"]
    lines[2] = json.dumps(missing).encode()
    path.write_bytes(b"\n".join(lines))
    assert len(log.finished_games("greedy", "alphabeta(depth=1)")) == 2, "the other lines still count"
    err = capsys.readouterr().err
    assert "games.jsonl:2: unusable game record ignored" in err and "utf-8" in err
    assert "games.jsonl:3: unusable game record ignored, the game will be played again (no field 'player_b')" in err


@pytest.mark.parametrize(
    "option, ladder",
    [("--games-log", False), ("--save-ggf", False), ("--save-transcripts", False), ("--results", True), ("--out", True),
     ("--games-log", True)],
)
def test_an_output_file_that_cannot_be_written_is_refused_before_any_game(tmp_path, capsys, option, ladder):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for path, problem in ((tmp_path, f"{tmp_path} is a directory"), (blocker / "x.out", f"{blocker} is a file, not a directory")):
        argv = (["ladder"] if ladder else []) + ["greedy", "random", "--pairs", "1", option, str(path)]
        with pytest.raises(SystemExit) as caught:
            arena_main(argv)
        assert caught.value.code == 2
        captured = capsys.readouterr()
        assert f"error: {option}: {problem}" in captured.err and "Traceback" not in captured.err
        assert captured.out == "", "refused before a game was played"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_concurrency_must_be_positive():
    with pytest.raises(ValueError, match="concurrency"):
        play_match(GreedyPlayer(), GreedyPlayer(), num_pairs=1, concurrency=0)


def test_cli_match_with_games_log_resumes(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    args = ["greedy", "alphabeta:depth=1", "--pairs", "2", "--seed", "5", "--games-log", str(log), "--concurrency", "1"]
    assert arena_main(args) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert len(log.read_text().splitlines()) == 4
    assert arena_main(args + ["--progress"]) == 0
    captured = capsys.readouterr()
    second = json.loads(captured.out.strip().splitlines()[-1])
    assert "4 of 4 games taken from" in captured.err
    assert (first["wins"], first["draws"], first["losses"]) == (second["wins"], second["draws"], second["losses"])
    assert len(log.read_text().splitlines()) == 4, "nothing replayed, nothing appended"


def test_a_ladder_passes_its_game_log_to_every_match(tmp_path):
    from alphazero.arena.ladder import play_ladder

    log = GameLog(tmp_path / "games.jsonl")
    first = play_ladder([GreedyPlayer(), AlphaBetaPlayer(depth=1), AlphaBetaPlayer(depth=2)], num_pairs=2, seed=1, game_log=log, concurrency=2)
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 3 * 4
    players = [CountingPlayer(GreedyPlayer()), CountingPlayer(AlphaBetaPlayer(depth=1)), CountingPlayer(AlphaBetaPlayer(depth=2))]
    again = play_ladder(players, num_pairs=2, seed=1, game_log=log)
    assert all(player.calls == 0 for player in players), "every game came from the log"
    assert again.to_markdown() == first.to_markdown()


def test_shards_sharing_a_game_log_split_a_match_and_together_make_the_whole(tmp_path):
    log = GameLog(tmp_path / "games.jsonl")
    reference = play_match(GreedyPlayer(), AlphaBetaPlayer(depth=1), num_pairs=3, seed=3)
    parts = [play_match(GreedyPlayer(), AlphaBetaPlayer(depth=1), num_pairs=3, seed=3, game_log=log, shard=(k, 2)) for k in (0, 1)]
    assert [part.num_games for part in parts] == [3, 3], "games 0, 2, 4 and 1, 3, 5"
    assert {r.metadata["game"] for r in parts[0].games} == {0, 2, 4}
    assert sum(part.wins for part in parts) == reference.wins and sum(part.losses for part in parts) == reference.losses
    player = CountingPlayer(GreedyPlayer())
    whole = play_match(player, AlphaBetaPlayer(depth=1), num_pairs=3, seed=3, game_log=log)
    assert player.calls == 0, "every game came from the shards' log"
    assert _outcomes(whole) == _outcomes(reference)


@pytest.mark.parametrize("shard", [(2, 2), (-1, 2), (0, 0)])
def test_a_shard_outside_its_parts_is_refused(shard):
    with pytest.raises(ValueError, match="not one of"):
        play_match(GreedyPlayer(), GreedyPlayer(), num_pairs=1, shard=shard)


def test_a_sharded_ladder_records_no_results_but_fills_the_log_for_the_whole_ladder(tmp_path, capsys):
    log, results = tmp_path / "games.jsonl", tmp_path / "results.jsonl"
    common = ["ladder", "greedy", "alphabeta:depth=1", "random", "--pairs", "2", "--seed", "2", "--games-log", str(log)]
    with pytest.raises(SystemExit):
        arena_main(common + ["--shard", "0/2", "--results", str(results)])
    assert "leave the results file out of the shards" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        arena_main(common + ["--shard", "0-2"])
    assert "expected K/N" in capsys.readouterr().err
    for shard in ("0/2", "1/2"):
        assert arena_main(common + ["--shard", shard]) == 0
    assert not results.exists()
    assert len(log.read_text().splitlines()) == 3 * 4
    assert arena_main(common + ["--results", str(results), "--progress"]) == 0
    assert capsys.readouterr().err.count("4 of 4 games taken from") == 3
    assert len(results.read_text().splitlines()) == 3


class _Labelled(GreedyPlayer):
    """Greedy under a chosen name and identity: stands for a network player (its identity is its
    checkpoint's digest), without loading one."""

    def __init__(self, name: str, identity: str):
        self.name, self.identity = name, identity


def test_games_another_network_played_under_the_same_name_are_played_again(tmp_path, capsys):
    log = GameLog(tmp_path / "games.jsonl")
    play_match(_Labelled("mcts(x.pt,simulations=1)", "aaaa"), AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=log)
    rows = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert {row["identity_a"] for row in rows} == {"aaaa"} and not any("identity_b" in row for row in rows)

    same = CountingPlayer(_Labelled("mcts(x.pt,simulations=1)", "aaaa"))
    play_match(same, AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=log)
    assert same.calls == 0, "the same network: its logged games are taken"

    other = CountingPlayer(_Labelled("mcts(x.pt,simulations=1)", "bbbb"))
    capsys.readouterr()
    result = play_match(other, AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=log)
    assert other.calls > 0 and result.num_games == 4
    assert "4 logged games of mcts(x.pt,simulations=1) vs alphabeta(depth=1) were played by another network" in capsys.readouterr().err


def test_games_logged_before_identities_were_recorded_are_taken_on_their_names(tmp_path):
    path = tmp_path / "games.jsonl"
    play_match(_Labelled("mcts(x.pt,simulations=1)", ""), AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=GameLog(path))
    assert "identity" not in path.read_text()
    player = CountingPlayer(_Labelled("mcts(x.pt,simulations=1)", "cccc"))
    play_match(player, AlphaBetaPlayer(depth=1), num_pairs=2, seed=3, game_log=GameLog(path))
    assert player.calls == 0


def test_a_ladder_results_file_replays_a_match_of_another_network_under_the_same_name(tmp_path, capsys):
    from alphazero.arena.ladder import play_ladder

    results = tmp_path / "results.jsonl"
    play_ladder([_Labelled("net", "aaaa"), AlphaBetaPlayer(depth=1)], num_pairs=1, results_path=results)
    again = CountingPlayer(_Labelled("net", "aaaa"))
    play_ladder([again, AlphaBetaPlayer(depth=1)], num_pairs=1, results_path=results)
    assert again.calls == 0
    other = CountingPlayer(_Labelled("net", "bbbb"))
    capsys.readouterr()
    play_ladder([other, AlphaBetaPlayer(depth=1)], num_pairs=1, results_path=results)
    assert other.calls > 0
    assert "the match net vs alphabeta(depth=1) there was played by another network" in capsys.readouterr().err


def test_a_damaged_line_is_reported_once_however_many_pairings_read_the_log(tmp_path, capsys):
    from alphazero.arena.ladder import play_ladder

    path = tmp_path / "games.jsonl"
    path.write_text("{not json\n")
    play_ladder([GreedyPlayer(), AlphaBetaPlayer(depth=1), _Labelled("third", "")], num_pairs=1, game_log=GameLog(path))
    assert capsys.readouterr().err.count("games.jsonl:1: unusable game record ignored") == 1
