"""The Ray backend's count of an inference server's deaths: one kill is one death however long Ray
takes to restart it (a CI run on a loaded machine saw six failed retries of one restart stop the
run), while a server that never comes back still stops the run, one death per grace period."""

from types import SimpleNamespace

import pytest

from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.ray_backend import DOWN, UP, RayWorkerPool
from alphazero.selfplay.restarts import ProcessKeepsDying


class ActorUnavailableError(Exception):
    """Ray's 'the actor is temporarily unavailable: it is restarting'."""


class RayActorError(Exception):
    pass


class ActorDiedError(Exception):
    pass


class _Pool:
    """What RayWorkerPool._server_answered touches, with a server on node "n"."""

    RETRY_SECONDS = RayWorkerPool.RETRY_SECONDS
    START_GRACE_SECONDS = RayWorkerPool.START_GRACE_SECONDS
    _server_budget = RayWorkerPool._server_budget

    def __init__(self, state: str):
        self.ray = SimpleNamespace(exceptions=SimpleNamespace(ActorUnavailableError=ActorUnavailableError, RayActorError=RayActorError,
                                                              ActorDiedError=ActorDiedError))
        self._servers = {"n": {"generation": 1, "state": state, "handle": "h" if state == UP else None, "ip": "10.0.0.1",
                               "retry_at": float("inf")}}
        self._server_calls = {}
        self._server_budgets = {}
        self.selfplay_cfg = SelfPlayConfig(max_restarts=2)
        self.restarts = 0
        self.started = []

    def _start_server(self, node_id, ip):
        self.started.append(node_id)

    def fail_a_call(self, error: Exception) -> None:
        def get(ref):
            raise error

        self.ray.get = get
        self._server_calls["ref"] = ("n", 1, 0)
        RayWorkerPool._server_answered(self, "ref")


def test_retries_failing_while_ray_restarts_a_killed_server_are_one_death():
    pool = _Pool(UP)
    pool.fail_a_call(RayActorError("killed"))
    assert pool._servers["n"]["state"] == DOWN and pool.restarts == 1
    for _ in range(10):  # a retry a second while Ray restarts it
        pool.fail_a_call(ActorUnavailableError("the actor is restarting"))
    assert pool._server_budgets["n"].deaths == 1 and not pool.started


def test_a_server_that_never_comes_back_stops_the_run_one_death_per_grace_period(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("alphazero.selfplay.ray_backend.time.monotonic", lambda: clock[0])
    pool = _Pool(UP)
    pool.fail_a_call(RayActorError("killed"))
    with pytest.raises(ProcessKeepsDying, match="inference server of node 10.0.0.1 died 3 times"):
        for _ in range(10):
            clock[0] += RayWorkerPool.START_GRACE_SECONDS
            pool.fail_a_call(ActorUnavailableError("the actor is restarting"))
