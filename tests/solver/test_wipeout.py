"""Wipe-outs (+-64) proved by the wipe-out probe (issue 67) in a small search, at 26-34 empties.

Without the probe a full-window solve of a wipe-out climbs to 64 by MTD(f) passes, each a null
window whose proof is harder the nearer it gets (FForum #39, 26 empties: 5.2 M nodes; a 34-empty
wipe-out of the issue: 782 M). The positions below come from
experiments/endgame-solver-67/wipeout_positions.py (games where one side is crushed) and
wthor_wipeouts.py (WTHOR games that ended 64-0); each answer was checked by the solver without
the probe (experiments/endgame-solver-67/README.md).
"""

import dataclasses

import numpy as np
import pytest

from alphazero.othello import bitboard as bb
from alphazero.othello.notation import parse_board_text
from alphazero.solver.solver import SearchOptions, Solver

# (board text, exact score for the side to move)
WIPEOUTS = [
    ("O-OOOO--XOXXOX--XOOOXXX-XOOOXX--XOOXOX--XOXXX---X-XX------------ O", 64),  # FForum #39, 26 empties
    ("---O------OO-------O-O---OOOOOO-XO-OOO-O-OOOOXOO-OOOOOOO---XXX-- X", 64),  # 30 empties
    ("---O-------O------OOO---O-OOO---OOOOOOXXO-O-OOX----OOOOO---XXXXX X", 64),  # 32 empties
    ("-OOOOOO--OOOOO---XXXO---OOOOOO---OOOO-O---OOOO------------------ X", 64),  # 34 empties
    # WTHOR 1990, game 2136 (ended 64-0), 34 empties: 2.6 M nodes with the probe, 3.3 M without
    ("-------------X------XXOO--XXXXOO---XXOOO---XXOXO--XXXOXO----OOO- O", 64),
]
# Each solve within this many nodes: under a second on one core at the solver's 15-20 M nodes/s.
NODE_BUDGET = 5_000_000
PROBE = dataclasses.replace(SearchOptions(), wipeout_probe_nodes=SearchOptions.SWITCHES["wipeout"][1])


@pytest.fixture(scope="module")
def solver():
    solver = Solver(table_bits=20, options=PROBE)
    solver.warm_up()
    return solver


@pytest.mark.parametrize("text,answer", WIPEOUTS)
def test_wipeouts_are_solved_in_a_small_search(solver, text, answer):
    state = parse_board_text(text)
    solution = solver.solve(state.player, state.opponent)
    assert solution.score == answer
    assert solution.nodes <= NODE_BUDGET
    # the move keeps the wipe-out: the other side, to move after it (or passing), scores -64
    player, opponent = bb.make_move(np.uint64(state.player), np.uint64(state.opponent), np.int64(solution.best_move))
    reply = Solver(table_bits=20, options=PROBE).solve(int(player), int(opponent))
    assert reply.score == -answer
    assert reply.nodes <= NODE_BUDGET


def test_a_probe_that_gives_up_leaves_the_exact_answer_to_the_search():
    """A probe stopped after a few nodes (the table keeps what it proved) and a probe run to the end
    answer as the search without any probe does."""
    state = parse_board_text(WIPEOUTS[0][0])
    for nodes in (1, 1000, 100_000):
        options = dataclasses.replace(SearchOptions(), wipeout_probe_nodes=nodes)
        solution = Solver(table_bits=20, options=options).solve(state.player, state.opponent)
        assert solution.score == 64
    full = Solver(table_bits=20, options=PROBE).solve(state.player, state.opponent)
    without = Solver(table_bits=20, options=dataclasses.replace(SearchOptions(), wipeout_probe_nodes=0)).solve(
        state.player, state.opponent)
    assert full.score == without.score == 64
    assert full.nodes < without.nodes


def test_the_probe_respects_the_callers_node_limit():
    """A node limit below the probe's budget ends the whole solve (None), not just the probe."""
    state = parse_board_text(WIPEOUTS[0][0])
    assert Solver(table_bits=20, options=PROBE).solve(state.player, state.opponent, node_limit=10_000) is None


def test_the_deep_ordering_weight_leaves_the_probes_windows_in_fewest_replies_order():
    """A real 34-empty wipe-out (WTHOR 1990, game 371): with the deep ordering value weighed twice
    inside the probe's windows it took 7.2 M nodes (1.1 s) instead of 0.27 M; the probe's windows
    keep the single weight, so the switch leaves its search node for node."""
    state = parse_board_text("----------------XO------XOOOOO--XOOOOO--XXOOOO--XXOOO---XOOOO--- X")
    nodes = {}
    for spec in ("default", "default-deep_weight"):
        result = Solver(20, SearchOptions.parse(spec)).solve(state.player, state.opponent)
        assert result.score == 64
        nodes[spec] = result.nodes
    assert nodes["default"] == nodes["default-deep_weight"] < 1_000_000
