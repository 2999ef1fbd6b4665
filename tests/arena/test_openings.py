"""Openings: seeded, distinct, never finished; transcript files with clear errors."""

import pytest

from alphazero.arena.openings import opening_name, play_opening, random_openings, read_openings
from alphazero.othello.notation import parse_transcript


def test_random_openings_have_the_requested_length_and_distinct_unfinished_positions():
    openings = random_openings(60, plies=4, seed=1)
    positions = [play_opening(o) for o in openings]
    assert all(len(o) == 4 for o in openings)
    assert len(set(positions)) == 60
    assert not any(p.is_over() for p in positions)


def test_random_openings_depend_only_on_the_seed():
    assert random_openings(20, 5, seed=9) == random_openings(20, 5, seed=9)
    assert random_openings(20, 5, seed=9) != random_openings(20, 5, seed=10)


def test_asking_for_more_openings_than_positions_exist_fails_clearly():
    assert len(random_openings(12, 2, seed=0)) == 12
    with pytest.raises(ValueError, match="distinct 2-ply openings"):
        random_openings(13, 2, seed=0)


def test_read_openings_skips_comments_and_blank_lines(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# a comment\nf5d6c3\n\n  F5F6  # parallel\n")
    assert read_openings(path) == [parse_transcript("f5d6c3"), parse_transcript("f5f6")]


def test_read_openings_names_the_file_and_line_of_a_bad_transcript(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("f5d6\nf5f5\n")
    with pytest.raises(ValueError, match=r"openings.txt:2: illegal move 'f5'"):
        read_openings(path)


def test_opening_name_is_the_transcript():
    assert opening_name(parse_transcript("f5d6c3")) == "f5d6c3"
    assert opening_name([]) == "-"
