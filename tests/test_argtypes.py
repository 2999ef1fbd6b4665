"""The command lines' number types: one wording for each refusal, and no infinite or NaN floats."""

import argparse
import math

import pytest

from alphazero.argtypes import at_least, in_range, non_negative_float, non_negative_int, positive_float, positive_int


@pytest.mark.parametrize("kind, text, value", [
    (positive_int, "3", 3), (non_negative_int, "0", 0), (positive_float, "0.25", 0.25), (non_negative_float, "0", 0.0),
    (in_range(8, 28), "8", 8), (in_range(8, 28), "28", 28), (in_range(0.0, 1.0, float), "1", 1.0),
])
def test_values_in_range_are_read(kind, text, value):
    assert kind(text) == value and type(kind(text)) is type(value)


@pytest.mark.parametrize("kind, text, message", [
    (positive_int, "0", "must be >= 1, got 0"),
    (non_negative_int, "-2", "must be >= 0, got -2"),
    (positive_int, "1.5", "expected a whole number, got '1.5'"),
    (positive_float, "0", "must be a number > 0, got 0"),
    (positive_float, "inf", "must be a number > 0, got inf"),
    (positive_float, "nan", "must be a number > 0, got nan"),
    (non_negative_float, "-1", "must be a number >= 0, got -1"),
    (non_negative_float, "x", "expected a number, got 'x'"),
    (at_least(2, float, above=True), "2", "must be a number > 2, got 2"),
    (in_range(8, 28), "7", "must be in 8..28, got 7"),
    (in_range(8, 28), "29", "must be in 8..28, got 29"),
    (in_range(8, 28), "8.5", "expected a whole number, got '8.5'"),
    (in_range(0.0, 1.0, float), "1.5", "must be a number in [0, 1], got 1.5"),
    (in_range(0.0, 1.0, float), "nan", "must be a number in [0, 1], got nan"),
    (in_range(-math.inf, math.inf, float), "inf", "must be a number in [-inf, inf], got inf"),
])
def test_a_bad_number_is_refused_in_words_argparse_prints_after_the_option(kind, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        kind(text)
    assert str(refused.value) == message


def test_argparse_prints_the_option_and_the_reason_in_one_line(capsys):
    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--pairs", type=positive_int)
    with pytest.raises(SystemExit):
        parser.parse_args(["--pairs", "x"])
    assert capsys.readouterr().err.splitlines()[-1] == "tool: error: argument --pairs: expected a whole number, got 'x'"
