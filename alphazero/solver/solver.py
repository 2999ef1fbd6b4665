"""`Solver`: the exact endgame search for Python callers, owning its table and workspace.

One solver per search object (or per CLI run): the transposition table is allocated once and its
entries stay true across positions (they are bounds on exact scores), so it is never cleared.

`SearchOptions` switches the search's node-saving techniques (issue 36) one by one; the default
has every one that measured a gain on, `SearchOptions.off()` is the search as it was before them
(`python -m alphazero.bench endgame --options off,default` compares the two side by side).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from alphazero.solver import endgame, patterns, table

WLD_ALPHA = -1  # the null window around 0: the result has the sign of the exact score
WLD_BETA = 1
# FForum #1 (Edax fforum-1-19.obf, line 1): black to move scores +18 with g8.
WARM_UP_BOARD = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
# The warm-up's speed (the first `nodes_per_second`, which sizes a search by time's first root
# probe) is timed on what such a probe does: a win/loss/draw solve of a position beyond the
# search's solving reach, given up after WARM_UP_PROBE_NODES nodes. Line 18 of Edax's
# fforum-20-39.obf, 22 empties, black to move loses (by 20). Timed on the 14-empty exact solve
# instead, the warm-up read a median 1.65-1.85x the speed of the first probes it sized (their nodes
# cost more: fewer end in the last-moves kernels); timed on this one, 1.05-1.09x
# (experiments/timed-probe/warmup_rate.py, warmup-rate.jsonl).
WARM_UP_PROBE_BOARD = "--OOOO--O-OOOO--OXXXOOO-OXXOXO--OOXXOXX-OOXXXX--O-XXX-----XX-O-- X"
WARM_UP_PROBE_NODES = 100_000
# The speed a search by time converts its seconds into solver nodes with (`Solver.nodes_per_second`)
# is measured on searches of at least this many nodes: smaller ones are mostly the call from
# Python and would understate it. Older measurements fade by RATE_DECAY a search, so the figure
# follows the machine's load.
RATE_MIN_NODES = 10_000
RATE_DECAY = 0.9


@dataclass(frozen=True)
class SearchOptions:
    """The solver's techniques, each a switch (experiments/endgame-solver-36/README.md, "What each
    technique buys", measures each alone). Empties thresholds: the technique runs at nodes with at
    least that many empty squares; 0 turns it off.

    shallow_empties: positions with at most this many empties are searched without the table or
      move sorting (parity order only).
    fast_last_moves: the shallow search walks the empty squares instead of generating moves, four
      empties have their own kernel, and the last move's score comes from line tables.
    weighted_sort: the deep search orders moves by Edax's key (opponent's mobility, then corner
      stability, potential mobility, square value, parity) instead of mobility alone.
    order_search_empties / order_search_depth: from this many empties the key also holds a
      shallow search (0-2 plies below the move) of a mobility evaluation.
    order_pattern_empties: from this many empties that search evaluates the learned pattern
      evaluation (`patterns.pattern_eval`, the shipped weights) instead of mobility (it runs
      only where the search does: at least order_search_empties).
    etc_empties: enhanced transposition cut-offs: before searching a node, a move whose child
      the table already bounds at or above beta settles it.
    stability_empties: stability cut-offs: the opponent's stable discs bound the score from above,
      which settles a node whose window lies above that bound.
    order_deep_empties: from this many empties the ordering search goes 2 plies below each move
      instead of order_search_depth (a better order where a node's subtree is large enough to pay
      for it; 0 = off): from 18, FForum #20-#39 took 9% fewer nodes and 8-12% less CPU on a quiet
      core (experiments/endgame-solver-67).
    order_cut_discs: the pattern ordering search below a move stops once the opponent has a reply
      that puts the move this many discs below the node's alpha (Edax's sort window; 0 = off, the
      exact ordering value): the move goes late anyway, and its other replies are not evaluated.
      8 discs by default: 0.4% more nodes and 0.970 +- 0.010 of the CPU on FForum #20-#39 over
      8 paired runs on a quiet core (0.971 +- 0.012 over 16 under load before;
      experiments/endgame-solver-67, "The ordering search's window").
    order_deep_weight: at the nodes of order_deep_empties the 2-ply ordering value weighs twice
      what the 1-ply value weighs below them (a disc of the pattern evaluation is worth half an
      opponent's reply in the key, not a quarter): the deeper value is the better judge, and
      a node's subtree there is large. 9.8% fewer nodes on FForum #20-#39 and 0.932 +- 0.022 of
      the CPU (6 paired quiet runs), 14.1% and 13.3% fewer on WTHOR 2018 positions at 20/22 and
      21/23 empties (experiments/endgame-solver-67, "The deep ordering value weighed twice");
      weighed 3 or 4 times it gains less or loses. Not in the wipe-out probe's windows: there it
      took a real 34-empty wipe-out from 0.27 M nodes to 7.2 M.
    presorted_shallow: the shallow search (at most shallow_empties) walks each parity group of
      its empties in the order of a list presorted by square value (corners first, X-squares
      last; Edax's presorted empties) instead of in square-index order; the list is handed down
      less each move, and `_last4` and `_fast_last3` get their squares in its order.
      FForum #1-#39: 9.7% fewer nodes at the same CPU (0.988 +- 0.012 on #20-#39 over 12 paired
      quiet runs; experiments/endgame-solver-67, "The shallow search's presorted empties").
    wipeout_probe_nodes: an exact solve first asks, with the null window at the edge, whether the
      side to move wipes the other out (or is wiped out), for a side without stable discs, giving
      each question up after this many nodes (0 = off): a +-64 answer then costs a small proof.
    root_mtd: an exact solve searches the root with null windows around a guess moved to each
      bound found (MTD(f) from 0) instead of one full-window principal-variation search.
    """

    shallow_empties: int = 7
    fast_last_moves: bool = True
    weighted_sort: bool = True
    order_search_empties: int = 14
    order_search_depth: int = 1
    etc_empties: int = 9
    stability_empties: int = 5
    root_mtd: bool = True
    order_pattern_empties: int = 14
    wipeout_probe_nodes: int = 20_000_000
    order_deep_empties: int = 18
    order_cut_discs: int = 8
    presorted_shallow: bool = True
    order_deep_weight: bool = True

    # the switches by name for `parse`: field and its value when on (off: the `off()` value)
    SWITCHES = {
        "fast_last": ("fast_last_moves", True),
        "sort": ("weighted_sort", True),
        "order_search": ("order_search_empties", 14),
        "etc": ("etc_empties", 9),
        "stability": ("stability_empties", 5),
        "mtd": ("root_mtd", True),
        "patterns": ("order_pattern_empties", 14),
        "wipeout": ("wipeout_probe_nodes", 20_000_000),
        "order_deep": ("order_deep_empties", 18),
        "order_cut": ("order_cut_discs", 8),
        "presorted": ("presorted_shallow", True),
        "deep_weight": ("order_deep_weight", True),
    }

    def __post_init__(self):
        def check(ok, name, expected):
            if not ok:
                raise ValueError(f"SearchOptions.{name} must be {expected}, got {getattr(self, name)!r}")

        check(isinstance(self.shallow_empties, int) and 4 <= self.shallow_empties <= endgame.MAX_PRESORTED,
              "shallow_empties", f"an integer in 4..{endgame.MAX_PRESORTED}")
        for name in ("order_search_empties", "etc_empties", "stability_empties", "order_pattern_empties",
                     "order_deep_empties", "order_cut_discs"):
            value = getattr(self, name)
            check(isinstance(value, int) and 0 <= value <= 60, name, "an integer in 0..60 (0 = off)")
        check(isinstance(self.wipeout_probe_nodes, int) and self.wipeout_probe_nodes >= 0, "wipeout_probe_nodes",
              "an integer >= 0 (0 = off)")
        check(isinstance(self.order_search_depth, int) and 0 <= self.order_search_depth <= 2, "order_search_depth",
              "0, 1 or 2")

    @classmethod
    def off(cls) -> "SearchOptions":
        """Every technique off: the search as it was before issue 36, node for node."""
        return cls(shallow_empties=endgame.SHALLOW_EMPTIES, fast_last_moves=False, weighted_sort=False,
                   order_search_empties=0, etc_empties=0, stability_empties=0, root_mtd=False,
                   order_pattern_empties=0, wipeout_probe_nodes=0, order_deep_empties=0, order_cut_discs=0,
                   presorted_shallow=False, order_deep_weight=False)

    @classmethod
    def parse(cls, text: str) -> "SearchOptions":
        """`default`, `off`, or either followed by `+name` / `-name` switches, e.g. `off+etc`,
        `default-mtd` (names: the keys of SWITCHES)."""
        text = text.strip()
        base, rest = text, ""
        for i, char in enumerate(text):
            if char in "+-":
                base, rest = text[:i], text[i:]
                break
        if base not in ("default", "off"):
            raise ValueError(f"options {text!r}: must start with 'default' or 'off', e.g. off+etc or default-mtd")
        options = cls() if base == "default" else cls.off()
        off = cls.off()
        i = 0
        while i < len(rest):
            sign = rest[i]
            j = i + 1
            while j < len(rest) and rest[j] not in "+-":
                j += 1
            name = rest[i + 1:j]
            if name not in cls.SWITCHES:
                raise ValueError(f"options {text!r}: unknown switch {name!r}; known: {', '.join(cls.SWITCHES)}")
            field, on_value = cls.SWITCHES[name]
            options = dataclasses.replace(options, **{field: on_value if sign == "+" else getattr(off, field)})
            i = j
        return options

    def params(self) -> np.ndarray:
        """The int64 array the kernels read (endgame.P_* indices)."""
        params = endgame.default_params()
        params[endgame.P_SHALLOW] = self.shallow_empties
        params[endgame.P_FAST_SHALLOW] = int(self.fast_last_moves)
        params[endgame.P_SORT] = int(self.weighted_sort)
        params[endgame.P_ORDER_SEARCH] = self.order_search_empties or endgame.NEVER
        params[endgame.P_ORDER_DEPTH] = self.order_search_depth
        params[endgame.P_ETC] = self.etc_empties or endgame.NEVER
        params[endgame.P_STABILITY] = self.stability_empties or endgame.NEVER
        params[endgame.P_ROOT_WINDOW] = int(self.root_mtd)
        params[endgame.P_ORDER_PATTERNS] = self.order_pattern_empties or endgame.NEVER
        params[endgame.P_WIPEOUT_NODES] = self.wipeout_probe_nodes
        params[endgame.P_ORDER_DEEP] = self.order_deep_empties or endgame.NEVER
        params[endgame.P_ORDER_CUT] = self.order_cut_discs
        params[endgame.P_PRESORTED] = int(self.presorted_shallow)
        params[endgame.P_DEEP_WEIGHT] = int(self.order_deep_weight)
        return params

    def weights(self) -> np.ndarray:
        """The pattern weights the kernels read: the shipped ones when the ordering or the wipe-out
        probe uses them."""
        used = self.order_pattern_empties or self.wipeout_probe_nodes
        return patterns.shipped_weights() if used else patterns.zero_weights()


@dataclass(frozen=True)
class Solution:
    """best_move: 0..63, 64 = forced pass, -1 = game over. score: exact disc difference for the side to
    move (in WLD mode only its sign is exact: +-2 or more means a win/loss by at least that much, 0 a
    draw). nodes: positions visited. seconds: wall time of the search."""

    best_move: int
    score: int
    nodes: int
    seconds: float
    wld: bool = False

    @property
    def outcome(self) -> int:
        """+1 win, 0 draw, -1 loss for the side to move."""
        return (self.score > 0) - (self.score < 0)


class Solver:
    def __init__(self, table_bits: int = 20, options: SearchOptions | None = None):
        self.tt_keys, self.tt_values = table.allocate(table_bits)
        self.squares, self.keys, self.move_flips = endgame.allocate_workspace()
        self.nodes = np.zeros(1, dtype=np.int64)
        self.options = options or SearchOptions()
        self.params = self.options.params()
        self.weights = self.options.weights()
        self._rate_nodes = 0.0  # decayed sums over the measured searches (see nodes_per_second)
        self._rate_seconds = 0.0

    def nodes_per_second(self) -> float | None:
        """Nodes a second of wall time over this solver's recent searches of at least
        RATE_MIN_NODES nodes (`warm_up` times one), or None before any: measured where it runs, so
        a search by time can turn its seconds into a node limit on any machine and load."""
        if self._rate_seconds <= 0:
            return None
        return self._rate_nodes / self._rate_seconds

    def solve(self, player: int, opponent: int, wld: bool = False, node_limit: int = 0) -> Solution | None:
        """Exact score (or win/loss/draw with `wld`) and a best move of (player, opponent).

        node_limit > 0: give up after that many nodes and return None (the table stays true, so
        a later search of the same position starts from what this one proved)."""
        player, opponent = np.uint64(player), np.uint64(opponent)
        alpha, beta = (WLD_ALPHA, WLD_BETA) if wld else (-endgame.INFINITY, endgame.INFINITY)
        self.nodes[0] = 0
        start = time.perf_counter()
        score, move = self._search(player, opponent, alpha, beta, node_limit)
        seconds = time.perf_counter() - start
        if score is None:
            return None
        return Solution(int(move), int(score), int(self.nodes[0]), seconds, wld)

    def outcome(self, player: int, opponent: int, node_limit: int = 0) -> int | None:
        """+1 / 0 / -1: win, draw or loss for the side to move (the WLD search, nothing else; its
        nodes add to `self.nodes[0]`, which `solve` resets). node_limit > 0: None once the search
        has taken more than that many nodes (an open question is cheaper left to the network than
        settled at any cost)."""
        score, _ = self._search(np.uint64(player), np.uint64(opponent), WLD_ALPHA, WLD_BETA, node_limit)
        if score is None:
            return None
        return (score > 0) - (score < 0)

    def _search(self, player, opponent, alpha: int, beta: int, node_limit: int):
        """(score, move) of `endgame.solve_root`, or (None, None) when it passed `node_limit` nodes
        (counted from `self.nodes[0]` on entry; 0 = no limit)."""
        if node_limit < 0:
            raise ValueError(f"node_limit must be >= 0 (0 = no limit), got {node_limit}")
        before = int(self.nodes[0])
        limit = before + node_limit if node_limit else int(endgame.NO_NODE_LIMIT)
        self.params[endgame.P_NODE_LIMIT] = limit
        start = time.perf_counter()
        try:
            score, move = endgame.solve_root(
                player, opponent, alpha, beta, self.tt_keys, self.tt_values, self.squares, self.keys, self.move_flips,
                self.params, self.weights, self.nodes,
            )
        finally:
            self.params[endgame.P_NODE_LIMIT] = endgame.NO_NODE_LIMIT
        self._measure(int(self.nodes[0]) - before, time.perf_counter() - start)
        if int(self.nodes[0]) > limit:  # endgame.aborted: the search gave up
            return None, None
        return score, move

    def _measure(self, nodes: int, seconds: float) -> None:
        if nodes >= RATE_MIN_NODES and seconds > 0:
            self._rate_nodes = self._rate_nodes * RATE_DECAY + nodes
            self._rate_seconds = self._rate_seconds * RATE_DECAY + seconds

    def warm_up(self) -> None:
        """Compile (or load from the cache) every kernel, outside any timing, then time one
        probe-like solve from an empty table (the first `nodes_per_second`; the compile is not
        counted: see WARM_UP_PROBE_BOARD); leaves the table empty."""
        from alphazero.othello.notation import parse_board_text

        state = parse_board_text(WARM_UP_BOARD)  # 14 empties: reaches every layer, in milliseconds
        self.solve(state.player, state.opponent)
        self.solve(state.player, state.opponent, wld=True)
        self._rate_nodes = self._rate_seconds = 0.0
        table.clear(self.tt_keys, self.tt_values)
        probe = parse_board_text(WARM_UP_PROBE_BOARD)
        self.solve(probe.player, probe.opponent, wld=True, node_limit=WARM_UP_PROBE_NODES)  # a warm-up of 12-13 ms in all
        table.clear(self.tt_keys, self.tt_values)
