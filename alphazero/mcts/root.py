"""The root rule: how a search treats its root, as one interface, and the kernels every rule shares.

`search.BatchedSearch` runs the same tree code whatever the root does; the root's own choices come
from a `RootRule` (as mctx passes its root action selection into one `search`), in three calls:

  prepare(tree, active, add_noise, simulations)   once the roots are evaluated, before the first
                                                  walk: root noise, Gumbel sampling, scratch state
  walks(tree, active, num_leaves, done)           before each step: how that step's walks leave the
                                                  root (`RootWalks`)
  finish(tree, active, visits, ply, add_noise)    after the last step: the policy target and the
                                                  move to play

Two rules implement it: `puct_root.PuctRoot` (AlphaZero's: Dirichlet noise, KataGo's forced
playouts, the visit shares as target, the move by temperature) and `gumbel.GumbelRoot` (Gumbel
noise and sequential halving, the improved policy as target). Interior nodes follow
`selection.puct_action` under either.

The kernels here serve every rule and the search itself: the root children's visits and values,
the solver's preference between root actions, and the visit-proportional move draw.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np
from numba import njit

from alphazero.mcts.rng import next_uniform
from alphazero.mcts.tree import NO_ACTION, ROOT, UNVISITED, Tree
from alphazero.othello.bitboard import NUM_ACTIONS, PASS


class RootWalks(NamedTuple):
    """How the walks of one search step leave the root (read by `kernels.select_leaves`).

    Attributes:
      root_action: [B, L] int32. Walk j of game b leaves the root by this action, or by the walk's
        own choice where it is `NO_ACTION` (forced playouts if `forced_k` > 0, else PUCT).
      forced_k: float. KataGo's forced-playout constant k for the walks' own choice at the root
        (see `selection.forced_root_action`); 0 for none.
    """

    root_action: np.ndarray
    forced_k: float


class RootRule(Protocol):
    """A root rule; one instance serves one `BatchedSearch` (its B games) for the search's lifetime.

    A rule may keep per-game state between `prepare` and `finish` of one search call (noise, the
    considered actions, saved priors); the search calls the three methods in order, once per
    call (`walks` once per step), on the same `active` games. A call that raises leaves no
    obligation: the search empties the active games' trees and restores their random streams.
    """

    noise_samples_the_move: bool
    """Whether `add_noise` is how the rule samples its move (Gumbel), rather than exploration
    mixed into the priors (PUCT: its moves are sampled by temperature with or without noise).
    Self-play's small searches keep the noise under such a rule (selfplay.games)."""

    def prepare(self, tree: Tree, active: np.ndarray, add_noise: bool, simulations: int) -> None:
        """Get the evaluated roots of the active games ready for `simulations` walks."""

    def walks(self, tree: Tree, active: np.ndarray, num_leaves: int, done: int) -> RootWalks:
        """How the next step's `num_leaves` walks leave the root, `done` walks into the search."""

    def finish(self, tree: Tree, active: np.ndarray, visits: np.ndarray, ply: np.ndarray,
               add_noise: bool) -> tuple[np.ndarray, np.ndarray]:
        """The policy target [B, 65] float32 and the move to play [B] int64 (NO_ACTION for inactive
        games), from the searched tree and its root children's visits [B, 65] int32; puts the
        root back as the tree should keep it (clean priors)."""


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
def proof_rank(tree, b, action, solver):
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
def root_values(tree, active, root_value):
    """root_value [B] float32: each active root's value from its side to move, its exact result when
    the solver proved it, else its mean value (0 for inactive games)."""
    root_value[:] = 0.0
    for b in range(tree.next_free.shape[0]):
        if not active[b]:
            continue
        root = tree.nodes[b, ROOT]
        if root.proven:
            root_value[b] = root.exact_value
        else:
            root_value[b] = root.value_sum / root.visits


@njit(cache=True)
def sample_moves_by_visits(visits, ply, active, sample_plies, temperature, rng_states, actions):
    """actions [B]: for each active game with ply < sample_plies, a move drawn with probability
    proportional to visits ** (1 / temperature), from the game's own stream (the draw of
    `choose_actions`); the other games keep the move they have."""
    for b in range(visits.shape[0]):
        if not active[b] or ply[b] >= sample_plies:
            continue
        drawn = draw_by_visits(visits, b, temperature, rng_states)
        if drawn != NO_ACTION:
            actions[b] = drawn


@njit(cache=True)
def draw_by_visits(visits, b, temperature, rng_states):
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
