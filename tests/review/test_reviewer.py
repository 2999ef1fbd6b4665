"""The review's figures: a blunder within the solver's reach is found with its exact loss, every
ply is reviewed lazily (one search ahead), and the summary finds each side's mistakes and the ply
after which the loser stayed behind."""

from pathlib import Path

import pytest

from alphazero.data.ggf import read_ggf
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.othello.bitboard import PASS
from alphazero.othello.notation import action_name, parse_square
from alphazero.othello.record import GameRecord
from alphazero.play.choosers import SearchChooser
from alphazero.review.reviewer import Marks, MoveReview, review_game
from alphazero.review.summary import summarize, turning_ply
from alphazero.solver.solver import Solver

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
START_EMPTIES = 16  # the constructed game starts here: every position within the default reach (20)
BLUNDER_EMPTIES = 12


def mover_score(solver: Solver, state, action: int) -> int:
    """The exact final disc difference, for the side that plays `action` in `state`, of the
    position after it with perfect play (the solver's score is for the side to move there)."""
    after = state.play(action)
    if after.is_over():
        margin = after.black_margin()
        return margin if state.black_to_move else -margin
    if after.must_pass():  # the mover moves again
        again = after.play(PASS)
        return solver.solve(again.player, again.opponent).score
    return -solver.solve(after.player, after.opponent).score


def game_with_a_blunder():
    """A real game (the first of the GGF samples) from its position at 16 empties: its own moves up
    to the first position from 12 empties where a move loses discs against the best one, that
    move, then perfect play to the end. Returns the record, the blunder's ply in it (1-based), the
    best move's score and the blunder's (both for the side that blundered)."""
    game = read_ggf(FIXTURES / "samples.ggf")[0]
    states = game.states()
    solver = Solver()
    first = next(i for i, state in enumerate(states) if state.empties() <= START_EMPTIES)
    for ply in range(first, len(game.actions)):
        state = states[ply]
        if state.empties() > BLUNDER_EMPTIES or state.must_pass():
            continue
        scores = {action: mover_score(solver, state, action) for action in state.legal_actions()}
        worst = min(scores, key=lambda action: (scores[action], action))
        if scores[worst] < max(scores.values()):
            break
    else:
        raise AssertionError("no position of the sample game has a move that loses discs")
    actions = [int(a) for a in game.actions[first:ply]] + [worst]
    position = state.play(worst)
    while not position.is_over():
        action = PASS if position.must_pass() else solver.solve(position.player, position.opponent).best_move
        actions.append(action)
        position = position.play(action)
    record = GameRecord(start=states[first], actions=actions, black_margin=position.black_margin())
    return record, ply - first + 1, max(scores.values()), scores[worst]


def uniform_chooser(simulations=8):
    """A search with the uniform evaluator: no network (the positions reviewed here are all solved)."""
    return SearchChooser(UniformEvaluator(), simulations=simulations)


def test_a_blunder_within_the_solvers_reach_is_found_with_its_exact_loss():
    record, blunder_ply, best, played = game_with_a_blunder()
    reviews = list(review_game(record, uniform_chooser()))
    assert [r.ply for r in reviews] == list(range(1, len(record.actions) + 1))
    blunder = reviews[blunder_ply - 1]
    assert blunder.move == action_name(int(record.actions[blunder_ply - 1]))
    assert (blunder.exact_before, blunder.exact_after) == (best, played)
    assert blunder.discs_lost == best - played > 0
    assert blunder.preferred != blunder.move
    solver = Solver()
    state = record.states()[blunder_ply - 1]
    assert mover_score(solver, state, parse_square(blunder.preferred)) == best  # the preferred move is a best one
    outcome_changed = (best > 0) - (best < 0) > (played > 0) - (played < 0)
    expected_mark = "??" if outcome_changed else ("?" if best - played >= Marks().mistake_discs else "")
    assert blunder.mark == expected_mark
    # every other move of the game is perfect play or the real game's own, and the review agrees
    # with the solver on each: nothing lost where the move was a best one
    for review in reviews:
        assert review.exact_before is not None and review.exact_after is not None
        if review.ply > blunder_ply:
            assert review.discs_lost == 0 and review.mark == ""
    summary = summarize(record, reviews)
    side_mistakes = summary.black_mistakes if blunder.color == "black" else summary.white_mistakes
    if expected_mark:
        assert blunder_ply in side_mistakes
    if played < 0 <= best:  # perfect play after the blunder: the game was lost there, by that side
        assert summary.loser == blunder.color and summary.turning_ply == blunder_ply


