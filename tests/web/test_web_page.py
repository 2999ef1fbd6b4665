"""What the web board's page shows, in headless Chromium: data from disk as text (file names, shard
metadata and TensorBoard tags carrying markup run nothing), tabs that switch, a run's games and
curves there before its tab is opened (each of the three tabs shows its panel alone), an analysis that goes (and stops its search) when the
position changes, visits shown as this search's plus those reused, and Elo and scores each on an
axis of their own. Skipped with the reason where Chromium, chromedriver or selenium is missing."""

import re

import pytest

pytest.importorskip("flask", reason='Flask not installed (pip install -e ".[web]")')
pytest.importorskip("selenium", reason='selenium not installed (pip install -e ".[browser-test]")')

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from alphazero.play.choosers import default_checkpoint  # noqa: E402
from tests.web.browser import NEEDS_CHROMIUM, board_process, idle, text  # noqa: E402
from tests.web.helpers import write_run_shard  # noqa: E402

# Markup that runs script if it is ever parsed as HTML, and leaves an element behind either way
# (the page's Content-Security-Policy would stop the script, not the element).
MARKUP = '"><img src=x onerror=window.__xss=1><b id=injected>'

pytestmark = [pytest.mark.slow, NEEDS_CHROMIUM]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    """A run whose directory name, checkpoint file name, shard metadata and TensorBoard tags carry
    markup, beside ordinary curves (Elo in the hundreds, scores in 0..1, losses)."""
    from torch.utils.tensorboard import SummaryWriter

    run = tmp_path_factory.mktemp("run") / f"run-{MARKUP}"
    (run / "replay").mkdir(parents=True)
    write_run_shard(run, 1, games=2, seed=1, network=MARKUP)
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / f"{MARKUP}.pt").write_bytes(b"listed, never loaded")
    writer = SummaryWriter(str(run / "tb"))
    for step in range(0, 500, 100):
        writer.add_scalar("loss/policy", 2.0 - step / 1000, step)
        writer.add_scalar("arena/score", 0.5 + step / 2000, step)
        writer.add_scalar("elo/best", 100 + step, step)
        writer.add_scalar(f"elo/{MARKUP}", 50 + step / 2, step)
        writer.add_scalar(f"eval/score_vs_{MARKUP}", 0.3 + step / 1000, step)
    writer.close()
    return run


@pytest.fixture(scope="module")
def server(hostile_run):
    if default_checkpoint() is None:
        pytest.skip("no shipped default network")
    with board_process("--simulations", "16", "--run", str(hostile_run)) as (address, log):
        yield address, log


def nothing_ran(driver):
    assert driver.execute_script("return window.__xss") is None
    assert driver.find_elements(By.TAG_NAME, "img") == [] and driver.find_elements(By.ID, "injected") == []


def test_file_names_shard_metadata_and_tags_carrying_markup_are_shown_as_text(page, hostile_run):
    driver, _ = page
    offered = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#checkpoints option")]
    assert str(hostile_run / "checkpoints" / f"{MARKUP}.pt") in offered
    driver.find_element(By.ID, "tab-run").click()
    WebDriverWait(driver, 60).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#run-games tr.game")) == 2)
    idle(driver)
    rows = driver.find_elements(By.CSS_SELECTOR, "#run-games tr.game")
    assert [row.find_elements(By.TAG_NAME, "td")[3].text for row in rows] == [MARKUP, MARKUP]
    assert f"elo/{MARKUP}" in text(driver, "elo-legend") and f"eval/score_vs_{MARKUP}" in text(driver, "score-legend")
    names = [line.get_attribute("data-name") for line in driver.find_elements(By.CSS_SELECTOR, "#elo-chart polyline.series")]
    assert f"elo/{MARKUP}" in names
    assert text(driver, "run-summary").startswith(str(hostile_run))
    rows[0].click()
    idle(driver)
    assert text(driver, "run-ply-number") == "0"
    nothing_ran(driver)


def test_each_tab_shows_its_panel_and_only_its_panel(page):
    driver, _ = page
    tabs = ("play", "run", "review")

    def shown():
        return [name for name in tabs if driver.find_element(By.ID, f"panel-{name}").is_displayed()]

    assert shown() == ["play"]
    # every tab from every other, both ways
    for name, then in (("run", "play"), ("review", "play"), ("run", "review"), ("review", "run"), ("play", "run")):
        driver.find_element(By.ID, f"tab-{then}").click()
        driver.find_element(By.ID, f"tab-{name}").click()
        assert shown() == [name], (then, name)
        assert driver.find_element(By.ID, f"tab-{name}").get_attribute("class").split() == ["tab", "active"]
        driver.find_element(By.ID, f"tab-{then}").click()
        assert shown() == [then], (name, then)


