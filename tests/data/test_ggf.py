"""GGF reading (real GGS samples), writing and the round trip, and errors that point at the text."""

import numpy as np
import pytest

from alphazero.data.ggf import GgfError, format_ggf, parse_ggf, parse_result, read_ggf, split_games, write_ggf
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.notation import parse_board_text, parse_transcript
from alphazero.othello.record import GameRecord
from conftest import FIXTURES

SAMPLES = FIXTURES / "samples.ggf"


@pytest.fixture(scope="module")
def samples():
    return read_ggf(SAMPLES)


def test_samples_file_holds_three_games(samples):
    assert len(samples) == 3
    assert [r.metadata["game_number"] for r in samples] == [1, 2, 3]


def test_game_with_explicit_pass_and_clock_annotations(samples):
    game = samples[0]
    assert game.start == GameState.start()
    assert game.num_passes() == 1 and len(game) == 61
    assert game.actions[58] == PASS  # B[pass] after W[g2]
    assert game.metadata["move_annotations"][0] == "//0.01"
    assert game.metadata["PB"] == game.metadata["black_player"] == "Saio1200"
    assert game.metadata["DT"] == "2003.12.15_13:24:03.MST"
    final = game.final_state()
    assert final.is_over() and final.disc_counts() == (32, 32)
    assert game.black_margin == 0 and game.metadata["result"] == 0.0


def test_komi_game_result_is_margin_minus_komi(samples):
    game = samples[1]
    assert game.metadata["TY"] == "8k" and game.metadata["komi"] == -0.5
    assert game.metadata["KB"] == "e6//0.90" and game.metadata["KW"] == "f5/-1.00"  # unknown-to-us, kept
    assert game.black_margin == 8 and game.metadata["result"] == 8.5
    assert game.metadata["move_annotations"][1] == "/-16.47/0.24"  # W[f4/-16.47/0.24]: eval and time
    assert game.metadata["move_annotations"][-1] == ""  # W[a8]: no annotation


def test_non_standard_start_with_white_to_move(samples):
    game = samples[2]
    start = parse_board_text("-------- -------- --OOO*-- -O*OO*-- --O*OO-- --O***-- --O*---- -------- O")
    assert game.start == start and not game.start.black_to_move
    assert game.metadata["TY"] == "s8r19"
    assert game.final_state().is_over() and game.black_margin == 8


def test_round_trip_through_the_writer_preserves_games_and_properties(samples, tmp_path):
    path = tmp_path / "out.ggf"
    write_ggf(path, samples)
    again = read_ggf(path)
    assert len(again) == len(samples)
    for before, after in zip(samples, again):
        assert before.start == after.start
        assert (before.actions == after.actions).all()
        assert before.black_margin == after.black_margin
        strip = lambda meta: {k: v for k, v in meta.items() if k != "file"}  # noqa: E731
        assert strip(before.metadata) == strip(after.metadata)
    # The written lines are the sample lines up to property order.
    assert path.read_text().count("\n") == 3


def test_writer_formats_a_self_play_record_that_reads_back():
    actions = parse_transcript("d3c3b3d2e1d6d7e3f4")  # the shortest game: black wipes white out
    record = GameRecord(
        GameState.start(),
        np.array(actions),
        policies=np.full((len(actions), 65), 1 / 65),
        root_values=np.zeros(len(actions)),
        black_margin=64,
        metadata={"network": "net-0003", "black_player": "az-a", "white_player": "az-b"},
    )
    text = format_ggf(record)
    assert text.startswith("(;GM[Othello]PC[alphazero]DT[") and text.endswith("B[f4];)")
    assert "PB[az-a]PW[az-b]" in text and "RE[+64.000]" in text
    assert "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]" in text
    (back,) = parse_ggf(text)
    assert (back.actions == record.actions).all() and back.black_margin == 64


def test_writer_writes_passes_and_reader_accepts_pa_and_missing_passes(samples):
    text = format_ggf(samples[0])
    assert "B[pass]" in text
    assert (parse_ggf(text.replace("B[pass]", "B[PA]"))[0].actions == samples[0].actions).all()
    # A file that leaves the forced pass out: the pass is inferred.
    assert (parse_ggf(text.replace("B[pass]", ""))[0].actions == samples[0].actions).all()


def test_writing_is_atomic_and_leaves_no_temp_file(samples, tmp_path):
    path = tmp_path / "games.ggf"
    path.write_text("old")
    write_ggf(path, samples[:1])
    assert path.read_text().startswith("(;GM[Othello]")
    assert [p.name for p in tmp_path.iterdir()] == ["games.ggf"]


def test_several_games_per_file_with_arbitrary_whitespace():
    one = "(;GM[Othello]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[f5]W[d6];)"
    games = parse_ggf(f"\n  {one}\n\n{one} \t{one}")
    assert len(games) == 3 and all(list(g.actions) == [37, 43] for g in games)
    assert all(g.black_margin is None for g in games)  # unfinished: no final margin


