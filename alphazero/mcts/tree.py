"""The search tree of B games as one struct of preallocated arrays, and the kernels that manage it.

Nodes of game b live at indices 0 .. next_free[b] - 1 of that game's rows, allocated in creation
order, so a node's parent always has a smaller index than the node. The root is node 0. Edges are
not stored separately: the statistics of the move (node, a) are those of the child node
`children[b, node, a]`, and an untried move has no node at all (`UNVISITED`).

Values are from the view of the side to move at the node: `value_sum[b, n] / visits[b, n]` is how
good the position is for the player about to move there. A parent therefore scores its child as
`-value_sum[child] / visits[child]` (a pass is an ordinary action and flips the view too).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from alphazero.othello.bits import ZERO
from alphazero.othello.bitboard import NUM_ACTIONS, PASS, game_result, legal_moves

ROOT = 0  # index of the root node in every game's rows
UNVISITED = -1  # children[b, n, a] of an action never tried
NO_PARENT = -1  # parent[b, ROOT]
NO_ACTION = -1  # action_from_parent[b, ROOT]; also "no move" in actions handed to or from the search

# status[b, n]
PENDING = 0  # opened by a selection this step, waiting for the evaluator
EXPANDED = 1  # priors known: selection may descend through it
TERMINAL = 2  # the game is over here: proven, exact_value is the result, never evaluated


class Tree(NamedTuple):
    """Search trees of B games with N node slots each (N = MCTSConfig.node_capacity).

    Attributes:
      visits: [B, N] int32. Completed simulations through the node (its own evaluation included).
      value_sum: [B, N] float64. Sum of the backed-up values, from the node's side to move.
      in_flight: [B, N] int32. Selections through the node still waiting for their evaluation this
        step (virtual loss); 0 between steps.
      prior: [B, N, 65] float32. The evaluator's move probabilities at the node (EXPANDED nodes).
      children: [B, N, 65] int32. Node index reached by each action, `UNVISITED` if never tried.
      parent: [B, N] int32. The node's parent, `NO_PARENT` for the root.
      action_from_parent: [B, N] int32. The action that led here, `NO_ACTION` for the root.
      position: [B, N, 2] uint64. (player, opponent) with `player` to move at the node.
      legal: [B, N] uint64. Legal squares at the node; 0 means the only action is PASS (or, for a
        TERMINAL node, none).
      status: [B, N] int8. `PENDING`, `EXPANDED` or `TERMINAL`.
      proven: [B, N] bool. The game-theoretic result of the node is known: always for TERMINAL
        nodes, and (with MCTSConfig.solver) for nodes whose children's results settle it.
      exact_value: [B, N] float32. That result (+1/0/-1) for the node's side to move, when proven.
      next_free: [B] int32. First unused node slot; 0 means the game has no tree (not even a root).
    """

    visits: np.ndarray
    value_sum: np.ndarray
    in_flight: np.ndarray
    prior: np.ndarray
    children: np.ndarray
    parent: np.ndarray
    action_from_parent: np.ndarray
    position: np.ndarray
    legal: np.ndarray
    status: np.ndarray
    proven: np.ndarray
    exact_value: np.ndarray
    next_free: np.ndarray

    @property
    def num_games(self) -> int:
        return self.visits.shape[0]

    @property
    def capacity(self) -> int:
        return self.visits.shape[1]


def allocate_tree(num_games: int, capacity: int) -> Tree:
    """Empty trees (next_free = 0) for `num_games` games of `capacity` nodes each."""
    if num_games < 1:
        raise ValueError(f"num_games must be >= 1, got {num_games}")
    if capacity < 2:
        raise ValueError(f"tree capacity must be >= 2 nodes, got {capacity}")
    shape = (num_games, capacity)
    return Tree(
        visits=np.zeros(shape, dtype=np.int32),
        value_sum=np.zeros(shape, dtype=np.float64),
        in_flight=np.zeros(shape, dtype=np.int32),
        prior=np.zeros(shape + (NUM_ACTIONS,), dtype=np.float32),
        children=np.full(shape + (NUM_ACTIONS,), UNVISITED, dtype=np.int32),
        parent=np.full(shape, NO_PARENT, dtype=np.int32),
        action_from_parent=np.full(shape, NO_ACTION, dtype=np.int32),
        position=np.zeros(shape + (2,), dtype=np.uint64),
        legal=np.zeros(shape, dtype=np.uint64),
        status=np.zeros(shape, dtype=np.int8),
        proven=np.zeros(shape, dtype=np.bool_),
        exact_value=np.zeros(shape, dtype=np.float32),
        next_free=np.zeros(num_games, dtype=np.int32),
    )


@njit(cache=True)
def open_node(tree, b, parent, action, player, opponent):
    """Allocate the next node of game b for `position` (player, opponent) reached by `action`.

    The node is TERMINAL (with its exact result) when neither side can move, else PENDING. The
    caller guarantees a free slot (see `BatchedSearch`'s capacity rule) and links it to the parent.
    """
    node = tree.next_free[b]
    tree.next_free[b] = node + 1
    tree.visits[b, node] = 0
    tree.value_sum[b, node] = 0.0
    tree.in_flight[b, node] = 0
    for slot in range(NUM_ACTIONS):
        tree.children[b, node, slot] = UNVISITED
    tree.parent[b, node] = parent
    tree.action_from_parent[b, node] = action
    tree.position[b, node, 0] = player
    tree.position[b, node, 1] = opponent
    moves = legal_moves(player, opponent)
    tree.legal[b, node] = moves
    if moves == ZERO and legal_moves(opponent, player) == ZERO:
        tree.status[b, node] = TERMINAL
        tree.proven[b, node] = True
        tree.exact_value[b, node] = game_result(player, opponent)
    else:
        tree.status[b, node] = PENDING
        tree.proven[b, node] = False
        tree.exact_value[b, node] = 0.0
    return node


@njit(cache=True)
def compact_subtree(tree, b, new_root, max_nodes, new_index):
    """Make `new_root`'s subtree game b's whole tree, renumbered from ROOT, keeping <= max_nodes nodes.

    Nodes keep their creation order, so every node moves to an index no larger than its old one and
    the copy can run in place in one forward pass. When the subtree has more than `max_nodes` nodes
    the oldest are kept: a prefix of creation order always contains each kept node's parent, so the
    result is a tree; links to dropped nodes become UNVISITED (their visits stay counted in their
    ancestors). `new_index` is int32[N] scratch. Returns the number of nodes kept.
    """
    end = tree.next_free[b]
    kept = 0
    for old in range(new_root, end):
        if old == new_root:
            member = True
        else:
            up = tree.parent[b, old]
            member = up >= new_root and new_index[up] != UNVISITED
        if member and kept < max_nodes:
            new_index[old] = kept
            kept += 1
        else:
            new_index[old] = UNVISITED  # dropped: links to it become "never tried"
    for old in range(new_root, end):
        new = new_index[old]
        if new == UNVISITED:
            continue
        tree.visits[b, new] = tree.visits[b, old]
        tree.value_sum[b, new] = tree.value_sum[b, old]
        tree.in_flight[b, new] = 0
        tree.status[b, new] = tree.status[b, old]
        tree.proven[b, new] = tree.proven[b, old]
        tree.exact_value[b, new] = tree.exact_value[b, old]
        tree.position[b, new, 0] = tree.position[b, old, 0]
        tree.position[b, new, 1] = tree.position[b, old, 1]
        tree.legal[b, new] = tree.legal[b, old]
        if old == new_root:
            tree.parent[b, new] = NO_PARENT
            tree.action_from_parent[b, new] = NO_ACTION
        else:
            tree.parent[b, new] = new_index[tree.parent[b, old]]
            tree.action_from_parent[b, new] = tree.action_from_parent[b, old]
        for a in range(NUM_ACTIONS):
            tree.prior[b, new, a] = tree.prior[b, old, a]
            child = tree.children[b, old, a]
            tree.children[b, new, a] = UNVISITED if child == UNVISITED else new_index[child]
    tree.next_free[b] = kept
    return kept


@njit(cache=True)
def prepare_roots(tree, positions, active, max_kept_nodes, new_index, eval_positions, eval_game, eval_node):
    """Make every active game's root the given position, ready for `simulations` more nodes.

    A game whose tree is empty or whose root holds another position starts a fresh tree (the
    caller did not `advance`, or played a move the tree never saw). A reused tree bigger than
    `max_kept_nodes` is trimmed with `compact_subtree`. Roots not yet evaluated are listed in the
    eval_* buffers. Returns how many were listed.
    """
    count = 0
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        player = positions[b, 0]
        opponent = positions[b, 1]
        if (
            tree.next_free[b] == 0
            or tree.position[b, ROOT, 0] != player
            or tree.position[b, ROOT, 1] != opponent
        ):
            tree.next_free[b] = 0
            open_node(tree, b, NO_PARENT, NO_ACTION, player, opponent)
        elif tree.next_free[b] > max_kept_nodes:
            compact_subtree(tree, b, ROOT, max_kept_nodes, new_index)
        if tree.status[b, ROOT] == PENDING:
            eval_positions[count, 0] = player
            eval_positions[count, 1] = opponent
            eval_game[count] = b
            eval_node[count] = ROOT
            count += 1
    return count


@njit(cache=True)
def record_root_values(tree, eval_game, eval_node, values, count):
    """A freshly evaluated root counts its own evaluation as its first visit (as in mctx)."""
    for m in range(count):
        b = eval_game[m]
        node = eval_node[m]
        tree.visits[b, node] = 1
        tree.value_sum[b, node] = values[m]


@njit(cache=True)
def advance_trees(tree, actions, reuse, max_kept_nodes, new_index):
    """Re-root each game whose action is not NO_ACTION at the child that action leads to.

    Without reuse, or when the action has no expanded child (never tried, illegal at the root,
    or the root is a finished game), the game's tree is emptied and its next search starts fresh.
    Returns the first game whose action is outside NO_ACTION..PASS, or -1; in that case no tree
    has been changed.
    """
    num_games = actions.shape[0]
    for b in range(num_games):
        if actions[b] < NO_ACTION or actions[b] > PASS:
            return b
    for b in range(num_games):
        action = actions[b]
        if action == NO_ACTION or tree.next_free[b] == 0:
            continue
        child = UNVISITED
        if reuse and tree.status[b, ROOT] == EXPANDED:
            child = tree.children[b, ROOT, action]
        if child == UNVISITED or tree.status[b, child] == PENDING:
            tree.next_free[b] = 0
        else:
            compact_subtree(tree, b, child, max_kept_nodes, new_index)
    return -1
