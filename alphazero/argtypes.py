"""argparse types for the numbers of every command line, so that each refusal reads the same.

A type raises `argparse.ArgumentTypeError`, which argparse prints as one line naming the option
(`... error: argument --pairs: must be >= 1, got 0`) before the command does anything. Without
them a bad number got argparse's `invalid _positive_int value: 'x'`, and a float option took `inf`
and `nan` (which pass `> 0` tests, or fail them with a message about something else)."""

from __future__ import annotations

import argparse
import math
from typing import Callable


def _read(text: str, kind: type):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {'a whole number' if kind is int else 'a number'}, got {text!r}") from None


def at_least(minimum: float, kind: type = int, above: bool = False) -> Callable[[str], float]:
    """A type reading a `kind` (int or float) >= `minimum` (> with `above`); a float must be finite."""
    relation = f"{'a number ' if kind is float else ''}{'>' if above else '>='} {minimum:g}"

    def parse(text: str):
        value = _read(text, kind)
        if (kind is float and not math.isfinite(value)) or value < minimum or (above and value == minimum):
            raise argparse.ArgumentTypeError(f"must be {relation}, got {text}")
        return value

    parse.__name__ = f"at_least_{minimum:g}"
    return parse


def in_range(low: float, high: float, kind: type = int) -> Callable[[str], float]:
    """A type reading a `kind` (int or float) in `low`..`high`, both ends included; a float must be
    finite. The refusal reads `must be in 8..28, got 30` (`must be a number in [0, 1], got 2`)."""
    span = f"a number in [{low:g}, {high:g}]" if kind is float else f"in {low:g}..{high:g}"

    def parse(text: str):
        value = _read(text, kind)
        if (kind is float and not math.isfinite(value)) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {span}, got {text}")
        return value

    parse.__name__ = f"in_range_{low:g}_{high:g}"
    return parse


positive_int = at_least(1)
non_negative_int = at_least(0)
positive_float = at_least(0.0, float, above=True)
non_negative_float = at_least(0.0, float)
