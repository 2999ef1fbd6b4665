"""Matches: paired openings with colours swapped, batched concurrent play, counting, checks, saving."""

import numpy as np
import pytest

from alphazero.arena.match import play_match, save_games_ggf, save_games_transcripts
from alphazero.arena.openings import play_opening
from alphazero.arena.players import AlphaBetaPlayer, GreedyPlayer, RandomPlayer
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import IllegalMoveError
from alphazero.othello.notation import parse_transcript

from tests.arena.helpers import ScriptedPlayer


@pytest.fixture(scope="module")
def greedy_vs_random():
    return play_match(GreedyPlayer(), RandomPlayer(seed=1), num_pairs=6, opening_plies=4, seed=2)


def test_each_opening_is_played_twice_with_colours_swapped(greedy_vs_random):
    games = greedy_vs_random.games
    assert len(games) == 12
    openings = []
    for first, second in zip(games[::2], games[1::2]):
        assert first.metadata["pair"] == second.metadata["pair"]
        assert first.metadata["opening"] == second.metadata["opening"]
        assert first.metadata["opening_plies"] == 4
        assert (first.metadata["black_player"], first.metadata["white_player"]) == (
            second.metadata["white_player"],
            second.metadata["black_player"],
        )
        assert list(first.actions[:4]) == list(second.actions[:4])
        openings.append(play_opening(first.actions[:4]))
    assert len(set(openings)) == 6, "openings must reach distinct positions"


def test_records_replay_legally_and_the_counts_follow_from_their_margins(greedy_vs_random):
    result = greedy_vs_random
    wins = draws = losses = 0
    for record in result.games:
        final = record.final_state()  # replays every action under our rules
        assert final.is_over()
        assert record.black_margin == final.black_margin()
        margin_for_a = record.black_margin if record.metadata["black_player"] == result.player_a else -record.black_margin
        wins += margin_for_a > 0
        draws += margin_for_a == 0
        losses += margin_for_a < 0
    assert (result.wins, result.draws, result.losses) == (wins, draws, losses)
    assert result.num_games == 12
    assert result.score == pytest.approx((wins + draws / 2) / 12)
    summary = result.summary()
    assert {"wins", "draws", "losses", "score", "elo_diff", "elo_ci95", "games_per_second", "wipeouts"} <= set(summary)


def test_identical_deterministic_players_score_exactly_one_half():
    result = play_match(AlphaBetaPlayer(depth=1), AlphaBetaPlayer(depth=1), num_pairs=5, seed=8)
    assert result.score == 0.5 and result.elo_diff == 0.0
    assert result.player_a != result.player_b, "equal names are told apart in the results"


def test_the_pentanomial_counts_each_opening_once_by_player_a_points_over_its_two_games(greedy_vs_random):
    """The gate's unit: pairs by A's points (0, 1/2, 1, 3/2, 2), from the games themselves."""
    result = greedy_vs_random
    expected = [0] * 5
    for first, second in zip(result.games[::2], result.games[1::2]):
        points = 0.0
        for record in (first, second):
            margin = record.black_margin if record.metadata["black_player"] == result.player_a else -record.black_margin
            points += 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        expected[int(2 * points)] += 1
    assert result.pentanomial() == tuple(expected)
    assert sum(result.pentanomial()) == 6
    assert sum(count * category / 2 for category, count in enumerate(result.pentanomial())) == result.wins + result.draws / 2
    # Identical deterministic players replay one game per colour: every pair is split.
    assert play_match(AlphaBetaPlayer(depth=1), AlphaBetaPlayer(depth=1), num_pairs=5, seed=8).pentanomial() == (0, 0, 5, 0, 0)


def test_a_pair_split_between_shards_is_left_out_of_the_pentanomial():
    half = play_match(GreedyPlayer(), RandomPlayer(seed=1), num_pairs=3, opening_plies=4, seed=2, shard=(0, 2))
    assert len(half.games) == 3 and half.pentanomial() == (0, 0, 0, 0, 0)


