"""Reviewing a game move by move: the search's view before and after each move, and what it cost.

`review_game(record, chooser)` is a generator: for each ply of the game it searches the position
after the move (the one before was searched for the ply before) and yields a `MoveReview`, so a
caller shows progress as the moves come and cancels by not asking for the next one (a web page's
worker, the command's Ctrl-C). Each position is searched once, with the one search every front
end plays with (`alphazero.play.choosers.SearchChooser`, built by `network_chooser` on the engine
factory's evaluator): the tree of one position is kept for the next, as in a game.

Figures, all from the point of view of the side that moved (win probabilities in [0, 1], the
search's value v in [-1, 1] read as (v + 1) / 2, the way `MoveInfo.win_probability` reads it):
- `win_before`: the search's value of the position before the move, i.e. of the best move it
  found; `win_after`: its value of the position after the move played;
- `loss`: win_before - win_after, when the move played is not the one the search preferred
  (a move the search itself would play loses nothing by definition: any difference is the search
  seeing further one ply on, not the move), and never below 0;
- within the endgame solver's reach (the search's `endgame_solve_empties`, 18 by default, as in
  play), the search's root is solved exactly: the win probabilities are then the exact outcome (1,
  0.5, 0), the preferred move is a perfect one, and `exact_before`/`exact_after` are final disc
  differences with perfect play from there (empties to the winner), so `discs_lost` is exact.

Marks (`Marks`): `??` for a loss of at least `blunder` in win probability (which, within the
solver's reach, is a move that turned a win into a draw or a loss, or a draw into a loss), `?` for
at least `mistake`, or, within reach, at least `mistake_discs` discs lost.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import BLACK, GameState
from alphazero.othello.notation import action_name
from alphazero.othello.record import GameRecord

# Thresholds of the marks, win probability lost (0..1) and exact discs lost.
DEFAULT_MISTAKE = 0.10
DEFAULT_BLUNDER = 0.20
DEFAULT_MISTAKE_DISCS = 4


@dataclass(frozen=True)
class Marks:
    """When a move is marked: `??` from `blunder` win probability lost, `?` from `mistake`, or
    from `mistake_discs` exact discs lost within the solver's reach."""

    mistake: float = DEFAULT_MISTAKE
    blunder: float = DEFAULT_BLUNDER
    mistake_discs: int = DEFAULT_MISTAKE_DISCS

    def __post_init__(self):
        if not (0 < self.mistake <= self.blunder <= 1):
            raise ValueError(f"marks must satisfy 0 < mistake <= blunder <= 1, got mistake {self.mistake}, blunder {self.blunder}")
        if self.mistake_discs < 1:
            raise ValueError(f"mistake_discs must be >= 1, got {self.mistake_discs}")

    def mark(self, loss: float, discs_lost: int | None) -> str:
        if loss >= self.blunder - 1e-9:
            return "??"
        if loss >= self.mistake - 1e-9 or (discs_lost is not None and discs_lost >= self.mistake_discs):
            return "?"
        return ""


@dataclass(frozen=True)
class Evaluation:
    """What is known of one position, from Black's point of view.

    black_win:   probability that Black wins, in [0, 1] (exact: 1, 0.5 or 0 once solved or over).
    black_exact: Black's final disc difference with perfect play from here, when solved or over.
    best:        the move the search (or solver) prefers for the side to move; PASS at a forced
                 pass, None at the end of the game.
    simulations: new simulations its search ran (0: solved, forced or over); seconds: its time.
    """

    black_win: float
    black_exact: int | None
    best: int | None
    simulations: int = 0
    seconds: float = 0.0

    def win_for(self, color: int) -> float:
        return self.black_win if color == BLACK else 1.0 - self.black_win

    def exact_for(self, color: int) -> int | None:
        if self.black_exact is None:
            return None
        return self.black_exact if color == BLACK else -self.black_exact


@dataclass(frozen=True)
class MoveReview:
    """One ply of a reviewed game; plain values only, so `as_json()` is the dataclass as a dict.

    ply:          1-based index of the ply in the record (passes count).
    number:       the move's number, counting moves that place a disc from 1; None for a pass.
    color:        "black" or "white", the side that moved.
    move:         the move played, `f5` or `pass`.
    empties:      empty squares before the move.
    legal_moves:  how many moves the side had (1: nothing to choose, never marked).
    win_before:   the side's win probability before the move (the search's value of its best move).
    win_after:    the side's win probability after the move played.
    preferred:    the move the search (within reach: the solver) preferred.
    loss:         win probability lost by the move played against the preferred one (>= 0; 0 when
                  they are the same move).
    exact_before: the side's final disc difference with perfect play before the move (solved), else None.
    exact_after:  the same after the move played, else None.
    discs_lost:   exact_before - exact_after when both are known, else None.
    mark:         "??", "?" or "" (`Marks`).
    simulations:  simulations the search of the position before the move ran; seconds: its time.
    """

    ply: int
    number: int | None
    color: str
    move: str
    empties: int
    legal_moves: int
    win_before: float
    win_after: float
    preferred: str
    loss: float
    exact_before: int | None
    exact_after: int | None
    discs_lost: int | None
    mark: str
    simulations: int
    seconds: float

    def as_json(self) -> dict:
        return dataclasses.asdict(self)


