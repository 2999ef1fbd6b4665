"""The interior action-selection rule: PUCT with first-play urgency and virtual loss.

Kept apart from the tree walk (`kernels.select_leaves`) so a different rule (Gumbel, a
root-specific one) can replace it without touching the tree code, as in mctx.
"""

import math

import numpy as np
from numba import njit

from alphazero.othello.bits import ONE, ZERO, lowest_bit_index
from alphazero.othello.bitboard import PASS
from alphazero.mcts.tree import NO_ACTION, UNVISITED


@njit(cache=True)
def puct_action(tree, b, node, c_puct, fpu_reduction, virtual_loss):
    """The action maximising Q(s, a) + c_puct * P(s, a) * sqrt(N(s)) / (1 + N(s, a)) at an EXPANDED node.

    N(s) is the node's visits plus its in-flight selections; N(s, a) likewise for the child.
    Q(s, a) = (-value_sum[child] - virtual_loss * in_flight[child]) / N(s, a): the child's value
    negated to the chooser's view, each pending selection counted as a loss of `virtual_loss`.
    A proven child (finished game, or solved subtree) has the exact Q = -exact_value[child].
    An untried action (no child) has Q = node mean value - fpu_reduction (first-play urgency).
    Ties go to the lowest action index. A node with no legal square can only PASS.

    A child proven won for the opponent (Q = -1, the worst there is) is chosen only when every
    action's child is one (MCTS-Solver): another visit to it teaches nothing, and with a large
    prior it would otherwise take visit after visit while its losses drag the node's mean, and
    with it the first-play value of the untried actions, down.
    """
    here = tree.nodes[b, node]
    moves = here.legal
    if moves == ZERO:
        return PASS
    sqrt_parent = math.sqrt(np.float64(here.visits + here.in_flight))
    first_play_value = here.value_sum / here.visits - fpu_reduction
    best_score = -np.inf
    best_action = PASS
    lost_score = -np.inf
    lost_action = PASS
    while moves:
        action = lowest_bit_index(moves)
        moves &= moves - ONE
        edge = tree.edges[b, node, action]
        lost = False
        if edge.child == UNVISITED:
            child_visits = 0
            q = first_play_value
        else:
            child = tree.nodes[b, edge.child]
            child_visits = child.visits + child.in_flight
            if child.proven:
                q = -np.float64(child.exact_value)
                lost = q <= -1.0
            elif child_visits == 0:
                q = first_play_value
            else:
                q = (-child.value_sum - virtual_loss * child.in_flight) / child_visits
        score = q + c_puct * np.float64(edge.prior) * sqrt_parent / (1 + child_visits)
        if lost:
            if score > lost_score:
                lost_score = score
                lost_action = action
        elif score > best_score:
            best_score = score
            best_action = action
    if best_score == -np.inf:
        return lost_action
    return best_action


@njit(cache=True)
def forced_root_action(tree, b, root, forced_k):
    """KataGo's forced playouts: the legal root action with the largest prior among those whose
    child has fewer than sqrt(forced_k * P(a) * N) visits (N: the root children's visits, in-flight
    ones included), or NO_ACTION when every action has had its share. Proven children are
    never forced: their value is exact already."""
    moves = tree.nodes[b, root].legal
    if moves == ZERO or forced_k <= 0.0:
        return NO_ACTION
    total = 0
    bits = moves
    while bits:
        action = lowest_bit_index(bits)
        bits &= bits - ONE
        child = tree.edges[b, root, action].child
        if child != UNVISITED:
            total += tree.nodes[b, child].visits + tree.nodes[b, child].in_flight
    best_action = NO_ACTION
    best_prior = -1.0
    while moves:
        action = lowest_bit_index(moves)
        moves &= moves - ONE
        edge = tree.edges[b, root, action]
        visits = 0
        if edge.child != UNVISITED:
            child = tree.nodes[b, edge.child]
            if child.proven:
                continue
            visits = child.visits + child.in_flight
        prior = np.float64(edge.prior)
        if visits < math.sqrt(forced_k * prior * total) and prior > best_prior:
            best_prior = prior
            best_action = action
    return best_action
