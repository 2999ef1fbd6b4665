"""`python -m alphazero.review GAME`: a finished game reviewed move by move by the search and the solver.

    python -m alphazero.review game.ggf                      # a GGF game (the first of the file)
    python -m alphazero.review games.ggf --game 3            # ... or game 3 of it
    python -m alphazero.review mygame.txt                    # a game saved by `play --save mygame`
    python -m alphazero.review f5d6c3d3c4f4f6f3e6e7          # the moves themselves
    python -m alphazero.review runs/X --game -1              # a run's newest self-play game (see alphazero.games)
    python -m alphazero.review runs/X/replay/shard-0000000012-w0.npz --game 2
    python -m alphazero.review game.ggf --simulations 400 --json    # a stronger look, as JSON lines

One line per move: its number, the side, the move, the mover's win probability before and after
it, the move the search preferred, the win probability lost, and, once the endgame solver reaches
the position (--endgame, 20 empties by default, as in play), the exact final disc difference with
perfect play before and after the move. `?` marks a mistake, `??` a blunder (--mistake, --blunder,
--mistake-discs). Then a summary: each side's biggest mistakes and where the game was lost. The
default budget is play's: 200 simulations a move (docs/playing.md gives a 60-move review's time).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from alphazero.argtypes import at_least, in_range
from alphazero.console import EXIT_INTERRUPTED, StatusLine, add_progress_option, format_seconds, progress_wanted
from alphazero.othello.notation import format_margin
from alphazero.play.choosers import NoAIError, SearchSettings, build_chooser, front_end_parser
from alphazero.review.reviewer import DEFAULT_BLUNDER, DEFAULT_MISTAKE, DEFAULT_MISTAKE_DISCS, Marks, review_game
from alphazero.review.sources import SourceError, load_game
from alphazero.review.summary import summarize
from alphazero.review.text import HEADER, move_line, summary_lines

EXIT_BAD_INPUT = 2
PROG = "python -m alphazero.review"


def _game_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a game number, got {text!r}") from None


def parse_args(argv):
    parser = front_end_parser(PROG, "Review a game move by move: the search's evaluation before and after each move, "
                                    "the move it preferred, the win probability (and, near the end, the exact discs) lost.",
                              __doc__)
    parser.add_argument("game", metavar="GAME",
                        help="a GGF or transcript file, a run directory, a replay shard, or the moves themselves (f5d6c3...)")
    parser.add_argument("--game", dest="number", type=_game_number, default=None, metavar="N",
                        help="which game: of a GGF file (1-based, default 1), of a run's replay (default -1, the newest), "
                             "of a shard (default 1)")
    parser.add_argument("--json", action="store_true", help="JSON lines: one object per move, then the summary")
    marks = parser.add_argument_group("marks")
    marks.add_argument("--mistake", type=in_range(0.0, 1.0, float), default=DEFAULT_MISTAKE,
                       help=f"win probability lost that marks a move ? (default {DEFAULT_MISTAKE})")
    marks.add_argument("--blunder", type=in_range(0.0, 1.0, float), default=DEFAULT_BLUNDER,
                       help=f"win probability lost that marks a move ?? (default {DEFAULT_BLUNDER})")
    marks.add_argument("--mistake-discs", type=at_least(1), default=DEFAULT_MISTAKE_DISCS,
                       help=f"exact discs lost (within the solver's reach) that mark a move ? (default {DEFAULT_MISTAKE_DISCS})")
    add_progress_option(parser, "the move being reviewed and the time left")
    args = parser.parse_args(argv)
    try:
        args.marks = Marks(args.mistake, args.blunder, args.mistake_discs)
    except ValueError as err:
        parser.error(str(err))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        loaded = load_game(args.game, args.number, warn=lambda text: print(f"warning: {text}", file=sys.stderr))
    except SourceError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if len(loaded.record.actions) == 0:
        print(f"error: {loaded.label}: holds no moves to review", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.player and not args.player.strip().lower().startswith("mcts"):
        print(f"error: --player {args.player}: a review needs a search that evaluates positions "
              "(a network, the default, or an mcts:... player)", file=sys.stderr)
        return EXIT_BAD_INPUT
    progress = StatusLine(progress_wanted(args.progress))
    chooser = None
    try:
        progress.update("loading the search (a first start also compiles its kernels: a minute or more)")
        chooser = build_chooser(args.checkpoint, args.player, SearchSettings.from_args(args))
        return _review(args, loaded, chooser, progress)
    except NoAIError as err:
        progress.clear()
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        progress.clear()
        print(f"\n{PROG}: interrupted, no summary (every move line printed above is complete)", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if chooser is not None:
            chooser.close()


def _review(args, loaded, chooser, progress: StatusLine) -> int:
    record = loaded.record
    plies = len(record.actions)
    progress.clear()
    if args.json:
        print(json.dumps({"type": "game", "label": loaded.label, "plies": plies, "search": chooser.name,
                          "black_margin": record.black_margin}), flush=True)
    else:
        print(f"review of {loaded.label}: {plies} plies, result {format_margin(record.black_margin)}; search: {chooser.name}")
        print(HEADER, flush=True)
    started = time.monotonic()
    reviews = []
    for review in review_game(record, chooser, args.marks):
        reviews.append(review)
        progress.clear()  # a terminal shows stdout and stderr on one screen: the move line goes above the status
        if args.json:
            print(json.dumps({"type": "move", **review.as_json()}), flush=True)
        else:
            print(move_line(review), flush=True)
        elapsed = time.monotonic() - started
        left = elapsed / len(reviews) * (plies - len(reviews))
        progress.update(f"reviewed {len(reviews)}/{plies} plies, {format_seconds(elapsed)}"
                        + (f", about {format_seconds(left)} left" if len(reviews) < plies else ""))
    progress.close()
    summary = summarize(record, reviews)
    if args.json:
        print(json.dumps({"type": "summary", **summary.as_json()}), flush=True)
    else:
        print("\n".join(summary_lines(summary, reviews)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
