"""Iago, a second external engine for the arena: Debian's cl-reversi (Norvig's PAIP Othello player,
alpha-beta with killer moves over an approximation of Rosenbloom's Iago evaluation) behind a GTP
front end (`iago_gtp.lisp` beside this file), run by SBCL.

    apt-get install -y sbcl cl-reversi
    python -m alphazero.arena mcts:checkpoint=checkpoints/warmstart.pt,simulations=100 \\
        'gtp:"python -m alphazero.arena.iago --depth 6",name=iago-6' --pairs 10

Why a second engine: strength measured against GRhino alone can be strength against GRhino's
weaknesses; Iago is another family (a fixed-depth search over an edge-table evaluation, no
opening book), deterministic from a given position. Its depth is its level (1-39 plies; the
search is exhaustive near the end, where it reaches the game's end: a win/loss/draw search, not
an exact score). It answers GTP like GRhino: told every move, never a pass.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

LISP_FRONT_END = Path(__file__).with_name("iago_gtp.lisp")
CL_REVERSI = Path("/usr/share/common-lisp/source/reversi/")
MAX_DEPTH = 39  # cl-reversi keeps one board per ply in a 40-board array


def missing_requirement() -> str | None:
    """What of SBCL and cl-reversi is not installed (a message naming it), or None."""
    if shutil.which("sbcl") is None:
        return "SBCL (sbcl) is not installed"
    if not (CL_REVERSI / "reversi.asd").is_file():
        return f"cl-reversi ({CL_REVERSI / 'reversi.asd'}) is not installed"
    return None


def sbcl_command(depth: int, sbcl: str, seconds: float | None = None) -> list[str]:
    """SBCL loading cl-reversi through ASDF (its compile messages sent to stderr, so that stdout
    carries GTP alone) and then serving GTP at `depth` (with `seconds`: deepening within that
    time a move, up to `depth`)."""
    load = (
        "(let ((*standard-output* *error-output*)) "
        "(handler-bind ((warning (function muffle-warning))) "
        f'(require :asdf) (push #p"{CL_REVERSI}/" (symbol-value (find-symbol "*CENTRAL-REGISTRY*" :asdf))) '
        '(funcall (find-symbol "LOAD-SYSTEM" :asdf) :reversi) '
        f'(load "{LISP_FRONT_END}")))'
    )
    return [sbcl, "--noinform", "--non-interactive", "--no-sysinit", "--no-userinit",
            "--eval", load, "--eval", f"(iago-gtp:serve {depth}{'' if seconds is None else f' {seconds!r}'})"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m alphazero.arena.iago", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=None,
                        help=f"search depth in plies, 1-{MAX_DEPTH} (default 6; with --seconds the deepest it goes, "
                             f"default {MAX_DEPTH})")
    parser.add_argument("--seconds", type=float, default=None,
                        help="think this long a move instead: iterative deepening until the time is up, the last "
                             "finished depth's move played (earlier only at --depth or the end of the game)")
    args = parser.parse_args(argv)
    depth = args.depth if args.depth is not None else (6 if args.seconds is None else MAX_DEPTH)
    if not 1 <= depth <= MAX_DEPTH:
        parser.error(f"--depth must be 1-{MAX_DEPTH}, got {depth}")
    if args.seconds is not None and not 0 < args.seconds < 3600:
        parser.error(f"--seconds must be above 0 and below 3600, got {args.seconds:g}")
    missing = missing_requirement()
    if missing is not None:
        print(f"iago: {missing}; apt-get install -y sbcl cl-reversi", file=sys.stderr)
        return 2
    command = sbcl_command(depth, shutil.which("sbcl"), args.seconds)
    os.execv(command[0], command)  # the engine replaces this process: the arena talks to SBCL itself


if __name__ == "__main__":
    sys.exit(main())
