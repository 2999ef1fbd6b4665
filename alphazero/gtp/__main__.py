"""`python -m alphazero.gtp`: our AI as a GTP engine on stdin/stdout.

    python -m alphazero.gtp --checkpoint PATH --simulations 400
    python -m alphazero.gtp --seconds 2             # the shipped checkpoints/warmstart.pt, 2 s a move
    python -m alphazero.gtp --player greedy         # any arena player spec

stdout carries the protocol only; messages go to stderr.
"""

from __future__ import annotations

import argparse
import sys

from alphazero.gtp.engine import GTPEngine, serve
from alphazero.play.choosers import NoAIError, build_chooser


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def add_ai_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that pick and tune the AI (shared with `python -m alphazero.play`)."""
    group = parser.add_argument_group("AI")
    group.add_argument("--checkpoint", help="network checkpoint (default: checkpoints/warmstart.pt if present)")
    group.add_argument("--player", metavar="SPEC",
                       help="an arena player instead of the network: random, greedy, alphabeta:depth=4, "
                            "mcts:evaluator=uniform, gtp:\"/usr/games/gtp-rhino -l 2\", ...")
    group.add_argument("--simulations", type=positive_int, help="MCTS simulations per move (default 200)")
    group.add_argument("--seconds", type=positive_float,
                       help="thinking time per move; with --simulations too, whichever ends first")
    group.add_argument("--device", default="auto", help="torch device for the network: auto, cpu, cuda, ...")
    group.add_argument("--seed", type=int, default=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m alphazero.gtp", description=__doc__.split("\n\n")[0])
    add_ai_arguments(parser)
    args = parser.parse_args(argv)
    try:
        chooser = build_chooser(args.checkpoint, args.player, args.simulations, args.seconds, args.device, args.seed)
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
