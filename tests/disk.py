"""What a refused command must leave alone: a snapshot of a directory tree to compare before and after."""

from pathlib import Path


def snapshot(root: Path) -> dict:
    """Every path under `root` (itself included) with its size and mtime."""
    entries = {}
    for path in [root, *sorted(root.rglob("*"))]:
        info = path.lstat()
        entries[str(path.relative_to(root))] = (info.st_size if path.is_file() else None, info.st_mtime_ns)
    return entries
