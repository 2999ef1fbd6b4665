"""Dispatch `python -m alphazero.bench <name> ...` to `alphazero.bench.<name>.main`.

`python -m alphazero.bench --help` lists every benchmark with the one line its module's docstring
opens with (read from the source, so listing them imports none of them: some pull in torch).
"""

import ast
import importlib
import json
import pkgutil
import re
import sys
from pathlib import Path

import alphazero.bench as package
from alphazero.console import EXIT_INTERRUPTED


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def description(name: str) -> str:
    """What benchmark `name` measures: the first sentence of its module docstring, after the
    command line it usually opens with (`` `python -m alphazero.bench x [...]`: what it does.``)."""
    source = Path(package.__path__[0], f"{name}.py").read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(source)) or ""
    first = " ".join(doc.split("\n\n", 1)[0].split())
    first = re.sub(r"^`[^`]*`:\s*", "", first)
    sentence = re.split(r"(?<=[.:])\s", first, maxsplit=1)[0].rstrip(".:")
    return sentence[:1].upper() + sentence[1:]


def usage() -> str:
    names = available()
    width = max(len(name) for name in names)
    lines = [
        f"usage: python -m alphazero.bench {{{','.join(names)}}} [options]",
        "",
        "Each benchmark prints one JSON line; `python -m alphazero.bench NAME --help` gives its options.",
        "",
        "benchmarks:",
    ]
    lines += [f"  {name:<{width}}  {description(name)}" for name in names]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    names = available()
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in names:
        print(f"unknown benchmark {name!r}; available: {', '.join(names)} (python -m alphazero.bench --help describes them)", file=sys.stderr)
        return 2
    try:
        result = importlib.import_module(f"alphazero.bench.{name}").main(rest)
    except (ValueError, OSError) as error:
        if not is_documented(error):
            raise
        print(f"python -m alphazero.bench {name}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: the benchmark's own finally blocks have cleaned up on the way here
        print(f"python -m alphazero.bench {name}: interrupted, no result", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(json.dumps(result), flush=True)
    return 0


def is_documented(error: Exception) -> bool:
    """Whether `error` is one of the project's own refusals, whose message names the problem and
    where it is (a ValueError subclass defined in alphazero: CheckpointError, ConfigValueError,
    DataFormatError, ...), or a file that cannot be read (OSError names the path). A plain
    ValueError from numpy or the standard library is a bug to see with its traceback."""
    if isinstance(error, OSError):
        return True
    return any(cls.__module__.startswith("alphazero.") for cls in type(error).__mro__ if cls is not ValueError)


if __name__ == "__main__":
    sys.exit(main())
