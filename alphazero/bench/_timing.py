"""Shared timing helpers for the benchmarks (not a benchmark itself: imported, never dispatched)."""

import time


def best_of(repeats, function):
    """Run `function` `repeats` times; return (best seconds, median seconds, last result).

    The best time is the figure least disturbed by other load on a shared machine; the median is
    reported beside it so a reader sees the spread.
    """
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[0], times[len(times) // 2], result
