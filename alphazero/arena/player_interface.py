"""What every player is: the `Player` base class the arena calls, and `GameInProgress`, the game as
the arena hands it over. Its own module so that players defined outside `players.py` (the history
policy player) build on it without importing `players.py`, which builds them in turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from alphazero.othello.game import GameState
from alphazero.othello.notation import format_board_text


@dataclass(frozen=True)
class GameInProgress:
    """A game as the arena knows it: its start, the actions so far (passes explicit) and the
    position they lead to (kept so that players need not replay the actions)."""

    start: GameState
    actions: tuple[int, ...]
    state: GameState


class Player:
    """Base class. Subclasses implement `select_moves`; `name` labels the player in results.

    `identity` is what the name does not say and the games depend on: for a network player, a
    digest of its checkpoint file ('' where the name says it all). Game logs and ladder results
    keep it beside the name, so a resume never takes games that another network played under the
    same name (`runs/X/checkpoints/best.pt` after training moved on, two `x.pt` in two folders)."""

    name: str = "player"
    identity: str = ""

    def select_moves(self, states: Sequence[GameState]) -> list[int]:
        """A legal action for each state (PASS when forced). States must not be finished games."""
        raise NotImplementedError

    def select_moves_in_games(self, games: Sequence[GameInProgress]) -> list[int]:
        """The arena's entry point: like `select_moves`, with each game's history available."""
        return self.select_moves([game.state for game in games])

    def select_move(self, state: GameState) -> int:
        return self.select_moves([state])[0]

    def new_game(self) -> None:
        """Fresh games begin (a match starts): forget anything kept about earlier games."""

    def close(self) -> None:
        """Release processes, threads or devices; the player is not used afterwards."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _require_playable(player: Player, states: Sequence[GameState]) -> None:
    for index, state in enumerate(states):
        if state.is_over():
            raise ValueError(
                f"{player.name} was asked to move in finished game position {index}: {format_board_text(state)}"
            )
