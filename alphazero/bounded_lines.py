"""Reading a text protocol's lines from a binary stream without trusting their length.

The GTP and NBoard engines read commands from whatever drives them; a line of gigabytes (or with
no end) must not be held in memory whole. Shared by both, so it lives at the bottom of the house.
"""

from __future__ import annotations


def read_line(stream, max_bytes: int) -> tuple[bytes, bool] | None:
    """One line of a binary stream without ever holding more than `max_bytes` of it: returns
    (the first max_bytes bytes, whether the rest was discarded), or None at end of input."""
    line = stream.readline(max_bytes + 1)
    if not line:
        return None
    if len(line) <= max_bytes or line.endswith(b"\n"):
        return line, False
    # Over-long: skip to the end of the line in bounded chunks.
    while True:
        chunk = stream.readline(max_bytes)
        if not chunk or chunk.endswith(b"\n"):
            return line[:max_bytes], True
