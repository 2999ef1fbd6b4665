"""SelfPlayRunner: complete legal games with well-formed targets, and the progress it reports."""

import numpy as np
import pytest

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch
from alphazero.othello.bitboard import PASS
from alphazero.selfplay.games import SelfPlayRunner
from alphazero.selfplay.worker import SelfPlayWorker


def _runner(slots=4, seed=3, opening_plies=2):
    search = BatchedSearch(MCTSConfig(simulations=8), UniformEvaluator(), slots, seed=seed)
    return SelfPlayRunner(search, np.random.default_rng(seed), random_opening_plies=opening_plies)


def test_games_are_legal_and_finished_and_targets_are_distributions_over_legal_actions():
    finished_one_by_one, moves_per_step = [], []
    records = _runner().play(6, on_game=finished_one_by_one.append, on_step=moves_per_step.append)
    assert len(records) == 6 and finished_one_by_one == records
    # every slot that was in play moved once per step: the steps' moves are all the plies played
    assert sum(moves_per_step) == sum(len(r) for r in records)
    for record in records:
        state = record.start
        for ply, action in enumerate(record.actions):
            legal = state.legal_actions()
            assert int(action) in legal, f"ply {ply}: {action} not in {legal}"
            policy = record.policies[ply].astype(np.float64)
            assert abs(policy.sum() - 1.0) < 1e-2
            illegal = np.setdiff1d(np.arange(65), legal)
            assert (policy[illegal] == 0).all()
            state = state.play(int(action))
        assert state.is_over()
        assert record.black_margin == state.black_margin()


def test_forced_passes_are_one_hot_pass_targets():
    passes = 0
    for record in _runner(slots=8, seed=11, opening_plies=0).play(24):
        for ply in np.flatnonzero(record.actions == PASS):
            assert record.policies[ply][PASS] == 1.0
            passes += 1
    assert passes > 0, "no forced pass in these games: pick another seed"


def test_a_workers_progress_reports_the_work_since_its_last_report():
    from alphazero.selfplay.config import SelfPlayConfig

    worker = SelfPlayWorker(SelfPlayConfig(concurrent_games=3), MCTSConfig(simulations=8), metadata={"worker": 0})
    worker.use_network(0, UniformEvaluator(), seed=1)
    worker.play(seconds=0.0)  # one step
    worker.play(seconds=0.0)
    first = worker.progress(worker=2, task_id=7)
    assert (first.worker, first.task_id, first.moves) == (2, 7, 6)
    assert first.simulations == worker.runner.simulations_run > 0
    assert first.calls > 0 and first.evaluations >= first.calls
    worker.play(seconds=0.0)
    second = worker.progress(worker=2, task_id=7)
    assert second.moves == 3 and second.simulations == worker.runner.simulations_run - first.simulations
    assert worker.progress(worker=2, task_id=7).moves == 0


def test_step_keeps_every_slot_playing_and_loses_or_duplicates_no_game():
    runner = _runner(slots=6, seed=5, opening_plies=0)
    moves_per_step, finished = [], []
    for _ in range(150):  # several generations of games per slot
        finished.extend(runner.step(on_step=moves_per_step.append))
    assert moves_per_step == [6] * 150, "a step searched fewer slots than the runner has"
    assert len(finished) >= 12
    assert runner.games_started == len(finished) + runner.games_in_play
    assert runner.games_in_play == 6
    keys = {(r.start.as_array().tobytes(), r.actions.tobytes()) for r in finished}
    assert len(keys) == len(finished), "a game was returned twice"
    plies_in_play = sum(len(slot.actions) for slot in runner._slots)
    assert sum(len(r) for r in finished) + plies_in_play == sum(moves_per_step)


def test_games_in_play_continue_at_the_next_step_after_a_pause():
    runner = _runner(slots=4, seed=9, opening_plies=0)
    for _ in range(5):
        runner.step()
    lengths = [len(slot.actions) for slot in runner._slots]
    runner.step()
    assert [len(slot.actions) for slot in runner._slots] == [n + 1 for n in lengths]


def test_play_refuses_to_start_over_games_in_play():
    runner = _runner(slots=2)
    runner.step()
    try:
        runner.play(2)
    except ValueError as error:
        assert "still in play" in str(error)
    else:
        raise AssertionError("play() started over games still in play")


def test_games_in_flight_continue_in_another_runner_as_if_they_never_stopped():
    runner = _runner(slots=4, seed=8, opening_plies=0)
    for _ in range(12):
        runner.step()
    in_flight = runner.games_in_flight()
    assert len(in_flight) == 4 and all(record.black_margin is None for record in in_flight)
    other = _runner(slots=2, seed=9, opening_plies=0)  # fewer slots: the rest wait their turn
    other.continue_games(in_flight)
    finished = []
    while len(finished) < 6:
        finished.extend(other.step())
    continued = [record for record in finished if any(
        record.start == partial.start and len(record) > len(partial) and (record.actions[: len(partial)] == partial.actions).all()
        for partial in in_flight)]
    assert len(continued) == 4, "every saved game is played on first"
    for record in continued:  # complete and legal from the start, targets for every ply
        assert record.states()[-1].is_over() and record.policies.shape == (len(record), 65)
    with pytest.raises(ValueError, match="finished game"):
        other.continue_games(finished[:1])


def test_simulations_run_counts_the_simulations_searched_not_the_visits_reused_from_the_last_move():
    """Tree reuse carries the played child's visits into the next search; they are not simulations
    of that move. Forced passes are not searched, nor are the roots the endgame solver answered;
    playout cap's small searches count their budget."""
    for cap_fraction in (1.0, 0.5):
        search = BatchedSearch(MCTSConfig(simulations=16, tree_reuse=True), UniformEvaluator(), 4, seed=2)
        runner = SelfPlayRunner(search, np.random.default_rng(2), random_opening_plies=2,
                                playout_cap_fraction=cap_fraction, playout_cap_small=5)
        records = runner.play(4)
        expected = 0
        for record in records:
            full = np.ones(len(record), dtype=bool) if record.policy_mask is None else record.policy_mask
            searched = (record.actions != PASS) & np.isnan(record.exact_values)
            assert (~np.isnan(record.exact_values)).any()  # the solver answered the last moves
            expected += 16 * int((searched & full).sum()) + 5 * int((searched & ~full).sum())
        assert runner.simulations_run == expected
