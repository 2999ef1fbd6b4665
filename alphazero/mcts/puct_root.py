"""The PUCT root (`MCTSConfig.root_policy = "puct"`): AlphaZero's root with KataGo's forced playouts.

  prepare: in self-play (`add_noise`), Dirichlet(dirichlet_alpha) noise is mixed into the root
    priors (their clean values saved), and walks are forced to root children short of
    sqrt(forced_playouts_k * P(c) * N) visits (`selection.forced_root_action`);
  walks: every walk leaves the root by its own choice (forced playouts, then PUCT);
  finish: the forced playouts are pruned from the visits (with the noisy priors the search used),
    the clean priors are restored, the policy target is the (pruned) visit shares and the move
    is drawn by temperature before `temperature_plies`, else the most visited (`choose_actions`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.rng import next_gamma
from alphazero.mcts.root import RootWalks, child_q, draw_by_visits, proof_rank
from alphazero.mcts.tree import NO_ACTION, ROOT, Tree
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index
from alphazero.othello.bitboard import NUM_ACTIONS, PASS


class PuctRoot:
    """The PUCT root rule (see the module doc and `root.RootRule`)."""

    noise_samples_the_move = False

    def __init__(self, config: MCTSConfig, num_games: int, rng_states: np.ndarray):
        self.config = config
        self.rng_states = rng_states
        self._saved_prior = np.zeros((num_games, NUM_ACTIONS), dtype=np.float32)
        self._own_choice = np.full((num_games, config.leaves_per_step), NO_ACTION, dtype=np.int32)
        self._noisy = False
        self._forced_k = 0.0

    def prepare(self, tree: Tree, active: np.ndarray, add_noise: bool, simulations: int) -> None:
        cfg = self.config
        self._noisy = add_noise and cfg.noise_fraction > 0
        self._forced_k = float(cfg.forced_playouts_k) if add_noise else 0.0
        if self._noisy:
            add_root_noise(tree, active, cfg.dirichlet_alpha, cfg.noise_fraction, self.rng_states, self._saved_prior)

    def walks(self, tree: Tree, active: np.ndarray, num_leaves: int, done: int) -> RootWalks:
        return RootWalks(self._own_choice, self._forced_k)

    def finish(self, tree: Tree, active: np.ndarray, visits: np.ndarray, ply: np.ndarray,
               add_noise: bool) -> tuple[np.ndarray, np.ndarray]:
        cfg = self.config
        target = visits
        if self._forced_k > 0:  # prune with the priors the search used, before the noise goes
            target = np.zeros_like(visits)
            prune_forced_visits(tree, active, visits, float(cfg.c_puct), self._forced_k, target)
        if self._noisy:
            restore_root_priors(tree, active, self._saved_prior)
        policy = np.zeros(visits.shape, dtype=np.float32)
        visit_policy(active, target, policy)
        action = np.empty(visits.shape[0], dtype=np.int64)
        choose_actions(tree, target, ply, active, cfg.temperature, cfg.temperature_plies, cfg.solver,
                       self.rng_states, action)
        return policy, action


@njit(cache=True)
def add_root_noise(tree, active, alpha, fraction, rng_states, saved_prior):
    """Mix Dirichlet(alpha) noise over the root's legal actions into its priors.

    prior = (1 - fraction) * prior + fraction * noise. The clean priors are copied to
    `saved_prior` [B, 65] first so `restore_root_priors` can undo the noise after the search:
    the tree never keeps noisy priors, which matters once the root becomes an interior node of a
    later search (through `advance`) or is searched again.
    """
    noise = np.zeros(NUM_ACTIONS, dtype=np.float64)
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        for action in range(NUM_ACTIONS):
            saved_prior[b, action] = tree.edges[b, ROOT, action].prior
        moves = tree.nodes[b, ROOT].legal
        if moves == ZERO:
            continue  # a forced pass: noise over one action changes nothing
        total = 0.0
        bits = moves
        while bits:
            action = lowest_bit_index(bits)
            bits &= bits - ONE
            noise[action] = next_gamma(rng_states, b, alpha)
            total += noise[action]
        bits = moves
        count = 0
        while bits:
            count += 1
            bits &= bits - ONE
        bits = moves
        while bits:
            action = lowest_bit_index(bits)
            bits &= bits - ONE
            # All draws can underflow to 0 for a tiny alpha: fall back to uniform noise then.
            share = noise[action] / total if total > 0.0 else 1.0 / count
            edge = tree.edges[b, ROOT, action]
            edge.prior = np.float32((1.0 - fraction) * edge.prior + fraction * share)


@njit(cache=True)
def restore_root_priors(tree, active, saved_prior):
    for b in range(tree.next_free.shape[0]):
        if active[b]:
            for action in range(NUM_ACTIONS):
                tree.edges[b, ROOT, action].prior = saved_prior[b, action]


@njit(cache=True)
def prune_forced_visits(tree, active, visits, c_puct, forced_k, pruned):
    """pruned [B, 65]: the root visits without the forced playouts (KataGo's policy target pruning).

    Call it while the root still has the priors the search used (the noisy ones). c* is the most
    visited child (ties to the lowest action). Every other child c keeps the fewest visits n' >=
    n(c) - sqrt(forced_k * P(c) * N) for which its PUCT value Q(c) + c_puct * P(c) * sqrt(N_root)
    / (1 + n') stays below c*'s, or all n(c) when even those do not bring it below; a child left
    with one visit or none is dropped. N is the children's visit total, N_root the root's visits
    (as in the selection rule). Children whose PUCT value is at or above c*'s keep all their visits.
    """
    pruned[:, :] = visits
    for b in range(visits.shape[0]):
        if not active[b]:
            continue
        total = 0
        best = -1
        for action in range(NUM_ACTIONS):
            total += visits[b, action]
            if best < 0 or visits[b, action] > visits[b, best]:
                best = action
        if total == 0:
            continue
        sqrt_root = math.sqrt(np.float64(tree.nodes[b, ROOT].visits))
        best_prior = np.float64(tree.edges[b, ROOT, best].prior)
        best_puct = (child_q(tree, b, tree.edges[b, ROOT, best].child)
                     + c_puct * best_prior * sqrt_root / (1 + visits[b, best]))
        for action in range(NUM_ACTIONS):
            n = visits[b, action]
            if action == best or n == 0:
                continue
            prior = np.float64(tree.edges[b, ROOT, action].prior)
            gap = best_puct - child_q(tree, b, tree.edges[b, ROOT, action].child)
            if gap <= 0.0:
                continue  # even with all its visits it would still be chosen over c*: keep them
            # Q + u / (1 + n') < best_puct  <=>  n' > u / gap - 1
            fewest = np.int64(math.floor(c_puct * prior * sqrt_root / gap - 1.0)) + 1
            floor_by_forced = np.int64(math.ceil(n - math.sqrt(forced_k * prior * total)))
            keep = max(fewest, floor_by_forced, 0)
            if keep > n:
                keep = n
            pruned[b, action] = keep if keep > 1 else 0


@njit(cache=True)
def visit_policy(active, visits, policy):
    """policy [B, 65]: each active game's visits [B, 65] normalised (0 rows for the rest)."""
    policy[:, :] = 0.0
    for b in range(visits.shape[0]):
        if not active[b]:
            continue
        total = 0
        for action in range(NUM_ACTIONS):
            total += visits[b, action]
        if total > 0:
            for action in range(NUM_ACTIONS):
                policy[b, action] = visits[b, action] / total


@njit(cache=True)
def choose_actions(tree, visits, ply, active, temperature, temperature_plies, solver, rng_states, actions):
    """actions [B] int64: the move each active game plays (NO_ACTION for inactive games).

    While ply < temperature_plies (and temperature > 0) the move is sampled with probability
    proportional to visits ** (1 / temperature), from the game's own stream. Afterwards it is the
    most visited move, ties to the lowest action index, no random draw; with the solver, among
    the proven wins if there are any, else avoiding proven losses where another move was tried.
    """
    for b in range(visits.shape[0]):
        if not active[b]:
            actions[b] = NO_ACTION
            continue
        if ply[b] < temperature_plies and temperature > 0.0:
            drawn = draw_by_visits(visits, b, temperature, rng_states)
            if drawn != NO_ACTION:
                actions[b] = drawn
                continue
        best = PASS
        best_rank = -1
        best_visits = -1
        for action in range(NUM_ACTIONS):
            if visits[b, action] == 0:
                continue
            rank = proof_rank(tree, b, action, solver)
            if rank > best_rank or (rank == best_rank and visits[b, action] > best_visits):
                best = action
                best_rank = rank
                best_visits = visits[b, action]
        actions[b] = best
