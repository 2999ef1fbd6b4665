"""`BatchedSearch`: MCTS over B games at once, one evaluator call per step for all of them.

A search call reads as the algorithm:

  1. prepare the roots (reuse the tree when its root is the given position, else start fresh) and
     evaluate the roots never evaluated;
  2. mix Dirichlet noise into the root priors (when asked);
  3. ceil(simulations / leaves_per_step) steps of `select_leaves` -> evaluator -> `expand` -> `backup`;
  4. read the root's visit counts, value and the move to play (temperature schedule).

With `MCTSConfig.root_policy = "gumbel"` steps 2 to 4 differ at the root only (alphazero.mcts.gumbel):
Gumbel noise instead of Dirichlet (self-play only), the root's walks follow the sequential-halving
schedule over the top-m actions, the move is the best surviving action (in self-play before
`gumbel_sample_plies`, a draw by visit counts as the PUCT root's temperature plies make), and the
policy is the improved policy softmax(logits + sigma(completedQ)) rather than the visit shares.

Simulation budget (what "visits" means): a root's own evaluation is its first visit and is not a
simulation (as in mctx); every simulation adds exactly one visit to one root child. So after a
search `visits[b].sum() == simulations + reused_visits[b]`, where `reused_visits` is the root
children's visit total carried over from earlier searches (via `advance`, or by searching the
same position again), and 0 for a fresh tree. The policy target is `visits / visits.sum()`.

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
on instead of N. One solver, with its transposition table, serves all games of the search object for its
lifetime.

Finished games must not be searched: an active game whose position is over raises ValueError.
Inactive games are not touched, not evaluated, and report zeros and action NO_ACTION (-1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.evaluator import Evaluator
from alphazero.mcts.gumbel import gumbel_init_roots, gumbel_root_actions, gumbel_root_outputs, halving_table
from alphazero.mcts.kernels import backup, expand, select_leaves, settle_solved_leaves
from alphazero.mcts.rng import seed_streams
from alphazero.mcts.root import (add_root_noise, choose_actions, discount_root_visits, prune_forced_visits,
                                 restore_root_priors, root_child_visits, root_outputs, sample_moves_by_visits)
from alphazero.mcts.tree import NO_ACTION, Tree, advance_trees, allocate_tree, prepare_roots, record_root_values
from alphazero.othello.bitboard import NUM_ACTIONS, is_game_over_batch
from alphazero.solver.solver import SearchOptions, Solver


@dataclass
class SearchResult:
    """Per game of the batch (inactive games: zeros and action NO_ACTION).

    Attributes:
      policy: [B, 65] float32. The training target: the root visit distribution (in self-play with
        forced playouts, the pruned visits: see MCTSConfig.forced_playouts_k), or with root_policy
        "gumbel" the improved policy (0 on illegal actions, summing to 1).
      visits: [B, 65] int32. Root children's visit counts (reused visits included).
      root_value: [B] float32. Mean value of the root from the side to move's view (its exact
        result instead once the solver has proven it).
      action: [B] int64. The move to play, chosen by the temperature schedule (see
        `root.choose_actions`), or by sequential halving with root_policy "gumbel".
      reused_visits: [B] int32. Visits the root's children already had before this search.
      exact_score: [B] int32. The root's exact final disc difference (side to move's view, empties
        to the winner) when the endgame solver solved it, else NO_EXACT_SCORE.
    """

    policy: np.ndarray
    visits: np.ndarray
    root_value: np.ndarray
    action: np.ndarray
    reused_visits: np.ndarray
    exact_score: np.ndarray


NO_EXACT_SCORE = -128  # exact_score of a root the endgame solver did not solve (scores are in -64..64)


class BatchedSearch:
    """MCTS for `num_games` games searched together; trees persist between moves (see `advance`).

    Each game draws its randomness (root noise, temperature sampling) from its own stream seeded
    with `seed + game index`, and its tree evolves from its own evaluations only. With an
    evaluator that answers each position the same way in any batch, game b of a batch therefore
    gets exactly the results of a one-game search seeded `seed + b` (for any leaves_per_step).
    """

    def __init__(self, config: MCTSConfig, evaluator: Evaluator, num_games: int, seed: int = 0):
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        self.config = config
        self.evaluator = evaluator
        self.num_games = num_games
        self.tree: Tree = allocate_tree(num_games, config.node_capacity)
        self._rng_states = seed_streams(seed, num_games)
        leaves = config.leaves_per_step
        self._leaf_node = np.zeros((num_games, leaves), dtype=np.int32)
        self._leaf_slot = np.zeros((num_games, leaves), dtype=np.int32)
        self._eval_positions = np.zeros((num_games * leaves, 2), dtype=np.uint64)
        self._eval_game = np.zeros(num_games * leaves, dtype=np.int32)
        self._eval_node = np.zeros(num_games * leaves, dtype=np.int32)
        self._new_index = np.zeros(config.node_capacity, dtype=np.int32)
        self._saved_prior = np.zeros((num_games, NUM_ACTIONS), dtype=np.float32)
        # The root action of each walk of a step: NO_ACTION (PUCT decides) except under Gumbel.
        self._root_action = np.full((num_games, leaves), NO_ACTION, dtype=np.int32)
        self._gumbel = config.root_policy == "gumbel"
        if self._gumbel:
            self._gumbel_noise = np.zeros((num_games, NUM_ACTIONS), dtype=np.float64)
            self._considered = np.zeros((num_games, NUM_ACTIONS), dtype=np.bool_)
            self._num_considered = np.zeros(num_games, dtype=np.int64)
            self._local_visits = np.zeros((num_games, NUM_ACTIONS), dtype=np.int32)
        self._max_kept_nodes = config.node_capacity - config.simulations
        self.endgame_solver = (Solver(config.endgame_table_bits, SearchOptions.parse(config.endgame_solver_options))
                               if config.leaf_solve_empties > 0 else None)

    def search(self, positions: np.ndarray, ply: np.ndarray, active: np.ndarray | None = None,
               add_noise: bool = True, simulations: int | None = None) -> SearchResult:
        """Run `config.simulations` simulations in every active game; see the module doc.

        Args:
          positions: [B, 2] uint64 (player, opponent), player to move.
          ply: [B] int64. Plies played so far in each game (selects the temperature).
          active: [B] bool or None (all active). Inactive games are skipped entirely.
          add_noise: mix Dirichlet noise into the root priors (self-play), not the tree; a
            reused root's fresh noise is drawn anew each call, and (self-play only) its carried-over
            child visits are first scaled by `config.reuse_root_visit_discount`. With root_policy
            "gumbel" it draws the Gumbel noise instead (without it the search is deterministic).
          simulations: this call's budget instead of `config.simulations` (1..config.simulations,
            which sizes the trees); playout cap randomisation's small searches use it.
        """
        if simulations is None:
            simulations = self.config.simulations
        elif not (isinstance(simulations, (int, np.integer)) and 1 <= simulations <= self.config.simulations):
            raise ValueError(f"search: simulations must be an integer in 1..{self.config.simulations} "
                             f"(mcts.simulations sizes the trees), got {simulations!r}")
        positions, ply, active = self._check_inputs(positions, ply, active)
        cfg = self.config
        tree = self.tree
        count = prepare_roots(tree, positions, active, self._max_kept_nodes, self._new_index,
                              self._eval_positions, self._eval_game, self._eval_node)
        if count:
            priors, values = self._evaluate(count)
            expand(tree, self._eval_game, self._eval_node, priors, count)
            record_root_values(tree, self._eval_game, self._eval_node, values, count)
        if add_noise and cfg.reuse_root_visit_discount < 1:
            discount_root_visits(tree, active, cfg.reuse_root_visit_discount)
        exact_score, solver_moves = self._solve_roots(positions, active)
        visits = np.zeros((self.num_games, NUM_ACTIONS), dtype=np.int32)
        root_child_visits(tree, active, visits)
        reused_visits = visits.sum(axis=1, dtype=np.int32)

        noisy = add_noise and cfg.noise_fraction > 0 and not self._gumbel
        if noisy:
            add_root_noise(tree, active, cfg.dirichlet_alpha, cfg.noise_fraction, self._rng_states,
                           self._saved_prior)
        if self._gumbel:
            gumbel_init_roots(tree, active, bool(add_noise), cfg.gumbel_considered_actions, self._rng_states,
                              self._gumbel_noise, self._considered, self._num_considered, self._local_visits)
        forced_k = float(cfg.forced_playouts_k) if add_noise and not self._gumbel else 0.0
        target_visits = visits
        try:
            self._simulate(active, int(simulations), forced_k)
            root_child_visits(tree, active, visits)
            if forced_k > 0:  # prune with the priors the search used, before the noise goes
                target_visits = np.zeros_like(visits)
                prune_forced_visits(tree, active, visits, float(cfg.c_puct), forced_k, target_visits)
        finally:
            if noisy:
                restore_root_priors(tree, active, self._saved_prior)

        policy = np.zeros((self.num_games, NUM_ACTIONS), dtype=np.float32)
        root_value = np.zeros(self.num_games, dtype=np.float32)
        root_outputs(tree, active, target_visits, policy, root_value)
        action = np.empty(self.num_games, dtype=np.int64)
        if self._gumbel:
            action[:] = NO_ACTION
            gumbel_root_outputs(tree, active, self._gumbel_noise, self._considered, self._local_visits,
                                float(cfg.gumbel_c_visit), float(cfg.gumbel_c_scale), cfg.solver, policy, action)
            if add_noise and cfg.gumbel_sample_plies > 0 and cfg.temperature > 0:
                sample_moves_by_visits(visits, ply, active, cfg.gumbel_sample_plies, float(cfg.temperature),
                                       self._rng_states, action)
        else:
            choose_actions(tree, target_visits, ply, active, cfg.temperature, cfg.temperature_plies, cfg.solver,
                           self._rng_states, action)
        for b in np.flatnonzero(exact_score != NO_EXACT_SCORE):
            action[b] = solver_moves[b]
            root_value[b] = np.sign(exact_score[b])
        return SearchResult(policy=policy, visits=visits, root_value=root_value, action=action,
                            reused_visits=reused_visits, exact_score=exact_score)

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

    def _simulate(self, active: np.ndarray, simulations: int, forced_k: float = 0.0) -> None:
        cfg = self.config
        tree = self.tree
        remaining = simulations
        table = halving_table(cfg.gumbel_considered_actions, simulations) if self._gumbel else None
        while remaining > 0:
            leaves = min(cfg.leaves_per_step, remaining)
            if self._gumbel:
                gumbel_root_actions(tree, active, leaves, simulations - remaining, table, self._gumbel_noise,
                                    self._considered, self._num_considered, self._local_visits,
                                    float(cfg.gumbel_c_visit), float(cfg.gumbel_c_scale), self._root_action)
            remaining -= leaves
            count = select_leaves(tree, active, leaves, cfg.c_puct, cfg.fpu_reduction, cfg.virtual_loss,
                                  self._root_action, forced_k, self._leaf_node, self._leaf_slot, self._eval_positions, self._eval_game,
                                  self._eval_node)
            if count and self.endgame_solver is not None:
                count = self._solve_endgame_leaves(active, leaves, count)
            if count:
                priors, values = self._evaluate(count)
                expand(tree, self._eval_game, self._eval_node, priors, count)
            else:
                values = _NO_VALUES
            backup(tree, active, leaves, self._leaf_node, self._leaf_slot, values, cfg.solver)

    def _solve_endgame_leaves(self, active: np.ndarray, leaves: int, count: int) -> int:
        """Solve (win/loss/draw) the newly opened leaves within reach instead of evaluating them;
        returns how many leaves are left for the evaluator.

        The solver is called from Python, leaf by leaf, rather than from `select_leaves`: numba
        cannot reload a cached kernel that calls the recursive solver from another module (numba
        issue #6061: the reloaded code jumps to an unresolved symbol and crashes).
        """
        positions = self._eval_positions[:count]
        empties = 64 - np.bitwise_count(positions[:, 0] | positions[:, 1]).astype(np.int64)
        within = np.flatnonzero(empties <= self.config.leaf_solve_empties)
        if within.size == 0:
            return count
        solved_value = np.full(count, np.nan, dtype=np.float32)
        for m in within:
            solved_value[m] = self.endgame_solver.outcome(int(positions[m, 0]), int(positions[m, 1]))
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

__all__ = ["BatchedSearch", "SearchResult", "MCTSConfig", "NO_ACTION", "NO_EXACT_SCORE"]
