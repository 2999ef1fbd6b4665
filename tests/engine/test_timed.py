"""The time-budget search loop (alphazero.engine.timed) and the arena's `seconds=` players on it.

The loop is driven by a fake clock that a fake search advances, so the budget logic is pinned
exactly, with no dependence on this machine's speed."""

from types import SimpleNamespace

import numpy as np
import pytest

from alphazero.arena.players import MCTSPlayer, make_player
from alphazero.engine.timed import check_limits, chunked_config, search_within
from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import UniformEvaluator
from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class FakeSearch:
    """Each call 'takes' `overhead` plus `per_simulation` seconds a simulation on `clock` (or, with
    `durations`, the next of those seconds whatever its size)."""

    def __init__(self, clock, durations=None, chunk=32, per_simulation=0.0, overhead=0.0):
        self.clock = clock
        self.durations = None if durations is None else list(durations)
        self.per_simulation, self.overhead = per_simulation, overhead
        self.config = SimpleNamespace(simulations=chunk)
        self.budgets = []

    def search(self, positions, plies, add_noise, simulations):
        assert positions.shape == (1, 2) and plies.shape == (1,) and add_noise is False
        self.budgets.append(simulations)
        if self.durations is not None:
            self.clock.now += self.durations[len(self.budgets) - 1]
        else:
            self.clock.now += self.overhead + self.per_simulation * simulations
        return SimpleNamespace(action=np.array([19]), simulations=np.array([simulations], dtype=np.int32))


START = GameState.start().as_array()


def test_a_timed_search_measures_on_a_short_first_call_then_fills_the_time_left():
    clock = FakeClock()
    search = FakeSearch(clock, per_simulation=0.01)  # 100 simulations a second
    _, done = search_within(search, START, 0, None, 0.35, clock=clock)
    # 8 to measure (0.08 s), then the 27 that the 0.27 s left hold (a whole chunk would be 32)
    assert search.budgets == [8, 27]
    assert done == 35 and clock.now == pytest.approx(0.35)


def test_no_chunk_is_started_that_would_overrun_the_budget():
    clock = FakeClock()
    search = FakeSearch(clock, durations=[0.1, 0.1, 0.1, 0.1])  # 8 simulations take 0.1 s: 80 a second
    _, done = search_within(search, START, 0, None, 0.12, clock=clock)
    # after 0.1 s for 8, 0.02 s left holds int(0.02 * 80) = 1 simulation, then nothing
    assert search.budgets == [8, 1] and done == 9


def test_the_budget_is_never_exceeded_and_is_used_to_within_a_simulation():
    for seconds in (0.1, 0.2, 0.3, 1.0, 2.5):  # all longer than the first call's 8 simulations
        for per_simulation in (0.0005, 0.003, 0.01):
            clock = FakeClock()
            search = FakeSearch(clock, per_simulation=per_simulation)
            search_within(search, START, 0, None, seconds, clock=clock)
            assert clock.now <= seconds + 1e-9
            assert clock.now > seconds - per_simulation - 1e-9


def test_a_per_call_overhead_is_measured_into_the_estimate():
    clock = FakeClock()
    search = FakeSearch(clock, per_simulation=0.002, overhead=0.004)
    search_within(search, START, 0, None, 0.5, clock=clock)
    assert clock.now <= 0.5 + 0.004  # at most one call's overhead beyond the estimate


def test_at_least_one_chunk_runs_even_when_it_takes_longer_than_the_budget():
    clock = FakeClock()
    search = FakeSearch(clock, [1.0, 1.0])
    _, done = search_within(search, START, 0, None, 0.1, clock=clock)
    assert done == 8 and len(search.budgets) == 1


def test_simulations_cap_a_timed_search_exactly():
    clock = FakeClock()
    search = FakeSearch(clock, per_simulation=0.0001)
    _, done = search_within(search, START, 0, 70, 10.0, clock=clock)
    assert search.budgets == [8, 32, 30] and done == 70


