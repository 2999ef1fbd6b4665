"""A position in colour terms, for code outside the hot path (notation, readers, GTP, play).

The kernels think in (player, opponent); people and file formats think in black and white.
`GameState` is the bridge: immutable, hashable, with the rules as methods that call the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.othello import bitboard as bb
from alphazero.othello.squares import action_name

BLACK = 0
WHITE = 1


class IllegalMoveError(ValueError):
    """An action that the rules do not allow in the given position."""


@dataclass(frozen=True)
class GameState:
    black: int
    white: int
    black_to_move: bool = True

    @classmethod
    def start(cls) -> "GameState":
        return cls(int(bb.START_BLACK), int(bb.START_WHITE), True)

    @classmethod
    def from_player_opponent(cls, player: int, opponent: int, black_to_move: bool) -> "GameState":
        if black_to_move:
            return cls(int(player), int(opponent), True)
        return cls(int(opponent), int(player), False)

    def __post_init__(self):
        if self.black & self.white:
            raise ValueError(f"black and white discs overlap on squares {bb.squares_of(self.black & self.white)}")
        for name, bits in (("black", self.black), ("white", self.white)):
            if not 0 <= bits < 1 << 64:
                raise ValueError(f"{name} bitboard {bits:#x} is not a 64-bit value")

    @property
    def player(self) -> int:
        return self.black if self.black_to_move else self.white

    @property
    def opponent(self) -> int:
        return self.white if self.black_to_move else self.black

    @property
    def color_to_move(self) -> int:
        return BLACK if self.black_to_move else WHITE

    def as_array(self) -> np.ndarray:
        """uint64[2] (player, opponent), the kernels' form."""
        return np.array([self.player, self.opponent], dtype=np.uint64)

    def legal_moves_bits(self) -> int:
        return int(bb.legal_moves(np.uint64(self.player), np.uint64(self.opponent)))

    def legal_actions(self) -> list[int]:
        """Legal actions, ascending; [PASS] when the side to move has no move but the game goes on,
        [] when the game is over."""
        squares = bb.squares_of(self.legal_moves_bits())
        if squares:
            return squares
        if self.is_over():
            return []
        return [bb.PASS]

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def must_pass(self) -> bool:
        return self.legal_actions() == [bb.PASS]

    def is_over(self) -> bool:
        return bool(bb.is_game_over(np.uint64(self.player), np.uint64(self.opponent)))

    def play(self, action: int) -> "GameState":
        """The state after `action`; raises IllegalMoveError naming the move if it is not legal."""
        if not self.is_legal(action):
            legal = " ".join(action_name(a) for a in self.legal_actions()) or "none (game over)"
            side = "black" if self.black_to_move else "white"
            raise IllegalMoveError(f"{action_name(action) if 0 <= action <= 64 else action} is not legal for {side}; legal: {legal}")
        player, opponent = bb.make_move(np.uint64(self.player), np.uint64(self.opponent), action)
        return GameState.from_player_opponent(int(player), int(opponent), not self.black_to_move)

    def flipped_by(self, action: int) -> int:
        if action == bb.PASS:
            return 0
        return int(bb.flips(np.uint64(self.player), np.uint64(self.opponent), action))

    def disc_counts(self) -> tuple[int, int]:
        return bin(self.black).count("1"), bin(self.white).count("1")

    def empties(self) -> int:
        return 64 - sum(self.disc_counts())

    def black_margin(self) -> int:
        """Black's final disc difference with empties going to the winner (WTHOR/GGS rule)."""
        margin = int(bb.final_margin(np.uint64(self.player), np.uint64(self.opponent)))
        return margin if self.black_to_move else -margin

    def black_final_discs(self) -> int:
        """Black's disc count as WTHOR records it: (64 + margin) / 2 when the board fills or empties go to the winner."""
        return (64 + self.black_margin()) // 2

    def square(self, index: int) -> int:
        """BLACK, WHITE or -1 (empty) on square `index`."""
        bit = 1 << index
        if self.black & bit:
            return BLACK
        if self.white & bit:
            return WHITE
        return -1
