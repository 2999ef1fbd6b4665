"""Gumbel root search with sequential halving (`MCTSConfig.root_policy = "gumbel"`).

Danihelka, Guez, Schrittwieser, Silver, "Policy improvement by planning with Gumbel" (ICLR 2022),
as in mctx's `gumbel_muzero_policy`; only the root differs from the PUCT search:

  1. logits(a) = log P(a) over the root's legal actions (PASS alone when the side to move must
     pass), P the evaluator's prior (floored at the smallest normal float32, so a prior that
     underflowed to 0 keeps a finite logit). In self-play (`search(add_noise=True)`) each legal
     action draws g(a) ~ Gumbel(0, 1) from the game's own stream; otherwise (arena, play, GTP)
     g = 0 and the search is deterministic. No Dirichlet noise is mixed in: g is the exploration.
  2. The m = min(gumbel_considered_actions, legal actions) actions with the largest g + logits
     are considered (ties to the lower action index).
  3. Sequential halving over the call's simulation budget n: simulation k goes to the considered
     action with the highest g + logits + sigma(q_hat) among those with exactly
     `halving_table(M, n)[m, k]` visits *in this search*. The table is mctx's
     `get_table_of_considered_visits`: each phase gives every surviving action
     max(1, floor(n / (ceil(log2 m) * survivors))) more visits, then keeps the best half (at least 2).
  4. The move played is, among the considered actions with the most visits in this search, the one
     with the highest g + logits + sigma(q_hat). With `MCTSConfig.solver`, a root child proven won
     for the root's side is played first (the best such by the same score), and proven losses are
     avoided when another tried action is not one. The temperature schedule is not used, except
     in self-play with `MCTSConfig.gumbel_sample_plies`: before that ply the move is drawn as the
     PUCT root draws it, proportionally to the root children's visits ** (1 / temperature)
     (`root.sample_moves_by_visits`; proofs are not consulted then, as there).
  5. The policy target is the improved policy softmax(logits + sigma(completedQ)) over the legal
     actions (0 elsewhere), completedQ(a) = q_hat(a) for a visited action and v_mix for the others.

Value scale: the tree's values are in [-1, 1] (side to move's view). q_hat(a) is the child's mean
value negated to the root's view (its exact result when proven), mapped to [0, 1] by (q + 1) / 2
before sigma(q) = (gumbel_c_visit + max_b N(b)) * gumbel_c_scale * q, with the paper's default
c_visit = 50, c_scale = 1. No min-max rescaling of the Q-values (mctx's `rescale_values`): with
c_scale = 1 a difference of 0.1 in win probability already weighs about 5 logits.

v_mix (the paper's Appendix D, mctx `_compute_mixed_value`) mixes the root's raw network value
with the prior-weighted mean Q of the visited actions:
  v_mix = (v_raw + (sum_b N(b)) * sum_{a: N(a) > 0} P(a) q(a) / sum_{a: N(a) > 0} P(a)) / (1 + sum_b N(b)).

Visit counts N(a) in sigma, v_mix and "visited" are the root children's visits in the tree, which
with tree reuse include visits carried over from earlier searches (after
`reuse_root_visit_discount`): they are value estimates like any other. The halving schedule,
though, counts only this search's simulations (`local_visits`), so each call runs the paper's
schedule over its own budget whatever the reused tree holds. Interior nodes keep the PUCT rule
(`selection.puct_action`) with its first-play urgency, virtual loss and solver proofs, not the
paper's deterministic interior selection.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import njit

from alphazero.mcts.config import MCTSConfig
from alphazero.mcts.rng import next_uniform
from alphazero.mcts.root import RootWalks, child_q, proof_rank, sample_moves_by_visits
from alphazero.mcts.tree import NO_ACTION, ROOT, UNVISITED, Tree
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index
from alphazero.othello.bitboard import NUM_ACTIONS, PASS

# Smallest normal float32: the floor of a prior before its logarithm (mctx floors at finfo.tiny too).
PRIOR_FLOOR = 1.1754943508222875e-38
_HALF_ULP = 1.0 / 18014398509481984.0  # 2**-54: moves next_uniform's [0, 1) into (0, 1)


class GumbelRoot:
    """The Gumbel root rule (see the module doc and `root.RootRule`).

    prepare draws g and picks the considered actions (`gumbel_init_roots`) and takes the halving
    schedule of the call's budget; walks gives each walk its halving action (`gumbel_root_actions`);
    finish reads the improved policy and the halving's winner (`gumbel_root_outputs`), or in
    self-play before `gumbel_sample_plies` a move drawn by visits.

    Attributes (the state of the current call, per game; read by tests):
      gumbel_noise: [B, 65] float64. g of each legal root action (0 without add_noise).
      considered: [B, 65] bool. The m actions sequential halving considers.
      num_considered: [B] int64. m.
      local_visits: [B, 65] int32. Visits of each root action in this call (the halving's count).
    """

    noise_samples_the_move = True

    def __init__(self, config: MCTSConfig, num_games: int, rng_states: np.ndarray):
        self.config = config
        self.rng_states = rng_states
        self.gumbel_noise = np.zeros((num_games, NUM_ACTIONS), dtype=np.float64)
        self.considered = np.zeros((num_games, NUM_ACTIONS), dtype=np.bool_)
        self.num_considered = np.zeros(num_games, dtype=np.int64)
        self.local_visits = np.zeros((num_games, NUM_ACTIONS), dtype=np.int32)
        self._root_action = np.full((num_games, config.leaves_per_step), NO_ACTION, dtype=np.int32)
        self._table = None  # the halving schedule of the current call's budget (prepare)

    def prepare(self, tree: Tree, active: np.ndarray, add_noise: bool, simulations: int) -> None:
        cfg = self.config
        self._table = halving_table(cfg.gumbel_considered_actions, simulations)
        gumbel_init_roots(tree, active, bool(add_noise), cfg.gumbel_considered_actions, self.rng_states,
                          self.gumbel_noise, self.considered, self.num_considered, self.local_visits)

    def walks(self, tree: Tree, active: np.ndarray, num_leaves: int, done: int) -> RootWalks:
        cfg = self.config
        gumbel_root_actions(tree, active, num_leaves, done, self._table, self.gumbel_noise, self.considered,
                            self.num_considered, self.local_visits, float(cfg.gumbel_c_visit),
                            float(cfg.gumbel_c_scale), self._root_action)
        return RootWalks(self._root_action, 0.0)

    def finish(self, tree: Tree, active: np.ndarray, visits: np.ndarray, ply: np.ndarray,
               add_noise: bool) -> tuple[np.ndarray, np.ndarray]:
        cfg = self.config
        policy = np.zeros(visits.shape, dtype=np.float32)
        action = np.full(visits.shape[0], NO_ACTION, dtype=np.int64)
        gumbel_root_outputs(tree, active, self.gumbel_noise, self.considered, self.local_visits,
                            float(cfg.gumbel_c_visit), float(cfg.gumbel_c_scale), cfg.solver, policy, action)
        if add_noise and cfg.gumbel_sample_plies > 0 and cfg.temperature > 0:
            sample_moves_by_visits(visits, ply, active, cfg.gumbel_sample_plies, float(cfg.temperature),
                                   self.rng_states, action)
        return policy, action


def considered_visits_sequence(num_considered: int, simulations: int) -> tuple[int, ...]:
    """For each simulation k, the visit count (in this search) the action it goes to must have:
    mctx's `get_sequence_of_considered_visits`."""
    if num_considered <= 1:
        return tuple(range(simulations))
    log2max = int(math.ceil(math.log2(num_considered)))
    sequence: list[int] = []
    visits = [0] * num_considered
    survivors = num_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * survivors)))
        for _ in range(extra):
            sequence.extend(visits[:survivors])
            for i in range(survivors):
                visits[i] += 1
        survivors = max(2, survivors // 2)
    return tuple(sequence[:simulations])


@lru_cache(maxsize=64)
def halving_table(max_considered: int, simulations: int) -> np.ndarray:
    """int32[max_considered + 1, simulations]: row m is `considered_visits_sequence(m, simulations)`."""
    table = np.array([considered_visits_sequence(m, simulations) for m in range(max_considered + 1)],
                     dtype=np.int32).reshape(max_considered + 1, simulations)
    table.setflags(write=False)
    return table


@njit(cache=True)
def _logit(prior):
    return math.log(max(np.float64(prior), PRIOR_FLOOR))


@njit(cache=True)
def _root_actions(tree, b, out):
    """Fill out[:k] with the root's legal actions (PASS alone when there is no legal square); returns k."""
    moves = tree.nodes[b, ROOT].legal
    if moves == ZERO:
        out[0] = PASS
        return 1
    count = 0
    while moves:
        out[count] = lowest_bit_index(moves)
        moves &= moves - ONE
        count += 1
    return count


@njit(cache=True)
def completed_q(tree, b, actions, count, q, n):
    """q[a] in [0, 1]: completedQ of each of the `count` legal root actions (child's q_hat when
    visited, v_mix otherwise; see the module doc); n[a]: its visits. Returns max_a N(a)."""
    total = 0
    weighted = 0.0
    prior_sum = 0.0
    most = 0
    for i in range(count):
        action = actions[i]
        child = tree.edges[b, ROOT, action].child
        visits = 0
        if child != UNVISITED:
            visits = tree.nodes[b, child].visits
        n[action] = visits
        if visits > 0:
            value = child_q(tree, b, child)
            q[action] = value
            prior = max(np.float64(tree.edges[b, ROOT, action].prior), PRIOR_FLOOR)
            weighted += prior * value
            prior_sum += prior
            total += visits
            most = max(most, visits)
    mixed = np.float64(tree.nodes[b, ROOT].raw_value)
    if total > 0:
        mixed = (mixed + total * weighted / prior_sum) / (1.0 + total)
    for i in range(count):
        action = actions[i]
        if n[action] == 0:
            q[action] = mixed
        q[action] = 0.5 * (q[action] + 1.0)
    return most


@njit(cache=True)
def gumbel_init_roots(tree, active, add_noise, max_considered, rng_states, gumbel, considered, num_considered,
                      local_visits):
    """Per active game: draw g (add_noise) or set it to 0, mark the top-m actions by g + logits as
    considered, count m, and zero this search's root visit counts. gumbel [B, 65] float64,
    considered [B, 65] bool, num_considered [B] int64, local_visits [B, 65] int32."""
    actions = np.empty(NUM_ACTIONS, dtype=np.int64)
    score = np.empty(NUM_ACTIONS, dtype=np.float64)
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        gumbel[b, :] = 0.0
        considered[b, :] = False
        local_visits[b, :] = 0
        count = _root_actions(tree, b, actions)
        for i in range(count):
            action = actions[i]
            if add_noise:
                u = next_uniform(rng_states, b) + _HALF_ULP
                gumbel[b, action] = -math.log(-math.log(u))
            score[i] = gumbel[b, action] + _logit(tree.edges[b, ROOT, action].prior)
        m = min(max_considered, count)
        num_considered[b] = m
        for _ in range(m):
            best = -1
            for i in range(count):
                if not considered[b, actions[i]] and (best < 0 or score[i] > score[best]):
                    best = i
            considered[b, actions[best]] = True


@njit(cache=True)
def gumbel_root_actions(tree, active, num_leaves, done, table, gumbel, considered, num_considered, local_visits,
                        c_visit, c_scale, root_action):
    """root_action [B, L]: the root action of each of this step's `num_leaves` walks, simulations
    done .. done + num_leaves - 1 of the halving schedule (`table`, see `halving_table`)."""
    actions = np.empty(NUM_ACTIONS, dtype=np.int64)
    q = np.zeros(NUM_ACTIONS, dtype=np.float64)
    n = np.zeros(NUM_ACTIONS, dtype=np.int64)
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        count = _root_actions(tree, b, actions)
        most = completed_q(tree, b, actions, count, q, n)
        scale = (c_visit + most) * c_scale
        target_row = num_considered[b]
        for j in range(num_leaves):
            target = table[target_row, done + j]
            best = -1
            best_score = -np.inf
            fewest = -1
            for i in range(count):
                action = actions[i]
                if not considered[b, action]:
                    continue
                if fewest < 0 or local_visits[b, action] < local_visits[b, fewest]:
                    fewest = action
                if local_visits[b, action] != target:
                    continue
                s = gumbel[b, action] + _logit(tree.edges[b, ROOT, action].prior) + scale * q[action]
                if best < 0 or s > best_score:
                    best = action
                    best_score = s
            if best < 0:  # cannot happen with the schedule's table; keep the walk well defined
                best = fewest
            local_visits[b, best] += 1
            root_action[b, j] = best


@njit(cache=True)
def gumbel_root_outputs(tree, active, gumbel, considered, local_visits, c_visit, c_scale, solver, policy, chosen):
    """policy [B, 65] float32: the improved policy softmax(logits + sigma(completedQ)) over the
    legal root actions; chosen [B] int64: the move to play (module doc, step 4)."""
    actions = np.empty(NUM_ACTIONS, dtype=np.int64)
    q = np.zeros(NUM_ACTIONS, dtype=np.float64)
    n = np.zeros(NUM_ACTIONS, dtype=np.int64)
    z = np.zeros(NUM_ACTIONS, dtype=np.float64)
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        policy[b, :] = 0.0
        count = _root_actions(tree, b, actions)
        most = completed_q(tree, b, actions, count, q, n)
        scale = (c_visit + most) * c_scale
        top = -np.inf
        for i in range(count):
            action = actions[i]
            z[action] = _logit(tree.edges[b, ROOT, action].prior) + scale * q[action]
            top = max(top, z[action])
        total = 0.0
        for i in range(count):
            action = actions[i]
            z[action] = math.exp(z[action] - top)
            total += z[action]
        for i in range(count):
            action = actions[i]
            policy[b, action] = np.float32(z[action] / total)

        most_local = 0
        for i in range(count):
            most_local = max(most_local, local_visits[b, actions[i]])
        # Preference: a proven win among the tried actions, then the most visited considered
        # actions that are not proven losses, then any tried action that is not one, then the rest.
        best = -1
        best_key = -1
        best_score = -np.inf
        for i in range(count):
            action = actions[i]
            rank = proof_rank(tree, b, action, solver)
            candidate = considered[b, action] and local_visits[b, action] == most_local
            if rank == 2 and n[action] > 0:
                key = 3
            elif candidate and rank == 1:
                key = 2
            elif n[action] > 0 and rank == 1:
                key = 1
            elif candidate:
                key = 0
            else:
                continue
            s = gumbel[b, action] + _logit(tree.edges[b, ROOT, action].prior) + scale * q[action]
            if key > best_key or (key == best_key and s > best_score):
                best = action
                best_key = key
                best_score = s
        chosen[b] = best
