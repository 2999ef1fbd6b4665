"""The web board driven in headless Chromium (Debian's chromium and chromium-driver, with selenium):
a whole game against the shipped default network, an analysis, a pasted transcript (and a bad
one), the exact solver near the end, and a run's self-play game replayed move by move. Skipped
with the reason where Chromium, chromedriver or selenium is missing (.ci/run installs them).

The screenshot in the README (docs/web-board.png) is taken here: run with
ALPHAZERO_UPDATE_SCREENSHOT=1 to write it; otherwise it goes to the test's temporary directory."""

import os
import re
import shutil
import time

import pytest

pytest.importorskip("flask", reason='Flask not installed (pip install -e ".[web]")')
selenium = pytest.importorskip("selenium", reason='selenium not installed (pip install -e ".[browser-test]")')

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from alphazero.othello.game import GameState  # noqa: E402
from alphazero.othello.notation import parse_transcript  # noqa: E402
from alphazero.play.choosers import default_checkpoint  # noqa: E402
from tests.conftest import REPO_ROOT  # noqa: E402
from tests.web.browser import NEEDS_CHROMIUM, board_process, chromium, idle, text  # noqa: E402
from tests.web.helpers import snapshot  # noqa: E402

SCREENSHOT = REPO_ROOT / "docs" / "web-board.png"
OPENING = "f5d6c3d3c4f4f6f3e6e7"  # 10 plies; the search spreads its visits over three moves here
NEAR_END = "OOXXOOO-XOXXOOO-XXOOOXOOXOOOOXXOXOXOOOOOXOOXOOOOXOXOOOOOXXOOOOOO X"

# About 40 s (a whole game, clicked): kept out of the default suite; .ci/run runs it with -m slow.
pytestmark = [pytest.mark.slow, NEEDS_CHROMIUM]


@pytest.fixture(scope="module")
def server(tiny_run):
    if default_checkpoint() is None:
        pytest.skip("no shipped default network")
    with board_process("--simulations", "4", "--run", str(tiny_run)) as (address, log):
        yield address, log


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


def page_moves(driver):
    return driver.execute_script("return play.moves")