def test_resigned_game_keeps_result_but_no_final_margin():
    (game,) = parse_ggf("(;GM[Othello]RE[-64.000:r]B[f5];)")
    assert game.black_margin is None
    assert game.metadata["result"] == -64.0 and game.metadata["result_flag"] == "r"
    assert game.start == GameState.start()  # no BO: the standard start


def test_parse_result_forms():
    assert parse_result("+8.500") == (8.5, "")
    assert parse_result("-3.000:r") == (-3.0, "r")
    assert parse_result("0") == (0.0, "")
    with pytest.raises(ValueError, match="x3"):
        parse_result("x3")


@pytest.mark.parametrize(
    "text,message",
    [
        ("(;GM[Othello]B[f5]", r"game 1 at character 0: .*never closed"),
        ("(;GM[Othello]B[f5];)\n(;GM[Othello]B[f5]\n(;B[f5];)", r"game 2 at character 21: .*not closed .* next game at character 40"),
        ("(;GM[Othello]B[f5;)", r"game 1 at character 14: the '\[' of property B is never closed"),
        ("(;GM[Othello]PB[a[b]];)", r"game 1 at character 17: '\[' inside the value of PB"),
        ("(;GM[Othello]PB x;)", r"game 1 at character 15: property PB has no '\['"),
        ("(;GM[Othello]pb[x];)", r"game 1 at character 13: expected a property name"),
        ("junk(;GM[Othello];)", r"game 1 at character 0: expected '\(;'"),
        ("(;GM[Othello];)]", r"game 2 at character 15: expected '\(;'"),
    ],
)
def test_bracket_errors_name_game_and_character_offset(text, message):
    with pytest.raises(GgfError, match=message):
        parse_ggf(text)


def test_illegal_move_names_game_offset_ply_and_move():
    text = "(;GM[Othello]B[f5];)(;GM[Othello]B[f5]W[d6]B[a1];)"
    with pytest.raises(GgfError, match=r"game 2 at character 43: ply 3, B\[a1\]: illegal move; legal: "):
        parse_ggf(text, source="x.ggf")


def test_wrong_colour_to_move_is_an_error_unless_it_is_a_forced_pass():
    with pytest.raises(GgfError, match=r"ply 2, B\[d6\]: B moves but white is to move"):
        parse_ggf("(;GM[Othello]B[f5]B[d6];)")


def test_bad_move_token_board_result_and_game_type_are_errors():
    with pytest.raises(GgfError, match=r"ply 1, B\[z9\]: 'z9' is not a square"):
        parse_ggf("(;GM[Othello]B[z9];)")
    with pytest.raises(GgfError, match="must start with the board size 8"):
        parse_ggf("(;GM[Othello]BO[10 ---];)")
    with pytest.raises(GgfError, match="bad BO board"):
        parse_ggf("(;GM[Othello]BO[8 " + "Q" * 64 + " *];)")
    with pytest.raises(GgfError, match="not an Othello game"):
        parse_ggf("(;GM[Amazons];)")
    with pytest.raises(GgfError, match="property PB appears twice"):
        parse_ggf("(;GM[Othello]PB[a]PB[b];)")
    for komi in ("abc", "inf", "1e999", "nan"):
        with pytest.raises(GgfError, match=rf"KM\[{komi}\] is not a finite number"):
            parse_ggf(f"(;GM[Othello]KM[{komi}];)")


def test_result_that_disagrees_with_a_finished_game_is_rejected(samples):
    text = format_ggf(samples[0]).replace("RE[+0.000]", "RE[+2.000]")
    with pytest.raises(GgfError, match=r"RE\[\+2.000\] disagrees with the final position: black margin 0"):
        parse_ggf(text)


def test_move_after_the_end_is_rejected():
    text = "(;GM[Othello]" + "".join(
        f"{'B' if i % 2 == 0 else 'W'}[{m}]" for i, m in enumerate(["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"])
    )
    with pytest.raises(GgfError, match=r"ply 10, W\[a1\]: move after the end"):
        parse_ggf(text + "W[a1];)")


def test_split_games_reports_property_offsets():
    (game,) = split_games("(;GM[Othello] PB[x]B[f5];)")
    assert [(p.key, p.value, p.offset) for p in game.properties] == [("GM", "Othello", 2), ("PB", "x", 14), ("B", "f5", 19)]


def test_a_game_in_progress_as_nboard_sends_it_has_no_result_yet():
    text = ("(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]"
            "BO[8 ---------------------------O*------*O--------------------------- *]"
            "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)")
    (game,) = parse_ggf(text)
    assert game.metadata["result"] is None and game.black_margin is None and len(game.actions) == 8
    assert parse_ggf(format_ggf(game))[0].actions.tolist() == game.actions.tolist()
