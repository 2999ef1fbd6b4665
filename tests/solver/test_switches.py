"""The solver's techniques (`SearchOptions`), each alone and all together, against the plain
minimax of tests/solver/reference.py: exact scores and best moves, fail-soft bounds for windows at
the edges, win/loss/draw signs. Thresholds are lowered so that every technique runs on positions
small enough for the reference. With every switch off the search is the one before them, node for
node (counts recorded from the code of commit db547a0)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphazero.othello import bitboard as bb
from alphazero.solver import endgame, table
from alphazero.solver.obf import read_obf
from alphazero.solver.solver import SearchOptions, Solver
from tests.conftest import FIXTURES
from tests.solver.reference import child, minimax, random_position

OFF = SearchOptions.off()
# Each technique on its own (on top of `off`), with its threshold low enough to run at 5-10
# empties; the deep search starts above 4 empties so that sorting, the table and ETC are used.
OPTION_SETS = {
    "off": OFF,
    "fast_last": dataclasses.replace(OFF, fast_last_moves=True, shallow_empties=9),
    "sort": dataclasses.replace(OFF, weighted_sort=True, shallow_empties=4),
    "order_search_0": dataclasses.replace(OFF, order_search_empties=5, order_search_depth=0, shallow_empties=4),
    "order_search_1": dataclasses.replace(OFF, order_search_empties=5, order_search_depth=1, shallow_empties=4),
    "order_search_2": dataclasses.replace(OFF, order_search_empties=5, order_search_depth=2, shallow_empties=4),
    "etc": dataclasses.replace(OFF, etc_empties=6, shallow_empties=4),
    "stability_deep": dataclasses.replace(OFF, stability_empties=4, shallow_empties=4),
    "stability_shallow": dataclasses.replace(OFF, stability_empties=4, fast_last_moves=True, shallow_empties=9),
    "mtd": dataclasses.replace(OFF, root_mtd=True, shallow_empties=4),
    "wipeout": dataclasses.replace(OFF, wipeout_probe_nodes=20_000_000, shallow_empties=4),
    "wipeout_limited": dataclasses.replace(OFF, wipeout_probe_nodes=3, root_mtd=True, shallow_empties=4),
    "patterns_1": dataclasses.replace(OFF, order_search_empties=5, order_pattern_empties=5, shallow_empties=4),
    "patterns_2": dataclasses.replace(OFF, order_search_empties=5, order_search_depth=2, order_pattern_empties=6,
                                      weighted_sort=True, shallow_empties=4),
    "order_deep": dataclasses.replace(OFF, weighted_sort=True, order_search_empties=5, order_deep_empties=6,
                                      shallow_empties=4),
    "order_cut": dataclasses.replace(OFF, weighted_sort=True, order_search_empties=5, order_pattern_empties=5,
                                     order_deep_empties=7, order_cut_discs=2, shallow_empties=4),
    "deep_weight": dataclasses.replace(OFF, weighted_sort=True, order_search_empties=5, order_pattern_empties=5,
                                       order_deep_empties=7, order_cut_discs=2, order_deep_weight=True,
                                       shallow_empties=4),
    "presorted": dataclasses.replace(OFF, fast_last_moves=True, presorted_shallow=True, shallow_empties=9),
    "presorted_stability": dataclasses.replace(OFF, fast_last_moves=True, presorted_shallow=True, stability_empties=4,
                                               shallow_empties=9),
    "all": SearchOptions(shallow_empties=4, order_search_empties=6, etc_empties=6, stability_empties=5,
                         order_pattern_empties=6, wipeout_probe_nodes=20_000_000, order_deep_empties=7),
    "default": SearchOptions(),
}
SET_NAMES = list(OPTION_SETS)
WINDOWS = [(-65, 65), (-64, 64), (63, 65), (64, 65), (62, 64), (-65, -63), (-65, -64), (-64, -62), (-1, 1),
           (-3, 5), (1, 3), (-2, 0), (10, 30), (-30, -10)]


def _near_wipeout(player, opponent, survivors):
    """The opponent keeps only `survivors` discs (the rest turned): scores at or near +-64, and
    many stable discs, so the stability cut-off and the +-64 windows are reached."""
    kept, rest = 0, opponent
    for _ in range(survivors):
        if rest:
            low = rest & -rest
            kept |= low
            rest ^= low
    return player | rest, kept


def _pool():
    """Positions (2-9 empties, some near a wipe-out, some with a forced pass) with their exact
    scores and their moves' exact scores, from the reference."""
    positions = []
    for seed in range(32):
        n_empty = [2, 4, 5, 6, 7, 8, 9, 7][seed % 8]
        player, opponent = random_position(1000 + seed, n_empty)
        positions.append((player, opponent))
        if seed % 3 == 0:
            positions.append(_near_wipeout(player, opponent, 1 + seed % 4))
            positions.append(_near_wipeout(opponent, player, 2)[::-1])
    for seed in (5107, 5758, 5935):  # positions of 7 empties where the side to move must pass
        positions.append(random_position(seed, 7))
    for player, opponent in positions[-3:]:
        assert bb.legal_moves(np.uint64(player), np.uint64(opponent)) == 0
    memo = {}
    pool = []
    for player, opponent in positions:
        moves = bb.squares_of(bb.legal_moves(np.uint64(player), np.uint64(opponent)))
        move_scores = {m: -minimax(*child(player, opponent, m), memo) for m in moves}
        pool.append((player, opponent, minimax(player, opponent, memo), move_scores))
    return pool


