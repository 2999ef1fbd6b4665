"""Dispatch `python -m alphazero.bench <name> ...` to `alphazero.bench.<name>.main`."""

import importlib
import json
import pkgutil
import sys

import alphazero.bench as package


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    names = available()
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: python -m alphazero.bench {{{','.join(names)}}} [options]")
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in names:
        print(f"unknown benchmark {name!r}; available: {', '.join(names)}", file=sys.stderr)
        return 2
    result = importlib.import_module(f"alphazero.bench.{name}").main(rest)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