def test_should_stop_ends_the_search_between_chunks():
    clock = FakeClock()
    search = FakeSearch(clock, [0.01] * 100)
    answers = iter([False, True])
    _, done = search_within(search, START, 0, None, None, should_stop=lambda: next(answers), clock=clock)
    assert done == 64


@pytest.mark.parametrize("simulations,seconds", [(None, None), (0, None), (None, 0), (None, -1.0), (None, float("inf")),
                                                 (None, float("nan")), (True, None), (None, True), (2.5, None)])
def test_bad_limits_are_refused(simulations, seconds):
    with pytest.raises(ValueError):
        check_limits(simulations, seconds)


def test_chunked_config_grows_one_tree_without_noise():
    config = chunked_config(MCTSConfig(simulations=400, leaves_per_step=64), 32, 65_536)
    assert config.simulations == 32 and config.tree_reuse and config.temperature == 0.0
    assert config.noise_fraction == 0.0 and config.leaves_per_step == 32
    assert 32 + 1 + config.reuse_capacity * 32 >= 65_536 - 1


def test_arena_player_by_time_searches_each_position_alone_within_its_budget():
    player = MCTSPlayer(UniformEvaluator(), simulations=None, seconds=0.05)
    start = GameState.start()
    states = [start, start.play(start.legal_actions()[0])]
    moves = player.select_moves(states)
    assert all(move in state.legal_actions() for move, state in zip(moves, states))
    assert player.name == "mcts(seconds=0.05)"


def test_arena_player_by_time_passes_when_forced():
    player = MCTSPlayer(UniformEvaluator(), simulations=None, seconds=0.01)
    forced = [state for state in _random_states(3000) if state.must_pass() and not state.is_over()]
    assert forced, "random games of this seed reach forced passes"
    assert player.select_moves(forced[:2]) == [PASS] * len(forced[:2])


