"""The web board as a user starts it (`python -m alphazero.web` in a process of its own) and as a
user sees it (Debian's chromium, headless, driven by selenium through chromedriver)."""

import contextlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import pytest

from tests.conftest import REPO_ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium or chromedriver not installed (apt-get install -y chromium chromium-driver)")
# A fresh profile, and nothing that reaches beyond this machine.
CHROMIUM_ARGUMENTS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync",
                      "--disable-dev-shm-usage", "--window-size=1280,1100")


@contextlib.contextmanager
def board_process(*arguments: str):
    """`python -m alphazero.web --port 0 ARGUMENTS...` running: yields (address, log lines so far)."""
    process = subprocess.Popen([sys.executable, "-m", "alphazero.web", "--port", "0", *arguments],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    log = []
    threading.Thread(target=lambda: log.extend(process.stderr), daemon=True).start()
    try:
        line = process.stdout.readline()
        match = re.match(r"alphazero\.web: serving (http://127\.0\.0\.1:\d+/)", line)
        assert match, f"no address line (got {line!r}); log: {''.join(log)}"
        yield match.group(1), log
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextlib.contextmanager
def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for argument in (*CHROMIUM_ARGUMENTS, f"--user-data-dir={profile}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def idle(driver, timeout=120):
    """Wait until the page has no request on its way (body[data-busy] is 0)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "0")


def text(driver, element_id):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).text
