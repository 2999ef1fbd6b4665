"""Root-only kernels: Dirichlet noise on the priors, forced-playout pruning, the search's outputs,
and the move choice."""

import math

import numpy as np
from numba import njit

from alphazero.mcts.rng import next_gamma, next_uniform
from alphazero.mcts.tree import NO_ACTION, ROOT, UNVISITED
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index
from alphazero.othello.bitboard import NUM_ACTIONS, PASS


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
def discount_root_visits(tree, active, discount):
    """Scale the visits of every active root's children by `discount` (rounded down), each
    child's value sum along with them so that their mean values stay.

    Used on reused roots in self-play: visits carried over from the previous search were made
    under that search's priors (noise-free, as the root was an interior node then), so they
    dilute the new root noise. A child left with no visits is unlinked (its move becomes untried,
    its subtree garbage for the next `compact_subtree`): an expanded node needs a visit for its
    mean value. So 0 drops every carried-over visit. The kept children's subtrees keep their
    visits, so there a node may have fewer visits than its children (only its sqrt(N) is smaller).
    The root's visits become 1 (its own evaluation) + its children's visits, its value sum scaled
    to keep its mean: it may have had fewer visits than its children already (a discounted child
    of the previous root), so subtracting the dropped visits could leave it with none.
    """
    for b in range(tree.next_free.shape[0]):
        if not active[b] or tree.next_free[b] == 0:
            continue
        changed = False
        kept = 0
        for action in range(NUM_ACTIONS):
            child = tree.edges[b, ROOT, action].child
            if child == UNVISITED:
                continue
            node = tree.nodes[b, child]
            old = node.visits
            new = np.int32(np.floor(old * discount))
            if new < old:
                changed = True
                if new == 0:
                    tree.edges[b, ROOT, action].child = UNVISITED
                else:
                    node.value_sum = node.value_sum * (new / old)
                    node.visits = new
            kept += new
        if changed:
            root = tree.nodes[b, ROOT]
            old = root.visits
            root.visits = np.int32(1 + kept)
            root.value_sum = root.value_sum * (root.visits / old)


@njit(cache=True)
def restore_root_priors(tree, active, saved_prior):
    for b in range(tree.next_free.shape[0]):
        if active[b]:
            for action in range(NUM_ACTIONS):
                tree.edges[b, ROOT, action].prior = saved_prior[b, action]


@njit(cache=True)
def root_child_visits(tree, active, visits):
    """visits [B, 65] int32: the root children's visit counts (0 for untried and illegal actions)."""
    visits[:, :] = 0
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        for action in range(NUM_ACTIONS):
            child = tree.edges[b, ROOT, action].child
            if child != UNVISITED:
                visits[b, action] = tree.nodes[b, child].visits


@njit(cache=True)
def child_q(tree, b, child):
    """A visited child's value from its parent's side to move: exact when proven, else its mean
    (no virtual loss: for reading a finished search, as the pruning and Gumbel's completed Q do)."""
    node = tree.nodes[b, child]
    if node.proven:
        return -np.float64(node.exact_value)
    return -node.value_sum / node.visits


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
def root_outputs(tree, active, visits, policy, root_value):
    """Fill policy [B, 65] (visits normalised) and root_value [B] (side to move's view): the root's
    exact result when the solver proved it, else its mean value."""
    policy[:, :] = 0.0
    root_value[:] = 0.0
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        total = 0
        for action in range(NUM_ACTIONS):
            total += visits[b, action]
        if total > 0:
            for action in range(NUM_ACTIONS):
                policy[b, action] = visits[b, action] / total
        root = tree.nodes[b, ROOT]
        if root.proven:
            root_value[b] = root.exact_value
        else:
            root_value[b] = root.value_sum / root.visits


@njit(cache=True)
def _rank(tree, b, action, solver):
    """Preference class of a root action for the final choice: 2 proven win, 1 unknown or proven
    draw, 0 proven loss (for the root's side to move). Without the solver every action is 1."""
    if not solver:
        return 1
    child = tree.edges[b, ROOT, action].child
    if child == UNVISITED or not tree.nodes[b, child].proven:
        return 1
    value = tree.nodes[b, child].exact_value  # the child's side to move is the opponent
    if value < 0.0:
        return 2
    if value > 0.0:
        return 0
    return 1


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
            drawn = _draw_by_visits(visits, b, temperature, rng_states)
            if drawn != NO_ACTION:
                actions[b] = drawn
                continue
        best = PASS
        best_rank = -1
        best_visits = -1
        for action in range(NUM_ACTIONS):
            if visits[b, action] == 0:
                continue
            rank = _rank(tree, b, action, solver)
            if rank > best_rank or (rank == best_rank and visits[b, action] > best_visits):
                best = action
                best_rank = rank
                best_visits = visits[b, action]
        actions[b] = best


@njit(cache=True)
def sample_moves_by_visits(visits, ply, active, sample_plies, temperature, rng_states, actions):
    """actions [B]: for each active game with ply < sample_plies, a move drawn with probability
    proportional to visits ** (1 / temperature), from the game's own stream (the draw of
    `choose_actions`); the other games keep the move they have."""
    for b in range(visits.shape[0]):
        if not active[b] or ply[b] >= sample_plies:
            continue
        drawn = _draw_by_visits(visits, b, temperature, rng_states)
        if drawn != NO_ACTION:
            actions[b] = drawn


@njit(cache=True)
def _draw_by_visits(visits, b, temperature, rng_states):
    """Game b's move drawn proportionally to visits ** (1 / temperature), or NO_ACTION (and no
    draw from the stream) when no root child has a visit."""
    most = 0
    for action in range(NUM_ACTIONS):
        most = max(most, visits[b, action])
    if most == 0:
        return NO_ACTION
    return _sample_by_visits(visits, b, most, 1.0 / temperature, rng_states)


@njit(cache=True)
def _sample_by_visits(visits, b, most, exponent, rng_states):
    """An action drawn with probability proportional to visits ** exponent (scaled by the maximum
    first, so large exponents cannot overflow)."""
    total = 0.0
    for action in range(NUM_ACTIONS):
        if visits[b, action] > 0:
            total += (visits[b, action] / most) ** exponent
    threshold = next_uniform(rng_states, b) * total
    running = 0.0
    last = PASS
    for action in range(NUM_ACTIONS):
        if visits[b, action] > 0:
            last = action
            running += (visits[b, action] / most) ** exponent
            if running > threshold:
                return action
    return last  # rounding left the threshold at the very top
