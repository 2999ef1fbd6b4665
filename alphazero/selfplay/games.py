"""Play many self-play games at once with one batched search, refilling slots as games end.

`concurrent_games` slots each hold one game in progress; every step searches all of them together
(one network batch per search step inside `BatchedSearch`), plays the chosen actions, and turns
finished games into GameRecords. A slot whose side to move is forced to pass skips the search: its
only action is PASS and its policy target is one-hot (the replay buffer skips such plies anyway).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from alphazero.faults.hooks import fault_point
from alphazero.mcts.search import NO_EXACT_SCORE
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, legal_moves_batch, make_move_batch, is_game_over_batch
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord


@dataclass
class _Slot:
    start: GameState
    actions: list = field(default_factory=list)
    policies: list = field(default_factory=list)
    root_values: list = field(default_factory=list)
    exact_values: list = field(default_factory=list)


def random_opening(rng: np.random.Generator, plies: int) -> GameState:
    """A position `plies` uniformly random moves from the start that is not yet game over."""
    while True:
        state = GameState.start()
        for _ in range(plies):
            if state.is_over():
                break
            legal = state.legal_actions()
            state = state.play(int(legal[rng.integers(len(legal))]))
        if not state.is_over():
            return state


class SelfPlayRunner:
    """Generates complete self-play games with a BatchedSearch over `search.num_games` slots."""

    def __init__(self, search, rng: np.random.Generator, random_opening_plies: int = 0, metadata: dict | None = None,
                 exact_value_targets: bool = True):
        self.search = search
        # Record the exact result of the positions the search's endgame solver solved, as their value
        # targets (GameRecord.exact_values).
        self.exact_value_targets = exact_value_targets
        self.rng = rng
        self.random_opening_plies = random_opening_plies
        self.metadata = dict(metadata or {})
        self.num_slots = search.num_games
        self.simulations_run = 0  # searched plies x simulations, for throughput figures

    def _new_game(self) -> _Slot:
        if self.random_opening_plies:
            return _Slot(random_opening(self.rng, self.random_opening_plies))
        return _Slot(GameState(int(START_BLACK), int(START_WHITE), True))

    def play(self, num_games: int, on_game=None, on_step=None) -> list[GameRecord]:
        """Play `num_games` complete games; `on_game(record)` is called as each one finishes and
        `on_step(moves_played)` after every batched search step (for progress reports)."""
        slots: list[_Slot | None] = [None] * self.num_slots
        positions = np.zeros((self.num_slots, 2), dtype=np.uint64)
        black_to_move = np.zeros(self.num_slots, dtype=bool)
        ply = np.zeros(self.num_slots, dtype=np.int64)
        started = 0
        finished: list[GameRecord] = []

        def start_slot(i: int) -> None:
            nonlocal started
            slot = self._new_game()
            slots[i] = slot
            positions[i] = slot.start.as_array()
            black_to_move[i] = slot.start.black_to_move
            ply[i] = 60 - slot.start.empties()  # discs placed so far: the temperature schedule's clock
            self.search.reset(i)
            started += 1

        for i in range(min(self.num_slots, num_games)):
            start_slot(i)

        while len(finished) < num_games:
            fault_point("selfplay")
            in_play = np.array([s is not None for s in slots])
            moves = legal_moves_batch(positions)
            forced_pass = in_play & (moves == 0)
            to_search = in_play & ~forced_pass
            actions = np.full(self.num_slots, PASS, dtype=np.int64)
            if to_search.any():
                result = self.search.search(positions, ply, active=to_search, add_noise=True)
                self.simulations_run += int(result.visits[to_search].sum())
                actions[to_search] = result.action[to_search]
            for i in np.flatnonzero(in_play):
                slot = slots[i]
                if forced_pass[i]:
                    policy = np.zeros(65, dtype=np.float32)
                    policy[PASS] = 1.0
                    slot.policies.append(policy)
                    slot.root_values.append(np.nan)
                    slot.exact_values.append(np.nan)
                else:
                    slot.policies.append(result.policy[i])
                    slot.root_values.append(result.root_value[i])
                    score = result.exact_score[i]
                    slot.exact_values.append(np.nan if score == NO_EXACT_SCORE else np.sign(score))
                slot.actions.append(int(actions[i]))
            positions = np.where(in_play[:, None], make_move_batch(positions, actions), positions)
            black_to_move = np.where(in_play, ~black_to_move, black_to_move)
            ply += in_play
            self.search.advance(np.where(in_play, actions, PASS))
            if on_step is not None:
                on_step(int(in_play.sum()))

            over = is_game_over_batch(positions) & in_play
            for i in np.flatnonzero(over):
                record = self._finish(slots[i], positions[i], bool(black_to_move[i]))
                finished.append(record)
                if on_game is not None:
                    on_game(record)
                slots[i] = None
                if started < num_games:
                    start_slot(i)
        return finished

    def _finish(self, slot: _Slot, final_position: np.ndarray, black_to_move: bool) -> GameRecord:
        final = GameState.from_player_opponent(int(final_position[0]), int(final_position[1]), black_to_move)
        root_values = np.array(slot.root_values, dtype=np.float32)
        return GameRecord(
            start=slot.start,
            actions=np.array(slot.actions, dtype=np.int16),
            policies=np.array(slot.policies, dtype=np.float16),
            root_values=np.nan_to_num(root_values, nan=0.0),
            black_margin=final.black_margin(),
            metadata=dict(self.metadata),
            exact_values=np.array(slot.exact_values, dtype=np.float32) if self.exact_value_targets else None,
        )
