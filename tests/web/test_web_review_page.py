"""The web board's Review tab in headless Chromium: a short game with a known blunder within the
solver's reach (the review command's test game, tests/review/test_reviewer.py) is reviewed through
the page, its chart marks the blunder at its ply and its move list shows the exact loss; a click
on the mark shows that position with its analysis; a bad transcript gets the command's message;
a GGF file opened into the box, the game on the board and a run viewer's game are reviewed from their tabs, and Stop ends a review
on the server. Skipped with the reason where Chromium, chromedriver or selenium is missing.

The picture of the review in docs/frontends.md (docs/web-review.png) is taken here: run with
ALPHAZERO_UPDATE_SCREENSHOT=1 to write it."""

import os
import shutil

import pytest

pytest.importorskip("flask", reason='Flask not installed (pip install -e ".[web]")')
pytest.importorskip("selenium", reason='selenium not installed (pip install -e ".[browser-test]")')

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from alphazero.othello.notation import format_board_text, format_transcript  # noqa: E402
from alphazero.play.choosers import default_checkpoint  # noqa: E402
from alphazero.review.reviewer import Marks  # noqa: E402
from tests.conftest import REPO_ROOT  # noqa: E402
from tests.review.test_reviewer import game_with_a_blunder  # noqa: E402
from tests.web.browser import NEEDS_CHROMIUM, board_process, idle, text  # noqa: E402

CHART_WIDTH, CHART_PAD = 420, 24  # app.js's drawChart
SAMPLES = REPO_ROOT / "tests" / "fixtures" / "samples.ggf"
SCREENSHOT = REPO_ROOT / "docs" / "web-review.png"
SIMULATIONS = "8"  # every position of the blunder game is solved: the budget only sets the speed

pytestmark = [pytest.mark.slow, NEEDS_CHROMIUM]


@pytest.fixture(scope="module")
def server(tiny_run):
    if default_checkpoint() is None:
        pytest.skip("no shipped default network")
    with board_process("--simulations", SIMULATIONS, "--run", str(tiny_run)) as (address, log):
        yield address, log


def reviewed(driver, timeout=120):
    """Wait until no review is under way on the page."""
    WebDriverWait(driver, timeout).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-reviewing") == "0")


def review_text(driver, game_text):
    driver.find_element(By.ID, "tab-review").click()
    box = driver.find_element(By.ID, "review-text")
    box.clear()
    driver.execute_script("arguments[0].value = arguments[1]", box, game_text)  # send_keys types a newline as Enter, slowly
    simulations = driver.find_element(By.ID, "review-simulations")
    simulations.clear()
    simulations.send_keys(SIMULATIONS)
    driver.find_element(By.ID, "review-start").click()
    reviewed(driver)


def test_a_blunder_in_the_solvers_reach_is_marked_on_the_chart_at_its_ply_with_its_exact_loss(page):
    driver, _ = page
    record, blunder_ply, best, played = game_with_a_blunder()
    plies = len(record.actions)
    review_text(driver, format_board_text(record.start) + "\n" + format_transcript(record.actions) + "\n")
    assert not driver.find_element(By.ID, "error").is_displayed(), text(driver, "error")
    assert text(driver, "review-progress").startswith(f"reviewed {plies} / {plies} moves in ")
    assert driver.find_element(By.ID, "panel-review").is_displayed() and not driver.find_element(By.ID, "panel-play").is_displayed()

    # The chart: Black's win probability at every ply, and the blunder marked where it was played.
    line = driver.find_element(By.CSS_SELECTOR, "#review-chart polyline.series")
    assert len(line.get_attribute("points").split()) == plies + 1
    marks = driver.find_elements(By.CSS_SELECTOR, "#review-chart g.mistake")
    outcome_changed = (best > 0) - (best < 0) > (played > 0) - (played < 0)
    expected_mark = "??" if outcome_changed else "?"
    assert best - played >= Marks().mistake_discs or outcome_changed  # the game's blunder is one the review marks
    assert [(m.get_attribute("data-ply"), m.get_attribute("data-mark")) for m in marks] == [(str(blunder_ply), expected_mark)]
    x = float(marks[0].get_attribute("data-x"))
    assert abs(x - (CHART_PAD + (CHART_WIDTH - 2 * CHART_PAD) * blunder_ply / plies)) < 0.2

    # The move list: the blunder's exact loss, from the solver.
    rows = driver.find_elements(By.CSS_SELECTOR, "#review-moves tr.review-move")
    assert len(rows) == plies
    row = rows[blunder_ply - 1]
    assert row.get_attribute("data-ply") == str(blunder_ply)
    cell = lambda name: row.find_element(By.CSS_SELECTOR, f"td.review-{name}").text  # noqa: E731
    assert cell("exact") == f"{best:+d} → {played:+d}, {best - played} discs"
    assert cell("mark") == expected_mark and cell("preferred") != cell("played")
    summary = text(driver, "review-summary")
    assert f"{best - played} discs with perfect play" in summary and "where the game was lost" in summary

    # A click on the mark: the position before the blunder, the move played and the one preferred
    # marked, and its analysis (the solver's, 12 empties).
    marks[0].click()
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.ID, "review-analysis-solver"))
    assert text(driver, "review-ply") == str(blunder_ply) and text(driver, "review-mark") == expected_mark
    played_square = driver.find_element(By.CSS_SELECTOR, "#review-board .cell.played").get_attribute("data-square")
    preferred_square = driver.find_element(By.CSS_SELECTOR, "#review-board .cell.preferred").get_attribute("data-square")
    assert (played_square, preferred_square) == (cell("played"), cell("preferred"))
    assert f"{'wins' if best > 0 else 'loses' if best < 0 else 'a draw'}" in text(driver, "review-analysis-solver")
    # ... and a click on a row shows its position
    rows[0].click()
    WebDriverWait(driver, 30).until(lambda d: text(d, "review-ply") == "1")
    assert "current" in rows[0].get_attribute("class").split()