def test_wipeouts_are_the_games_a_side_ends_with_no_disc():
    result = play_match(AlphaBetaPlayer(depth=2), RandomPlayer(seed=0), num_pairs=20, seed=1)
    expected = sum(min(record.final_state().disc_counts()) == 0 for record in result.games)
    assert result.wipeouts == expected > 0


def test_wiped_out_says_whose_discs_the_wipeouts_took():
    """Random play against alpha-beta is wiped out; the summary names the loser, not just a count."""
    result = play_match(RandomPlayer(seed=0), AlphaBetaPlayer(depth=2), num_pairs=20, seed=1)
    of_player = {result.player_a: 0, result.player_b: 0}
    for record in result.games:
        black, white = record.final_state().disc_counts()
        if black == 0:
            of_player[record.metadata["black_player"]] += 1
        if white == 0:
            of_player[record.metadata["white_player"]] += 1
    assert of_player["random(seed=0)"] > 0 and of_player["alphabeta(depth=2)"] == 0
    summary = result.summary()
    assert summary["wiped_out"] == of_player
    assert summary["wipeouts"] == sum(of_player.values()) == result.wipeouts


def test_players_are_asked_in_batches_across_games_and_never_for_a_forced_pass():
    a, b = ScriptedPlayer("first-legal-a"), ScriptedPlayer("first-legal-b")
    result = play_match(a, b, num_pairs=6, seed=5)
    assert a.new_games == b.new_games == 1
    # After the opening black is to move everywhere: A holds black in 6 games; B then gets its 6
    # black games plus the 6 where A just moved, all in one call.
    assert len(a.batches[0]) == 6
    assert len(b.batches[0]) == 12
    for batch in a.batches + b.batches:
        assert not any(state.must_pass() or state.is_over() for state in batch)
    asked = sum(len(batch) for batch in a.batches + b.batches)
    played = sum(int(np.count_nonzero(r.actions != PASS)) - 4 for r in result.games)
    assert asked == played


def test_an_illegal_move_raises_naming_the_player_game_and_position():
    cheat = ScriptedPlayer("cheater", move=lambda state: 0)  # a1 is never legal this early
    with pytest.raises(IllegalMoveError, match=r"cheater played a1 as (black|white) in game \d+ .*legal: .*position"):
        play_match(cheat, GreedyPlayer(), num_pairs=2, seed=0)
    passer = ScriptedPlayer("passer", move=lambda state: PASS)
    with pytest.raises(IllegalMoveError, match="passer played pass"):
        play_match(GreedyPlayer(), passer, num_pairs=1, seed=0)


def test_given_openings_are_used_in_order_and_too_few_is_an_error():
    openings = [parse_transcript("f5d6c3"), parse_transcript("f5f6e6f4")]
    result = play_match(GreedyPlayer(), RandomPlayer(), num_pairs=None, openings=openings)
    assert [r.metadata["opening"] for r in result.games] == ["f5d6c3", "f5d6c3", "f5f6e6f4", "f5f6e6f4"]
    with pytest.raises(ValueError, match="3 pairs requested but 2 openings given"):
        play_match(GreedyPlayer(), RandomPlayer(), num_pairs=3, openings=openings)


def test_saved_games_read_back_as_the_same_games(tmp_path, greedy_vs_random):
    from alphazero.data.ggf import read_ggf

    ggf = tmp_path / "games.ggf"
    save_games_ggf(greedy_vs_random, ggf)
    back = read_ggf(ggf)
    assert [list(r.actions) for r in back] == [list(r.actions) for r in greedy_vs_random.games]
    assert [r.black_margin for r in back] == [r.black_margin for r in greedy_vs_random.games]
    assert back[0].metadata["PB"] == greedy_vs_random.games[0].metadata["black_player"]

    text = tmp_path / "games.txt"
    save_games_transcripts(greedy_vs_random, text)
    lines = [line for line in text.read_text().splitlines() if not line.startswith("#")]
    black, white, margin, moves = lines[1].split("\t")
    assert parse_transcript(moves) == list(greedy_vs_random.games[1].actions)
    assert int(margin) == greedy_vs_random.games[1].black_margin
