"""One search step over all games: `select_leaves`, (evaluator call), `expand`, `backup`.

Each kernel loops over the B games inside numba; the only Python work per step is the evaluator
call between them. Buffers passed between the kernels:

  leaf_node: [B, L] int32. The node where selection j of game b stopped: a node opened this step,
    an existing proven node, or (with L > 1) a node opened earlier this step and still pending.
  leaf_slot: [B, L] int32. Row of the evaluator batch holding that leaf's value, `NO_SLOT` for
    proven leaves (finished games, solved subtrees: scored exactly).
  eval_positions: [B * L, 2] uint64, eval_game / eval_node: [B * L] int32. The evaluator batch:
    positions of newly opened non-terminal nodes, and where each one lives in the tree.
"""

import numpy as np
from numba import njit

from alphazero.mcts.selection import forced_root_action, puct_action
from alphazero.mcts.tree import EXPANDED, NO_ACTION, NO_PARENT, ROOT, SOLVED, UNVISITED, open_node
from alphazero.othello.bits import ONE, ZERO, lowest_bit_index, popcount
from alphazero.othello.bitboard import NUM_ACTIONS, PASS, make_move, wipeout_move

NO_SLOT = -1


@njit(cache=True)
def select_leaves(tree, active, num_leaves, c_puct, fpu_reduction, virtual_loss, root_action, forced_k,
                  revisit_above, revisit_upto, revisit_visits, leaf_node, leaf_slot, eval_positions, eval_game,
                  eval_node):
    """Walk down from the root `num_leaves` times in every active game and open the leaves.

    A walk follows `puct_action` through EXPANDED nodes that are not proven (the root is always
    left through a child), except that walk j of game b leaves the root by `root_action[b, j]`
    when that is not NO_ACTION (the Gumbel root's sequential halving, see `gumbel`), and with
    `forced_k` > 0 by `forced_root_action` while a root child is short of its forced playouts
    (KataGo; self-play only). Reaching an action never tried opens its child node (position computed
    here, a finished game scored exactly); reaching a proven node, or a PENDING node, also ends the
    walk, and so does reaching an EXPANDED unproven node other than the root with more than
    `revisit_above` and at most `revisit_upto` empties and `revisit_visits` - 1 visits or more: the
    endgame solver's revisit band (`MCTSConfig.leaf_revisit_empties`; revisit_upto 0: none), whose
    nodes the network evaluated when they were opened and the caller solves now, at their
    `revisit_visits`-th visit, from the batch row the walk queues for them (the caller takes such
    rows out of the batch). A PENDING node an earlier walk of this step sent to the evaluator
    shares that walk's batch row (a collision); one that no walk of this step sent (only an
    interrupted search leaves such a node, and `BatchedSearch` empties those trees) is sent again,
    never given another step's row. Each finished walk marks its path in flight, so the next walk
    of the same game sees the virtual loss. Returns the number of positions written to the
    evaluator batch.
    """
    count = 0
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        for j in range(num_leaves):
            node = ROOT
            opened = False
            while tree.nodes[b, node].status == EXPANDED and (node == ROOT or not (
                    tree.nodes[b, node].proven
                    or due_for_revisit_solve(tree, b, node, revisit_above, revisit_upto, revisit_visits))):
                action = NO_ACTION
                if node == ROOT:
                    if root_action[b, j] != NO_ACTION:
                        action = root_action[b, j]
                    elif forced_k > 0.0:
                        action = forced_root_action(tree, b, ROOT, forced_k)
                if action == NO_ACTION:
                    action = puct_action(tree, b, node, c_puct, fpu_reduction, virtual_loss)
                child = tree.edges[b, node, action].child
                if child == UNVISITED:
                    player, opponent = make_move(tree.nodes[b, node].player, tree.nodes[b, node].opponent, action)
                    child = open_node(tree, b, node, action, player, opponent)
                    tree.edges[b, node, action].child = child
                    opened = True
                node = child
                if opened:
                    break
            leaf_node[b, j] = node
            if tree.nodes[b, node].proven:
                leaf_slot[b, j] = NO_SLOT
            else:
                slot = NO_SLOT if opened else shared_slot(leaf_node, leaf_slot, b, j, node)
                if slot == NO_SLOT:
                    slot = queue_for_evaluation(tree, b, node, eval_positions, eval_game, eval_node, count)
                    count += 1
                leaf_slot[b, j] = slot
            up = node
            while up != NO_PARENT:
                tree.nodes[b, up].in_flight += 1
                up = tree.nodes[b, up].parent
    return count


@njit(cache=True)
def due_for_revisit_solve(tree, b, node, revisit_above, revisit_upto, revisit_visits):
    """True if game b's `node` has more than `revisit_above` and at most `revisit_upto` empty
    squares and at least `revisit_visits` - 1 visits: the walk reaching it is its revisit_visits-th."""
    if revisit_upto == 0 or tree.nodes[b, node].visits < revisit_visits - 1:
        return False
    empties = 64 - popcount(tree.nodes[b, node].player | tree.nodes[b, node].opponent)
    return revisit_above < empties <= revisit_upto


@njit(cache=True)
def shared_slot(leaf_node, leaf_slot, b, j, node):
    """The batch row of an earlier walk of this step (0 .. j - 1 of game b) that ended on `node`,
    or NO_SLOT when none did."""
    for earlier in range(j):
        if leaf_node[b, earlier] == node:
            return leaf_slot[b, earlier]
    return NO_SLOT


@njit(cache=True)
def queue_for_evaluation(tree, b, node, eval_positions, eval_game, eval_node, row):
    """Write game b's `node` into row `row` of the evaluator batch; returns the row."""
    eval_positions[row, 0] = tree.nodes[b, node].player
    eval_positions[row, 1] = tree.nodes[b, node].opponent
    eval_game[row] = b
    eval_node[row] = node
    return row


