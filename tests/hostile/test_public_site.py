"""The hostile catalogue, the public site: SQL that would allocate or return too much, hostile values
in the data (a ``javascript:`` document URL, an Oracle id with a quote), error pages, headers.

The database is built here from a constructed rulings file whose snapshot manifest gives it a
``javascript:`` URL, plus one ruling whose Oracle id carries a ``"`` and a control character.
"""
from __future__ import annotations

import json
import re
import shutil
import sqlite3
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from urllib.parse import quote

import pytest
from kit import ROOT

from kb.build.inputs import snapshot_inputs
from kb.build.publish import build_database
from site_databases import make_datasette

RULINGS = ROOT / "tests/fixtures/constructed/rulings-lethal-scheme.json"
ORACLE = "00000000-0000-4000-8000-00000000c0de"
ODD_ORACLE = "00000000-0000-4000-8000-0000000000dd"


@pytest.fixture(scope="module")
def hostile_site_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-site")
    snapshot = folder / "snapshot"
    snapshot.mkdir()
    shutil.copy(RULINGS, snapshot / "rulings.json")
    odd = {"object": "list", "has_more": False, "data": [{
        "object": "ruling", "oracle_id": ODD_ORACLE, "source": "wotc",
        "published_at": "2026-01-01", "comment": "A ruling whose card id carries a quote.",
    }]}
    (snapshot / "odd.json").write_text(json.dumps(odd), encoding="utf-8")
    (snapshot / "manifest.json").write_text(json.dumps([
        {"path": "rulings.json", "source": "scryfall", "url": "javascript:alert(document.cookie)", "format": "scryfall-rulings"},
        {"path": "odd.json", "source": "scryfall", "url": "https://api.scryfall.com/odd", "format": "scryfall-rulings"},
    ]), encoding="utf-8")
    db = folder / "kb.db"
    build_database(snapshot_inputs(snapshot), db)
    # An import refuses an oracle id that is not a UUID (tests/hostile/test_inputs.py); the pages
    # must still be safe whatever a database holds, so the id is changed in the built file.
    with sqlite3.connect(db) as conn:
        conn.execute("update rulings set oracle_id = ? where oracle_id = ?", ('x" onload="alert(1)\x1b', ODD_ORACLE))
    return db


@pytest.fixture(scope="module")  # one instance: each new one compiles every template again
def ds(hostile_site_db: Path):
    return make_datasette(hostile_site_db)


async def sql(ds, query: str):
    return await ds.client.get(f"/{ds.get_database().name}.json?sql={quote(query)}")


async def test_one_query_cannot_allocate_a_gigabyte(ds) -> None:
    started = time.monotonic()
    response = await sql(ds, "select length(randomblob(900000000))")
    assert response.status_code == 400
    assert "too big" in response.json()["error"]
    assert time.monotonic() - started < 5


async def test_one_query_cannot_return_a_hundred_megabytes(ds) -> None:
    response = await sql(ds, "with recursive n(i) as (select 1 union all select i + 1 from n limit 1000) select zeroblob(3000000) from n")
    assert response.status_code == 400
    assert "larger than 16 MB" in response.json()["error"]


@pytest.mark.long_proof
async def test_a_runaway_query_is_stopped_by_the_time_limit(ds) -> None:
    response = await sql(ds, "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n")
    assert response.status_code == 400
    assert "too long" in response.text.lower() or "interrupted" in response.text.lower()


async def test_attach_is_refused(ds) -> None:
    response = await sql(ds, "select * from pragma_database_list")
    assert response.status_code == 200  # reading is fine; ATTACH is capped at 0 databases
    ds_conn = ds.get_database().connect()
    ds._prepare_connection(ds_conn, ds.get_database().name)
    with pytest.raises(Exception, match="too many attached"):
        ds_conn.execute("attach database ':memory:' as other")


async def test_a_javascript_document_url_is_never_a_link(ds) -> None:
    response = await ds.client.get(f"/card/{ORACLE}")
    assert response.status_code == 200
    assert "javascript:alert" in response.text  # shown, as text
    assert not re.search(r"href=\"\s*javascript:", response.text, re.I)


async def test_the_feed_is_well_formed_whatever_the_ids(ds) -> None:
    response = await ds.client.get("/changes.atom")
    assert response.status_code == 200
    feed = ElementTree.fromstring(response.text)
    links = [link.get("href") for link in feed.iter("{http://www.w3.org/2005/Atom}link")]
    assert any("%22" in (href or "") for href in links), links


async def test_security_headers_on_every_response(ds) -> None:
    for path in ("/", f"/card/{ORACLE}", f"/{ds.get_database().name}/rulings", "/nothing-here", "/changes.atom"):
        response = await ds.client.get(path)
        assert "default-src 'self'" in response.headers["content-security-policy"], path
        assert response.headers["x-content-type-options"] == "nosniff", path


@pytest.mark.parametrize("path", ["/\\evil.example/", "/\\/evil.example/", "/%5Cevil.example/", "/%09/evil.example/"])
async def test_no_redirect_leaves_the_site(ds, path: str) -> None:
    """Datasette 0.65.5 answers a path ending in "/" with a redirect to the path without it:
    "/\\evil.example/" went to "/\\evil.example", which browsers read as "//evil.example", another
    site (simonw/datasette#2680; a review's fuzz). Such a redirect stays on this site."""
    response = await ds.client.get(path)
    location = response.headers.get("location", "")
    if location:
        browser_reads = location.replace("\\", "/").replace("\t", "").replace("\n", "").replace("\r", "")
        assert browser_reads.startswith("/") and not browser_reads.startswith("//"), (path, location)


@pytest.mark.parametrize("path", ["/nothing-here", "/kb-nothing/rulings", "/{db}/no_such_table", "/{db}/rulings/999999999", "/{db}/rulings.json?_sort=nope"])
async def test_missing_things_stay_404_or_400_never_500(ds, path: str, capfd: pytest.CaptureFixture[str]) -> None:
    response = await ds.client.get(path.format(db=ds.get_database().name))
    assert response.status_code in (400, 404), (path, response.status_code)
    assert len(capfd.readouterr().err) < 2000


async def test_a_bad_search_is_an_error_without_a_traceback_in_the_log(ds, capfd: pytest.CaptureFixture[str]) -> None:
    response = await ds.client.get(f"/{ds.get_database().name}/rulings?_search=" + quote('"unbalanced AND ('))
    assert response.status_code in (200, 400)
    logged = capfd.readouterr().err
    assert "Traceback" not in logged and "locals" not in logged
    assert len(logged) < 2000


async def test_a_row_asked_by_too_few_key_values_is_not_found(ds) -> None:
    """A table keyed by several columns asked for a row by fewer values answered 500 ("You did
    not supply a value for binding parameter :p1", Datasette's own): monitoring saw an outage where
    a client asked for nothing there (the SQL user's review). Now 404, as a row not there is."""
    name = ds.get_database().name
    for path in (f"/{name}/ruling_sightings/1.json", f"/{name}/card_names/x.json", f"/{name}/card_names/x"):
        response = await ds.client.get(path)
        assert response.status_code == 404, path
    assert (await ds.client.get(f"/{name}/ruling_sightings/1.json")).json()["error"] == "Record not found"
