"""`python -m alphazero.games RUN_DIR [--ggf OUT.ggf] [--last N] [--show K]`: see the package doc."""

from __future__ import annotations

import argparse
import sys

from alphazero.argtypes import positive_int
from alphazero.console import EXIT_INTERRUPTED
from alphazero.data.ggf import write_ggf
from alphazero.games.catalog import Catalog, CatalogError, replay_directory
from alphazero.games.text import listing, replay
from alphazero.play.render import color_wanted

LISTED_BY_DEFAULT = 10


def _game_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a game number (1 = oldest, -1 = newest), got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("games are numbered from 1 (oldest) or -1 (newest); 0 is neither")
    return value


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.games",
        description="List, export (GGF) or replay as text the self-play games of a training run.",
        epilog="Games are numbered 1 (oldest on disk) to N (newest); -1 is the newest. Without --ggf or --show, "
        f"the newest {LISTED_BY_DEFAULT} games (or --last N) are listed.",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a training run directory (or its replay/ directory)")
    parser.add_argument("--ggf", metavar="OUT.ggf", help="write the games (all, or the newest --last N) as GGF, one per line")
    parser.add_argument("--last", type=positive_int, metavar="N", help="only the newest N games")
    parser.add_argument("--show", type=_game_number, metavar="K", help="replay game K move by move, with the search's figures")
    parser.add_argument("--style", choices=["auto", "plain", "color"], default="auto",
                        help="board drawing for --show: colour on a terminal (auto, the default; NO_COLOR disables it)")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        catalog = Catalog(replay_directory(args.run_dir), warn=lambda text: print(f"warning: {text}", file=sys.stderr))
        if args.ggf:
            games = [game.record for game in catalog.newest(args.last)]
            write_ggf(args.ggf, games, place="alphazero-selfplay")
            print(f"wrote {len(games)} of {catalog.total} games to {args.ggf}")
        if args.show is not None:
            number = catalog.number(args.show)
            game = next(catalog.games(number, number), None)
            if game is None:
                raise CatalogError(f"game {number}'s shard could not be read (see the warning above)")
            color = args.style == "color" or (args.style == "auto" and color_wanted(sys.stdout))
            print(replay(game, catalog.total, color=color), end="")
        if not args.ggf and args.show is None:
            shown = list(catalog.newest(args.last or LISTED_BY_DEFAULT))
            print(f"{catalog.directory}: {catalog.total} games in {len(catalog.shards)} shards")
            if shown:
                print(listing(shown))
                if len(shown) < catalog.total and not args.last:
                    print(f"(the newest {len(shown)}; --last N lists more, --show K replays one, --ggf FILE exports them)")
    except (CatalogError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C while reading a large run's shards: --ggf is written whole or not at all
        kept = f"; {args.ggf} was not written" if args.ggf else ""
        print(f"\nalphazero.games: interrupted{kept}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
