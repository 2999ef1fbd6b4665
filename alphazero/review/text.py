"""A reviewed game as text: a header, one line per ply, and the summary.

    move  side   played  before  after  preferred    loss  exact (perfect play)
       1  Black  f5       50.3%  50.1%  f5           0.0%
      23  White  c4       61.0%  32.5%  b3          28.5%                       ??
      45  Black  a1      100.0%  50.0%  b2          50.0%  +4 -> +0, 4 discs     ??

`before` and `after` are the mover's win probability; `exact` appears once the solver reaches the
position: the mover's final disc difference with perfect play before and after the move.
"""

from __future__ import annotations

from collections.abc import Sequence

from alphazero.othello.notation import format_margin
from alphazero.review.reviewer import MoveReview
from alphazero.review.summary import Summary

HEADER = f"{'move':>4}  {'side':<5}  {'played':<6}  {'before':>6}  {'after':>6}  {'preferred':<9}  {'loss':>6}  exact (perfect play)"
EXACT_WIDTH = 22




def exact_text(review: MoveReview) -> str:
    if review.discs_lost is None:
        return ""
    return f"{review.exact_before:+d} -> {review.exact_after:+d}, {review.discs_lost} disc{'s' if review.discs_lost != 1 else ''}"


def move_line(review: MoveReview) -> str:
    number = "" if review.number is None else str(review.number)
    line = (f"{number:>4}  {review.color.capitalize():<5}  {review.move:<6}  {review.win_before:>6.1%}  {review.win_after:>6.1%}  "
            f"{review.preferred:<9}  {review.loss:>6.1%}  {exact_text(review):<{EXACT_WIDTH}}  {review.mark}")
    return line.rstrip()


def move_name(review: MoveReview) -> str:
    """`move 23 (White c4)`, or `ply 40 (White pass)` for a pass."""
    where = f"move {review.number}" if review.number is not None else f"ply {review.ply}"
    return f"{where} ({review.color.capitalize()} {review.move})"


def mistake_text(review: MoveReview) -> str:
    """`move 23 (Black c3) ? lost 15.1% win probability, h2 was better`; within the solver's
    reach the exact discs too (a move can lose discs and no win probability)."""
    lost = [f"{review.loss:.1%} win probability"] if review.loss > 0 else []
    if review.discs_lost:
        lost.append(f"{review.discs_lost} disc{'s' if review.discs_lost != 1 else ''} with perfect play")
    return f"{move_name(review)} {review.mark} lost {' and '.join(lost)}, {review.preferred} was better"


def summary_lines(summary: Summary, reviews: Sequence[MoveReview]) -> list[str]:
    by_ply = {review.ply: review for review in reviews}
    lines = [f"result: {format_margin(summary.black_margin)}"]
    for color, plies in (("Black", summary.black_mistakes), ("White", summary.white_mistakes)):
        if plies:
            lines.append(f"{color}'s biggest mistakes: " + "; ".join(mistake_text(by_ply[ply]) for ply in plies))
        else:
            lines.append(f"{color}'s biggest mistakes: none marked")
    if summary.loser is None:
        if not summary.plies:
            lines.append("where the game was lost: nothing reviewed")
        else:
            lines.append("where the game was lost: nowhere, a draw" if summary.black_margin == 0
                         else "where the game was lost: the record has no result (the game stops before its end)")
    else:
        loser = summary.loser.capitalize()
        if summary.turning_ply is None:
            lines.append(f"where the game was lost: {loser} was behind from the first position reviewed")
        else:
            review = by_ply[summary.turning_ply]
            before, after = (review.win_before, review.win_after) if review.color == summary.loser else (
                1.0 - review.win_before, 1.0 - review.win_after)
            lines.append(f"where the game was lost: {move_name(review)}, after which {loser} stayed behind "
                         f"({loser}'s win probability {before:.1%} -> {after:.1%})")
    lines.append(f"searched: {summary.simulations:,} simulations in {summary.seconds:.1f} s")
    return lines
