"""Random legal games as GameRecords with search-like policies, for the replay tests."""

import numpy as np

from alphazero.othello.bitboard import PASS
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord


def random_record(rng: np.random.Generator, start: GameState | None = None, game_id: int = 0, with_root_values: bool = True) -> GameRecord:
    """Uniformly random play to the end; policies are Dirichlet over the legal moves, one-hot PASS
    at forced passes, like self-play's."""
    start = GameState.start() if start is None else start
    state = start
    actions, policies = [], []
    while not state.is_over():
        legal = state.legal_actions()
        policy = np.zeros(65, dtype=np.float32)
        if legal == [PASS]:
            policy[PASS] = 1.0
        else:
            policy[legal] = rng.dirichlet(np.ones(len(legal)))
        action = legal[rng.integers(len(legal))]
        actions.append(action)
        policies.append(policy)
        state = state.play(action)
    root_values = rng.uniform(-1, 1, len(actions)).astype(np.float32) if with_root_values else None
    return GameRecord(
        start=start,
        actions=np.array(actions, dtype=np.int16),
        policies=np.array(policies, dtype=np.float16),
        root_values=root_values,
        black_margin=state.black_margin(),
        metadata={"game_id": game_id, "network": "net-0007", "simulations": 8, "seed": 1234},
    )


def random_records(count: int, seed: int = 0, first_id: int = 0) -> list[GameRecord]:
    rng = np.random.default_rng(seed)
    return [random_record(rng, game_id=first_id + i) for i in range(count)]
