"""The web app in a real browser (issue 14): headless Chromium, driven through Selenium with
the system's chromedriver, plays a full round of basic against random by clicks, steps a
stored replay forwards and back, and loads the leaderboard. A screenshot of every page goes
to ``$RUMMY_TEST_ARTIFACTS`` (default ``test-artifacts/``); the README's pictures
(docs/img/web_*.png) are these, scaled down.

Skipped where Chromium, chromedriver or selenium is missing (``apt-get install chromium
chromium-driver``; ``pip install -e '.[web]'``); CI (.ci/run) installs them. Selenium is
given the chromedriver on PATH, so Selenium Manager never downloads anything.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from pathlib import Path

import pytest

pytest.importorskip("flask")
pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[web]')")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from experiments.web import create_app  # noqa: E402
from tests.test_web import small_store  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BROWSER = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
DRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    BROWSER is None or DRIVER is None,
    reason="needs a headless browser: chromium and chromedriver on PATH "
    "(apt-get install chromium chromium-driver); CI installs them",
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app on a free port of 127.0.0.1, serving a small tournament store, in a thread."""
    folder = tmp_path_factory.mktemp("web-browser")
    db, _ = small_store(folder)
    srv = make_server("127.0.0.1", 0, create_app(db, cache_dir=folder / "cache"), threaded=True)
    thread = threading.Thread(target=srv.serve_forever, name="rummy-web", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = BROWSER
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root in a container
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    out = Path(os.environ.get("RUMMY_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    return out


def screenshot(driver, path: Path) -> None:
    """The whole page (the window grown to the page's height, up to 2,400 px)."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, max(700, min(2400, int(height) + 20)))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(path))
    driver.set_window_size(1280, 1000)
    assert path.stat().st_size > 0


def image_loaded(driver, css: str) -> bool:
    """Whether the image ``css`` was fetched and decoded (scrolled into view first)."""
    img = driver.find_element(By.CSS_SELECTOR, css)
    driver.execute_script("arguments[0].scrollIntoView()", img)
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return arguments[0].complete", img))
    return driver.execute_script("return arguments[0].naturalWidth", img) > 0


def click_and_wait(driver, element) -> None:
    """Click ``element`` and wait for the page it leads to."""
    element.click()
    WebDriverWait(driver, 20).until(EC.staleness_of(element))


def test_play_a_round_of_basic_against_random(server, browser, artifacts):
    browser.get(f"{server}/play")
    Select(browser.find_element(By.ID, "preset")).select_by_visible_text("basic")
    Select(browser.find_element(By.ID, "players")).select_by_visible_text("2")
    Select(browser.find_element(By.ID, "seat")).select_by_value("0")
    assert not browser.find_element(By.ID, "opp0").is_displayed()  # your own seat
    Select(browser.find_element(By.ID, "opp1")).select_by_visible_text("random")
    click_and_wait(browser, browser.find_element(By.ID, "start"))
    assert "/play/" in browser.current_url
    assert image_loaded(browser, "#table")
    clicks = 0
    for _ in range(1000):  # one click per turn phase: always the first legal move
        if browser.find_elements(By.ID, "scoring"):
            break
        assert "Your turn" in browser.find_element(By.ID, "status").text
        buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button")
        assert buttons, "no legal move to click before the round is over"
        if clicks == 12:
            screenshot(browser, artifacts / "web_play.png")
        click_and_wait(browser, buttons[0])
        clicks += 1
    scoring = browser.find_element(By.ID, "scoring").text
    assert scoring.startswith("round 1 over") and "player_0" in scoring and "player_1" in scoring
    assert not browser.find_elements(By.CSS_SELECTOR, "#moves button")
    assert "The game is over" in browser.find_element(By.ID, "over").text
    assert image_loaded(browser, "#table")
    assert clicks > 5
    screenshot(browser, artifacts / "web_play_over.png")


def test_step_through_a_stored_replay(server, browser, artifacts):
    browser.get(f"{server}/games")
    links = browser.find_elements(By.CSS_SELECTOR, "#games a[href^='/games/']")
    assert len(links) == 4
    click_and_wait(browser, links[0])
    where = lambda: browser.find_element(By.ID, "where").text  # noqa: E731
    assert where().startswith("the deal")
    n = int(re.search(r"of (\d+)", where()).group(1))
    for k in (1, 2, 3):
        click_and_wait(browser, browser.find_element(By.ID, "next"))
        assert where().startswith(f"move {k} of {n}:")
    click_and_wait(browser, browser.find_element(By.ID, "prev"))  # and back
    assert where().startswith(f"move 2 of {n}:")
    assert image_loaded(browser, "#frame")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)  # the arrow keys step too
    WebDriverWait(browser, 20).until(lambda d: where().startswith(f"move 3 of {n}:"))
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(browser, 20).until(lambda d: where().startswith(f"move 2 of {n}:"))
    browser.get(browser.current_url.split("?")[0] + f"?step={min(n, 24)}")
    assert image_loaded(browser, "#frame")
    screenshot(browser, artifacts / "web_game.png")
    click_and_wait(browser, browser.find_element(By.ID, "last"))
    assert where().startswith(f"move {n} of {n}:")
    assert browser.find_element(By.ID, "scoring").text.startswith("round 1 over")


def test_leaderboard(server, browser, artifacts):
    browser.get(server + "/")
    rows = browser.find_elements(By.CSS_SELECTOR, "table.ratings tr")
    assert len(rows) == 3  # the header, greedy, random
    assert {r.find_elements(By.TAG_NAME, "td")[1].text for r in rows[1:]} == {"greedy", "random"}
    assert "Elo" in rows[0].text
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.crosstable tr")) == 3
    for img in browser.find_elements(By.CSS_SELECTOR, ".plots img"):
        assert image_loaded(browser, f"img[src='{img.get_attribute('src').split(server)[1]}']")
    screenshot(browser, artifacts / "web_leaderboard.png")
    # bad input: a clear message, and the server keeps serving
    browser.get(f"{server}/games/9999")
    assert "no game 9999 in the store" in browser.find_element(By.ID, "error").text
    browser.get(server + "/")
    assert browser.find_elements(By.CSS_SELECTOR, "table.ratings")
