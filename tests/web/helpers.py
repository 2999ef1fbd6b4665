"""Helpers for the web board's tests: a tiny run directory's parts, a snapshot of a directory, and
a test client that sends what the board's own page sends."""

from pathlib import Path

import numpy as np

from alphazero.othello.bitboard import NUM_ACTIONS
from alphazero.othello.game import GameState
from alphazero.othello.record import GameRecord
from alphazero.replay.buffer import shard_name
from alphazero.replay.shard import write_shard


def random_record(rng, network) -> GameRecord:
    state, actions, policies = GameState.start(), [], []
    while not state.is_over():
        legal = state.legal_actions()
        policy = np.zeros(NUM_ACTIONS, dtype=np.float32)
        weights = rng.random(len(legal)) + 0.05
        policy[legal] = weights / weights.sum()
        action = int(rng.choice(legal))
        actions.append(action)
        policies.append(policy)
        state = state.play(action)
    return GameRecord(start=GameState.start(), actions=actions, policies=np.array(policies),
                      root_values=rng.uniform(-1, 1, len(actions)).astype(np.float32),
                      black_margin=state.black_margin(), metadata={"network": network, "simulations": 8})


def write_run_shard(run: Path, sequence: int, games: int, seed: int, network=None) -> Path:
    """A shard of `games` random games whose metadata names `network` (default: `sequence`)."""
    rng = np.random.default_rng(seed)
    path = run / "replay" / shard_name(sequence, "w0")
    write_shard(path, [random_record(rng, network=sequence if network is None else network) for _ in range(games)])
    return path


def snapshot(directory: Path) -> dict:
    """Every file under `directory` with its size and mtime: what 'nothing changed on disk' compares."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(directory.rglob("*")) if p.is_file()}


TEST_PORT = 8037


def board(engines, run=None, allow_any: bool = False, **options):
    """The board's app on `engines`, offering their default checkpoint and `run`, answering to
    127.0.0.1:TEST_PORT (as board_client sends); `options` go to create_app."""
    from alphazero.web.access import Offered, listen_hosts
    from alphazero.web.server import create_app

    offered = Offered(engines.default_checkpoint, None if run is None else str(run), allow_any)
    return create_app(engines, listen_hosts("127.0.0.1", TEST_PORT), offered, **options)


def board_client(app, host: str = f"127.0.0.1:{TEST_PORT}"):
    """Flask's test client for `app` (built with access.listen_hosts("127.0.0.1", TEST_PORT)),
    sending on every request what the page the board serves sends: its address as `Host` and the
    page's token. A request's own `headers` win (a test of a refusal)."""
    from flask.testing import FlaskClient

    from alphazero.web.access import TOKEN_HEADER

    class BoardClient(FlaskClient):
        def open(self, *args, headers=None, **kwargs):
            sent = {"Host": host, TOKEN_HEADER: app.config["BOARD_TOKEN"], **(headers or {})}
            return super().open(*args, headers=sent, **kwargs)

    app.test_client_class = BoardClient
    return app.test_client()
