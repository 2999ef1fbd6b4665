"""`python -m alphazero.play`: Othello at the terminal against our AI, or AI against AI.

    python -m alphazero.play                               # you (black) vs the strongest shipped network
    python -m alphazero.play --color white --seconds 3      # you play white; the AI thinks 3 s a move
    python -m alphazero.play --checkpoint run/checkpoints/best.pt --simulations 800
    python -m alphazero.play --player alphabeta:depth=4     # any arena player as the opponent
    python -m alphazero.play --transcript f5d6c3d3c4        # continue from a position
    python -m alphazero.play --board "<64 squares> X"       # ... or from a board (X/* black, O white, - empty)
    python -m alphazero.play --ggf game.ggf --game 2        # ... or from the end of a GGF game
    python -m alphazero.play --black ai --white greedy --delay 1   # watch AI vs AI
    python -m alphazero.play --save mygame                  # write mygame.ggf and mygame.txt at the end

A side spec (--black/--white) is `human`, `ai` (the network/--player AI set by the AI options), or
an arena player spec (random, greedy, alphabeta:depth=3, mcts:checkpoint=PATH, gtp:"CMD", ...).
Type `help` during the game for the commands.
"""

from __future__ import annotations

import dataclasses
import sys

from alphazero.argtypes import non_negative_float
from alphazero.console import EXIT_INTERRUPTED
from alphazero.othello.game import GameState
from alphazero.othello.notation import NotationError, parse_board_text, parse_transcript
from alphazero.play.choosers import (
    MoveChooser,
    NoAIError,
    SearchSettings,
    build_chooser,
    chooser_from_spec,
    front_end_parser,
)
from alphazero.play.render import color_wanted
from alphazero.play.session import PlaySession, Seat

MAX_INPUT_CHARS = 4096


def parse_args(argv):
    parser = front_end_parser("python -m alphazero.play",
                              "Play Othello at the terminal against the AlphaZero network (or watch AI vs AI).", __doc__)
    sides = parser.add_argument_group("sides")
    sides.add_argument("--color", choices=["black", "white"], default="black", help="your colour against the AI")
    sides.add_argument("--black", metavar="SPEC", help="who plays black: human, ai or a player spec")
    sides.add_argument("--white", metavar="SPEC", help="who plays white: human, ai or a player spec")
    setup = parser.add_argument_group("start position")
    setup.add_argument("--board", help='64 squares a1..h8 (X or * black, O white, - or . empty) and the side to move')
    setup.add_argument("--ggf", metavar="FILE", help="continue from the end of a game in a GGF file")
    setup.add_argument("--game", type=int, default=1, help="which game of the GGF file (1-based, default 1)")
    setup.add_argument("--transcript", help="moves to play first, like f5d6c3 (from --board/--ggf if given)")
    output = parser.add_argument_group("output")
    output.add_argument("--save", metavar="PREFIX", help="save the game as PREFIX.ggf and PREFIX.txt when it ends")
    output.add_argument("--delay", type=non_negative_float, default=None, help="seconds to pause after each AI move (default 0)")
    output.add_argument("--style", choices=["auto", "plain", "color"], default="auto",
                        help="board drawing: colour on a terminal (auto, the default; NO_COLOR disables it)")
    args = parser.parse_args(argv)
    if args.board and args.ggf:
        parser.error("give --board or --ggf, not both")
    return args


def setup_position(args) -> tuple[GameState, list[int]]:
    """The start position and the moves already played, from --board/--ggf and --transcript."""
    start = GameState.start()
    actions: list[int] = []
    if args.board:
        try:
            start = parse_board_text(args.board)
        except (NotationError, ValueError) as err:
            raise SystemExit(f"error: --board: {err}")
    if args.ggf:
        from alphazero.data.ggf import read_ggf

        try:
            records = read_ggf(args.ggf)
        except (OSError, ValueError) as err:
            raise SystemExit(f"error: --ggf {args.ggf}: {err}")
        if not 1 <= args.game <= len(records):
            raise SystemExit(f"error: --game {args.game}: {args.ggf} holds {len(records)} game(s)")
        record = records[args.game - 1]
        start, actions = record.start, [int(a) for a in record.actions]
    if args.transcript:
        state = start
        for action in actions:
            state = state.play(action)
        try:
            actions += parse_transcript(args.transcript, state)
        except NotationError as err:
            raise SystemExit(f"error: --transcript: {err}")
    return start, actions


def build_seats(args) -> tuple[Seat, Seat]:
    """Seats for black and white from --black/--white, or you (--color) against the AI."""
    settings = SearchSettings.from_args(args)
    shared_ai: list[MoveChooser] = []

    def the_ai() -> MoveChooser:
        if not shared_ai:
            shared_ai.append(build_chooser(args.checkpoint, args.player, settings))
        return shared_ai[0]

    def seat(spec: str) -> Seat:
        spec = spec.strip()
        if spec.lower() == "human":
            return Seat("human")
        if spec.lower() == "ai":
            ai = the_ai()
            return Seat(ai.name, ai)
        searched = spec.lower().startswith("mcts")  # the search options apply to MCTS specs only
        own = settings if searched else dataclasses.replace(settings, simulations=None, seconds=None)
        chooser = chooser_from_spec(spec, own)
        return Seat(chooser.name, chooser)

    if args.black or args.white:
        return seat(args.black or "human"), seat(args.white or "human")
    ai = the_ai()
    you, opponent = Seat("you"), Seat(ai.name, ai)
    return (you, opponent) if args.color == "black" else (opponent, you)


def terminal_reader(stdin, stdout, echo: bool):
    """read_line for the session: the prompt, then one line (cut at MAX_INPUT_CHARS); None at EOF.
    With `echo` (input not from a terminal) the line is written after the prompt, so a log of a
    scripted session reads like the screen of a typed one."""

    def read_line(prompt: str) -> str | None:
        stdout.write(prompt)
        stdout.flush()
        line = stdin.readline(MAX_INPUT_CHARS)
        if not line:
            stdout.write("\n")
            return None
        if not line.endswith("\n"):
            rest = line
            while rest and not rest.endswith("\n"):  # drop the remainder of an over-long line
                rest = stdin.readline(MAX_INPUT_CHARS)
        if echo:
            stdout.write(line.rstrip("\n")[:80] + "\n")
        return line.rstrip("\r\n")

    return read_line


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    start, actions = setup_position(args)
    try:
        black, white = build_seats(args)
    except NoAIError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # binary garbage on stdin is bad input, not a crash
    interactive = sys.stdin.isatty()
    color = args.style == "color" or (args.style == "auto" and color_wanted(sys.stdout))
    delay = args.delay if args.delay is not None else 0.0
    session = PlaySession(
        black,
        white,
        read_line=terminal_reader(sys.stdin, sys.stdout, echo=not interactive),
        write=lambda text: print(text, flush=True),
        start=start,
        setup_actions=actions,
        color=color,
        delay=delay,
        save_prefix=args.save,
    )
    try:
        session.run()
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return EXIT_INTERRUPTED
    finally:
        for chooser in {id(s.chooser): s.chooser for s in (black, white) if s.chooser is not None}.values():
            chooser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
