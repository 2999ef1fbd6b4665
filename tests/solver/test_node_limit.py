"""A solve with a node limit (`Solver.solve/outcome(node_limit=...)`, the search's
`mcts.endgame_wld_node_limit`): either the true answer or None, never a wrong one, and a search
that gave up leaves the transposition table true for every later search."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphazero.solver import endgame
from alphazero.solver.solver import Solver
from tests.solver.reference import minimax, random_position

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sign(x):
    return (x > 0) - (x < 0)


@pytest.fixture(scope="module")
def shared():
    """One solver for every example, as the search keeps one: the table carries what earlier
    (given-up) searches stored into later ones."""
    solver = Solver(table_bits=12)
    solver.warm_up()
    return solver


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n_empty=st.integers(8, 10), limit=st.integers(1, 3000))
def test_limited_solves_are_right_or_give_up_and_leave_the_table_true(shared, seed, n_empty, limit):
    player, opponent = random_position(seed, n_empty)
    exact = minimax(player, opponent)
    outcome = shared.outcome(player, opponent, node_limit=limit)
    assert outcome is None or outcome == _sign(exact)
    solution = shared.solve(player, opponent, node_limit=limit)
    assert solution is None or solution.score == exact
    assert solution is None or solution.nodes <= limit
    # the table after the given-up searches: an unlimited search is still exact
    assert shared.solve(player, opponent).score == exact
    assert shared.outcome(player, opponent) == _sign(exact)
    assert shared.params[endgame.P_NODE_LIMIT] == endgame.NO_NODE_LIMIT  # the limit is per call


def test_limits_give_up_on_dear_solves_and_keep_cheap_ones():
    """14-16 empties against an unlimited solver of its own: a small limit gives up on most, a
    large one on none, and every answer given is the true one."""
    reference = Solver(table_bits=16)
    positions = [random_position(seed, 14 + seed % 3) for seed in range(24)]
    truth = [reference.solve(p, o).score for p, o in positions]
    costs = [Solver(table_bits=16).solve(p, o, wld=True).nodes for p, o in positions]
    for limit in (100, int(np.median(costs)), 10**9):
        solver = Solver(table_bits=16)
        answers = [solver.outcome(p, o, node_limit=limit) for p, o in positions]
        for answer, score in zip(answers, truth):
            assert answer is None or answer == _sign(score)
        given_up = sum(answer is None for answer in answers)
        if limit == 100:
            assert given_up >= len(positions) // 2
        elif limit == 10**9:
            assert given_up == 0
        else:
            assert 0 < given_up < len(positions)


def test_a_node_limit_must_not_be_negative():
    with pytest.raises(ValueError, match="node_limit"):
        Solver(table_bits=8).outcome(*random_position(0, 8), node_limit=-1)


def test_the_solver_measures_its_own_speed_on_searches_large_enough_to_time():
    """`nodes_per_second` (what a search by time turns its seconds into a node limit with): none
    before anything is timed, the warm-up's timed solve after it (not its compile), and small
    searches, mostly the call from Python, leave it alone."""
    from alphazero.solver.solver import RATE_MIN_NODES

    solver = Solver(table_bits=12)
    assert solver.nodes_per_second() is None
    solver.warm_up()
    rate = solver.nodes_per_second()
    assert rate is not None and rate > 100_000  # a compile counted in would put it near 1,000 nodes/s
    player, opponent = random_position(3, 6)
    small = solver.solve(player, opponent)
    assert small.nodes < RATE_MIN_NODES and solver.nodes_per_second() == rate
    given_up = solver.solve(*random_position(5, 18), node_limit=RATE_MIN_NODES)  # timed even when it gives up
    assert given_up is None and solver.nodes_per_second() != rate


def test_the_warm_up_times_a_solve_like_a_search_by_time_s_first_probe(monkeypatch):
    """The warm-up's speed sizes a search by time's first root probe, so it is timed on one: a
    win/loss/draw solve of a position beyond the search's own solving reach, given up at its node
    limit (a solve that finished early, or the 14-empty compile position, would read the speed of
    cheaper nodes: 1.65-1.85x a probe's, experiments/timed-probe/warmup-rate.jsonl). The table is
    left empty."""
    from alphazero.mcts.config import DEFAULT_ENDGAME_SOLVE_EMPTIES, MAX_ENDGAME_SOLVE_EMPTIES
    from alphazero.othello.notation import parse_board_text
    from alphazero.solver.solver import RATE_MIN_NODES, WARM_UP_PROBE_BOARD, WARM_UP_PROBE_NODES

    state = parse_board_text(WARM_UP_PROBE_BOARD)
    empties = 64 - (state.player | state.opponent).bit_count()
    assert DEFAULT_ENDGAME_SOLVE_EMPTIES < empties <= MAX_ENDGAME_SOLVE_EMPTIES  # where probes run
    assert WARM_UP_PROBE_NODES >= RATE_MIN_NODES
    solver = Solver(table_bits=12)
    calls = []  # (player, opponent, wld, node_limit, solved) of every solve the warm-up makes
    nodes = []  # and the nodes each searched
    real_solve = Solver.solve

    def recording_solve(self, player, opponent, wld=False, node_limit=0):
        solution = real_solve(self, player, opponent, wld=wld, node_limit=node_limit)
        calls.append((int(player), int(opponent), wld, node_limit, solution is not None))
        nodes.append(int(self.nodes[0]))
        return solution

    monkeypatch.setattr(Solver, "solve", recording_solve)
    solver.warm_up()
    # The speed it leaves is the last solve's alone (the compile's are not counted), and that
    # solve is the probe, given up at its limit.
    assert calls[-1] == (state.player, state.opponent, True, WARM_UP_PROBE_NODES, False)
    assert solver._rate_nodes == nodes[-1] >= WARM_UP_PROBE_NODES
    assert not solver.tt_keys.any()
