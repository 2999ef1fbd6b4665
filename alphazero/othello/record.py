"""GameRecord: one finished (or abandoned) game, the unit that flows from self-play and from the
expert-game readers into the replay buffer, the exporters and the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState


@dataclass
class GameRecord:
    """A game as a start position plus actions.

    start:        GameState the game began from (usually the standard start).
    actions:      int16[T], actions 0..64 (64 = pass, passes always explicit), T plies.
    policies:     float16[T, 65] search visit distributions per ply, or None (expert games).
    root_values:  float32[T] search value of each root from the side to move's view, or None.
    black_margin: black's final disc difference, empties to the winner (None if not finished).
    metadata:     free-form strings/numbers: network id, simulations, seed, source file, ...
    exact_values: float32[T] game-theoretic result (+1/0/-1, side to move's view) of each ply's
                  position where the endgame solver solved it, NaN elsewhere; or None. Replaces
                  the game's outcome as that position's value target in the replay shard (a
                  record read back from a shard has the same array, or None where it had None).
    policy_mask:  bool[T], False at plies whose policy is not a training target (playout cap
                  randomisation's small searches: the position still gets a value target), or
                  None: every ply has a policy target.
    """

    start: GameState
    actions: np.ndarray
    policies: np.ndarray | None = None
    root_values: np.ndarray | None = None
    black_margin: int | None = None
    metadata: dict = field(default_factory=dict)
    exact_values: np.ndarray | None = None
    policy_mask: np.ndarray | None = None

    def __post_init__(self):
        self.actions = np.asarray(self.actions, dtype=np.int16)
        if self.policies is not None:
            self.policies = np.asarray(self.policies, dtype=np.float16)
            if self.policies.shape != (len(self.actions), 65):
                raise ValueError(f"policies shape {self.policies.shape} does not match {len(self.actions)} actions x 65")
        if self.root_values is not None:
            self.root_values = np.asarray(self.root_values, dtype=np.float32)
            if self.root_values.shape != (len(self.actions),):
                raise ValueError(f"root_values shape {self.root_values.shape} does not match {len(self.actions)} actions")
        if self.exact_values is not None:
            self.exact_values = np.asarray(self.exact_values, dtype=np.float32)
            if self.exact_values.shape != (len(self.actions),):
                raise ValueError(f"exact_values shape {self.exact_values.shape} does not match {len(self.actions)} actions")
            known = self.exact_values[~np.isnan(self.exact_values)]
            if not np.isin(known, (-1.0, 0.0, 1.0)).all():
                raise ValueError("exact_values must be +1, 0, -1 or NaN")
        if self.policy_mask is not None:
            self.policy_mask = np.asarray(self.policy_mask, dtype=np.bool_)
            if self.policy_mask.shape != (len(self.actions),):
                raise ValueError(f"policy_mask shape {self.policy_mask.shape} does not match {len(self.actions)} actions")

    def __len__(self) -> int:
        return len(self.actions)

    def states(self) -> list[GameState]:
        """The T + 1 states from start to end (validates every action; raises IllegalMoveError)."""
        states = [self.start]
        for action in self.actions:
            states.append(states[-1].play(int(action)))
        return states

    def final_state(self) -> GameState:
        return self.states()[-1]

    def outcome_for_black(self) -> float:
        """+1 / 0 / -1 from black's view; raises if the game has no result."""
        if self.black_margin is None:
            raise ValueError("game has no final result")
        return float(np.sign(self.black_margin))

    def num_passes(self) -> int:
        return int(np.count_nonzero(self.actions == PASS))