@pytest.fixture(scope="module")
def pool():
    return _pool()


def _kernels(options, bits=12):
    tt_keys, tt_values = table.allocate(bits)
    squares, keys, move_flips = endgame.allocate_workspace()
    return tt_keys, tt_values, squares, keys, move_flips, options.params(), options.weights(), np.zeros(1, dtype=np.int64)


def _sign(x):
    return (x > 0) - (x < 0)


@pytest.mark.parametrize("name", SET_NAMES)
def test_exact_scores_and_best_moves_equal_the_reference(pool, name):
    solver = Solver(table_bits=12, options=OPTION_SETS[name])
    for player, opponent, exact, move_scores in pool:
        solution = solver.solve(player, opponent)
        assert solution.score == exact
        if move_scores:
            assert move_scores[solution.best_move] == exact
        elif solution.best_move == bb.PASS:
            assert -minimax(opponent, player) == exact
        else:
            assert solution.best_move == -1 and bb.is_game_over(np.uint64(player), np.uint64(opponent))


@pytest.mark.parametrize("name", SET_NAMES)
def test_wld_signs_equal_the_reference(pool, name):
    solver = Solver(table_bits=12, options=OPTION_SETS[name])
    for player, opponent, exact, move_scores in pool:
        solution = solver.solve(player, opponent, wld=True)
        assert solution.outcome == _sign(exact)
        if move_scores:  # the move keeps the outcome
            assert _sign(move_scores[solution.best_move]) == solution.outcome
        assert solver.outcome(player, opponent) == _sign(exact)


@pytest.mark.parametrize("name", SET_NAMES)
def test_fail_soft_bounds_for_every_window(pool, name):
    """Exact inside the window, a true bound on the side it failed, at the deep search and at the
    root, with a table shared by all windows (its entries from one window serve the others)."""
    tt_keys, tt_values, squares, keys, move_flips, params, weights, nodes = _kernels(OPTION_SETS[name])
    for player, opponent, exact, _ in pool:
        p, o = np.uint64(player), np.uint64(opponent)
        for alpha, beta in WINDOWS:
            for search in ("deep", "root"):
                if search == "deep":
                    got = endgame.search_deep(p, o, alpha, beta, tt_keys, tt_values, squares, keys, move_flips, params, weights,
                                              nodes)
                else:
                    got, _ = endgame.solve_root(p, o, alpha, beta, tt_keys, tt_values, squares, keys, move_flips, params, weights,
                                                nodes)
                if alpha < got < beta:
                    assert got == exact, (search, alpha, beta)
                elif got <= alpha:
                    assert exact <= got, (search, alpha, beta)
                else:
                    assert exact >= got, (search, alpha, beta)


def test_every_switch_changes_the_search():
    """Each switch set searches a different number of nodes than `off` somewhere in the pool (a
    switch that never ran would leave them equal and its tests above would prove nothing)."""
    positions = [random_position(seed, 10) for seed in range(12)]

    def total_nodes(options):
        solver = Solver(table_bits=12, options=options)
        return [solver.solve(p, o).nodes + solver.solve(p, o, wld=True).nodes for p, o in positions]

    near = [_near_wipeout(p, o, 2) for p, o in positions]
    base = total_nodes(OFF)
    for name in SET_NAMES[1:]:
        if name.startswith(("stability", "wipeout")):
            solver_off = Solver(table_bits=12, options=OFF)
            solver_on = Solver(table_bits=12, options=OPTION_SETS[name])
            changed = any(solver_off.solve(*pos, wld=False).nodes != solver_on.solve(*pos).nodes for pos in near)
        else:
            changed = total_nodes(OPTION_SETS[name]) != base
        assert changed, name
    # the pattern evaluation changes the order the mobility search gave (same sets but for it)
    assert total_nodes(OPTION_SETS["patterns_1"]) != total_nodes(OPTION_SETS["order_search_1"])
    # and the sort window changes the order the pattern search gave
    assert total_nodes(OPTION_SETS["order_cut"]) != total_nodes(dataclasses.replace(OPTION_SETS["order_cut"],
                                                                                   order_cut_discs=0))
    # the deep ordering value weighed twice changes the order the sort window's search gave
    assert total_nodes(OPTION_SETS["deep_weight"]) != total_nodes(OPTION_SETS["order_cut"])
    # the presorted empties change the shallow search's order (the index walk of `fast_last`)
    assert total_nodes(OPTION_SETS["presorted"]) != total_nodes(OPTION_SETS["fast_last"])


