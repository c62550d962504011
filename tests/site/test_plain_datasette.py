"""The plugin is the whole site: plain ``datasette kb.db`` (no template dir, static mount or metadata
file) serves the home page, rule pages, the stylesheet, the column descriptions and the canned queries,
exactly as a ``datasette publish`` deployment with this package installed would."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from datasette.app import DEFAULT_SETTINGS, Datasette

from kb.site.serve import SETTINGS
from site_databases import free_port, wait_until_serving


@pytest.fixture(scope="module")
def plain_datasette(snapshot_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # A bare command line, run from an empty folder so nothing of the checkout is found by accident.
    cwd = tmp_path_factory.mktemp("elsewhere")
    (cwd / "kb.db").symlink_to(snapshot_db)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "datasette", "serve", "-i", "kb.db", "--port", str(port)],
        cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until_serving(base, server)
    yield base
    server.terminate()
    server.wait(10)


def test_home_page_and_stylesheet(plain_datasette: str) -> None:
    home = httpx.get(plain_datasette + "/")
    assert home.status_code == 200
    assert 'name="q"' in home.text
    assert "/-/static-plugins/mtg-rules-kb/kb.css" in home.text
    css = httpx.get(plain_datasette + "/-/static-plugins/mtg-rules-kb/kb.css")
    assert css.status_code == 200
    assert css.headers["content-type"].startswith("text/css")
    # The vendored Mana font (mana-font 1.18.0) and its stylesheet come with the package.
    assert "/-/static-plugins/mtg-rules-kb/mana.css" in home.text
    mana = httpx.get(plain_datasette + "/-/static-plugins/mtg-rules-kb/mana.css")
    assert mana.status_code == 200 and 'url("mana.woff2?v=1.18.0") format("woff2")' in mana.text
    font = httpx.get(plain_datasette + "/-/static-plugins/mtg-rules-kb/mana.woff2")
    assert font.status_code == 200 and font.content[:4] == b"wOF2"


def test_rule_page(plain_datasette: str) -> None:
    page = httpx.get(plain_datasette + "/rule/702.78")
    assert page.status_code == 200
    heading = page.text.split("<h1", 1)[1].split("</h1>", 1)[0]
    assert "702.78" in heading and "Conspire" in heading


def test_metadata_and_canned_queries_come_from_the_plugin(plain_datasette: str) -> None:
    metadata = httpx.get(plain_datasette + "/-/metadata.json").json()
    database = metadata["databases"]["kb"]
    assert "rule_by_number" in database["queries"]
    assert database["tables"]["rules"]["columns"]["number"]
    rows = httpx.get(
        plain_datasette + "/kb/rule_by_number.json", params={"number": "702.78", "version": "", "_shape": "array"}
    ).json()
    assert rows[0]["number"] == "702.78" and rows[0]["title"] == "Conspire"
    assert [row["number"] for row in rows[1:3]] == ["702.78a", "702.78b"]


def test_plain_datasette_serves_with_the_settings_of_mtgkb_serve(plain_datasette: str) -> None:
    # Without them every table page of a full-size database tried each column as a facet (a rulings
    # page took 2.4-3.2 s, a records page 3.3-4.4 s at 1M rulings; 20-30 ms under `mtgkb serve`).
    settings = httpx.get(plain_datasette + "/-/settings.json").json()
    assert {name: settings[name] for name in SETTINGS} == SETTINGS
    table = httpx.get(plain_datasette + "/kb/rulings.json", params={"_size": 1}).json()
    assert table["suggested_facets"] == []


async def test_a_setting_given_to_datasette_is_kept_and_ours_can_be_turned_off() -> None:
    given = Datasette(settings={"sql_time_limit_ms": 3000, "suggest_facets": True})
    await given.invoke_startup()
    # Datasette's default for suggest_facets is on: given so, it cannot be told from no setting.
    assert given.setting("sql_time_limit_ms") == 3000 and given.setting("suggest_facets") is False
    assert given.setting("facet_time_limit_ms") == SETTINGS["facet_time_limit_ms"]
    datasettes_own = Datasette(metadata={"plugins": {"mtgkb": {"settings": False}}})
    await datasettes_own.invoke_startup()
    assert {name: datasettes_own.setting(name) for name in SETTINGS} == {name: DEFAULT_SETTINGS[name] for name in SETTINGS}
