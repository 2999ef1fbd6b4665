"""Opening lines for matches: seeded random k-ply openings, or a file of transcripts.

Deterministic players replay the same game from the same position, so a match needs many distinct
starting positions to measure anything; each opening is then played twice with colours swapped
(see `match.py`), which cancels the advantage an opening gives one colour.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from alphazero.othello.game import GameState
from alphazero.othello.notation import NotationError, format_transcript, parse_transcript

MAX_ATTEMPTS_PER_OPENING = 200


def play_opening(actions, start: GameState | None = None) -> GameState:
    """The position after `actions` from `start` (the standard start by default)."""
    state = start or GameState.start()
    for action in actions:
        state = state.play(int(action))
    return state


def random_openings(count: int, plies: int, seed: int = 0) -> list[list[int]]:
    """`count` random `plies`-ply openings from the standard start (forced passes count as plies).

    Uniformly random legal moves from a generator seeded with `seed`; the positions they reach are
    pairwise distinct (transpositions count as duplicates) and no opening ends the game. Raises
    ValueError when `count` distinct positions are not found (too few exist at that depth: 4 positions
    after one ply, 12 after two, 54 after three, 236 after four, 1288 after five, 7092 after six).
    """
    if count < 0 or plies < 0:
        raise ValueError(f"count and plies must be >= 0, got count={count}, plies={plies}")
    rng = np.random.default_rng(seed)
    openings: list[list[int]] = []
    seen: set[GameState] = set()
    attempts = 0
    while len(openings) < count:
        attempts += 1
        if attempts > MAX_ATTEMPTS_PER_OPENING * max(count, 1):
            raise ValueError(
                f"found only {len(openings)} distinct {plies}-ply openings after {attempts - 1} random tries, "
                f"{count} requested: use more opening plies or fewer pairs"
            )
        state = GameState.start()
        actions: list[int] = []
        while len(actions) < plies and not state.is_over():
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            actions.append(action)
            state = state.play(action)
        if state.is_over() or state in seen:
            continue
        seen.add(state)
        openings.append(actions)
    return openings


def read_openings(path: str | Path) -> list[list[int]]:
    """One transcript per line (`f5d6c3`, passes implicit or `pa`); blank lines and text after `#`
    are ignored. Errors name the file and line. Openings that end the game are rejected."""
    path = Path(path)
    openings = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            actions = parse_transcript(text)
        except NotationError as err:
            raise ValueError(f"{path}:{number}: {err}") from None
        if play_opening(actions).is_over():
            raise ValueError(f"{path}:{number}: opening {text!r} ends the game")
        openings.append(actions)
    return openings


def opening_name(actions) -> str:
    """The transcript of an opening (passes explicit, as `pa`), `-` for the empty opening."""
    return format_transcript(actions, explicit_passes=True) or "-"