def test_with_run_the_viewer_holds_the_runs_games_and_curves_before_its_tab_is_opened(page):
    driver, _ = page
    assert not driver.find_element(By.ID, "panel-run").is_displayed()  # not opened
    assert len(driver.find_elements(By.CSS_SELECTOR, "#run-games tr.game")) == 2
    for chart, series in (("elo-chart", 2), ("score-chart", 2), ("loss-chart", 1)):
        assert len(driver.find_elements(By.CSS_SELECTOR, f"#{chart} polyline.series")) == series, chart
    driver.find_element(By.ID, "tab-run").click()
    assert driver.find_elements(By.CSS_SELECTOR, "#run-games tr.game")[0].is_displayed()


def chart_span(driver, chart):
    """The height the series of `chart` span, as a share of the chart's plotting height."""
    ys = [float(y) for line in driver.find_elements(By.CSS_SELECTOR, f"#{chart} polyline.series")
          for y in re.findall(r",([-\d.]+)", line.get_attribute("points"))]
    height = float(driver.find_element(By.ID, chart).get_dom_attribute("viewBox").split()[3])
    return (max(ys) - min(ys)) / (height - 2 * 24)


def test_elo_and_scores_each_have_an_axis_of_their_own(page):
    driver, _ = page
    driver.find_element(By.ID, "tab-run").click()
    idle(driver)
    # Elo from 50 to 500 and scores within 0..1: on one axis the scores were a flat line.
    assert chart_span(driver, "elo-chart") > 0.9
    assert chart_span(driver, "score-chart") > 0.3
    labels = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#score-chart text")]
    assert "0" in labels and "1" in labels  # the scores' axis is 0 to 1


def analysed(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#analysis-moves tr.candidate")


def test_the_analysis_goes_when_the_position_changes_and_its_search_stops(page):
    driver, log = page
    Select(driver.find_element(By.ID, "human")).select_by_value("both")
    driver.find_element(By.CSS_SELECTOR, '#board .cell[data-square="f5"]').click()
    idle(driver)
    driver.find_element(By.ID, "analyse").click()
    idle(driver)
    assert analysed(driver) and driver.find_elements(By.CSS_SELECTOR, "#board .heat")
    driver.find_element(By.ID, "undo").click()  # back to the start: the analysis of f5 is not the start's
    idle(driver)
    assert not analysed(driver) and not driver.find_elements(By.CSS_SELECTOR, "#board .heat")
    assert "Analyse position" in text(driver, "analysis")

    driver.find_element(By.ID, "analyse").click()
    idle(driver)
    driver.find_element(By.CSS_SELECTOR, '#board .cell[data-square="d3"]').click()  # a move
    idle(driver)
    assert not analysed(driver) and not driver.find_elements(By.CSS_SELECTOR, "#board .heat")

    # An analysis under way when the position changes: its answer is never shown, and the
    # server stops its search (the page gave up on the request).
    simulations = driver.find_element(By.ID, "simulations")
    simulations.clear()
    simulations.send_keys("100000")
    driver.find_element(By.ID, "analyse").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "analysis-running"))
    driver.find_element(By.ID, "undo").click()
    idle(driver)
    assert not analysed(driver) and not driver.find_elements(By.ID, "analysis-running")
    WebDriverWait(driver, 30).until(lambda d: any("analyse: cancelled: the client went away" in line for line in log))
    assert driver.execute_script("return play.moves") == []  # d3 undone


def test_visits_are_shown_as_this_search_plus_those_reused(page):
    driver, _ = page
    driver.find_element(By.ID, "load-text").send_keys("f5d6c3d3c4f4")  # a position no search has seen
    driver.find_element(By.ID, "load").click()
    idle(driver)
    visits = []
    for _ in range(2):  # the same position twice: the second search starts from the first's tree
        driver.find_element(By.ID, "analyse").click()
        idle(driver)
        WebDriverWait(driver, 60).until(analysed)
        shown = text(driver, "analysis-visits")
        total = sum(int(row.find_elements(By.TAG_NAME, "td")[1].text) for row in analysed(driver))
        visits.append((shown, total))
    assert visits[0] == ("16 simulations", 16)
    assert visits[1] == ("16 simulations (+16 reused)", 32)
