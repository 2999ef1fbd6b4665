"""Progress for people: on a terminal by default, quiet in a pipe, rate-limited in a log."""

import io

from alphazero.console import StatusLine, format_seconds, progress_wanted


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_wanted_on_a_terminal_unless_a_flag_says_otherwise():
    assert progress_wanted(None, _Terminal()) is True
    assert progress_wanted(None, io.StringIO()) is False
    assert progress_wanted(False, _Terminal()) is False
    assert progress_wanted(True, io.StringIO()) is True


def test_a_terminal_line_is_rewritten_in_place_and_padded_over_longer_text():
    stream, now = _Terminal(), [0.0]
    line = StatusLine(True, stream, clock=lambda: now[0])
    line.update("a long first text")
    now[0] = 1.0
    line.update("short")
    line.close()
    assert stream.getvalue() == "\ra long first text\rshort            \n"


def test_a_cleared_terminal_line_makes_room_for_other_output_and_comes_back_at_once():
    stream, now = _Terminal(), [0.0]
    line = StatusLine(True, stream, clock=lambda: now[0])
    line.update("busy 1")
    line.clear()
    stream.write("a line of results\n")
    now[0] = 0.1  # within the redraw interval: cleared, so drawn again at once
    line.update("busy 2")
    line.close()
    assert stream.getvalue() == "\rbusy 1\r      \ra line of results\n\rbusy 2\n"
    log = io.StringIO()
    quiet = StatusLine(True, log)
    quiet.update("whole line")
    quiet.clear()  # a log's lines are whole: nothing to erase
    assert log.getvalue() == "whole line\n"


def test_in_a_log_lines_come_at_most_once_a_minute_and_the_last_one_always():
    stream, now = io.StringIO(), [0.0]
    line = StatusLine(True, stream, clock=lambda: now[0])
    for second in range(0, 150, 10):
        now[0] = float(second)
        line.update(f"at {second}")
    line.close()
    assert stream.getvalue().splitlines() == ["at 0", "at 60", "at 120", "at 140"]


def test_a_disabled_line_writes_nothing():
    stream = _Terminal()
    line = StatusLine(False, stream)
    line.update("x", force=True)
    line.close("y")
    assert stream.getvalue() == ""


def test_durations_read_at_a_glance():
    assert [format_seconds(s) for s in (4.6, 65, 3725)] == ["5 s", "1 min 05 s", "1 h 02 min"]
