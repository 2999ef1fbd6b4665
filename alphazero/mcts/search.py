"""`BatchedSearch`: MCTS over B games at once, one evaluator call per step for all of them.

A search call reads as the algorithm, in three verbs:

  prepare   make each active game's root the given position (reuse the tree when its root is
            that position, else start fresh), evaluate the roots never evaluated, scale down the
            reused root visits (self-play, `reuse_root_visit_discount`), solve the roots within
            the endgame solver's reach, and let the root rule prepare the roots;
  simulate  ceil(simulations / leaves_per_step) steps of `select_leaves` -> evaluator -> `expand`
            -> `backup`, each step's walks leaving the root as the root rule says;
  finish    the root rule's policy target and move, the roots' values, the solver's moves.

The root rule (`root.RootRule`, chosen by `MCTSConfig.root_policy` from `ROOT_RULES`) is the only
part that differs between the AlphaZero root (`puct_root.PuctRoot`: Dirichlet noise, forced
playouts, visit shares, temperature) and the Gumbel root (`gumbel.GumbelRoot`: Gumbel noise,
sequential halving, the improved policy); the search does not know which one it runs.

A search is a transaction: if anything raises inside it (the evaluator, say a CUDA out-of-memory
error, or a KeyboardInterrupt), the active games' trees are emptied and their random streams put
back before the exception propagates, so the next search of any position gives exactly the
results a fresh search object with the same seed would (the nodes a half-done step opened would
otherwise stay PENDING, with in-flight counts, in a tree that later searches reuse). Bad
arguments are refused before the transaction starts and change nothing.

Simulation budget (what "visits" means): a root's own evaluation is its first visit and is not a
simulation (as in mctx); every simulation is one walk from the root and adds exactly one visit to
one root child. So after a search `visits[b].sum() == simulations[b] + reused_visits[b]`, where
`simulations` counts the walks of this call and `reused_visits` is the root children's visit
total carried over from earlier searches (via `advance`, or by searching the same position
again), 0 for a fresh tree. Throughput figures count `simulations`, not visits. The policy target
is `visits / visits.sum()` under the PUCT root without forced playouts.

Capacity: each game has `MCTSConfig.node_capacity` node slots. Every simulation opens at most one
node, so a search needs `simulations` free slots; before searching, a reused tree larger than
`capacity - simulations` nodes is trimmed to its oldest nodes (see `tree.compact_subtree`).
The search therefore never runs out of nodes. Memory: 576 bytes per node slot (a 56-byte node
record and 65 8-byte edge records), so B * node_capacity * 576 bytes in all (256 games at 800
simulations with the default reuse headroom: about 236 MB).

Endgames (`MCTSConfig.endgame_solve_empties` = N > 0): a node opened with at most N empties is
solved (win/loss/draw) by the exact endgame solver instead of evaluated, and is a proven leaf; a
root with at most N empties is solved for its exact score first, and the search plays the
solver's best move (`SearchResult.exact_score` reports the score); with
`MCTSConfig.endgame_wld_empties` = W > 0, opened nodes are solved (win/loss/draw) from W empties
on instead of N; opened nodes further out, up to `MCTSConfig.endgame_revisit_empties` (0 by
default: none), are evaluated when opened and solved (win/loss/draw) when a walk comes back to
them (at their `MCTSConfig.endgame_revisit_visits`-th visit, 3 by default; a subtree they grew
before is let go of); opened nodes further out still, up to
`MCTSConfig.endgame_probe_empties`, are probed: solved unless the solve passes
`endgame_probe_nodes` solver nodes, then evaluated. A root solved exactly is not searched further unless
`MCTSConfig.search_solved_roots`: its move, one-hot policy and value are the solver's, its tree is
emptied, and it runs no simulations and costs no network evaluation (`SearchResult.simulations` is
0 for it). One solver, with its transposition table, serves all games of the search object for its
lifetime.

Finished games must not be searched: an active game whose position is over raises ValueError.
Inactive games are not touched, not evaluated, and report zeros and action NO_ACTION (-1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import Evaluator, UniformEvaluator
from alphazero.mcts.gumbel import GumbelRoot
from alphazero.mcts.kernels import backup, expand, root_wipeouts, select_leaves, settle_solved_leaves
from alphazero.mcts.puct_root import PuctRoot
from alphazero.mcts.rng import seed_streams
from alphazero.mcts.root import RootRule, discount_root_visits, root_child_visits, root_values
from alphazero.mcts.tree import EXPANDED, NO_ACTION, Tree, advance_trees, allocate_tree, prepare_roots, record_root_values
from alphazero.othello.bitboard import NUM_ACTIONS, START_BLACK, START_WHITE, is_game_over_batch
from alphazero.numba_cache import all_compiled_here
from alphazero.solver.endgame import solve_root
from alphazero.solver.solver import SearchOptions, Solver


@dataclass
class SearchResult:
    """Per game of the batch (inactive games: zeros and action NO_ACTION).

    Attributes:
      policy: [B, 65] float32. The training target: the root visit distribution (in self-play with
        forced playouts, the pruned visits: see MCTSConfig.forced_playouts_k), or with root_policy
        "gumbel" the improved policy (0 on illegal actions, summing to 1); one-hot on the solver's
        move at a root the endgame solver solved and the search did not search.
      visits: [B, 65] int32. Root children's visit counts (reused visits included).
      root_value: [B] float32. Mean value of the root from the side to move's view (its exact
        result instead once the solver has proven it).
      action: [B] int64. The move to play, chosen by the temperature schedule (see
        `puct_root.choose_actions`), or by sequential halving with root_policy "gumbel".
      reused_visits: [B] int32. Visits the root's children already had before this search.
      exact_score: [B] int32. The root's exact final disc difference (side to move's view, empties
        to the winner) when the endgame solver solved it, else NO_EXACT_SCORE.
      simulations: [B] int32. Simulations searched in this call (walks from the root): the call's
        budget for active games, 0 for inactive ones and for roots solved and not searched
        (`MCTSConfig.search_solved_roots`). `visits[b].sum() == simulations[b] +
        reused_visits[b]`; throughput figures count these, not visits.
    """

    policy: np.ndarray
    visits: np.ndarray
    root_value: np.ndarray
    action: np.ndarray
    reused_visits: np.ndarray
    exact_score: np.ndarray
    simulations: np.ndarray


NO_EXACT_SCORE = -128  # exact_score of a root the endgame solver did not solve (scores are in -64..64)

# The root rule of each `MCTSConfig.root_policy` (a class taking (config, num_games, rng_states)).
ROOT_RULES = {"puct": PuctRoot, "gumbel": GumbelRoot}


class BatchedSearch:
    """MCTS for `num_games` games searched together; trees persist between moves (see `advance`).

    Each game draws its randomness (root noise, temperature sampling) from its own stream seeded
    with `seed + game index`, and its tree evolves from its own evaluations only. With an
    evaluator that answers each position the same way in any batch (not every one does: see
    `evaluator`), game b of a batch therefore gets exactly the results of a one-game search
    seeded `seed + b` (for any leaves_per_step).

    Attributes: config, evaluator (may be replaced between searches), num_games, tree (`Tree`),
    root_rule (the `root.RootRule` of `config.root_policy`), endgame_solver (or None).
    """

    def __init__(self, config: MCTSConfig, evaluator: Evaluator, num_games: int, seed: int = 0):
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        self.config = config
        self.evaluator = evaluator
        self.num_games = num_games
        self.tree: Tree = allocate_tree(num_games, config.node_capacity)
        self._rng_states = seed_streams(seed, num_games)
        self._rng_before = self._rng_states.copy()  # the streams at the start of the current call
        self.root_rule: RootRule = ROOT_RULES[config.root_policy](config, num_games, self._rng_states)
        leaves = config.leaves_per_step
        self._leaf_node = np.zeros((num_games, leaves), dtype=np.int32)
        self._leaf_slot = np.zeros((num_games, leaves), dtype=np.int32)
        self._eval_positions = np.zeros((num_games * leaves, 2), dtype=np.uint64)
        self._eval_game = np.zeros(num_games * leaves, dtype=np.int32)
        self._eval_node = np.zeros(num_games * leaves, dtype=np.int32)
        self._new_index = np.zeros(config.node_capacity, dtype=np.int32)
        self._max_kept_nodes = config.node_capacity - config.simulations
        revisit = config.leaf_revisit_empties
        self._revisit_above, self._revisit_upto = (config.leaf_solve_empties, revisit) if revisit else (0, 0)
        self.endgame_solver = None
        if config.leaf_solve_empties > 0:
            self.endgame_solver = Solver(config.endgame_table_bits, SearchOptions.parse(config.endgame_solver_options))
            self._warm_up_endgame()

    def search(self, positions: np.ndarray, ply: np.ndarray, active: np.ndarray | None = None,
               add_noise: bool = True, simulations: int | None = None) -> SearchResult:
        """Run `config.simulations` simulations in every active game; see the module doc.

        Args:
          positions: [B, 2] uint64 (player, opponent), player to move.
          ply: [B] int64. Plies played so far in each game (selects the temperature).
          active: [B] bool or None (all active). Inactive games are skipped entirely.
          add_noise: self-play's randomness at the root: the PUCT root mixes Dirichlet noise into
            the root priors (not the tree: a reused root's noise is drawn anew each call), the
            Gumbel root draws its Gumbel noise (without it the search is deterministic); either
            way a reused root's carried-over child visits are first scaled by
            `config.reuse_root_visit_discount`.
          simulations: this call's budget instead of `config.simulations` (1..config.simulations,
            which sizes the trees); playout cap randomisation's small searches use it.

        Raises: ValueError for bad arguments (nothing changed); whatever the evaluator raises
        (the active games' trees emptied, their random streams as before the call).
        """
        if simulations is None:
            simulations = self.config.simulations
        elif not (isinstance(simulations, (int, np.integer)) and 1 <= simulations <= self.config.simulations):
            raise ValueError(f"search: simulations must be an integer in 1..{self.config.simulations} "
                             f"(mcts.simulations sizes the trees), got {simulations!r}")
        positions, ply, active = self._check_inputs(positions, ply, active)
        self._rng_before[:] = self._rng_states
        try:
            searching, reused_visits, exact_score, solver_moves = self._prepare(positions, active, bool(add_noise),
                                                                                int(simulations))
            searched = self._simulate(searching, int(simulations)) if searching.any() else 0
            return self._finish(active, searching, ply, bool(add_noise), reused_visits, exact_score, solver_moves,
                                searched)
        except BaseException:
            self._abandon(active)
            raise

    def _prepare(self, positions: np.ndarray, active: np.ndarray, add_noise: bool,
                 simulations: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Solve the roots within reach, then make the roots left to search ready for the walks;
        returns searching [B] (the active games whose roots are searched), reused_visits [B],
        exact_score [B], solver_moves [B]."""
        cfg = self.config
        tree = self.tree
        exact_score, solver_moves = self._solve_roots(positions, active)
        searching = active.copy()
        if not cfg.search_solved_roots:
            searching &= exact_score == NO_EXACT_SCORE
            tree.next_free[active & ~searching] = 0  # a solved root's tree has nothing left to give
        count = prepare_roots(tree, positions, searching, self._max_kept_nodes, self._new_index,
                              self._eval_positions, self._eval_game, self._eval_node)
        if count:
            priors, values = self._evaluate(count)
            expand(tree, self._eval_game, self._eval_node, priors, count, self.config.solver)
            record_root_values(tree, self._eval_game, self._eval_node, values, count)
        if add_noise and cfg.reuse_root_visit_discount < 1:
            discount_root_visits(tree, searching, cfg.reuse_root_visit_discount)
        visits = np.zeros((self.num_games, NUM_ACTIONS), dtype=np.int32)
        root_child_visits(tree, searching, visits)
        reused_visits = visits.sum(axis=1, dtype=np.int32)
        self.root_rule.prepare(tree, searching, add_noise, simulations)
        return searching, reused_visits, exact_score, solver_moves

    def _simulate(self, active: np.ndarray, simulations: int) -> int:
        """`simulations` walks in every active game, `leaves_per_step` per evaluator call; returns
        the number of walks made (per active game)."""
        cfg = self.config
        tree = self.tree
        done = 0
        while done < simulations:
            leaves = min(cfg.leaves_per_step, simulations - done)
            walks = self.root_rule.walks(tree, active, leaves, done)
            count = select_leaves(tree, active, leaves, cfg.c_puct, cfg.fpu_reduction, cfg.virtual_loss,
                                  walks.root_action, walks.forced_k, self._revisit_above, self._revisit_upto,
                                  cfg.endgame_revisit_visits,
                                  self._leaf_node, self._leaf_slot,
                                  self._eval_positions, self._eval_game, self._eval_node)
            if count and self.endgame_solver is not None:
                count = self._solve_endgame_leaves(active, leaves, count)
            if count:
                priors, values = self._evaluate(count)
                expand(tree, self._eval_game, self._eval_node, priors, count, self.config.solver)
            else:
                values = _NO_VALUES
            backup(tree, active, leaves, self._leaf_node, self._leaf_slot, values, cfg.solver)
            done += leaves
        return done

    def _finish(self, active: np.ndarray, searching: np.ndarray, ply: np.ndarray, add_noise: bool,
                reused_visits: np.ndarray, exact_score: np.ndarray, solver_moves: np.ndarray,
                searched: int) -> SearchResult:
        tree = self.tree
        visits = np.zeros((self.num_games, NUM_ACTIONS), dtype=np.int32)
        root_child_visits(tree, searching, visits)
        policy, action = self.root_rule.finish(tree, searching, visits, ply, add_noise)
        root_value = np.zeros(self.num_games, dtype=np.float32)
        root_values(tree, searching, root_value)
        if self.config.solver:
            root_wipeouts(tree, searching, action, root_value)
        for b in np.flatnonzero(exact_score != NO_EXACT_SCORE):
            action[b] = solver_moves[b]
            root_value[b] = np.sign(exact_score[b])
            if not searching[b]:  # solved, not searched: the solver's move is the policy target
                policy[b] = 0.0
                policy[b, solver_moves[b]] = 1.0
        simulations = np.where(searching, searched, 0).astype(np.int32)
        return SearchResult(policy=policy, visits=visits, root_value=root_value, action=action,
                            reused_visits=reused_visits, exact_score=exact_score, simulations=simulations)

    def _abandon(self, active: np.ndarray) -> None:
        """Undo a search that raised: the active games' trees are emptied (a half-done step leaves
        PENDING nodes and in-flight counts that a reused tree would carry into later searches) and
        their random streams put back, so their next search is that of a fresh search object."""
        self.tree.next_free[active] = 0
        self._rng_states[active] = self._rng_before[active]

    def advance(self, actions: np.ndarray) -> None:
        """Play `actions` [B] in the trees: each played child's subtree becomes the game's tree.

        Without `tree_reuse`, or when the move has no expanded child (never tried, not legal at
        the root, the root's game is over), the game's tree is emptied and its next search starts
        fresh. NO_ACTION (-1) leaves a game's tree as it is. Calling `advance` is optional: a search
        on a position that is not the tree's root starts fresh by itself.
        """
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(-1)
        if actions.shape[0] != self.num_games:
            raise ValueError(f"advance: expected {self.num_games} actions, got shape {actions.shape}")
        bad = advance_trees(self.tree, actions, self.config.tree_reuse, self._max_kept_nodes, self._new_index)
        if bad >= 0:
            raise ValueError(f"advance: action {int(actions[bad])} of game {bad} is not an action "
                             f"(expected {NO_ACTION} for no move, or 0..{NUM_ACTIONS - 1}); no tree was changed")

    def reset(self, index=None) -> None:
        """Forget the trees of the games in `index` (an int, a sequence, or None for all)."""
        if index is None:
            self.tree.next_free[:] = 0
        else:
            self.tree.next_free[np.asarray(index, dtype=np.int64)] = 0

    # ------------------------------------------------------------------------------------------

    def _warm_up_endgame(self) -> None:
        """Compile (or load from numba's cache) the kernels only endgame positions call, now.

        Left to the first position within the solver's reach, a fresh install's compile (about
        40 s on a 2-core EPYC, most of it the solver's) would land inside a move's search: past
        any time budget (`seconds=`, GTP clocks), stalling every self-play worker mid-game, and
        inside a benchmark's measurement. The solver's warm-up leaves its table empty, and
        `settle_solved_leaves` with no rows and no active game changes nothing.
        """
        self.endgame_solver.warm_up()
        settle_solved_leaves(self.tree, np.zeros(self.num_games, dtype=np.bool_), 1, self._leaf_node, self._leaf_slot,
                             self._eval_positions, self._eval_game, self._eval_node, 0,
                             np.zeros(0, dtype=np.float32))

    def _solve_endgame_leaves(self, active: np.ndarray, leaves: int, count: int) -> int:
        """Solve (win/loss/draw) the newly opened leaves within reach instead of evaluating them,
        the revisit band's leaves a walk came back to (EXPANDED: the network evaluated them when
        they were opened; a newly opened one is left for the evaluator), and probe the newly
        opened leaves within the probe reach (a solve with a node limit, kept if it finishes);
        returns how many leaves are left for the evaluator.

        The solver is called from Python, leaf by leaf, rather than from `select_leaves`: numba
        cannot reload a cached kernel that calls the recursive solver from another module (numba
        issue #6061: the reloaded code jumps to an unresolved symbol and crashes).
        """
        positions = self._eval_positions[:count]
        empties = 64 - np.bitwise_count(positions[:, 0] | positions[:, 1]).astype(np.int64)
        reach = self.config.leaf_solve_empties
        revisit = self._revisit_upto
        within = np.flatnonzero(empties <= max(reach, revisit, self.config.leaf_probe_empties))
        if within.size == 0:
            return count
        solved_value = np.full(count, np.nan, dtype=np.float32)
        for m in within:
            if reach < empties[m] <= revisit:
                if self.tree.nodes[self._eval_game[m], self._eval_node[m]]["status"] != EXPANDED:
                    continue  # opened now: the network evaluates it; a walk that comes back solves it
                node_limit = 0
            else:
                node_limit = 0 if empties[m] <= reach else self.config.endgame_probe_nodes
            outcome = self.endgame_solver.outcome(int(positions[m, 0]), int(positions[m, 1]), node_limit)
            if outcome is not None:  # None: a probe that passed its node limit, the network evaluates it
                solved_value[m] = outcome
        return settle_solved_leaves(self.tree, active, leaves, self._leaf_node, self._leaf_slot,
                                    self._eval_positions, self._eval_game, self._eval_node, count, solved_value)

    def _solve_roots(self, positions: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact scores [B] (NO_EXACT_SCORE where not solved) and best moves [B] (NO_ACTION where
        not solved) of the active roots with at most `endgame_solve_empties` empties."""
        limit = self.config.endgame_solve_empties
        exact_score = np.full(self.num_games, NO_EXACT_SCORE, dtype=np.int32)
        moves = np.full(self.num_games, NO_ACTION, dtype=np.int64)
        if limit == 0:
            return exact_score, moves
        empties = 64 - np.bitwise_count(positions[:, 0] | positions[:, 1]).astype(np.int64)
        for b in np.flatnonzero(active & (empties <= limit)):
            solution = self.endgame_solver.solve(int(positions[b, 0]), int(positions[b, 1]))
            exact_score[b] = solution.score
            moves[b] = solution.best_move
        return exact_score, moves

    def _evaluate(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        priors, values = self.evaluator(self._eval_positions[:count].copy())
        priors = np.ascontiguousarray(priors, dtype=np.float32)
        values = np.ascontiguousarray(values, dtype=np.float32)
        if priors.shape != (count, NUM_ACTIONS) or values.shape != (count,):
            raise ValueError(f"evaluator returned priors {priors.shape} and values {values.shape} for "
                             f"{count} positions; expected ({count}, {NUM_ACTIONS}) and ({count},)")
        return priors, values

    def _check_inputs(self, positions, ply, active):
        b = self.num_games
        positions = np.ascontiguousarray(positions, dtype=np.uint64)
        if positions.shape != (b, 2):
            raise ValueError(f"search: positions must have shape ({b}, 2), got {positions.shape}")
        ply = np.ascontiguousarray(ply, dtype=np.int64).reshape(-1)
        if ply.shape != (b,):
            raise ValueError(f"search: ply must have shape ({b},), got {ply.shape}")
        if active is None:
            active = np.ones(b, dtype=np.bool_)
        else:
            active = np.ascontiguousarray(active, dtype=np.bool_).reshape(-1)
            if active.shape != (b,):
                raise ValueError(f"search: active must have shape ({b},), got {active.shape}")
        finished = np.flatnonzero(is_game_over_batch(positions) & active)
        if finished.size:
            raise ValueError(f"search: games {finished.tolist()} are over (no legal move for either side); "
                             f"mark them inactive instead of searching them")
        return positions, ply, active


_NO_VALUES = np.zeros(0, dtype=np.float32)


def warm_up_search(config: MCTSConfig) -> None:
    """Compile (or load from numba's cache) every kernel a search with `config` calls, outside
    any game: a throwaway one-game search of the start position on the uniform evaluator (no
    network call), a move played in its tree, and the endgame kernels its construction warms.

    For the front-ends that search one game by time (play, GTP, NBoard): on a fresh install the
    search's kernels take seconds to compile (about 11 s on a 2-core EPYC, the solver's 40 s
    more), which would otherwise land in the first move's clock. Nothing is kept: the search
    object is dropped, and kernels compiled once serve every later search of the process."""
    search = BatchedSearch(config, UniformEvaluator(), 1)
    result = search.search(np.array([[START_BLACK, START_WHITE]], dtype=np.uint64), np.zeros(1, dtype=np.int64),
                           add_noise=False, simulations=min(config.simulations, 8))
    search.advance(result.action)


# Kernels every search calls: the walk down the tree, the backup, the roots' preparation and the
# endgame solver's root (its construction warms the solver). A process that finds these in numba's
# cache loads the search in seconds; one that does not compiles all of the search's kernels (a
# fresh clone or cache: minutes on a 2-core laptop, most of it the solver's).
SEARCH_KERNELS = (select_leaves, backup, prepare_roots, solve_root)


def search_kernels_cached() -> bool | None:
    """Whether this machine's search kernels are in numba's cache (None: cannot tell), asked
    without compiling them: a command can say "compiling" before its workers go quiet for it."""
    return all_compiled_here(SEARCH_KERNELS)


__all__ = ["BatchedSearch", "SearchResult", "MCTSConfig", "NO_ACTION", "NO_EXACT_SCORE", "SEARCH_KERNELS", "search_kernels_cached",
           "warm_up_search"]