@njit(cache=True)
def settle_solved_leaves(tree, active, num_leaves, leaf_node, leaf_slot, eval_positions, eval_game, eval_node,
                         count, solved_value):
    """Take the leaves the endgame solver settled out of the evaluator batch.

    solved_value: [count] float32, the exact result (+1/0/-1, side to move's view) of row m's
    position, NaN where it was not solved. Those nodes become SOLVED and proven, leaves without
    children (a revisit-band node solved at a later visit lets go of the subtree it had grown;
    tree compaction drops it as garbage); the remaining rows
    are moved up to fill the batch, and every leaf_slot is renumbered (NO_SLOT for a solved leaf,
    which backup then values exactly). Returns the new batch size.
    """
    new_row = np.empty(count, dtype=np.int32)
    kept = 0
    for m in range(count):
        value = solved_value[m]
        if value != value:  # NaN: not solved, stays in the batch
            new_row[m] = kept
            eval_positions[kept, 0] = eval_positions[m, 0]
            eval_positions[kept, 1] = eval_positions[m, 1]
            eval_game[kept] = eval_game[m]
            eval_node[kept] = eval_node[m]
            kept += 1
        else:
            new_row[m] = NO_SLOT
            record = tree.nodes[eval_game[m], eval_node[m]]
            if record.status == EXPANDED:  # a revisit-band node solved at a later visit drops its subtree
                for action in range(NUM_ACTIONS):
                    tree.edges[eval_game[m], eval_node[m], action].child = UNVISITED
            record.status = SOLVED
            record.proven = True
            record.exact_value = value
    for b in range(tree.next_free.shape[0]):
        if active[b]:
            for j in range(num_leaves):
                if leaf_slot[b, j] != NO_SLOT:
                    leaf_slot[b, j] = new_row[leaf_slot[b, j]]
    return kept


@njit(cache=True)
def expand(tree, eval_game, eval_node, priors, count, solver):
    """Store the evaluator's priors in the nodes it was asked about; they become EXPANDED.

    With `solver`, a non-root node whose side to move can wipe the opponent out in one move is
    proven won (+1) here, before any walk tries that move: the network's prior on such a reply can
    be so small that the walks never would, and the search would then walk into a one-move loss.
    (The root is left unproven: its walks go on, and the root rule's move is replaced by the
    wipe-out, see `root_wipeouts`.)
    """
    for m in range(count):
        b = eval_game[m]
        node = eval_node[m]
        for action in range(NUM_ACTIONS):
            tree.edges[b, node, action].prior = priors[m, action]
        record = tree.nodes[b, node]
        record.status = EXPANDED
        if solver and node != ROOT and wipeout_move(record.player, record.opponent, record.legal) >= 0:
            record.proven = True
            record.exact_value = 1.0


@njit(cache=True)
def root_wipeouts(tree, active, action, root_value):
    """Where an active game's side to move can wipe the opponent out, play that move and value
    the root +1 (the lowest such square); other games are left as they are."""
    for b in range(tree.next_free.shape[0]):
        if active[b] and tree.next_free[b] > 0:
            root = tree.nodes[b, ROOT]
            square = wipeout_move(root.player, root.opponent, root.legal)
            if square >= 0:
                action[b] = square
                root_value[b] = 1.0


@njit(cache=True)
def try_prove(tree, b, node):
    """Settle an EXPANDED node's exact result from its children's, if they suffice (MCTS-Solver).

    The side to move wins if some action leads to a child proven lost for its mover; otherwise
    the result is known only when every action's child is proven, and is the best of them.
    Returns True if the node is proven now.
    """
    here = tree.nodes[b, node]
    if here.status != EXPANDED:
        return False
    moves = here.legal
    all_proven = True
    best = -2.0
    action = PASS
    while True:
        if moves != ZERO:
            action = lowest_bit_index(moves)
            moves &= moves - ONE
        child = tree.edges[b, node, action].child
        if child == UNVISITED or not tree.nodes[b, child].proven:
            all_proven = False
        else:
            value = -tree.nodes[b, child].exact_value
            if value >= 1.0:
                here.proven = True
                here.exact_value = value
                return True
            best = max(best, value)
        if moves == ZERO:
            break
    if all_proven:
        here.proven = True
        here.exact_value = best
    return all_proven


@njit(cache=True)
def backup(tree, active, num_leaves, leaf_node, leaf_slot, values, solver):
    """Add each leaf's value to every node on its path, negating at each step up, and clear in-flight.

    The value of a proven leaf (finished game, solved subtree, or a node `expand` proved on the
    spot) is its exact result; any other leaf takes its evaluator value. Both are from the leaf's side to move; its parent's side to
    move is the other player. With `solver`, a proven leaf's parent may become proven in turn, and
    so on up the path while proofs keep appearing (`try_prove`).
    """
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        for j in range(num_leaves):
            node = leaf_node[b, j]
            slot = leaf_slot[b, j]
            if slot != NO_SLOT:
                if slot >= values.shape[0]:  # numba checks no bounds: never read past the batch
                    raise IndexError("backup: a leaf's evaluator row is past the end of the values")
                tree.nodes[b, node].raw_value = values[slot]
            if tree.nodes[b, node].proven:
                value = np.float64(tree.nodes[b, node].exact_value)
            else:
                value = np.float64(values[slot])
            proving = solver and tree.nodes[b, node].proven
            while node != NO_PARENT:
                record = tree.nodes[b, node]
                record.visits += 1
                record.value_sum += value
                record.in_flight -= 1
                value = -value
                node = record.parent
                if proving:
                    proving = node != NO_PARENT and not tree.nodes[b, node].proven and try_prove(tree, b, node)
