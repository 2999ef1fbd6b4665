"""Helpers for the MCTS tests: deterministic evaluators, an exact endgame solver, position makers,
tree invariant checks. Imported by the test modules beside it (not a test module itself)."""

from __future__ import annotations

import random

import numpy as np

from alphazero.mcts.tree import EXPANDED, NO_PARENT, ROOT, TERMINAL, UNVISITED
from alphazero.othello.bitboard import PASS, game_result, legal_action_mask_batch, legal_moves, make_move, squares_of
from alphazero.othello.game import GameState

_MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, vectorised: a good 64-bit hash of each element."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class HashEvaluator:
    """Pseudo-random but deterministic priors and values: a function of the position alone.

    Unlike the uniform evaluator it breaks the symmetries that make many PUCT scores tie, so the
    comparisons against the reference search exercise real choices; and it answers a position the
    same way in any batch, as the batch-equals-sequential guarantee requires.
    """

    def __init__(self, salt: int = 0):
        self.salt = np.uint64(salt)

    def __call__(self, positions):
        positions = np.ascontiguousarray(positions, dtype=np.uint64).reshape(-1, 2)
        with np.errstate(over="ignore"):
            key = _mix(positions[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ _mix(positions[:, 1] + self.salt))
            per_action = _mix(key[:, None] + np.arange(66, dtype=np.uint64)[None, :] * np.uint64(0xD1B54A32D192ED03))
        uniform = (per_action >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        legal = legal_action_mask_batch(positions)
        weights = np.where(legal, 0.05 + uniform[:, :65], 0.0)
        priors = (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
        values = (1.8 * uniform[:, 65] - 0.9).astype(np.float32)
        return priors, values


class RecordingEvaluator:
    """Wraps an evaluator and keeps every batch of positions it was asked about."""

    def __init__(self, evaluator, on_call=None):
        self.evaluator = evaluator
        self.batches = []
        self.on_call = on_call

    def __call__(self, positions):
        self.batches.append(np.array(positions, copy=True))
        if self.on_call is not None:
            self.on_call(positions)
        return self.evaluator(positions)

    @property
    def positions(self) -> np.ndarray:
        return np.concatenate(self.batches) if self.batches else np.zeros((0, 2), dtype=np.uint64)


def actions_of(player: int, opponent: int) -> list[int]:
    squares = squares_of(legal_moves(np.uint64(player), np.uint64(opponent)))
    return squares if squares else [PASS]


def solve(player: int, opponent: int, alpha: int = -1, beta: int = 1) -> int:
    """Exact game-theoretic result (+1 win, 0 draw, -1 loss) for the side to move.

    Plain negamax over every line to the end, with alpha-beta cut-offs on the three-valued result
    (cut-offs change which lines are read, never the value).
    """
    p, o = np.uint64(player), np.uint64(opponent)
    moves = legal_moves(p, o)
    if moves == 0:
        if legal_moves(o, p) == 0:
            return int(game_result(p, o))
        return -solve(opponent, player, -beta, -alpha)
    best = -2
    for square in squares_of(moves):
        next_p, next_o = make_move(p, o, square)
        value = -solve(int(next_p), int(next_o), -beta, -alpha)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def action_values(player: int, opponent: int) -> dict[int, int]:
    """Exact result of each legal action, for the side to move."""
    out = {}
    for action in actions_of(player, opponent):
        next_p, next_o = make_move(np.uint64(player), np.uint64(opponent), action)
        out[action] = -solve(int(next_p), int(next_o))
    return out


def random_position(rng: random.Random, plies: int) -> GameState | None:
    """The position after `plies` uniformly random actions from the start (None if the game ended)."""
    state = GameState.start()
    for _ in range(plies):
        actions = state.legal_actions()
        if not actions:
            return None
        state = state.play(rng.choice(actions))
    return None if state.is_over() else state


def random_endgame(rng: random.Random, empties: int) -> GameState | None:
    """A random game's position with exactly `empties` empty squares, side to move not over."""
    state = GameState.start()
    while True:
        if state.is_over():
            return None
        black, white = state.disc_counts()
        if 64 - black - white == empties:
            return state
        state = state.play(rng.choice(state.legal_actions()))


def tree_problems(tree, b: int, exact_visits: bool) -> list[str]:
    """Structural checks of game b's tree; returns a description of each violation.

    exact_visits: an expanded node's visits equal 1 + its children's visits (true for one leaf per
    step and no trimming); otherwise they may only be larger.
    """
    problems = []
    used = int(tree.next_free[b])
    nodes, children = tree.nodes[b], tree.edges["child"][b]
    if used > tree.capacity:
        problems.append(f"next_free {used} exceeds capacity {tree.capacity}")
    for node in range(used):
        parent = int(nodes["parent"][node])
        if node == ROOT:
            if parent != NO_PARENT:
                problems.append(f"root has parent {parent}")
        elif not 0 <= parent < node:
            problems.append(f"node {node} has parent {parent}")
        elif children[parent, nodes["action_from_parent"][node]] != node:
            problems.append(f"node {node} is not its parent's child")
        if nodes["in_flight"][node] != 0:
            problems.append(f"node {node} has in_flight {nodes['in_flight'][node]}")
        child_visits = 0
        for action in range(65):
            child = int(children[node, action])
            if child == UNVISITED:
                continue
            child_visits += int(nodes["visits"][child])
            if not node < child < used or nodes["parent"][child] != node:
                problems.append(f"node {node} action {action} links to bad child {child}")
            expected = make_move(nodes["player"][node], nodes["opponent"][node], action)
            if (nodes["player"][child], nodes["opponent"][child]) != expected:
                problems.append(f"node {node} action {action}: child position differs from the move's")
        status = nodes["status"][node]
        if status == EXPANDED:
            own = int(nodes["visits"][node]) - child_visits
            if own < 1 or (exact_visits and own != 1):
                problems.append(f"node {node}: visits {nodes['visits'][node]} vs children {child_visits}")
        elif status == TERMINAL and child_visits:
            problems.append(f"terminal node {node} has children")
    return problems
