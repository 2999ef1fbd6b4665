"""`python -m alphazero.web`: the web board, served on this machine only.

    python -m alphazero.web                                   # the default network (as play and gtp)
    python -m alphazero.web --checkpoint run/checkpoints/best.pt --run run
    python -m alphazero.web --port 0                          # any free port (the address is printed)

Open the printed address in a browser: play against a network (either colour, by simulations or
seconds per move, undo, start from a pasted transcript, board or GGF; save the record as a
transcript or GGF), analyse a position (the policy as a heat map, value and win %, the search's top
moves with visits and Q, the principal variation, the exact solver's result near the end, a
value-over-the-game chart), review a finished game move by move (a pasted or opened transcript or
GGF game, the game on the board or a run's game: the search's evaluation before and after each
move, the move it preferred, the loss, exact near the end, charted with the mistakes marked; the
same review as `python -m alphazero.review`), and with --run watch the run's latest self-play
games and its Elo, score and loss curves. --simulations or --seconds set the page's starting budget per move; every
search stops after 120 s whatever it asks for, or when the page gives up on it. It listens on
127.0.0.1 unless --host says otherwise, answers only requests addressed to it (Host) from the page
it served (a token), and opens only the checkpoints and the run it lists unless --allow-any-path.
To use it from another machine, tunnel its port over SSH (ssh -L 8037:127.0.0.1:8037 HOST, then
open http://127.0.0.1:8037/ there). It writes no file of its own (loading a network may update the
precision cache, as play does). Needs the web extra: pip install -e ".[web]". docs/frontends.md has
the details.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import logging
import sys

from alphazero.play.choosers import DEFAULT_CHECKPOINTS_TEXT, SearchSettings, default_checkpoint, front_end_parser

DEFAULT_PORT = 8037


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def board_settings(args) -> SearchSettings:
    """The networks' settings from the command line: device, threads, precision, leaves, seed,
    endgame. No budget: each request sets its own (--simulations and --seconds are the page's
    starting values)."""
    return dataclasses.replace(SearchSettings.from_args(args), simulations=None, seconds=None)


def command_parser() -> argparse.ArgumentParser:
    parser = front_end_parser("python -m alphazero.web",
                              "The web board: play, analyse, and watch a training run, in the browser.", __doc__)
    parser.add_argument("--run", metavar="DIR", help="a training run directory for the run viewer")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only; anything else "
                             "lets other machines drive the board: an SSH tunnel is safer, docs/frontends.md)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = any free port)")
    parser.add_argument("--allow-any-path", action="store_true",
                        help="let the page open any checkpoint file and run directory by path, not only those "
                             "it lists (--checkpoint, checkpoints/, --run and its checkpoints/): for a trusted "
                             "setting only, since whoever drives the board can then read any run on this machine")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = command_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:  # the socket layer would take a larger one modulo 65536
        parser.error(f"--port must be in 0..65535 (0 = any free port), got {args.port}")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s", stream=sys.stderr)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    if args.player:
        print("error: the web board plays and analyses with a network: give --checkpoint, not --player", file=sys.stderr)
        return 2
    try:
        from alphazero.web.server import make_board_server
    except ImportError as err:
        print(f'error: the web board needs the web extra ({err.name} is missing): pip install -e ".[web]"', file=sys.stderr)
        return 2
    from alphazero.web.access import Offered
    from alphazero.web.analysis import Engines
    from alphazero.web.positions import InputError
    from alphazero.web.runs import RunReader

    checkpoint = args.checkpoint or default_checkpoint()
    if checkpoint is None:
        print(f"error: no --checkpoint given and no default network ({DEFAULT_CHECKPOINTS_TEXT}) found", file=sys.stderr)
        return 2
    engines = Engines(checkpoint, board_settings(args))
    try:
        if args.run:  # first: it takes no time, loading the network does
            RunReader.check_run(args.run)
        engines.load(checkpoint)  # now: a bad file is refused before serving
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        server = make_board_server(engines, args.host, args.port, Offered(str(checkpoint), args.run, args.allow_any_path),
                                   default_simulations=args.simulations or 200, default_seconds=args.seconds)
    except OSError as err:
        print(f"error: cannot listen on {args.host}:{args.port}: {err}", file=sys.stderr)
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    if not is_loopback(args.host):
        print(f"alphazero.web: warning: listening on {args.host}, reachable from other machines", file=sys.stderr)
    print(f"alphazero.web: serving http://{host}:{server.server_port}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        engines.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
