"""The solver's pattern evaluation (alphazero/solver/patterns.py): the layout, the fast evaluation
against the square-by-square reference, the weights file's checks, and the fitting tool on the
WTHOR fixture. That the search stays exact with the evaluation ordering its moves is checked with
every other technique in test_switches.py (the `patterns_*` sets)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alphazero.othello.symmetry import ACTION_MAP
from alphazero.solver import patterns
from tests.solver.reference import random_position

SHAPE_NAMES = list(patterns.SHAPES)


def _instance(shape_name, first_square):
    """The instance of a shape whose digit 0 sits on `first_square`."""
    shape_offset = patterns.SHAPE_BY_BOARD[SHAPE_NAMES.index(shape_name)].max()
    for i in range(patterns.N_INSTANCES):
        if patterns.INSTANCE_OFFSETS[i] == shape_offset and patterns.INSTANCE_SQUARES[i, 0] == first_square:
            return i
    raise AssertionError(f"no {shape_name} instance starts at {first_square}")


def test_the_layout_is_edax_pattern_set_closed_under_the_symmetries():
    counts = {name: 0 for name in SHAPE_NAMES}
    for i in range(patterns.N_INSTANCES):
        shape = int(np.flatnonzero(patterns.SHAPE_BY_BOARD.max(axis=1) == patterns.INSTANCE_OFFSETS[i])[0])
        counts[SHAPE_NAMES[shape]] += 1
    assert counts == {"corner3x3": 4, "corner2x5": 8, "edge2x": 4, "line2": 4, "line3": 4, "line4": 4, "diag8": 2,
                      "diag7": 4, "diag6": 4, "diag5": 4, "diag4": 4}
    assert patterns.N_WEIGHTS == 3 ** 9 + 2 * 3 ** 10 + 4 * 3 ** 8 + 3 ** 7 + 3 ** 6 + 3 ** 5 + 3 ** 4
    # every symmetric image of every instance's square set is an instance's square set
    sets = {frozenset(patterns.INSTANCE_SQUARES[i, :patterns.INSTANCE_LENGTHS[i]]) for i in range(patterns.N_INSTANCES)}
    for squares in sets:
        for symmetry in range(8):
            assert frozenset(int(ACTION_MAP[symmetry][s]) for s in squares) in sets


def test_indices_read_the_side_to_move_as_1_and_the_opponent_as_2_first_square_lowest():
    a1, b1, h1, h2 = 0, 1, 7, 15
    player, opponent = np.uint64(1 << a1), np.uint64(1 << b1 | 1 << h2)
    out = np.zeros(patterns.N_INSTANCES, dtype=np.int64)
    patterns.pattern_indices(player, opponent, out)
    corner = _instance("corner3x3", a1)
    assert out[corner] == patterns.INSTANCE_OFFSETS[corner] + 1 + 2 * 3
    edge = _instance("edge2x", a1)  # a1..h1, b2, g2
    assert out[edge] == patterns.INSTANCE_OFFSETS[edge] + 1 + 2 * 3
    # the h-file edge (its image under a symmetry) starts at h1: h2 is its digit 1
    h_file = _instance("edge2x", h1)
    assert list(patterns.INSTANCE_SQUARES[h_file]) == [7, 15, 23, 31, 39, 47, 55, 63, 14, 54]
    assert out[h_file] == patterns.INSTANCE_OFFSETS[h_file] + 2 * 3


def _random_board(data):
    occupied = data.draw(st.integers(0, 2 ** 64 - 1))
    player = occupied & data.draw(st.integers(0, 2 ** 64 - 1))
    return np.uint64(player), np.uint64(occupied & ~player)


RANDOM_WEIGHTS = np.random.default_rng(36).integers(-5000, 5000, patterns.N_WEIGHTS).astype(np.int32)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_fast_evaluation_equals_the_square_by_square_reference(data):
    weights = RANDOM_WEIGHTS  # distinct weights everywhere: a wrong index shows
    player, opponent = _random_board(data)
    expected = patterns.pattern_eval_by_squares(player, opponent, weights)
    assert patterns.pattern_eval(player, opponent, weights) == expected
    out = np.zeros(patterns.N_INSTANCES, dtype=np.int64)
    patterns.pattern_indices(player, opponent, out)
    assert int(weights[out].astype(np.int64).sum()) == expected


def test_the_shipped_weights_load_and_judge_a_won_position_above_a_lost_one():
    weights = patterns.load_weights()
    player, opponent = random_position(3, 20)
    # the side to move owns all four corners and every edge square it can: clearly ahead
    edges = np.uint64(0xFF818181818181FF)
    ahead = (np.uint64(player) | (np.uint64(opponent) & edges), np.uint64(opponent) & ~edges)
    assert patterns.pattern_eval(*ahead, weights) > 0 > patterns.pattern_eval(ahead[1], ahead[0], weights)


def test_weights_round_trip_and_bad_files_are_refused_by_name(tmp_path):
    weights = np.arange(patterns.N_WEIGHTS, dtype=np.int32) % 97 - 48
    path = tmp_path / "w.npz"
    patterns.save_weights(path, weights, note="test")
    assert np.array_equal(patterns.load_weights(path), weights)
    with pytest.raises(patterns.PatternWeightsError, match="shape"):
        patterns.save_weights(tmp_path / "short.npz", weights[:-1])
    assert not (tmp_path / "short.npz").exists()
    with pytest.raises(patterns.PatternWeightsError, match="missing.npz: no pattern weights file"):
        patterns.load_weights(tmp_path / "missing.npz")
    (tmp_path / "garbage.npz").write_bytes(b"not a zip file")
    with pytest.raises(patterns.PatternWeightsError, match="garbage.npz: not a pattern weights file"):
        patterns.load_weights(tmp_path / "garbage.npz")
    np.savez(tmp_path / "other.npz", weights=weights, fingerprint=np.array("0123456789abcdef"))
    with pytest.raises(patterns.PatternWeightsError, match="other.npz: fitted for pattern layout 0123456789abcdef"):
        patterns.load_weights(tmp_path / "other.npz")
    np.savez(tmp_path / "wide.npz", weights=weights.astype(np.int64), fingerprint=np.array(patterns.LAYOUT_FINGERPRINT))
    with pytest.raises(patterns.PatternWeightsError, match="wide.npz: weights have shape"):
        patterns.load_weights(tmp_path / "wide.npz")


def test_the_fit_learns_the_fixture_games_and_writes_a_loadable_file(tmp_path, capsys):
    from alphazero.pretrain import patterns as fitting
    from tests.pretrain.helpers import VALIDATION_YEAR, write_two_years

    wthor = write_two_years(tmp_path / "wthor")
    positions, margins, years = fitting.positions_with_margins(wthor, 10, 30)
    assert len(positions) == len(margins) == len(years) > 0
    assert set(np.unique(years)) == {1977, VALIDATION_YEAR}
    empties = 64 - np.array([bin(int(p) | int(o)).count("1") for p, o in positions])
    assert empties.min() >= 10 and empties.max() <= 30
    out = tmp_path / "fitted.npz"
    assert fitting.main(["--wthor", str(wthor), "--out", str(out), "--epochs", "3",
                         "--validation-year", str(VALIDATION_YEAR)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed
    weights = patterns.load_weights(out)
    # the validation year holds the same games as the training year: the fit must beat zero there
    train = years == 1977
    fitted = fitting.error_figures(fitting.predict(positions[train], weights / patterns.WEIGHT_SCALE), margins[train])
    assert fitted["mae"] < 0.5 * fitted["zero_mae"]
    with np.load(out) as data:
        assert int(data["training_positions"]) == int(train.sum())


def test_the_fit_refuses_bad_arguments_before_reading_anything(tmp_path, capsys):
    from alphazero.pretrain import patterns as fitting

    with pytest.raises(SystemExit):
        fitting.main(["--wthor", str(tmp_path / "none"), "--out", str(tmp_path / "w.npz")])
    assert "not a directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        fitting.main(["--empties", "20-10", "--out", str(tmp_path / "w.npz")])
    assert "--empties must be MIN-MAX" in capsys.readouterr().err
    assert not (tmp_path / "w.npz").exists()