def test_a_bad_transcript_gets_the_review_commands_message(page):
    driver, _ = page
    review_text(driver, "f5f5")
    assert "illegal move 'f5' at character 2 (ply 2)" in text(driver, "error")
    assert driver.find_elements(By.CSS_SELECTOR, "#review-moves tr.review-move") == []


def test_a_ggf_file_opened_into_the_box_is_reviewed(page, tmp_path):
    driver, _ = page
    driver.find_element(By.ID, "tab-review").click()
    driver.find_element(By.ID, "review-file").send_keys(str(SAMPLES))
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "review-text").get_attribute("value").startswith("(;GM[Othello]"))
    driver.find_element(By.ID, "review-game").clear()
    driver.find_element(By.ID, "review-game").send_keys("2")
    driver.find_element(By.ID, "review-simulations").clear()
    driver.find_element(By.ID, "review-simulations").send_keys("2")
    driver.find_element(By.ID, "review-start").click()
    reviewed(driver)
    assert not driver.find_element(By.ID, "error").is_displayed(), text(driver, "error")
    assert text(driver, "review-label").startswith("the game given (GGF game 2): 60 plies")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#review-moves tr.review-move")) == 60
    assert "result: Black +8" in text(driver, "review-summary")
    # The picture in docs/frontends.md: a mistake clicked, its position analysed.
    marks = driver.find_elements(By.CSS_SELECTOR, "#review-chart g.mistake")
    marks[len(marks) // 2].click()
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.ID, "review-analysis-search"))
    driver.save_screenshot(str(tmp_path / "web-review.png"))
    if os.environ.get("ALPHAZERO_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(tmp_path / "web-review.png", SCREENSHOT)


def test_the_game_on_the_board_is_reviewed(page):
    driver, _ = page
    driver.find_element(By.ID, "load-text").send_keys("f5d6c3d3c4f4")
    driver.find_element(By.ID, "load").click()
    idle(driver)
    driver.find_element(By.ID, "tab-review").click()
    driver.find_element(By.ID, "review-simulations").clear()
    driver.find_element(By.ID, "review-simulations").send_keys(SIMULATIONS)
    driver.find_element(By.ID, "review-board-game").click()
    reviewed(driver)
    assert not driver.find_element(By.ID, "error").is_displayed(), text(driver, "error")
    played = [row.find_element(By.CSS_SELECTOR, "td.review-played").text
              for row in driver.find_elements(By.CSS_SELECTOR, "#review-moves tr.review-move")]
    assert played == ["f5", "d6", "c3", "d3", "c4", "f4"]
    assert text(driver, "review-label").startswith("the game on the board: 6 plies")


def test_a_run_game_is_reviewed_from_the_viewer_and_stop_ends_it_on_the_server(page):
    driver, log = page
    driver.find_element(By.ID, "tab-run").click()
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#run-games tr.game"))
    row = driver.find_elements(By.CSS_SELECTOR, "#run-games tr.game")[0]
    game_id = row.get_attribute("data-id")
    row.click()
    idle(driver)
    # The play's default budget (200 a position): a 60-ply game takes a minute, so Stop finds it running.
    driver.execute_script('document.getElementById("review-simulations").value = "200"')
    driver.find_element(By.ID, "run-review").click()
    assert driver.find_element(By.ID, "panel-review").is_displayed()
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#review-moves tr.review-move"))
    assert game_id in text(driver, "review-label")
    driver.find_element(By.ID, "review-stop").click()
    reviewed(driver, 10)
    assert text(driver, "review-progress").startswith("stopped after ")
    WebDriverWait(driver, 30).until(lambda d: any("cancelled: the client went away" in line and game_id in line for line in log))
