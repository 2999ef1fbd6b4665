"""A tiny training run directory for the run viewer: two replay shards of random games (with a
search policy and a root value per ply, written through the replay API) and TensorBoard scalars;
the board's engines on the shipped default network."""

from pathlib import Path

import pytest

from .helpers import write_run_shard


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    run = tmp_path_factory.mktemp("run")
    (run / "replay").mkdir()
    write_run_shard(run, 1, games=3, seed=1)
    write_run_shard(run, 2, games=2, seed=2)
    writer = SummaryWriter(str(run / "tb"))
    for step in range(0, 500, 100):
        writer.add_scalar("loss/policy", 2.0 - step / 1000, step)
        writer.add_scalar("loss/value", 0.9 - step / 2000, step)
        writer.add_scalar("arena/score", 0.5 + step / 2000, step)
        writer.add_scalar("elo/best", step / 5, step)
        writer.add_scalar("eval/score_vs_greedy", 0.6 + step / 2000, step)
    writer.close()
    return run


@pytest.fixture(scope="module")
def engines():
    from alphazero.play.choosers import SearchSettings, default_checkpoint
    from alphazero.web.analysis import Engines

    checkpoint = default_checkpoint()
    if checkpoint is None:
        pytest.skip("no shipped default network")
    engines = Engines(checkpoint, SearchSettings(threads=1))
    yield engines
    engines.close()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for a browser test module (tests/web/browser.py)."""
    from tests.web.browser import chromium

    with chromium() as driver:
        yield driver


@pytest.fixture()
def page(server, browser):
    """The page of the module's `server` (a board process: (address, log)) freshly loaded and
    idle: (driver, the server's log)."""
    from tests.web.browser import idle

    address, log = server
    browser.get(address)
    idle(browser)
    return browser, log
