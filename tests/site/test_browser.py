"""The site in a real browser: Playwright driving Debian's Chromium against `mtgkb serve`.

Screenshots of the home, card and rule pages go to tests/artifacts/ (ignored by git).
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

import pytest

from site_databases import JACE, PHELDDAGRIF, built_hostile_db, built_snapshot_db

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
MTGKB = Path(sys.executable).with_name("mtgkb")

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium", allow_module_level=True)
playwright_api = pytest.importorskip("playwright.sync_api")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_answering(url: str, process: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"mtgkb serve exited with {process.returncode}: {process.stderr.read()}")
        try:
            with urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except (URLError, ConnectionError, OSError):
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {seconds}s")


def serve(db_path: Path) -> Iterator[str]:
    port = free_port()
    command = [str(MTGKB), "serve", "--db", str(db_path), "--port", str(port), "--host", "127.0.0.1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(base + "/", process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    yield from serve(built_snapshot_db())


@pytest.fixture(scope="module")
def hostile_site() -> Iterator[str]:
    yield from serve(built_hostile_db())


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    context.close()


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=False)


def search_from_home(page, site: str, query: str) -> None:
    page.goto(site + "/")
    box = page.locator("#kb-q")
    box.fill(query)
    with page.expect_navigation():
        box.press("Enter")


def test_russian_name_lands_on_jace_with_16_rulings(page, site: str) -> None:
    page.goto(site + "/")
    screenshot(page, "home.png")
    search_from_home(page, site, "Джейс, Гений из Врина")
    assert page.url == f"{site}/card/{JACE}"
    assert page.locator("h1").inner_text() == "Jace, Vryn's Prodigy // Jace, Telepath Unbound"
    assert page.locator("li.kb-ruling").count() == 16
    assert page.locator("#ruling-count").inner_text() == "16"
    screenshot(page, "card.png")


def test_german_page_rulings_not_yet_linked(page, site: str) -> None:
    search_from_home(page, site, "Tödliches Komplott")
    assert page.locator("h1").inner_text() == "Tödliches Komplott"
    assert page.locator("li.kb-ruling").count() == 11
    assert "Not yet linked to an Oracle card" in page.locator("#not-linked").inner_text()
    screenshot(page, "card-unlinked.png")


def test_spanish_keyword_shows_rule_with_spanish_beside_english(page, site: str) -> None:
    search_from_home(page, site, "conspirar")
    with page.expect_navigation():
        page.locator("a.kb-best").click()
    assert page.url == f"{site}/rule/702.78#lang-es"
    assert page.locator("h1").inner_text() == "702.78 Conspire"
    row = page.locator('tr[id="r-702.78a"]')
    english = row.locator('td[lang="en"]').inner_text()
    spanish = row.locator('td[lang="es"]').inner_text()
    assert "Conspire is a keyword that represents two abilities." in english
    assert "Conspirar es una palabra clave que representa dos habilidades." in spanish
    # Side by side: the Spanish cell starts on the same line as the English one, to its right.
    english_box = row.locator('td[lang="en"]').bounding_box()
    spanish_box = row.locator('td[lang="es"]').bounding_box()
    assert spanish_box["y"] == english_box["y"] and spanish_box["x"] > english_box["x"]
    screenshot(page, "rule.png")


def test_rule_number_lands_on_the_subrule(page, site: str) -> None:
    search_from_home(page, site, "702.78a")
    assert page.url == f"{site}/rule/702.78a"
    assert page.locator("h1").inner_text().startswith("702.78a")
    assert "Conspire is a keyword" in page.locator('tr[id="r-702.78a"] td[lang="en"]').inner_text()


def test_chinese_keyword_finds_the_chinese_rule(page, site: str) -> None:
    search_from_home(page, site, "协力")
    assert "702.78 协力" in page.locator(".kb-group-rules").inner_text()
    with page.expect_navigation():
        page.locator("a.kb-best").click()
    assert page.url == f"{site}/rule/702.78#lang-zhs"
    chinese = page.locator('tr[id="r-702.78"] td[lang="zhs"]').inner_text()
    assert "协力" in chinese
    screenshot(page, "rule-zhs.png")


def test_script_in_a_ruling_renders_as_text(page, hostile_site: str) -> None:
    page.goto(f"{hostile_site}/card/{PHELDDAGRIF}")
    assert page.title() != "pwned"
    texts = page.locator(".kb-ruling-text").all_inner_texts()
    assert any("<script>document.title='pwned'</script>" in text for text in texts)
    assert page.locator(".kb-ruling-text script").count() == 0
    assert page.locator(".sym.sym-tap").count() == 1
    screenshot(page, "card-hostile.png")
