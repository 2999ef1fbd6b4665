"""Play many self-play games at once with one batched search, refilling slots as games end.

`concurrent_games` slots each hold one game in progress; every step searches all of them together
(one network batch per search step inside `BatchedSearch`), plays the chosen actions, turns
finished games into GameRecords and starts a new game in each freed slot. A slot whose side to move is forced to pass skips the search: its
only action is PASS and its policy target is one-hot (the replay buffer skips such plies anyway).

Playout cap randomisation (`playout_cap_fraction` p < 1, KataGo): each searched move is, with
probability p (the runner's rng, per slot and move), a full search with root noise whose visit
distribution is the policy target; otherwise a search of `playout_cap_small` simulations without
noise that only picks the move (temperature as usual), recorded with policy_mask False. The two
kinds run as two `search` calls over complementary `active` masks, so each slot's tree (and its
reuse) is that of whichever search it had. With `mcts.root_policy=gumbel` the small searches keep
their Gumbel noise: there it is not exploration added to the priors but the move's sampling (the
sequential-halving winner of Gumbel + logits + sigma(q), which replaces the temperature), and
without it three moves in four would be the same deterministic choice in every game. Being
self-play searches (`add_noise=True`), they also apply `mcts.reuse_root_visit_discount`.

Exact labels after the game (`exact_label_empties` N > 0): when a game ends, every position of it
with at most N empties that the search did not solve gets the win/loss/draw of perfect play as its
value target (the endgame solver's WLD search, the search's own solver and table), in place of the
game's outcome: the positions between the search's solving reach (`mcts.endgame_solve_empties`)
and N are played by the network, so their outcome carries the noise of its mistakes, where the
solver can say what they were worth. Labelling runs after the game, so it changes no move; it costs
the worker the solves (a position is given up after LABEL_NODE_LIMIT nodes and keeps the outcome).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from alphazero.fault_hooks import fault_point
from alphazero.mcts.search import NO_EXACT_SCORE
from alphazero.othello.bitboard import PASS, START_BLACK, START_WHITE, legal_moves_batch, make_move_batch, is_game_over_batch
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord
from alphazero.selfplay.config import MAX_LABEL_EMPTIES
from alphazero.solver.solver import Solver


@dataclass
class _Slot:
    start: GameState
    actions: list = field(default_factory=list)
    policies: list = field(default_factory=list)
    root_values: list = field(default_factory=list)
    exact_values: list = field(default_factory=list)
    policy_mask: list = field(default_factory=list)


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


# A labelling solve gives up after this many nodes (the position keeps the game's outcome): it bounds
# the rare position that would stall a worker's 64 games for seconds. On the cpu preset's games it
# gave up on 27 of 1,200 positions with 17-20 empties, on none of the 600 with 17-18
# (experiments/learning-68/labels).
LABEL_NODE_LIMIT = 2_000_000


class SelfPlayRunner:
    """Generates complete self-play games with a BatchedSearch over `search.num_games` slots.

    The slots persist between calls: `step()` plays one move in every slot and refills each slot
    whose game ended at once, so every search step searches all `num_games` slots (a continuous
    stream of games, with no shrinking batch at the end of a shard). Games still in play when a
    caller stops stepping stay in their slots and continue at the next `step()`.
    """

    def __init__(self, search, rng: np.random.Generator, random_opening_plies: int = 0, metadata: dict | None = None,
                 exact_value_targets: bool = True, playout_cap_fraction: float = 1.0, playout_cap_small: int = 25,
                 exact_label_empties: int = 0):
        self.search = search
        # Record the exact result of the positions the search's endgame solver solved, as their value
        # targets (GameRecord.exact_values).
        self.exact_value_targets = exact_value_targets
        if not 0 < playout_cap_fraction <= 1:
            raise ValueError(f"playout_cap_fraction must be in (0, 1], got {playout_cap_fraction}")
        if playout_cap_fraction < 1 and not 1 <= playout_cap_small <= search.config.simulations:
            raise ValueError(f"selfplay.playout_cap_small must be in 1..mcts.simulations ({search.config.simulations}), "
                             f"got {playout_cap_small}")
        self.playout_cap_fraction = playout_cap_fraction
        self.playout_cap_small = playout_cap_small
        if not 0 <= exact_label_empties <= MAX_LABEL_EMPTIES:
            raise ValueError(f"exact_label_empties must be in 0..{MAX_LABEL_EMPTIES} (0 = off), got {exact_label_empties}")
        if exact_label_empties and not exact_value_targets:
            raise ValueError("exact_label_empties needs exact_value_targets (the labels are exact value targets)")
        self.exact_label_empties = exact_label_empties
        # The search's solver when it has one (its table holds what the game's searches proved).
        self.label_solver = (search.endgame_solver or Solver()) if exact_label_empties else None
        self.labelled_positions = 0  # positions given an exact label after their game (a solve that gave up not counted)
        self.label_seconds = 0.0
        self.rng = rng
        self.random_opening_plies = random_opening_plies
        self.metadata = dict(metadata or {})
        self.num_slots = search.num_games
        self.simulations_run = 0  # simulations searched (SearchResult.simulations, not visits), for throughput figures
        self.games_started = 0
        self._slots: list[_Slot | None] = [None] * self.num_slots
        self._waiting: list[GameRecord] = []  # unfinished games to continue before new ones start
        self._positions = np.zeros((self.num_slots, 2), dtype=np.uint64)
        self._black_to_move = np.zeros(self.num_slots, dtype=bool)
        self._ply = np.zeros(self.num_slots, dtype=np.int64)

    def _new_game(self) -> _Slot:
        if self.random_opening_plies:
            return _Slot(random_opening(self.rng, self.random_opening_plies))
        return _Slot(GameState(int(START_BLACK), int(START_WHITE), True))

    def _start_slot(self, i: int) -> None:
        if self._waiting:
            slot, state = self._continued(self._waiting.pop(0))
        else:
            slot = self._new_game()
            state = slot.start
            self.games_started += 1
        self._slots[i] = slot
        self._positions[i] = state.as_array()
        self._black_to_move[i] = state.black_to_move
        self._ply[i] = 60 - state.empties()  # discs placed so far: the temperature schedule's clock
        self.search.reset(i)

    @staticmethod
    def _continued(record: GameRecord) -> tuple[_Slot, GameState]:
        """A slot holding an unfinished game as far as it went, and the position it reached."""
        slot = _Slot(
            start=record.start,
            actions=[int(a) for a in record.actions],
            policies=list(record.policies),
            root_values=list(record.root_values),
            exact_values=list(record.exact_values) if record.exact_values is not None else [np.nan] * len(record),
            policy_mask=list(record.policy_mask) if record.policy_mask is not None else [True] * len(record),
        )
        return slot, record.states()[-1]

    def games_in_flight(self) -> list[GameRecord]:
        """The games in play, as unfinished records (`black_margin` None, forced passes' root
        values NaN), for a stop that keeps them: `continue_games` plays them on."""
        records = []
        for slot in self._slots:
            if slot is None or not slot.actions:
                continue
            records.append(GameRecord(
                start=slot.start,
                actions=np.array(slot.actions, dtype=np.int16),
                policies=np.array(slot.policies, dtype=np.float16),
                root_values=np.array(slot.root_values, dtype=np.float32),
                black_margin=None,
                metadata=dict(self.metadata),
                exact_values=np.array(slot.exact_values, dtype=np.float32),
                policy_mask=np.array(slot.policy_mask, dtype=np.bool_),
            ))
        return records + list(self._waiting)

    def continue_games(self, records: list[GameRecord]) -> None:
        """Play these unfinished games on (from `games_in_flight`, maybe of another process) in
        the next slots that start a game, before any new game. Their records come out as if
        they had never stopped (the search trees are rebuilt)."""
        for record in records:
            if record.black_margin is not None or record.states()[-1].is_over():
                raise ValueError("continue_games: a finished game cannot be continued")
        self._waiting.extend(records)

    @property
    def games_in_play(self) -> int:
        return sum(slot is not None for slot in self._slots)

    def new_network(self, evaluator=None, network_id=None) -> None:
        """Continue the games in play with another network: its evaluator (None keeps the current
        one, e.g. an inference server that swaps networks itself) and id for the records' metadata.
        The trees, built from the old network's evaluations, are dropped."""
        if evaluator is not None:
            self.search.evaluator = evaluator
        if network_id is not None:
            self.metadata["network_id"] = network_id
        self.search.reset()

    def step(self, refill: bool = True, on_step=None) -> list[GameRecord]:
        """One batched search step over every slot in play; returns the games that ended in it.

        With `refill`, empty slots get a new game first (and a finished game's slot is filled
        again before the next step), so all slots play. `on_step(moves_played)` follows the step.
        """
        fault_point("selfplay")
        if refill:
            for i, slot in enumerate(self._slots):
                if slot is None:
                    self._start_slot(i)
        slots, positions = self._slots, self._positions
        in_play = np.array([s is not None for s in slots])
        if not in_play.any():
            return []
        moves = legal_moves_batch(positions)
        forced_pass = in_play & (moves == 0)
        to_search = in_play & ~forced_pass
        actions = np.full(self.num_slots, PASS, dtype=np.int64)
        full = to_search
        if self.playout_cap_fraction < 1:
            full = to_search & (self.rng.random(self.num_slots) < self.playout_cap_fraction)
        if to_search.any():
            result = self._search_capped(positions, full, to_search & ~full)
            self.simulations_run += int(result.simulations[to_search].sum())
            actions[to_search] = result.action[to_search]
        for i in np.flatnonzero(in_play):
            slot = slots[i]
            if forced_pass[i]:
                policy = np.zeros(65, dtype=np.float32)
                policy[PASS] = 1.0
                slot.policies.append(policy)
                slot.root_values.append(np.nan)
                slot.exact_values.append(np.nan)
                slot.policy_mask.append(True)
            else:
                slot.policies.append(result.policy[i])
                slot.root_values.append(result.root_value[i])
                score = result.exact_score[i]
                slot.exact_values.append(np.nan if score == NO_EXACT_SCORE else np.sign(score))
                slot.policy_mask.append(bool(full[i]))
            slot.actions.append(int(actions[i]))
        self._positions = positions = np.where(in_play[:, None], make_move_batch(positions, actions), positions)
        self._black_to_move = np.where(in_play, ~self._black_to_move, self._black_to_move)
        self._ply += in_play
        self.search.advance(np.where(in_play, actions, PASS))
        if on_step is not None:
            on_step(int(in_play.sum()))
        finished = []
        over = is_game_over_batch(positions) & in_play
        for i in np.flatnonzero(over):
            finished.append(self._finish(slots[i], positions[i], bool(self._black_to_move[i])))
            slots[i] = None
        return finished

    def _search_capped(self, positions: np.ndarray, full: np.ndarray, small: np.ndarray):
        """The full searches (root noise) over `full` and the small ones (no noise,
        `playout_cap_small` simulations) over `small`, merged into one SearchResult. Under a Gumbel
        root the small searches draw Gumbel noise too: it is how that root samples its move."""
        if not small.any():
            return self.search.search(positions, self._ply, active=full, add_noise=True)
        small_noise = self.search.root_rule.noise_samples_the_move
        result = self.search.search(positions, self._ply, active=small, add_noise=small_noise,
                                    simulations=self.playout_cap_small)
        if full.any():
            full_result = self.search.search(positions, self._ply, active=full, add_noise=True)
            for name in ("policy", "visits", "root_value", "action", "reused_visits", "exact_score", "simulations"):
                merged = getattr(result, name)
                merged[full] = getattr(full_result, name)[full]
        return result

    def play(self, num_games: int, on_game=None, on_step=None) -> list[GameRecord]:
        """Play exactly `num_games` complete games from empty slots, then leave the slots empty:
        no game is started beyond `num_games` (so the last steps search fewer slots; the workers
        use `step()` for a continuous stream). `on_game(record)` is called as each game finishes
        and `on_step(moves_played)` after every batched search step (for progress reports)."""
        if self.games_in_play:
            raise ValueError(f"play: {self.games_in_play} games are still in play from step(); play() starts from empty slots")
        finished: list[GameRecord] = []
        started_before = self.games_started
        for i in range(min(self.num_slots, num_games)):
            self._start_slot(i)
        while len(finished) < num_games:
            for record in self.step(refill=False, on_step=on_step):
                finished.append(record)
                if on_game is not None:
                    on_game(record)
            for i, slot in enumerate(self._slots):
                if slot is None and self.games_started - started_before < num_games:
                    self._start_slot(i)
        return finished

    def _finish(self, slot: _Slot, final_position: np.ndarray, black_to_move: bool) -> GameRecord:
        final = GameState.from_player_opponent(int(final_position[0]), int(final_position[1]), black_to_move)
        root_values = np.array(slot.root_values, dtype=np.float32)
        exact_values = np.array(slot.exact_values, dtype=np.float32) if self.exact_value_targets else None
        if exact_values is not None and self.exact_label_empties:
            self._label_exact(slot, exact_values)
        return GameRecord(
            start=slot.start,
            actions=np.array(slot.actions, dtype=np.int16),
            policies=np.array(slot.policies, dtype=np.float16),
            root_values=np.nan_to_num(root_values, nan=0.0),
            black_margin=final.black_margin(),
            metadata=dict(self.metadata),
            exact_values=exact_values,
            policy_mask=None if all(slot.policy_mask) else np.array(slot.policy_mask, dtype=np.bool_),
        )

    def _label_exact(self, slot: _Slot, exact_values: np.ndarray) -> None:
        """Fill `exact_values` (the side to move's +1/0/-1, NaN where unknown) at each of the
        game's positions with at most `exact_label_empties` empties that has none yet, from the last
        position back (each solve leaves in the table what the earlier, deeper ones reuse)."""
        start = time.perf_counter()
        states = [slot.start]
        for action in slot.actions[:-1]:
            states.append(states[-1].play(int(action)))
        for ply in range(len(states) - 1, -1, -1):
            state = states[ply]
            if state.empties() > self.exact_label_empties:
                break  # empties only grow going back
            if np.isnan(exact_values[ply]) and slot.actions[ply] != PASS:  # a forced pass is no training position
                outcome = self.label_solver.outcome(state.player, state.opponent, node_limit=LABEL_NODE_LIMIT)
                if outcome is not None:
                    exact_values[ply] = outcome
                    self.labelled_positions += 1
        self.label_seconds += time.perf_counter() - start
