"""The default ``mtgkb refresh`` is the whole knowledge base: every source, every printing in every
language, with no manual import, against the local test site.

The site serves the real bulk listing of 2023 with its rulings, oracle_cards and all_cards files
(all_cards: 229 real printings in all 11 languages, see tests/fixtures/site/README.md), the real
Chinese CR of 2025-02-07, the real Korean chapter 100 and, as MTGJSON's AllPrintings, the real
UGIN set file wrapped the way AllPrintings wraps sets (constructed here, gzipped as published). German, French and Japanese keyword searches
then land on their English keyword's rule, from the dictionary mined from those printings.
"""
from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from kb.refresh.job import refresh
from kb.refresh.runs import RefreshResult
from kb.site.search import search
from scraper.rawstore import RawStore
from scraper.sources import DEFAULT_SOURCES
from sitekit import FakeClock, TestSite, fast_client

SITE = Path(__file__).parent.parent / "fixtures" / "site"
LISTING = "/scryfall/bulk-data"
ALL_CARDS = "/scryfall-data/all-cards/all-cards-20230404212042.json"
ALL_PRINTINGS = "/mtgjson/api/v5/AllPrintings.json.gz"
WICKED_GUARDIAN = "dda70e25-b3c5-444d-9dff-1366771bf881"


def serve_all_printings(site: TestSite) -> None:
    ugin = json.loads((SITE / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_text(encoding="utf-8"))
    wrapped = {"meta": ugin["meta"], "data": {ugin["data"]["code"]: ugin["data"]}}
    site.replace(ALL_PRINTINGS, gzip.compress(json.dumps(wrapped).encode("utf-8"), mtime=0), "application/gzip")


def run(site: TestSite, tmp_path: Path) -> RefreshResult:
    with fast_client(FakeClock()) as client:
        # The site holds the Korean index and chapter 100 only (the real recording).
        options: dict[str, Any] = {"client": client, "cr_ko_chapters": ["100"]}
        return refresh(tmp_path / "raw", tmp_path / "kb.db", base_urls=site.base_urls(),
                       fetch_options=options, progress=False)


def announce_all_cards(site: TestSite, stamp: str, body: bytes) -> str:
    """The 2023 listing naming an all_cards file of ``stamp`` (YYYYMMDDhhmmss), served with ``body``."""
    listing = (SITE / "scryfall" / "bulk-data-2023-04-04.json").read_text(encoding="utf-8")
    renamed = ALL_CARDS.replace("20230404212042", stamp)
    listing = listing.replace("all-cards-20230404212042", f"all-cards-{stamp}")
    when = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[8:10]}:{stamp[10:12]}:{stamp[12:14]}.642000Z"
    listing = listing.replace("2023-04-04T21:20:42.642000Z", when)
    site.replace(LISTING, listing.encode("utf-8"))
    site.replace(renamed, body, "application/json")
    return renamed


