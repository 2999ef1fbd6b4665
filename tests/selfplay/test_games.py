"""SelfPlayRunner: complete legal games with well-formed targets, and the progress it reports."""

import queue

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.mcts.search import BatchedSearch
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.selfplay.games import SelfPlayRunner
from alphazero.selfplay.worker import _ProgressReporter


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


class _Runner:
    simulations_run = 0


def test_progress_reporter_sends_moves_and_simulations_since_its_last_report(monkeypatch):
    clock = iter([0.0, 1.0, 2.5, 3.0, 5.0])
    monkeypatch.setattr("alphazero.selfplay.worker.time.monotonic", lambda: next(clock))
    messages, runner = queue.Queue(), _Runner()
    report = _ProgressReporter(messages, worker_id=1, task_id=7, runner=runner)  # clock 0.0
    for moves, simulations in [(4, 32), (4, 64), (3, 88), (2, 100)]:  # clock 1.0, 2.5, 3.0, 5.0
        runner.simulations_run = simulations
        report(moves)
    sent = [messages.get_nowait() for _ in range(messages.qsize())]
    assert sent == [
        ("progress", 1, 7, {"moves": 8, "simulations": 64}),
        ("progress", 1, 7, {"moves": 5, "simulations": 36}),
    ]
