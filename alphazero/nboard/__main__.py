"""`python -m alphazero.nboard`: our AI as an engine for the NBoard Othello GUI (NBoard protocol 2).

    python -m alphazero.nboard                                    # the default network, 50 simulations per depth
    python -m alphazero.nboard --checkpoint run/checkpoints/best.pt --simulations-per-depth 100
    python -m alphazero.nboard --seconds 5                        # no search longer than 5 s

In NBoard: Engine > Select engine > Add, with the command line above (run from the repository, or
give --checkpoint). `set depth N` from the GUI means N x --simulations-per-depth simulations per
search. stdout carries the protocol only; messages go to stderr. docs/frontends.md has the mapping.
"""

from __future__ import annotations

import sys

from alphazero.console import EXIT_INTERRUPTED
from alphazero.nboard.engine import DEFAULT_SIMULATIONS_PER_DEPTH, NBoardEngine, serve
from alphazero.argtypes import positive_int
from alphazero.play.choosers import chooser_from_args, front_end_parser


def main(argv: list[str] | None = None) -> int:
    parser = front_end_parser("python -m alphazero.nboard", "Our AI as an NBoard-protocol engine on stdin/stdout.",
                              __doc__)
    parser.add_argument("--simulations-per-depth", type=positive_int, default=DEFAULT_SIMULATIONS_PER_DEPTH,
                        help=f"simulations per unit of NBoard's `set depth` (default {DEFAULT_SIMULATIONS_PER_DEPTH})")
    parser.add_argument("--name", default="AlphaZero", help="the name shown in NBoard (default AlphaZero)")
    args = parser.parse_args(argv)
    chooser = chooser_from_args(args, "alphazero.nboard", sys.stderr)
    if chooser is None:
        return 2

    def send(line: str) -> None:
        try:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            pass  # the GUI went away; the end of input stops the loop

    engine = NBoardEngine(chooser, send, name=args.name, simulations_per_depth=args.simulations_per_depth,
                          seconds=args.seconds, log=sys.stderr)
    try:
        return serve(engine)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        chooser.close()


if __name__ == "__main__":
    sys.exit(main())