def test_the_presorted_empties_list_squares_best_value_first_and_lose_the_one_played():
    def unpack(packed, n):
        return [int(packed) >> (6 * i) & 63 for i in range(n)]

    rng = np.random.default_rng(7)
    for _ in range(200):
        squares = sorted(rng.choice(64, size=int(rng.integers(1, endgame.MAX_PRESORTED + 1)), replace=False).tolist())
        empty = np.uint64(sum(1 << q for q in squares))
        listed = unpack(endgame._packed_empties(empty, endgame.VALUE_CLASSES), len(squares))
        assert listed == sorted(squares, key=lambda q: (-int(endgame.SQUARE_VALUE[q]), q))
        i = int(rng.integers(len(squares)))
        rest = unpack(endgame._without_entry(endgame._packed_empties(empty, endgame.VALUE_CLASSES), i), len(squares) - 1)
        assert rest == listed[:i] + listed[i + 1:]
    corner, x_square = 0, 9
    assert unpack(endgame._packed_empties(np.uint64(1 << x_square | 1 << corner | 1 << 20), endgame.VALUE_CLASSES), 3) == [corner, 20, x_square]


# FForum #1-#19 (tests/fixtures/fforum-1-19.obf) with a table of 2**16 entries: nodes per position
# of the solver at commit db547a0 (before issue 36), exact scores, then WLD with a fresh solver.
BEFORE_EXACT = [73708, 53389, 116326, 63629, 15923, 104464, 26200, 340227, 74668, 250675, 167332, 369477,
                102133, 132837, 255827, 361641, 29695, 357308, 290596]
BEFORE_WLD = [4036, 11064, 35155, 46909, 1993, 22059, 4978, 7135, 21992, 30871, 1266, 68020, 11691, 10117,
              15152, 29929, 3856, 254315, 96367]


def test_every_switch_off_is_the_search_before_them_node_for_node():
    positions = read_obf(FIXTURES / "fforum-1-19.obf")
    solver = Solver(table_bits=16, options=OFF)
    solver.warm_up()
    assert [solver.solve(p.state.player, p.state.opponent).nodes for p in positions] == BEFORE_EXACT
    solver = Solver(table_bits=16, options=OFF)
    solver.warm_up()
    assert [solver.solve(p.state.player, p.state.opponent, wld=True).nodes for p in positions] == BEFORE_WLD


def test_options_parse_names_switches_and_rejects_bad_text():
    assert SearchOptions.parse("default") == SearchOptions()
    assert SearchOptions.parse("off") == OFF
    assert SearchOptions.parse("off+etc").etc_empties == SearchOptions.SWITCHES["etc"][1]
    assert SearchOptions.parse("off+etc+mtd") == dataclasses.replace(
        OFF, etc_empties=SearchOptions.SWITCHES["etc"][1], root_mtd=True)
    assert SearchOptions.parse("default-mtd") == dataclasses.replace(SearchOptions(), root_mtd=False)
    assert SearchOptions.parse("default-patterns").order_pattern_empties == 0
    assert SearchOptions.parse("off+order_search+patterns").order_pattern_empties == 14
    assert SearchOptions.parse("default-order_cut").order_cut_discs == 0 and SearchOptions().order_cut_discs == 8
    assert SearchOptions.off().order_cut_discs == 0
    assert SearchOptions.parse("default-deep_weight").order_deep_weight is False and SearchOptions().order_deep_weight
    assert SearchOptions.off().order_deep_weight is False
    for bad in ("fast", "off+nothing", "default+", ""):
        with pytest.raises(ValueError, match="options"):
            SearchOptions.parse(bad)
    with pytest.raises(ValueError, match="etc_empties"):
        SearchOptions(etc_empties=-1)
    with pytest.raises(ValueError, match="shallow_empties"):
        SearchOptions(shallow_empties=3)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_empty=st.integers(0, 10), name=st.sampled_from(SET_NAMES[1:]),
       survivors=st.integers(0, 4), window=st.sampled_from(WINDOWS))
def test_random_positions_and_windows_against_the_reference(seed, n_empty, name, survivors, window):
    player, opponent = random_position(seed, n_empty)
    if survivors:
        player, opponent = _near_wipeout(player, opponent, survivors)
    memo = {}
    exact = minimax(player, opponent, memo)
    options = OPTION_SETS[name]
    solver = Solver(table_bits=12, options=options)
    assert solver.solve(player, opponent).score == exact
    assert solver.solve(player, opponent, wld=True).outcome == _sign(exact)
    tt_keys, tt_values, squares, keys, move_flips, params, weights, nodes = _kernels(options)
    alpha, beta = window
    got = endgame.search_deep(np.uint64(player), np.uint64(opponent), alpha, beta, tt_keys, tt_values, squares, keys, move_flips,
                              params, weights, nodes)
    assert got == exact if alpha < got < beta else (exact <= got if got <= alpha else exact >= got)
