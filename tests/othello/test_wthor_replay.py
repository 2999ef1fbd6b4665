"""Every WTHOR tournament game (1977-2018) replays under our rules, and its recorded score agrees
with our final count: 124,082 real games as an engine test.

Pinned from an independent replay: all 124,082 games are legal (passes inferred), 413 stop before
the game is over, and the recorded black disc count matches the replayed count (empties to the
winner) in 123,700; the 382 that do not are all among the unfinished ones.
"""

import random

import numpy as np
import pytest

from alphazero.data.wthor import REPLAY_OK, read_wthor_directory, replay_database

pytestmark = pytest.mark.shared

TOTAL_GAMES = 124_082
UNFINISHED = 413
SCORE_MATCHES = 123_700


@pytest.fixture(scope="module")
def replay(wthor_dir):
    return replay_database(read_wthor_directory(wthor_dir))


def _listing(replay, mask, limit=20):
    db = replay.database
    rows = [f"{db.files[db.file_id[g]]}#{db.index[g]}" for g in np.flatnonzero(mask)]
    return ", ".join(rows[:limit]) + (f" ... ({len(rows)} in all)" if len(rows) > limit else "")


def test_all_wthor_games_are_read(replay):
    assert len(replay.database) == TOTAL_GAMES


def test_every_wthor_game_replays_with_legal_moves_only(replay):
    bad = replay.status != REPLAY_OK
    assert not bad.any(), "games with an illegal move or a move after the end: " + "; ".join(
        str(p) for p in replay.problems() if p.move is not None
    )


def test_unfinished_wthor_games_are_exactly_the_known_413(replay):
    unfinished = ~replay.game_over
    assert unfinished.sum() == UNFINISHED, "unfinished games: " + _listing(replay, unfinished)


def test_recorded_score_equals_replayed_final_count_with_empties_to_the_winner(replay):
    mismatched = ~replay.score_matches
    assert replay.score_matches.sum() == SCORE_MATCHES, "score mismatches: " + _listing(replay, mismatched)
    assert not (mismatched & replay.game_over).any(), "finished games whose score disagrees: " + _listing(
        replay, mismatched & replay.game_over
    )


def test_kernel_replay_agrees_with_the_python_game_state_on_a_sample(replay):
    # The numba replay against GameState.play (the slow, checked path) on 300 random games.
    rng = random.Random(0)
    for g in rng.sample(range(len(replay.database)), 300):
        record = replay.game_record(g)
        final = record.final_state()  # replays with legality checks, passes explicit
        recorded = [int(s) for s in replay.database.squares[g] if s >= 0]
        assert [int(a) for a in record.actions if a != 64] == recorded
        assert final.is_over() == bool(replay.game_over[g])
        assert final.black_margin() == record.black_margin