# Every source refreshed end to end, twice (7 s): `make proofs` and CI run it.
@pytest.mark.long_proof
def test_the_default_refresh_yields_every_language_and_skips_bodies_that_change_nothing_it_keeps(
    site: TestSite, tmp_path: Path
) -> None:
    assert set(DEFAULT_SOURCES) == {"wizards-cr", "cr-archive", "scryfall", "cr-zh", "cr-ko", "mtgjson"}
    serve_all_printings(site)
    first = run(site, tmp_path)
    assert (first.exit_code, first.status, first.failed_sources) == (0, "published", []), first.message
    paths = {request["path"] for request in site.requests}
    assert {ALL_CARDS, ALL_PRINTINGS, "/cr-ko/100"} <= paths

    db = sqlite_utils.Database(tmp_path / "kb.db")
    langs = [row["lang"] for row in db.query("select distinct lang from card_names order by lang")]
    assert langs == ["de", "en", "es", "fr", "it", "ja", "ko", "pt", "ru", "zhs", "zht"]
    printed = {row["lang"]: row["n"] for row in db.query("select lang, count(*) as n from printings group by lang")}
    # Scryfall's 229 printings (en 49, de 34, es 33, it 33, fr 32, ja 32, pt/ko/ru/zhs/zht 3-4)
    # and MTGJSON's 26 UGIN cards in English and in each of the ten other languages.
    assert printed == {"de": 60, "en": 75, "es": 59, "fr": 58, "it": 59, "ja": 58, "ko": 29, "pt": 30,
                       "ru": 29, "zhs": 29, "zht": 29}
    german = db.execute(
        "select oracle_id from card_names where lang = 'de' and name = 'Böse Stiefmutter'"
    ).fetchall()
    assert german == [(WICKED_GUARDIAN,)]
    versions = {row["lang"] for row in db.query("select lang from cr_versions")}
    assert {"en", "zhs", "ko"} <= versions
    # The keyword dictionary mined from those printed texts answers the one-box search in German,
    # French and Japanese: each term lands on its English keyword's rule.
    conn = sqlite3.connect(tmp_path / "kb.db")
    try:
        landed = {query: (best.title, best.url) if (best := search(conn, query).best) else None
                  for query in ("Weiterentwicklung", "Fliegend", "Évolution", "piétinement", "飛行", "トランプル")}
    finally:
        conn.close()
    assert landed == {
        "Weiterentwicklung": ("702.100 Evolve", "/rule/702.100"), "Fliegend": ("702.9 Flying", "/rule/702.9"),
        "Évolution": ("702.100 Evolve", "/rule/702.100"), "piétinement": ("702.19 Trample", "/rule/702.19"),
        "飛行": ("702.9 Flying", "/rule/702.9"), "トランプル": ("702.19 Trample", "/rule/702.19"),
    }

    # Scryfall announces the same all_cards bytes under a new dated name: fetched, not rebuilt.
    all_cards = (SITE / "scryfall-data" / "constructed" / ALL_CARDS.rsplit("/", 1)[1]).read_bytes()
    renamed = announce_all_cards(site, "20230405212042", all_cards)
    served = (tmp_path / "kb.db").read_bytes()
    seen = len(site.requests)
    second = run(site, tmp_path)
    assert renamed in {request["path"] for request in site.requests[seen:]}
    assert (second.exit_code, second.status, second.published) == (0, "unchanged", False), second.message
    assert second.message == "nothing changed: 10 documents as published"
    assert (tmp_path / "kb.db").read_bytes() == served
    # The first name's body is the same bytes as the input's: it stays.
    with RawStore(tmp_path / "raw") as store:
        first_body = store.latest_good(site.base + ALL_CARDS)
        assert first_body is not None and store.path_for(first_body.sha256).exists()

    # Twelve hours on, the file comes back with every printing's prices and rank changed (and
    # written out anew, without indentation): other bytes, nothing the knowledge base keeps. (A
    # change to what it keeps is a rebuild: the changed bulk rulings of tests/refresh/test_refresh.py;
    # what the digest follows and ignores: tests/build/test_kept_content.py.)
    printings = json.loads(all_cards)
    for printing in printings:
        printing["prices"] = {currency: None if price is None else f"{float(price) * 1.1:.2f}"
                              for currency, price in printing["prices"].items()}
        printing["edhrec_rank"] = (printing.get("edhrec_rank") or 0) + 1
    renamed = announce_all_cards(site, "20230406092042", json.dumps(printings).encode("utf-8"))
    seen = len(site.requests)
    third = run(site, tmp_path)
    assert renamed in {request["path"] for request in site.requests[seen:]}
    assert (third.exit_code, third.status, third.published) == (0, "unchanged", False), third.message
    assert third.message == (
        "nothing changed: 10 documents as published; fetched again with no change to what the knowledge"
        " base keeps (prices, ranks, build dates): 1 document"
    )
    assert (tmp_path / "kb.db").read_bytes() == served
    # The body it replaced (both earlier names) is removed after this clean run (the manifest
    # rows stay); the next refresh chooses its inputs as before and finds nothing to change.
    assert third.changes["removed_superseded_bodies"] == 1
    with RawStore(tmp_path / "raw") as store:
        assert not store.path_for(first_body.sha256).exists() and store.body_removed(first_body.sha256)
        newest = store.latest_good(site.base + renamed)
        assert newest is not None and store.path_for(newest.sha256).exists()
    fourth = run(site, tmp_path)
    assert (fourth.exit_code, fourth.status, fourth.message) == (0, "unchanged", "nothing changed: 10 documents as published")

    # A day on, one German printed name is changed: that name is the change counted, not every
    # record of the file, which comes under a new dated name (an operator's review: card_name_records
    # +266 -266; those rows belong to the document, whose key is its address).
    for printing in printings:
        if printing.get("printed_name") == "Böse Stiefmutter":
            printing["printed_name"] = "Böse Stiefmutter!"
    renamed = announce_all_cards(site, "20230407092042", json.dumps(printings).encode("utf-8"))
    fifth = run(site, tmp_path)
    assert (fifth.exit_code, fifth.status) == (0, "published"), fifth.message
    tables = fifth.changes["tables"]
    assert {name: {kind: tables[name][kind] for kind in ("added", "changed", "removed")}
            for name in ("card_name_records", "card_names")} == {
        "card_name_records": {"added": 1, "changed": 0, "removed": 1},
        "card_names": {"added": 1, "changed": 0, "removed": 1},
    }
