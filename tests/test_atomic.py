"""alphazero.atomic: a write either replaces the file completely or leaves the old one untouched."""

import json
import os
import stat

import pytest

from alphazero.atomic import append_json_line, check_target, write_atomic, write_bytes_atomic, write_json_atomic, write_text_atomic


def test_writes_replace_the_file_and_leave_no_temporary_files(tmp_path):
    target = tmp_path / "sub" / "state.json"
    write_json_atomic(target, {"step": 1})
    write_json_atomic(target, {"step": 2})
    assert json.loads(target.read_text()) == {"step": 2}
    assert [p.name for p in target.parent.iterdir()] == ["state.json"]


def test_a_failing_write_keeps_the_old_file_and_removes_its_temporary(tmp_path):
    target = tmp_path / "games.txt"
    write_text_atomic(target, "old\n")

    def half_then_fail(handle):
        handle.write(b"new, but only half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, half_then_fail)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["games.txt"]


def test_a_fixed_temporary_name_is_complete_before_the_rename(tmp_path):
    target, temp = tmp_path / "shard.npz", tmp_path / "shard.npz.tmp"
    seen = []
    write_atomic(target, lambda handle: handle.write(b"abc"), temp_path=temp, before_rename=lambda t: seen.append((t, t.read_bytes())))
    assert seen == [(temp, b"abc")] and target.read_bytes() == b"abc" and not temp.exists()


def test_a_kill_before_the_rename_leaves_the_target_untouched(tmp_path):
    target = tmp_path / "best.json"
    write_json_atomic(target, {"id": 1})

    def killed(_temp):
        raise KeyboardInterrupt  # stands for any interruption between write and rename

    with pytest.raises(KeyboardInterrupt):
        write_json_atomic(target, {"id": 2}, before_rename=killed)
    assert json.loads(target.read_text()) == {"id": 1} and len(list(tmp_path.iterdir())) == 1


def test_text_is_encoded_as_asked(tmp_path):
    target = tmp_path / "games.ggf"
    write_text_atomic(target, "PB[Ünal]\n名", encoding="latin-1", errors="replace")
    assert target.read_bytes() == "PB[Ünal]\n?".encode("latin-1")


def test_written_files_get_the_umask_permissions_of_a_plain_open(tmp_path):
    """Checkpoints, shards and saved games must be readable by whoever may read the run
    directory, as with any file the user's programs write (not 0600 as a raw mkstemp makes)."""
    previous = os.umask(0o022)
    try:
        target = write_bytes_atomic(tmp_path / "shared.bin", b"data")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_appended_lines_survive_a_torn_last_line(tmp_path):
    log = tmp_path / "results.jsonl"
    append_json_line(log, {"n": 1})
    with open(log, "ab") as handle:
        handle.write(b'{"n": 2, "torn')  # a kill mid-write
    append_json_line(log, {"n": 3})
    lines = log.read_text().splitlines()
    assert json.loads(lines[0]) == {"n": 1} and json.loads(lines[-1]) == {"n": 3}
    assert lines[1] == '{"n": 2, "torn', "the torn line stays on its own line, for readers to skip"


def test_a_target_that_is_a_directory_or_under_a_file_is_refused_naming_it(tmp_path):
    """The rename's error named the temp file (".out.1a2b.tmp -> out") and mkdir's said only
    "File exists"; every tool that writes an output passed that on."""
    (tmp_path / "out").mkdir()
    with pytest.raises(IsADirectoryError, match=f"^{tmp_path / 'out'} is a directory: name a file to write$"):
        write_bytes_atomic(tmp_path / "out", b"x")
    (tmp_path / "notes").write_text("kept")
    with pytest.raises(NotADirectoryError, match=f"^{tmp_path / 'notes'} is a file, not a directory, so {tmp_path / 'notes' / 'a' / 'b.txt'} "):
        write_bytes_atomic(tmp_path / "notes" / "a" / "b.txt", b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "out"] and not any((tmp_path / "out").iterdir())
    check_target(tmp_path / "new" / "dir" / "file.txt")  # missing directories are fine: they are created
