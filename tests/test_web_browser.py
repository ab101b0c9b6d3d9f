"""The web app in a real browser: headless Chromium, driven through Selenium with the
system's chromedriver, plays a whole round of basic and of gin by clicking cards (the
stock or the discard pile to draw, cards of the hand, then a move their selection offers),
plays a few turns of four-player Canasta with an agent as partner, lays out a 60-tile rack and six melds on a narrow window, lets a stored replay play itself,
and loads the leaderboard; no console error (CSP violations among them) may appear. A
screenshot of every page goes to ``$RUMMY_TEST_ARTIFACTS`` (default ``test-artifacts/``).

Skipped where Chromium, chromedriver or selenium is missing (``apt-get install chromium
chromium-driver``; ``pip install -e '.[web]'``); CI (.ci/run) installs them. Selenium is
given the chromedriver on PATH, so Selenium Manager never downloads anything.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

pytest.importorskip("flask")
pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[web]')")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (  # noqa: E402
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
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
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for its errors
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
    WebDriverWait(driver, 20).until(lambda d: _gone(element))
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


def _gone(element) -> bool:
    """Whether ``element`` left the page. Chromium may answer a node taken out of the page
    mid-question with "does not belong to the document" rather than a stale reference."""
    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as e:
        if "does not belong to the document" in str(e):
            return True
        raise
    return False


def console_errors(driver, allow: tuple[str, ...] = ()) -> list[str]:
    """The browser console's errors since the last call (CSP violations among them), less
    the messages that contain one of ``allow``."""
    return [
        e["message"]
        for e in driver.get_log("browser")
        if e["level"] == "SEVERE" and not any(a in e["message"] for a in allow)
    ]


def legal_ids(driver) -> set[int]:
    return {
        m["id"]
        for m in json.loads(driver.find_element(By.ID, "legal").get_attribute("textContent"))
    }


def start_game(driver, server: str, preset: str, opponent: str) -> None:
    driver.get(f"{server}/play?preset={preset}")
    Select(driver.find_element(By.ID, "players")).select_by_visible_text("2")
    Select(driver.find_element(By.ID, "seat")).select_by_value("0")
    assert not driver.find_element(By.ID, "opp0").is_displayed()  # your own seat
    Select(driver.find_element(By.ID, "opp1")).select_by_visible_text(opponent)
    click_and_wait(driver, driver.find_element(By.ID, "start"))
    assert "/play/" in driver.current_url


#: the moves a card selection may offer, in the order the test takes them (ends a round soon)
PREFER = ("Knock", "Meld", "LayOff", "Discard")


def play_round_by_clicking(driver, artifacts: Path, name: str) -> int:
    """Play the round on the page to its end by clicking: the stock or the discard pile to
    draw, a card of the hand, then a move its selection offers. Returns the clicks."""
    clicks = 0
    for turn in range(400):
        if driver.find_elements(By.ID, "scoring"):
            break
        assert "Your turn" in driver.find_element(By.ID, "status").text
        legal = legal_ids(driver)
        stock = driver.find_elements(By.CSS_SELECTOR, "#stock.live")
        pile = driver.find_elements(By.CSS_SELECTOR, ".discard button.live")
        if stock or pile:  # draw: the stock (the discard pile now and then)
            target = pile[0] if pile and (turn % 3 == 1 or not stock) else stock[0]
            click_and_wait(driver, target)
            clicks += 1
            continue
        hand = driver.find_elements(By.CSS_SELECTOR, ".seat.hand button.card")
        usable = [b for b in hand if b.is_enabled()]
        if not usable:  # a move without cards (pass, commit)
            click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#actions button.move"))
            clicks += 1
            continue
        for k in range(len(usable)):  # a card whose selection alone makes a move
            card = usable[(turn + k) % len(usable)]
            card.click()
            assert "selected" in card.get_attribute("class")
            moves = driver.find_elements(By.CSS_SELECTOR, "#actions button.move")
            offered = {int(b.get_attribute("data-action")) for b in moves}
            assert offered <= legal  # only legal moves are enabled
            if offered:
                break
            card.click()  # (a card drawn from the pile that only a meld may use)
            assert "selected" not in card.get_attribute("class")
        assert moves, "no card of the hand makes a move on its own"
        if clicks >= 3 and not (artifacts / f"{name}.png").exists():
            screenshot(driver, artifacts / f"{name}.png")
        kinds = [b.get_attribute("data-kind") for b in moves]
        pick = next((k for k in PREFER if k in kinds), kinds[0])
        click_and_wait(driver, moves[kinds.index(pick)])
        clicks += 1
    scoring = driver.find_element(By.ID, "scoring").text
    assert scoring.startswith("round 1 over") and "player_0" in scoring and "player_1" in scoring
    assert not driver.find_elements(By.CSS_SELECTOR, "#actions button")
    assert "The game is over" in driver.find_element(By.ID, "over").text
    summary = driver.find_element(By.ID, "summary").text
    assert "Round 1 is over" in summary and "player_1" in summary
    screenshot(driver, artifacts / f"{name}_over.png")
    return clicks


def test_play_a_round_of_basic_by_clicking_cards(server, browser, artifacts):
    console_errors(browser)
    start_game(browser, server, "basic", "greedy")
    hand = browser.find_elements(By.CSS_SELECTOR, ".seat.hand button.card")
    assert len(hand) == 10 and not any(b.is_enabled() for b in hand)  # the draw comes first
    others = browser.find_elements(By.CSS_SELECTOR, ".seat:not(.hand) .card")
    assert len(others) == 10 and all("back" in c.get_attribute("class") for c in others)
    # the hand sorted by rank, and the choice remembered on the next page
    click = browser.find_element(By.ID, "sort-rank")
    click.click()
    ranks = lambda: [  # noqa: E731
        "A23456789TJQK".index(b.get_attribute("data-card")[0])
        for b in browser.find_elements(By.CSS_SELECTOR, ".seat.hand button.card")
    ]
    assert ranks() == sorted(ranks())
    browser.refresh()
    assert ranks() == sorted(ranks())
    browser.find_element(By.ID, "sort-suit").click()
    suits = [
        "SHDC".index(b.get_attribute("data-card")[1])
        for b in browser.find_elements(By.CSS_SELECTOR, ".seat.hand button.card")
    ]
    assert suits == sorted(suits)
    assert play_round_by_clicking(browser, artifacts, "web_play_basic") > 3
    assert console_errors(browser) == []


def test_play_a_round_of_gin_by_clicking_cards(server, browser, artifacts):
    console_errors(browser)
    start_game(browser, server, "gin", "gin-simple")
    assert play_round_by_clicking(browser, artifacts, "web_play_gin") > 3
    assert console_errors(browser) == []


def test_big_tables_wrap_on_a_narrow_window(server, browser, artifacts):
    """A Rummikub rack of 60 tiles and Contract's six melds with the contract shown, in a
    window 420 px wide: nothing wider than the window, the stock and discard in view."""
    start_game(browser, server, "basic", "random")
    rack = [r + s for s in "SHDC" for r in "A23456789TJQK"][:52] + ["JK"] * 2 + ["5H"] * 6
    view = json.loads(browser.find_element(By.ID, "view").get_attribute("textContent"))
    view["seats"][0]["hand"], view["seats"][0]["count"] = rack, len(rack)
    view["contract"] = "deal 7 of 7: 3 runs of 4+"
    view["melds"] = [
        {
            "index": i,
            "owner": i % 2,
            "kind": "run",
            "cards": ["3S", "4S", "5S", "6S", "7S", "8S", "9S"],
            "wild": [1],
        }
        for i in range(6)
    ]
    browser.set_window_size(420, 900)
    try:
        browser.execute_script(
            "RummyTable.render(document.getElementById('table'), arguments[0], {me: 0})", view
        )
        width = browser.execute_script("return document.documentElement.clientWidth")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        for css in (".seat.hand .card", ".meld", "#stock", "#discard", ".contract"):
            for e in browser.find_elements(By.CSS_SELECTOR, css):
                left, right = browser.execute_script(
                    "var r = arguments[0].getBoundingClientRect(); return [r.left, r.right]", e
                )
                assert 0 <= left and right <= width, css
        assert len(browser.find_elements(By.CSS_SELECTOR, ".seat.hand .card")) == 60
        assert "3 runs of 4+" in browser.find_element(By.CSS_SELECTOR, ".contract").text
        browser.save_screenshot(str(artifacts / "web_narrow.png"))
    finally:
        browser.set_window_size(1280, 1000)
    assert console_errors(browser) == []


def test_a_stored_replay_plays_itself(server, browser, artifacts):
    console_errors(browser)
    browser.get(f"{server}/games")
    links = browser.find_elements(By.CSS_SELECTOR, "#games a[href^='/games/']")
    assert len(links) == 4
    click_and_wait(browser, links[0])
    where = lambda: browser.find_element(By.ID, "where").text  # noqa: E731
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board .seat"))
    assert where().startswith("the deal")
    n = int(re.search(r"of (\d+)", where()).group(1))
    browser.execute_script("window.stillHere = true")  # gone if the page were loaded again
    for k in (1, 2, 3):
        browser.find_element(By.ID, "next").click()
        WebDriverWait(browser, 20).until(lambda d, k=k: where().startswith(f"move {k} of {n}:"))
    browser.find_element(By.ID, "prev").click()  # and back
    WebDriverWait(browser, 20).until(lambda d: where().startswith(f"move 2 of {n}:"))
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)  # the arrow keys step too
    WebDriverWait(browser, 20).until(lambda d: where().startswith(f"move 3 of {n}:"))
    # at each decision the agent's alternatives: the random agent's probabilities beside the
    # move it chose; greedy gives none, and the page says so
    seen = set()
    for k in range(4, min(n, 30)):
        body.send_keys(Keys.ARROW_RIGHT)
        WebDriverWait(browser, 20).until(lambda d, k=k: where().startswith(f"move {k} of {n}:"))
        alts = browser.find_element(By.ID, "alts").text
        probs = browser.find_elements(By.CSS_SELECTOR, "#probs li")
        if "(random)" in where() and "among 1 legal move" not in alts:
            assert probs and sum("(chosen)" in li.text for li in probs) == 1
            assert all(re.search(r": \d+\.\d%", li.text) for li in probs)
            seen.add("random")
        elif "(greedy)" in where() and "among 1 legal move" not in alts:
            assert not probs and "gives no probabilities" in alts
            seen.add("greedy")
    assert seen == {"random", "greedy"}
    Select(browser.find_element(By.ID, "speed")).select_by_value("8")
    browser.find_element(By.ID, "play").click()  # autoplay to the end
    WebDriverWait(browser, 60).until(lambda d: where().startswith(f"move {n} of {n}:"))
    WebDriverWait(browser, 10).until(lambda d: "play" in d.find_element(By.ID, "play").text)
    assert browser.find_element(By.ID, "scoring").text.startswith("round 1 over")
    assert browser.current_url.endswith(f"?step={n}")
    screenshot(browser, artifacts / "web_game.png")
    Select(browser.find_element(By.ID, "round")).select_by_value("0")  # jump to round 1's deal
    WebDriverWait(browser, 20).until(lambda d: where().startswith("the deal"))
    assert browser.execute_script("return window.stillHere") is True
    assert console_errors(browser) == []


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
    assert console_errors(browser) == []
    browser.get(f"{server}/games/9999")
    assert "no game 9999 in the store" in browser.find_element(By.ID, "error").text
    browser.get(server + "/")
    assert browser.find_elements(By.CSS_SELECTOR, "table.ratings")
    assert console_errors(browser, allow=("/games/9999",)) == []  # the 404 asked for


def rank(card: str) -> str:
    return card if card == "JK" else card[0]


def test_canasta_with_a_partner_by_clicking(server, browser, artifacts):
    """Canasta with four players: the form labels the seat across as the partner; on the
    table the partner's badge, both sides' boxes (opened or the minimum, red 3s) and the
    pile's frozen state; a few turns by clicks: the stock or the pile to draw, the cards of
    a meld then its button, a lay-off by clicking a meld of the side, a discard."""
    console_errors(browser)
    browser.get(f"{server}/play?preset=canasta")
    Select(browser.find_element(By.ID, "players")).select_by_visible_text("4")
    Select(browser.find_element(By.ID, "seat")).select_by_value("0")
    role = lambda k: browser.find_element(By.CSS_SELECTOR, f"tr.opp[data-seat='{k}'] .role").text  # noqa: E731
    assert [role(k) for k in (1, 2, 3)] == ["(opponent)", "(your partner)", "(opponent)"]
    for k, agent in ((1, "greedy"), (2, "canasta-expert"), (3, "greedy")):
        Select(browser.find_element(By.ID, f"opp{k}")).select_by_visible_text(agent)
    click_and_wait(browser, browser.find_element(By.ID, "start"))
    assert "(partner)" in browser.find_element(By.ID, "players").text
    done = set()
    for _ in range(60):
        if browser.find_elements(By.ID, "scoring") or len(done) >= 4 and "Discard" in done:
            break
        partner = browser.find_element(By.CSS_SELECTOR, ".seat.partner")
        assert partner.get_attribute("data-seat") == "2"
        assert partner.find_element(By.CSS_SELECTOR, ".badge").text == "partner"
        assert not partner.find_elements(By.CSS_SELECTOR, ".card:not(.back):not(.known)")
        sides = browser.find_elements(By.CSS_SELECTOR, ".side-group")
        assert [s.get_attribute("data-side") for s in sides] == ["0", "1"]
        assert "your side" in sides[0].text and "player_2 (partner)" in sides[0].text
        assert all(re.search(r"opened|initial meld \d+\+", s.text) for s in sides)
        assert all("red 3s" in s.text for s in sides)
        frozen = browser.find_element(By.CSS_SELECTOR, ".pile.discard .frozen-state").text
        assert frozen in ("frozen", "not frozen")
        legal = json.loads(browser.find_element(By.ID, "legal").get_attribute("textContent"))
        kinds = {m["kind"] for m in legal}
        takes = [m for m in legal if m["kind"] == "TakePile"]
        stock = browser.find_elements(By.CSS_SELECTOR, "#stock.live")
        if "DrawStock" in kinds or takes:  # draw: the stock, or the pile when it takes at once
            if takes and (len(takes) == 1 or any(not m["cards"] for m in takes)):
                click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#discard.live"))
                done.add("TakePile")
            else:
                click_and_wait(browser, stock[0])
                done.add("DrawStock")
            continue
        if len(done) == 2 and not (artifacts / "web_play_canasta.png").exists():
            screenshot(browser, artifacts / "web_play_canasta.png")
        move = next(
            (m for k in ("Meld", "LayOff", "Discard") for m in legal if m["kind"] == k), None
        )
        if move is None:  # a move without cards (end the round)
            click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#actions button.move"))
            continue
        for card in move["cards"]:  # its cards, by rank (suits tell no Canasta move apart)
            hand = browser.find_elements(By.CSS_SELECTOR, ".seat.hand button.card:not(.selected)")
            next(b for b in hand if rank(b.get_attribute("data-card")) == rank(card)).click()
        if move["kind"] == "LayOff":
            target = browser.find_element(
                By.CSS_SELECTOR, f".meld.live[data-meld='{move['meld']}']"
            )
        else:
            buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button.move")
            target = next(b for b in buttons if b.get_attribute("data-action") == str(move["id"]))
        click_and_wait(browser, target)
        done.add(move["kind"])
    assert {"Discard"} <= done and len(done) >= 2
    screenshot(browser, artifacts / "web_play_canasta_later.png")
    assert console_errors(browser) == []
