"""A slow, obvious pure-Python MCTS with the same rules as alphazero.mcts, to test the kernels against.

Nodes are objects with dicts of children; one game at a time; every rule written out once in the
plainest form: PUCT with first-play urgency and virtual loss (proven losses only as a last resort), leaves per step with collisions
sharing an evaluation, exact results at finished games, MCTS-Solver proofs (a node with a
wipe-out move proven won when evaluated, a root's wipe-out played), tree reuse. No root
noise and no temperature sampling (those draw from the kernels' random streams).
"""

from __future__ import annotations

import math

import numpy as np

from alphazero.othello.bitboard import PASS, game_result, legal_moves, make_move, squares_of


class Node:
    def __init__(self, player: int, opponent: int):
        self.player = player
        self.opponent = opponent
        self.actions = squares_of(legal_moves(np.uint64(player), np.uint64(opponent))) or [PASS]
        self.terminal = (
            legal_moves(np.uint64(player), np.uint64(opponent)) == 0
            and legal_moves(np.uint64(opponent), np.uint64(player)) == 0
        )
        self.proven = self.terminal
        self.exact = float(game_result(np.uint64(player), np.uint64(opponent))) if self.terminal else 0.0
        self.parent: Node | None = None
        self.children: dict[int, Node] = {}
        self.prior: list[float] | None = None  # set when evaluated
        self.visits = 0
        self.value_sum = 0.0
        self.in_flight = 0

    @property
    def expanded(self) -> bool:
        return self.prior is not None and not self.terminal

    def child_for(self, action: int) -> "Node":
        p, o = make_move(np.uint64(self.player), np.uint64(self.opponent), action)
        child = Node(int(p), int(o))
        child.parent = self
        self.children[action] = child
        return child


def _wipeout(node: Node) -> int | None:
    """The lowest square whose move leaves the opponent without a disc, or None."""
    for action in node.actions:
        if action != PASS:
            after, _ = make_move(np.uint64(node.player), np.uint64(node.opponent), action)
            if after == 0:
                return action
    return None


class ReferenceSearch:
    def __init__(self, config, evaluator):
        self.cfg = config
        self.evaluator = evaluator
        self.root: Node | None = None

    def _evaluate(self, nodes):
        positions = np.array([[n.player, n.opponent] for n in nodes], dtype=np.uint64)
        priors, values = self.evaluator(positions)
        for node, prior in zip(nodes, priors):
            node.prior = [float(x) for x in np.asarray(prior, dtype=np.float32)]
            if self.cfg.solver and node is not self.root and _wipeout(node) is not None:
                node.proven, node.exact = True, 1.0
        return [float(v) for v in np.asarray(values, dtype=np.float32)]

    def _puct(self, node: Node) -> int:
        cfg = self.cfg
        if node.actions == [PASS]:
            return PASS
        sqrt_parent = math.sqrt(float(node.visits + node.in_flight))
        first_play = node.value_sum / node.visits - cfg.fpu_reduction
        best, best_action = -math.inf, PASS
        lost, lost_action = -math.inf, PASS  # children proven won for the opponent: a last resort
        for action in node.actions:
            child = node.children.get(action)
            if child is None:
                n, q = 0, first_play
            else:
                n = child.visits + child.in_flight
                if child.proven:
                    q = -child.exact
                elif n == 0:
                    q = first_play
                else:
                    q = (-child.value_sum - cfg.virtual_loss * child.in_flight) / n
            score = q + cfg.c_puct * node.prior[action] * sqrt_parent / (1 + n)
            if child is not None and child.proven and q <= -1.0:
                if score > lost:
                    lost, lost_action = score, action
            elif score > best:
                best, best_action = score, action
        return best_action if best > -math.inf else lost_action

    @staticmethod
    def _try_prove(node: Node) -> bool:
        if not node.expanded:
            return False
        results = []
        for action in node.actions:
            child = node.children.get(action)
            if child is not None and child.proven:
                if -child.exact >= 1.0:
                    node.proven, node.exact = True, 1.0
                    return True
                results.append(-child.exact)
        if len(results) == len(node.actions):
            node.proven, node.exact = True, max(results)
            return True
        return False

    def search(self, player: int, opponent: int):
        cfg = self.cfg
        if self.root is None or (self.root.player, self.root.opponent) != (player, opponent):
            self.root = Node(player, opponent)
        root = self.root
        if root.prior is None:
            (value,) = self._evaluate([root])
            root.visits, root.value_sum = 1, value
        reused = sum(child.visits for child in root.children.values())
        remaining = cfg.simulations
        while remaining:
            count = min(cfg.leaves_per_step, remaining)
            remaining -= count
            leaves, batch = [], []
            for _ in range(count):
                node, opened = root, False
                while node.expanded and (node is root or not node.proven):
                    action = self._puct(node)
                    child = node.children.get(action)
                    if child is None:
                        child, opened = node.child_for(action), True
                    node = child
                    if opened:
                        break
                if node.proven:
                    slot = None
                elif opened:
                    slot = len(batch)
                    batch.append(node)
                else:
                    slot = next(s for n, s in leaves if n is node)
                leaves.append((node, slot))
                up = node
                while up is not None:
                    up.in_flight += 1
                    up = up.parent
            values = self._evaluate(batch) if batch else []
            for node, slot in leaves:
                value = node.exact if node.proven else values[slot]
                proving = cfg.solver and node.proven
                while node is not None:
                    node.visits += 1
                    node.value_sum += value
                    node.in_flight -= 1
                    value = -value
                    node = node.parent
                    if proving:
                        proving = node is not None and not node.proven and self._try_prove(node)
        visits = np.zeros(65, dtype=np.int32)
        for action, child in root.children.items():
            visits[action] = child.visits
        root_value = root.exact if root.proven else root.value_sum / root.visits
        action = self._choose(visits)
        if cfg.solver and _wipeout(root) is not None:
            action, root_value = _wipeout(root), 1.0
        return visits, np.float32(root_value), action, reused

    def _choose(self, visits) -> int:
        def rank(action):
            child = self.root.children.get(action)
            if not self.cfg.solver or child is None or not child.proven:
                return 1
            return 2 if child.exact < 0 else 0 if child.exact > 0 else 1

        tried = [a for a in range(65) if visits[a] > 0]
        return max(tried, key=lambda a: (rank(a), visits[a], -a))

    def advance(self, action: int) -> None:
        child = self.root.children.get(action) if self.root is not None else None
        if not self.cfg.tree_reuse or child is None or child.prior is None and not child.terminal:
            self.root = None
        else:
            child.parent = None
            self.root = child
