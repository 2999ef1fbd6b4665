"""What a reviewed game comes to: each side's biggest mistakes, and where the game was lost.

"Where the game was lost" is the ply after which the loser's result turned for good: the last ply
whose position before it the loser was not losing (win probability at least one half: exact once
within the solver's reach) and whose position after it the loser was. It is usually the loser's
own move; it can be the winner's when the search saw the turn only one ply late (the text says
whose move it was). There is none in a draw, and none when the loser was behind from the first
position reviewed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from alphazero.othello.record import GameRecord
from alphazero.review.reviewer import MoveReview

TOP_MISTAKES = 3  # per side, in the summary


@dataclass(frozen=True)
class Summary:
    """A reviewed game in a few figures; plain values (`as_json()`).

    plies:           plies reviewed.
    black_margin:    Black's final disc difference when the game ended, else None.
    loser:           "black" or "white": the side that lost (by the final position, else by the
                     result the record gives, GGF's RE of a resigned game), None in a draw or
                     an unfinished game without a result.
    turning_ply:     the ply after which the loser's result turned for good (module doc), or None.
    black_mistakes:  plies of Black's marked moves, the biggest first (win probability lost, then
                     exact discs lost), at most TOP_MISTAKES; white_mistakes: the same for White.
    simulations:     simulations the searches ran; seconds: their time.
    """

    plies: int
    black_margin: int | None
    loser: str | None
    turning_ply: int | None
    black_mistakes: list[int]
    white_mistakes: list[int]
    simulations: int
    seconds: float

    def as_json(self) -> dict:
        return dataclasses.asdict(self)


def summarize(record: GameRecord, reviews: Sequence[MoveReview]) -> Summary:
    """The summary of `reviews`, the MoveReviews of `record`'s plies in order."""
    margin = record.black_margin
    # A game that stopped early has a loser only by its recorded result (GGF's RE of a resigned or
    # timed-out game); an abandoned one has none, whatever the search thinks of its last position.
    result = margin if margin is not None else record.metadata.get("result")
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        result = None
    loser = None if not result else ("black" if result < 0 else "white")
    return Summary(
        plies=len(reviews),
        black_margin=margin,
        loser=loser,
        turning_ply=turning_ply(reviews, loser),
        black_mistakes=biggest_mistakes(reviews, "black"),
        white_mistakes=biggest_mistakes(reviews, "white"),
        simulations=sum(review.simulations for review in reviews),
        seconds=sum(review.seconds for review in reviews),
    )


def biggest_mistakes(reviews: Sequence[MoveReview], color: str, count: int = TOP_MISTAKES) -> list[int]:
    marked = [review for review in reviews if review.color == color and review.mark]
    marked.sort(key=lambda review: (-review.loss, -(review.discs_lost or 0), review.ply))
    return [review.ply for review in marked[:count]]


def loser_win(review: MoveReview, loser: str) -> tuple[float, float]:
    """The loser's win probability before and after the ply."""
    if review.color == loser:
        return review.win_before, review.win_after
    return 1.0 - review.win_before, 1.0 - review.win_after


def turning_ply(reviews: Sequence[MoveReview], loser: str | None) -> int | None:
    if loser is None:
        return None
    for review in reversed(reviews):
        before, after = loser_win(review, loser)
        if before >= 0.5 and after < 0.5:
            return review.ply
    return None