def _random_states(count):
    rng = np.random.default_rng(7)
    states = []
    for _ in range(count // 60 + 1):
        state = GameState.start()
        while not state.is_over():
            states.append(state)
            actions = state.legal_actions()
            state = state.play(actions[rng.integers(len(actions))])
    return states


def test_spec_seconds_means_by_time_alone_unless_simulations_cap_it():
    assert make_player("mcts:evaluator=uniform,seconds=0.5").simulations is None
    capped = make_player("mcts:evaluator=uniform,seconds=0.5,simulations=64")
    assert capped.simulations == 64 and capped.seconds == 0.5
    assert make_player("mcts:evaluator=uniform").simulations == 100
    with pytest.raises(ValueError, match="seconds per move"):
        make_player("mcts:evaluator=uniform,seconds=0")


def _solvable_state(empties=10):
    """A position of a random game with `empties` empty squares (within the default solver reach, 18)."""
    return next(state for state in _random_states(3000) if state.empties() == empties and not state.must_pass())


def test_a_solved_position_costs_its_solve_not_the_time_budget():
    """The default search does not search a root the endgame solver solved: one chunk, no simulation,
    however much time is left; the move is the solver's."""
    from alphazero.engine.timed import TIME_CHUNK
    from alphazero.mcts.search import BatchedSearch
    from alphazero.solver.solver import Solver

    state = _solvable_state()
    search = BatchedSearch(chunked_config(MCTSConfig(), TIME_CHUNK, 4096), UniformEvaluator(), 1)
    clock = FakeClock()
    result, done = search_within(search, state.as_array(), 60 - state.empties(), None, 1000.0, clock=clock)
    assert done == 0 and result.simulations[0] == 0
    exact = Solver(table_bits=12).solve(state.player, state.opponent)
    assert result.exact_score[0] == exact.score
    assert -Solver(table_bits=12).solve(*state.play(int(result.action[0])).as_array().tolist()).score == exact.score
    searched = BatchedSearch(chunked_config(MCTSConfig(search_solved_roots=True), TIME_CHUNK, 4096),
                             UniformEvaluator(), 1)
    _, done = search_within(searched, state.as_array(), 60 - state.empties(), 3 * TIME_CHUNK, None)
    assert done == 3 * TIME_CHUNK  # searched anyway when asked to


def test_the_chooser_plays_a_solved_position_at_once_and_still_analyses_it():
    from alphazero.play.choosers import SearchChooser

    state = _solvable_state()
    chooser = SearchChooser(UniformEvaluator(), simulations=None, seconds=30.0)
    move = chooser.choose(state)
    assert move in state.legal_actions() and chooser.last_simulations == 0
    played = chooser.think(state, search_solved_roots=False)
    assert played.action == move and played.simulations == 0 and played.exact_score is not None
    assert [m.action for m in played.moves] == [move] and played.variations == [[move]]
    analysis = SearchChooser(UniformEvaluator(), simulations=64).think(state)  # analysis: candidates searched
    assert analysis.action == move and analysis.simulations == 64 and len(analysis.moves) == len(state.legal_actions())


# ----------------------------------------------------------------------------------------------
# A search by time first tries to prove a root beyond the solver's reach won or drawn
# (MCTSConfig.endgame_timed_probe_share, alphazero.engine.timed.probe_root)


class FakeSolver:
    """Records the probes; each 'takes' `seconds` on the clock and answers `solution`."""

    def __init__(self, clock, rate, solution=None, seconds=0.2):
        self.clock, self.rate, self.solution, self.seconds = clock, rate, solution, seconds
        self.probes = []

    def nodes_per_second(self):
        return self.rate

    def solve(self, player, opponent, wld=False, node_limit=0):
        self.probes.append((wld, node_limit))
        self.clock.now += self.seconds
        return self.solution


class FakeProbingSearch(FakeSearch):
    def __init__(self, clock, share=0.25, rate=2_000_000, solution=None, reach=18, analysis=False):
        super().__init__(clock, per_simulation=0.01)  # 100 simulations a second
        self.config = SimpleNamespace(simulations=32, endgame_timed_probe_share=share, endgame_solve_empties=reach,
                                      search_solved_roots=analysis)
        self.endgame_solver = FakeSolver(clock, rate, solution)


def _position_with(empties):
    """A (player, opponent) array with `empties` empty squares (the probe reads only the count)."""
    full = (1 << (64 - empties)) - 1
    return np.array([full & 0x5555555555555555, full & ~0x5555555555555555], dtype=np.uint64)


def test_a_timed_search_gives_a_share_of_its_time_to_one_win_loss_draw_probe_then_searches():
    clock = FakeClock()
    search = FakeProbingSearch(clock)
    _, done = search_within(search, _position_with(21), 40, None, 1.0, clock=clock)
    assert search.endgame_solver.probes == [(True, 500_000)]  # a quarter of 1 s at 2 M nodes/s, win/loss/draw
    assert done == 80 and clock.now == pytest.approx(1.0)  # the probe's 0.2 s came out of the budget (100 without it)


def test_a_root_proven_won_or_drawn_is_answered_with_the_solvers_move_and_no_simulation():
    from alphazero.mcts.search import NO_EXACT_SCORE
    from alphazero.solver.solver import Solution

    for score, value in ((2, 1.0), (0, 0.0)):
        clock = FakeClock()
        search = FakeProbingSearch(clock, solution=Solution(37, score, 10_000, 0.2, wld=True))
        result, done = search_within(search, _position_with(22), 38, None, 1.0, clock=clock)
        assert done == 0 and search.budgets == []  # not searched
        assert result.action[0] == 37 and result.root_value[0] == value and result.simulations[0] == 0
        assert result.exact_score[0] == NO_EXACT_SCORE and result.policy[0, 37] == 1.0 and result.policy.sum() == 1.0


def test_a_root_proven_lost_is_searched_in_the_time_left():
    from alphazero.solver.solver import Solution

    clock = FakeClock()
    search = FakeProbingSearch(clock, solution=Solution(37, -2, 10_000, 0.2, wld=True))
    _, done = search_within(search, _position_with(22), 38, None, 1.0, clock=clock)
    assert done == 80


@pytest.mark.parametrize("share,rate,seconds,empties,analysis", [
    (0.0, 2e6, 1.0, 21, False),    # switched off
    (0.25, None, 1.0, 21, False),  # no measured speed
    (0.25, 2e6, None, 21, False),  # no time limit: a search by simulations
    (0.25, 2e6, 1.0, 18, False),   # within the search's own reach: solved exactly there
    (0.25, 2e6, 1.0, 25, False),   # beyond MAX_ENDGAME_SOLVE_EMPTIES
    (0.25, 2e6, 1.0, 21, True),    # an analysis wants every candidate's visits
])
def test_no_probe_where_it_has_no_time_no_speed_no_room_or_no_use(share, rate, seconds, empties, analysis):
    clock = FakeClock()
    search = FakeProbingSearch(clock, share=share, rate=rate, analysis=analysis)
    search_within(search, _position_with(empties), 40, 64 if seconds is None else None, seconds, clock=clock)
    assert search.endgame_solver.probes == []


def _fforum_16_empties():
    from pathlib import Path

    from alphazero.solver.obf import read_obf

    positions = read_obf(Path(__file__).resolve().parents[1] / "fixtures" / "fforum-1-19.obf")
    return [p for p in positions if p.state.empties() == 16]


def test_a_chooser_by_time_keeps_the_result_of_a_root_it_proves_beyond_its_reach():
    """One second a move with the search's reach at 12 empties: the 16-empty FForum roots are
    proven (win/loss/draw) by the probe in a few thousand nodes, and a won or drawn one is
    answered with a move that keeps that result; a lost one is searched. The search's own
    speed is measured (the warm-up times a solve), not assumed."""
    from alphazero.play.choosers import SearchChooser

    chooser = SearchChooser(UniformEvaluator(), simulations=None, seconds=1.0, endgame_solve_empties=12)
    outcomes = set()
    for position in _fforum_16_empties():
        move = chooser.choose(position.state)
        best = position.best_score
        outcomes.add(np.sign(best))
        if best >= 0:
            assert chooser.last_simulations == 0  # proven, not searched
            assert np.sign(position.move_scores[move]) == np.sign(best)  # the result is kept
        else:
            assert chooser.last_simulations > 0
    assert outcomes == {-1, 1}  # both branches ran
    thought = chooser.think(_fforum_16_empties()[0].state, search_solved_roots=False)
    assert thought.simulations == 0 and thought.exact_score is None and thought.root_value in (0.0, 1.0)


# ----------------------------------------------------------------------------------------------
# Leaves per network call: 4 by time, 1 by simulations, unless given (engine.timed.leaves_for)


def test_a_chooser_batches_leaves_when_searching_by_time_and_not_by_simulations():
    from alphazero.engine.timed import TIMED_LEAVES_PER_STEP
    from alphazero.play.choosers import SearchChooser

    state = GameState.start()
    chooser = SearchChooser(UniformEvaluator(), simulations=16, seconds=None)
    chooser.choose(state)
    chooser.choose(state, seconds=0.05)  # a GTP clock's budget: a search by time
    leaves = sorted(entry[0].config.leaves_per_step for entry in chooser._searches.values())
    assert leaves == [1, TIMED_LEAVES_PER_STEP]
    given = SearchChooser(UniformEvaluator(), simulations=None, seconds=0.05, leaves_per_step=2)
    given.choose(state)
    assert [entry[0].config.leaves_per_step for entry in given._searches.values()] == [2]


@pytest.mark.parametrize("spec,leaves", [
    ("mcts:evaluator=uniform,seconds=0.05", 4),
    ("mcts:evaluator=uniform,seconds=0.05,leaves=1", 1),
    ("mcts:evaluator=uniform,simulations=16", 1),
    ("mcts:evaluator=uniform,simulations=16,leaves=8", 8),
])
def test_the_arena_players_leaves_per_network_call(spec, leaves):
    player = make_player(spec)
    assert player._config.leaves_per_step == leaves
    assert ("leaves=" in player.name) == ("leaves=" in spec)


def test_a_bad_leaves_option_is_refused_naming_it():
    with pytest.raises(ValueError, match="leaves_per_step must be an integer >= 1"):
        make_player("mcts:evaluator=uniform,seconds=0.05,leaves=0")
