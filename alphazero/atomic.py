"""Atomic file writes: the one way every stage of the package puts a file on disk.

The bytes go to a temporary file in the target's own directory, are flushed and fsynced, and the
temporary file is renamed over the target (`os.replace`, atomic on POSIX), then the directory is
fsynced so the rename itself survives a power cut. A reader, or a run resumed after `kill -9`,
sees the old file or the new one, never a torn one. A failed write removes its temporary file and
re-raises the error; at worst a crash leaves a `*.tmp` file that owners tidy on start.

Append-only JSON-lines logs (`append_json_line`) are the one exception to rename-over: each
record is appended and fsynced, and a torn last line is skipped by readers.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import BinaryIO, Callable


def fsync_directory(directory: str | os.PathLike) -> None:
    """Make a rename inside `directory` durable; a no-op where directories cannot be opened or
    synced (some filesystems refuse both)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(
    path: str | os.PathLike,
    write: Callable[[BinaryIO], object],
    *,
    temp_path: str | os.PathLike | None = None,
    before_rename: Callable[[Path], object] | None = None,
) -> Path:
    """Call `write(handle)` on a binary temporary file and rename it to `path` once complete.

    temp_path: a fixed temporary name (the replay buffer names its own so that it knows whose
    leftovers are whose); by default a unique `.NAME.XXXX.tmp` beside `path`.
    before_rename: called with the complete temporary file just before the rename (fault hooks).
    """
    path = Path(path)
    check_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if temp_path is None:
        temp, handle = _open_unique_temp(path)
    else:
        temp = Path(temp_path)
        handle = open(temp, "wb")
    try:
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if before_rename is not None:
            before_rename(temp)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    fsync_directory(path.parent)
    return path


def check_target(path: Path) -> None:
    """Fail, naming the path, where `path` cannot become a file: it is a directory, or a file sits
    where one of its directories would be. Otherwise the rename's error names the temp file
    (`.out.1a2b.tmp -> out`) and mkdir's says only "File exists", and each tool that writes an
    output (`--ggf`, ship's OUT, export's --out, plots' OUT_DIR) would pass that on."""
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory: name a file to write")
    for parent in path.parents:
        if parent.is_dir():
            return
        if parent.exists() or parent.is_symlink():
            raise NotADirectoryError(f"{parent} is a file, not a directory, so {path} cannot be written")


def _open_unique_temp(path: Path) -> tuple[Path, BinaryIO]:
    """A new `.NAME.XXXXXXXX.tmp` beside `path`, created with mode 0o666 less the umask like any
    `open()` (tempfile.mkstemp would make every checkpoint, shard and game file 0600)."""
    while True:
        temp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        return temp, os.fdopen(fd, "wb")


def write_bytes_atomic(path: str | os.PathLike, data: bytes, **options) -> Path:
    return write_atomic(path, lambda handle: handle.write(data), **options)


def write_text_atomic(path: str | os.PathLike, text: str, encoding: str = "utf-8", errors: str = "strict", **options) -> Path:
    """Text is encoded as given (`errors="replace"` for formats with a narrow charset) and written
    with the newlines it has: no platform newline translation."""
    return write_bytes_atomic(path, text.encode(encoding, errors), **options)


def write_json_atomic(path: str | os.PathLike, data, indent: int | None = 2, **options) -> Path:
    return write_text_atomic(path, json.dumps(data, indent=indent), **options)


def append_json_line(path: str | os.PathLike, row) -> None:
    """Append `row` as one JSON line, durable when this returns (flush + fsync).

    For logs that grow as work finishes (ladder results, arena games): a line torn by a kill
    mid-write is left as it is (readers skip it) and the new line starts on a fresh line, so one
    torn write never corrupts the next record."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        torn = handle.tell() > 0 and not _ends_with_newline(handle)
        handle.write((("\n" if torn else "") + json.dumps(row) + "\n").encode())
        handle.flush()
        os.fsync(handle.fileno())


def _ends_with_newline(handle) -> bool:
    handle.seek(-1, os.SEEK_END)
    last = handle.read(1)
    handle.seek(0, os.SEEK_END)
    return last == b"\n"