def evaluate(chooser, state: GameState, should_stop: Callable[[], bool] | None = None) -> Evaluation:
    """One position where a side can move, or the end: the rules at the end, else one search
    (`chooser.think`; within the solver's reach, the solver's exact result and move). A forced
    pass is `review_game`'s to settle (the position after it, which the game's next ply has).
    `should_stop` goes to the search (asked between chunks: the web board's turns and ceiling)."""
    if state.is_over():
        margin = state.black_margin()
        return Evaluation(black_win=_outcome_win(margin), black_exact=margin, best=None)
    if state.must_pass():
        raise ValueError("a forced pass has no search of its own: evaluate the position after it")
    thought = chooser.think(state, should_stop=should_stop, search_solved_roots=False)
    win = (thought.root_value + 1.0) / 2.0
    exact = thought.exact_score
    black = state.color_to_move == BLACK
    return Evaluation(
        black_win=win if black else 1.0 - win,
        black_exact=None if exact is None else (exact if black else -exact),
        best=thought.action,
        simulations=thought.simulations,
        seconds=thought.seconds,
    )


def review_game(record: GameRecord, chooser, marks: Marks = Marks(),
                should_stop: Callable[[], bool] | None = None) -> Iterator[MoveReview]:
    """Review every ply of `record` with `chooser` (a `SearchChooser`), yielding one `MoveReview`
    a ply, in order, each as soon as the position after it is searched (nothing runs before the
    first is asked for). The chooser's trees are reset first, and its limits (`set_limits`) are the
    budget of each position. `should_stop`, when given, is every search's (`SearchChooser.think`:
    asked between chunks of simulations; the web board hands its turn on there and stops at its
    ceiling or when the page goes away; a review it stopped is the caller's to discard). Raises
    IllegalMoveError (from `record.states()`) before any search if the record holds an illegal move."""
    states = record.states()
    chooser.new_game()
    known: dict[GameState, Evaluation] = {}

    def evaluation(state: GameState) -> Evaluation:
        """Each position searched once, in the game's order (so the tree of one is kept for the
        next); a forced pass is worth the position after it, at no search."""
        if state not in known:
            if state.must_pass():
                after = evaluation(state.play(PASS))
                known[state] = Evaluation(after.black_win, after.black_exact, PASS)
            else:
                known[state] = evaluate(chooser, state, should_stop)
        return known[state]

    number = 0
    for ply, action in enumerate(int(a) for a in record.actions):
        before, after = evaluation(states[ply]), evaluation(states[ply + 1])
        if action != PASS:
            number += 1
        yield move_review(ply + 1, number if action != PASS else None, states[ply], action, before, after, marks)


def move_review(ply: int, number: int | None, state: GameState, action: int, before: Evaluation, after: Evaluation,
                marks: Marks) -> MoveReview:
    """The figures of one move from the evaluations of the positions before and after it."""
    mover = state.color_to_move
    legal = state.legal_actions()
    win_before, win_after = before.win_for(mover), after.win_for(mover)
    exact_before, exact_after = before.exact_for(mover), after.exact_for(mover)
    preferred = action if before.best is None else before.best
    loss = 0.0 if preferred == action else max(0.0, win_before - win_after)
    discs_lost = None if exact_before is None or exact_after is None else exact_before - exact_after
    return MoveReview(
        ply=ply,
        number=number,
        color="black" if mover == BLACK else "white",
        move=action_name(action),
        empties=state.empties(),
        legal_moves=len(legal),
        win_before=win_before,
        win_after=win_after,
        preferred=action_name(preferred),
        loss=loss,
        exact_before=exact_before,
        exact_after=exact_after,
        discs_lost=discs_lost,
        mark="" if len(legal) <= 1 else marks.mark(loss, discs_lost),
        simulations=before.simulations if action != PASS else 0,
        seconds=before.seconds if action != PASS else 0.0,
    )


def _outcome_win(margin: int) -> float:
    return 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
