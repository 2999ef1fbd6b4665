"""Command line: a match between two players, or a round-robin ladder.

    python -m alphazero.arena PLAYER_A PLAYER_B --pairs N [--opening-plies 4] [--seed S]
        [--openings FILE] [--save-ggf PATH] [--save-transcripts PATH] [--games-log FILE.jsonl]
        [--concurrency N] [--shard K/N] [--progress | --no-progress]
    python -m alphazero.arena ladder P1 P2 P3 ... --pairs N [--opening-plies 4] [--seed S]
        [--openings FILE] [--out FILE.md] [--gauntlet K] [--results FILE.jsonl] [--games-log FILE.jsonl]
        [--concurrency N] [--shard K/N] [--progress | --no-progress]

A match prints one JSON line (wins, draws, losses, score, elo_diff, elo_ci95, games_per_second,
wipeouts, wiped_out: whose discs they were, ...) from PLAYER_A's view. A ladder prints the markdown report (and writes it to --out)
and then one JSON line of fitted ratings. Player specs: see `players.SPEC_FORMS`.

On a terminal both report their progress on stderr (games over, share of the moves played, time
left); in a pipe or a log they print only their results, unless `--progress` asks for it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from alphazero.argtypes import non_negative_int, positive_int
from alphazero.arena.game_log import GameLog, numbered_lines
from alphazero.arena.ladder import play_ladder
from alphazero.arena.match import check_shard, play_match, save_games_transcripts
from alphazero.arena.openings import read_openings
from alphazero.arena.players import SPEC_FORMS, PlayerSpecError, make_player
from alphazero.atomic import check_target, write_text_atomic
from alphazero.console import EXIT_INTERRUPTED, add_progress_option, progress_wanted

SPEC_HELP = "player spec, one of: " + "; ".join(SPEC_FORMS)


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pairs", type=positive_int, required=True, help="openings, each played with both colours")
    parser.add_argument("--opening-plies", type=non_negative_int, default=4, help="random opening length (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random openings (default 0)")
    parser.add_argument("--openings", metavar="FILE", help="transcripts, one opening per line, instead of random ones")
    add_progress_option(parser, "games over, moves played and the time left")
    parser.add_argument(
        "--concurrency", type=positive_int, metavar="N",
        help="at most N games in play at once (default: all); with --games-log against a slow engine, "
        "games then finish (and are logged) one by one",
    )
    parser.add_argument(
        "--games-log", metavar="FILE.jsonl",
        help="append each finished game here; a restarted match takes the games already in it as played",
    )
    parser.add_argument(
        "--shard", type=_shard, metavar="K/N",
        help="play only games K, K+N, K+2N, ... (K from 0): N processes sharing one --games-log split a slow "
        "match between them; the figures printed cover this shard only",
    )


def _shard(text: str) -> tuple[int, int]:
    parts = text.split("/")
    try:
        index, count = (int(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N such as 0/2, got {text!r}") from None
    try:
        check_shard((index, count))
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return index, count


def match_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.arena",
        description="Play PLAYER_A against PLAYER_B on paired openings; print one JSON line. "
        "Use `python -m alphazero.arena ladder P1 P2 ...` for a round robin.",
    )
    parser.add_argument("player_a", metavar="PLAYER_A", help=SPEC_HELP)
    parser.add_argument("player_b", metavar="PLAYER_B", help="player spec (as PLAYER_A)")
    _common_options(parser)
    parser.add_argument("--save-ggf", metavar="PATH", help="write the games as GGF")
    parser.add_argument("--save-transcripts", metavar="PATH", help="write the games as one transcript per line")
    return parser


def ladder_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.arena ladder",
        description="Round robin of all players on shared openings; print a markdown table and fitted Elo.",
    )
    parser.add_argument("players", metavar="PLAYER", nargs="+", help=SPEC_HELP)
    _common_options(parser)
    parser.add_argument("--out", metavar="FILE.md", help="also write the markdown report here")
    parser.add_argument(
        "--gauntlet", type=non_negative_int, default=0, metavar="K",
        help="only pairings with one of the first K players: they play everyone, the rest (a fixed field) do not play each other",
    )
    parser.add_argument(
        "--results", metavar="FILE.jsonl",
        help="append each finished match here; a restarted ladder reuses the matches already in it",
    )
    return parser


def _make_players(parser, specs):
    players = []
    try:
        for spec in specs:
            players.append(make_player(spec))
    except (PlayerSpecError, RuntimeError, OSError) as err:
        for player in players:
            player.close()
        parser.error(str(err))
    return players


def _openings(parser, args):
    if not args.openings:
        return None
    try:
        return read_openings(args.openings)
    except (OSError, ValueError) as err:
        parser.error(f"--openings: {err}")


def _check_output_files(parser, args, options: tuple[str, ...]) -> None:
    """Refuse, before any game is played, a file option naming a directory or a path under a file:
    otherwise it fails when first written, which for --out, --save-ggf and --save-transcripts is
    after the whole match, its games lost with a traceback."""
    for option in options:
        value = getattr(args, option[2:].replace("-", "_"))
        if value:
            try:
                check_target(Path(value))
            except OSError as error:  # names the path and what is in the way
                parser.error(f"{option}: {error}")


def _game_log(args) -> GameLog | None:
    return GameLog(args.games_log) if args.games_log else None




def _lines_in(path: str) -> int:
    return sum(1 for _, line in numbered_lines(Path(path)) if line.strip()) if Path(path).is_file() else 0


def _interrupted(args) -> int:
    """Ctrl-C: one line saying what was kept (the players are closed by the caller's finally):
    the games in --games-log and, for a ladder, the finished matches in --results (a restarted
    ladder reuses those too)."""
    kept = []
    if getattr(args, "results", None):
        matches = _lines_in(args.results)
        kept.append(f"{args.results} holds {matches} finished match{'es' * (matches != 1)}")
    if args.games_log:
        logged = _lines_in(args.games_log)
        kept.append(f"{args.games_log} holds {logged} finished game{'s' * (logged != 1)}")
    if kept:
        text = "; ".join(kept) + "; the same command resumes from them"
    else:
        text = "the games finished so far are not kept (--games-log FILE keeps them for a resume)"
    print(f"\nalphazero.arena: interrupted: {text}", file=sys.stderr)
    return EXIT_INTERRUPTED


def run_match(argv) -> int:
    parser = match_parser()
    args = parser.parse_args(argv)
    _check_output_files(parser, args, ("--games-log", "--save-ggf", "--save-transcripts"))
    openings = _openings(parser, args)
    players = _make_players(parser, [args.player_a, args.player_b])
    try:
        try:
            result = play_match(
                players[0], players[1], args.pairs, opening_plies=args.opening_plies, seed=args.seed,
                openings=openings, progress=progress_wanted(args.progress), game_log=_game_log(args), concurrency=args.concurrency,
                shard=args.shard,
            )
        except ValueError as err:
            parser.error(str(err))
        except KeyboardInterrupt:
            return _interrupted(args)
        if args.save_ggf:
            from alphazero.arena.match import save_games_ggf

            save_games_ggf(result, args.save_ggf)
        if args.save_transcripts:
            save_games_transcripts(result, args.save_transcripts)
    finally:
        for player in players:
            player.close()
    print(json.dumps(result.summary()), flush=True)
    return 0


def run_ladder(argv) -> int:
    parser = ladder_parser()
    args = parser.parse_args(argv)
    if len(args.players) < 2:
        parser.error(f"a ladder needs at least 2 players, got {len(args.players)}")
    _check_output_files(parser, args, ("--games-log", "--results", "--out"))
    openings = _openings(parser, args)
    players = _make_players(parser, args.players)
    try:
        try:
            ladder = play_ladder(
                players, args.pairs, opening_plies=args.opening_plies, seed=args.seed, openings=openings,
                progress=progress_wanted(args.progress), gauntlet=args.gauntlet, results_path=args.results,
                game_log=_game_log(args), concurrency=args.concurrency, shard=args.shard,
            )
        except ValueError as err:
            parser.error(str(err))
        except KeyboardInterrupt:
            return _interrupted(args)
    finally:
        for player in players:
            player.close()
    report = ladder.to_markdown()
    if args.out:
        write_text_atomic(args.out, report)
    print(report, end="")
    print(json.dumps(ladder.summary()), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "ladder":
        return run_ladder(argv[1:])
    return run_match(argv)


if __name__ == "__main__":
    sys.exit(main())