def test_a_game_is_reviewed_one_search_ahead_so_a_caller_can_stop_it():
    """The generator searches the positions a review needs as it is asked for them: the first
    review costs two positions, each later one one more, and a caller that stops asking stops
    the searches."""
    game = read_ggf(FIXTURES / "samples.ggf")[0]
    chooser = uniform_chooser(simulations=4)
    searched = []
    think = chooser.think

    def counting_think(state, *args, **kwargs):
        searched.append(state)
        return think(state, *args, **kwargs)

    chooser.think = counting_think
    reviews = review_game(game, chooser)
    assert searched == []  # nothing happens before the first review is asked for
    first = next(reviews)
    assert first.ply == 1 and first.number == 1 and first.color == "black" and first.move == "d3"
    assert len(searched) == 2
    next(reviews)
    assert len(searched) == 3
    reviews.close()
    assert len(searched) == 3


def test_a_forced_pass_is_reviewed_without_a_search_and_numbers_skip_it():
    game = read_ggf(FIXTURES / "samples.ggf")[0]  # Black passes once near the end
    reviews = list(review_game(game, uniform_chooser(simulations=4)))
    assert len(reviews) == len(game.actions)
    passes = [r for r in reviews if r.move == "pass"]
    assert len(passes) == 1
    pass_review = passes[0]
    assert pass_review.number is None and pass_review.legal_moves == 1 and pass_review.simulations == 0
    assert pass_review.loss == 0 and pass_review.mark == "" and pass_review.preferred == "pass"
    assert pass_review.win_before == pass_review.win_after
    assert [r.number for r in reviews if r.number is not None] == list(range(1, 61))
    final = reviews[-1]
    assert final.exact_after == (game.black_margin if final.color == "black" else -game.black_margin)


def review(ply, color, before, after, loss=0.0, mark="", discs=None) -> MoveReview:
    return MoveReview(ply=ply, number=ply, color=color, move="a1", empties=60 - ply, legal_moves=5, win_before=before,
                      win_after=after, preferred="b1", loss=loss, exact_before=None, exact_after=None, discs_lost=discs,
                      mark=mark, simulations=10, seconds=0.1)


def test_the_game_was_lost_at_the_last_ply_after_which_the_loser_stayed_behind():
    reviews = [
        review(1, "black", 0.50, 0.55),
        review(2, "white", 0.45, 0.30, 0.15, "?"),  # White falls behind ...
        review(3, "black", 0.70, 0.40, 0.30, "??"),  # ... Black gives it back ...
        review(4, "white", 0.60, 0.35, 0.25, "??"),  # ... and White loses it for good here
        review(5, "black", 0.65, 0.66),
    ]
    assert turning_ply(reviews, "white") == 4
    assert turning_ply(reviews, None) is None
    behind_from_the_start = [review(1, "black", 0.4, 0.45), review(2, "white", 0.55, 0.6)]
    assert turning_ply(behind_from_the_start, "black") is None
    start = read_ggf(FIXTURES / "samples.ggf")[0].start
    resigned = GameRecord(start=start, actions=[], metadata={"result": 12.0})  # GGF's RE[+12.000:r]: White resigned
    summary = summarize(resigned, reviews)
    assert summary.loser == "white" and summary.turning_ply == 4
    assert summary.white_mistakes == [4, 2] and summary.black_mistakes == [3]
    assert summary.simulations == 50 and summary.as_json()["turning_ply"] == 4
    abandoned = summarize(GameRecord(start=start, actions=[]), reviews)  # no result: nobody lost, whatever the search says
    assert abandoned.loser is None and abandoned.turning_ply is None


@pytest.mark.parametrize("loss, discs, mark", [(0.0, None, ""), (0.099, None, ""), (0.10, None, "?"), (0.2, None, "??"),
                                               (0.0, 3, ""), (0.0, 4, "?"), (1.0, 10, "??")])
def test_marks_follow_the_thresholds(loss, discs, mark):
    assert Marks().mark(loss, discs) == mark


def test_marks_refuse_thresholds_out_of_order():
    with pytest.raises(ValueError, match="mistake <= blunder"):
        Marks(mistake=0.3, blunder=0.2)
