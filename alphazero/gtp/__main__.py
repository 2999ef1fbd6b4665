"""`python -m alphazero.gtp`: our AI as a GTP engine on stdin/stdout.

    python -m alphazero.gtp --checkpoint PATH --simulations 400
    python -m alphazero.gtp --seconds 2             # the strongest shipped network, 2 s a move
    python -m alphazero.gtp --player greedy         # any arena player spec

stdout carries the protocol only; messages go to stderr.
"""

from __future__ import annotations

import argparse
import sys

from alphazero.gtp.engine import GTPEngine, serve
from alphazero.play.choosers import (
    NoAIError,
    SearchSettings,
    add_ai_arguments,
    build_chooser,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.gtp",
        description="Our AI as a GTP engine (Othello dialect of GRhino and Edax) on stdin/stdout.",
        epilog="examples:\n" + __doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_ai_arguments(parser)
    args = parser.parse_args(argv)
    try:
        chooser = build_chooser(args.checkpoint, args.player, SearchSettings.from_args(args))
    except NoAIError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"alphazero.gtp: playing as {chooser.name}", file=sys.stderr)
    engine = GTPEngine(chooser, log=sys.stderr)
    try:
        return serve(engine)
    except KeyboardInterrupt:
        return 130
    finally:
        chooser.close()


if __name__ == "__main__":
    sys.exit(main())
