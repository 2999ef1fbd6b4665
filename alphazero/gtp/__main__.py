"""`python -m alphazero.gtp`: our AI as a GTP engine on stdin/stdout.

    python -m alphazero.gtp --checkpoint PATH --simulations 400
    python -m alphazero.gtp --seconds 2             # the strongest shipped network, 2 s a move
    python -m alphazero.gtp --player greedy         # any arena player spec

stdout carries the protocol only; messages go to stderr.
"""

from __future__ import annotations

import sys

from alphazero.console import EXIT_INTERRUPTED
from alphazero.gtp.engine import GTPEngine, serve
from alphazero.play.choosers import chooser_from_args, front_end_parser


def main(argv: list[str] | None = None) -> int:
    parser = front_end_parser("python -m alphazero.gtp",
                              "Our AI as a GTP engine (Othello dialect of GRhino and Edax) on stdin/stdout.", __doc__)
    args = parser.parse_args(argv)
    chooser = chooser_from_args(args, "alphazero.gtp", sys.stderr)
    if chooser is None:
        return 2
    engine = GTPEngine(chooser, log=sys.stderr)
    try:
        return serve(engine)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        chooser.close()


if __name__ == "__main__":
    sys.exit(main())