def test_the_board_in_a_browser(server, browser, tiny_run, tmp_path):
    address, log = server
    driver = browser
    before = snapshot(tiny_run)
    driver.get(address)
    idle(driver)
    assert "Black to move (you)" in text(driver, "status")

    # A whole game as White against the default network: the AI opens.
    Select(driver.find_element(By.ID, "human")).select_by_value("white")
    deadline = time.monotonic() + 240
    while "Game over" not in text(driver, "status"):
        assert time.monotonic() < deadline, f"the game did not end; status {text(driver, 'status')!r}"
        idle(driver)
        if "Game over" in text(driver, "status"):
            break
        legal = driver.find_elements(By.CSS_SELECTOR, "#board .cell.legal")
        if "(you)" in text(driver, "status") and legal:
            legal[0].click()
        else:
            time.sleep(0.05)
        assert not driver.find_element(By.ID, "error").is_displayed(), text(driver, "error")
    moves = page_moves(driver)
    state = GameState.start()
    for action in parse_transcript("".join(moves)):
        state = state.play(action)
    # played to the end (not always a full board: the AI wiped the clicker out in 55 moves once),
    # and the page states the replayed game's result
    assert state.is_over(), moves
    margin = state.black_margin()
    expected = f"Black wins by {margin}" if margin > 0 else f"White wins by {-margin}" if margin < 0 else "Draw"
    assert f"Game over: {expected} (" in text(driver, "status")
    assert driver.execute_script("return play.position.ggf").startswith("(;GM[Othello]")

    # A transcript pasted in, then analysed: heat map, value, candidates with visits and Q, PV.
    Select(driver.find_element(By.ID, "human")).select_by_value("both")
    driver.find_element(By.ID, "load-text").clear()
    driver.find_element(By.ID, "load-text").send_keys(OPENING)
    driver.find_element(By.ID, "load").click()
    idle(driver)
    assert "".join(page_moves(driver)) == OPENING
    assert len(driver.find_elements(By.CSS_SELECTOR, "#moves .ply")) == len(OPENING) // 2 + 1
    driver.find_element(By.ID, "simulations").clear()
    driver.find_element(By.ID, "simulations").send_keys("64")
    driver.find_element(By.ID, "analyse").click()
    idle(driver)
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#analysis-moves tr.candidate"))
    priors = [float(e.get_attribute("data-prior")) for e in driver.find_elements(By.CSS_SELECTOR, "#board .heat")]
    assert priors and abs(sum(priors) - 1) < 1e-2
    assert re.fullmatch(r"[+-]\d\.\d{3}", text(driver, "analysis-value"))
    pv = text(driver, "analysis-pv").split()
    assert pv and pv[0] == text(driver, "analysis-best")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#value-chart polyline.series")) == 1
    driver.save_screenshot(str(tmp_path / "web-board.png"))
    if os.environ.get("ALPHAZERO_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(tmp_path / "web-board.png", SCREENSHOT)
    assert (tmp_path / "web-board.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # A bad transcript: a message on the page and in the log; the game shown is unchanged.
    driver.find_element(By.ID, "load-text").clear()
    driver.find_element(By.ID, "load-text").send_keys("f5f5")
    driver.find_element(By.ID, "load").click()
    idle(driver)
    assert "illegal move 'f5' at character 2" in text(driver, "error")
    assert "".join(page_moves(driver)) == OPENING
    assert any("illegal move 'f5' at character 2" in line for line in log)

    # Near the end: the exact solver's result and best move.
    driver.find_element(By.ID, "load-text").clear()
    driver.find_element(By.ID, "load-text").send_keys(NEAR_END)
    driver.find_element(By.ID, "load").click()
    idle(driver)
    driver.find_element(By.ID, "analyse").click()
    idle(driver)
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.ID, "analysis-solver"))
    assert re.search(r"best move (h1|h2)", text(driver, "analysis-solver"))

    # A checkpoint the board does not offer: refused on the page and in the log; a good one lets the AI move.
    checkpoint = driver.find_element(By.ID, "checkpoint")
    good = checkpoint.get_attribute("value")
    checkpoint.clear()
    checkpoint.send_keys("/no/such/net.pt")
    Select(driver.find_element(By.ID, "human")).select_by_value("white")  # the AI (black) is to move
    idle(driver)
    assert "checkpoint not offered" in text(driver, "error")
    assert "could not move" in text(driver, "status") and page_moves(driver) == []
    assert any("checkpoint not offered" in line for line in log)
    checkpoint.clear()
    checkpoint.send_keys(good + Keys.TAB)
    idle(driver)
    WebDriverWait(driver, 60).until(lambda d: page_moves(d) != [])
    assert page_moves(driver)[0] in ("h1", "h2") and not driver.find_element(By.ID, "error").is_displayed()

    # The run viewer: the newest game, replayed to ply 5 with the search's policy and value.
    driver.find_element(By.ID, "tab-run").click()
    WebDriverWait(driver, 60).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#run-games tr.game")) == 5)
    driver.find_elements(By.CSS_SELECTOR, "#run-games tr.game")[0].click()
    idle(driver)
    for _ in range(5):
        driver.find_element(By.ID, "run-next").click()
        idle(driver)
    assert text(driver, "run-ply-number") == "5"
    assert re.fullmatch(r"[+-]\d\.\d{3}", text(driver, "run-value"))
    assert driver.find_elements(By.CSS_SELECTOR, "#run-board .heat")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#elo-chart polyline.series")) == 1
    assert len(driver.find_elements(By.CSS_SELECTOR, "#score-chart polyline.series")) == 2
    assert len(driver.find_elements(By.CSS_SELECTOR, "#loss-chart polyline.series")) == 2
    assert not driver.find_element(By.ID, "error").is_displayed()

    # Without --allow-any-path the board shows only its --run: the directory field holds it, fixed.
    run_dir = driver.find_element(By.ID, "run-dir")
    assert run_dir.get_attribute("value") == str(tiny_run) and run_dir.get_attribute("readonly") == "true"
    assert snapshot(tiny_run) == before
