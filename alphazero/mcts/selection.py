"""The interior action-selection rule: PUCT with first-play urgency and virtual loss.

Kept apart from the tree walk (`kernels.select_leaves`) so a different rule (Gumbel, a
root-specific one) can replace it without touching the tree code, as in mctx.
"""

import math

import numpy as np
from numba import njit

from alphazero.othello.bits import ONE, ZERO, lowest_bit_index
from alphazero.othello.bitboard import PASS
from alphazero.mcts.tree import UNVISITED


@njit(cache=True, inline="always")
def puct_action(tree, b, node, c_puct, fpu_reduction, virtual_loss):
    """The action maximising Q(s, a) + c_puct * P(s, a) * sqrt(N(s)) / (1 + N(s, a)) at an EXPANDED node.

    N(s) is the node's visits plus its in-flight selections; N(s, a) likewise for the child.
    Q(s, a) = (-value_sum[child] - virtual_loss * in_flight[child]) / N(s, a): the child's value
    negated to the chooser's view, each pending selection counted as a loss of `virtual_loss`.
    A proven child (finished game, or solved subtree) has the exact Q = -exact_value[child].
    An untried action (no child) has Q = node mean value - fpu_reduction (first-play urgency).
    Ties go to the lowest action index. A node with no legal square can only PASS.
    """
    moves = tree.legal[b, node]
    if moves == ZERO:
        return PASS
    parent_visits = tree.visits[b, node] + tree.in_flight[b, node]
    sqrt_parent = math.sqrt(np.float64(parent_visits))
    first_play_value = tree.value_sum[b, node] / tree.visits[b, node] - fpu_reduction
    best_score = -np.inf
    best_action = PASS
    while moves:
        action = lowest_bit_index(moves)
        moves &= moves - ONE
        child = tree.children[b, node, action]
        if child == UNVISITED:
            child_visits = 0
            q = first_play_value
        else:
            pending = tree.in_flight[b, child]
            child_visits = tree.visits[b, child] + pending
            if tree.proven[b, child]:
                q = -np.float64(tree.exact_value[b, child])
            elif child_visits == 0:
                q = first_play_value
            else:
                q = (-tree.value_sum[b, child] - virtual_loss * pending) / child_visits
        prior = np.float64(tree.prior[b, node, action])
        score = q + c_puct * prior * sqrt_parent / (1 + child_visits)
        if score > best_score:
            best_score = score
            best_action = action
    return best_action
