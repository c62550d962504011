"""Every fetcher through the local test site: exact requests, manifest rows, failures, reruns."""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scraper.cli import fetch as fetch_command
from scraper.fetch import run_fetch
from scraper.fetchers import FetchReport
from scraper.fetchers.scryfall import bulk_download_uri, select_bulk_entries
from scraper.fetchers.wizards_cr import find_cr_links
from scraper.rawstore import RawStore
from scraper.sources import USER_AGENT
from sitekit import FakeClock, TestSite, fast_client, route_key

SITE = Path(__file__).parent.parent / "fixtures" / "site"
RULES = "/wizards/en/rules"
CR_TXT = "/wizards-media/2024/downloads/MagicCompRules 20240607.txt"
CR_0218_SHA = "bdbea16a244c0705b5a3456e8433115af059845336e60e5788d06a5dad216ab4"
CR_0429_SHA = "602a62e817a609706a6b11e4fd263cad46ab6dda7a46affb7d3ba827cebc13bb"
JACE_CARD = "02d6d693-f1f3-4317-bcc0-c21fa8490d38"
JACE_ORACLE = "594f6881-c059-46f8-aa4e-7151d502de73"
PHELD_ORACLE = "d0e99535-0ea0-4aa5-99f5-6c5255b27c38"
JACE_PAGE2 = (
    "/scryfall/cards/search?format=json&include_extras=false&include_multilingual=false"
    "&include_variations=false&order=released&page=2"
    f"&q=oracleid:{JACE_ORACLE}+lang:any&unique=prints"
)
LEGACY_RULINGS = "/scryfall-data/rulings/rulings-20230404210031.json"
LEGACY_ORACLE = "/scryfall-data/oracle-cards/oracle-cards-20230404210321.json"
LEGACY_ALL_CARDS = "/scryfall-data/all-cards/all-cards-20230404212042.json"
JSONL_RULINGS = "/scryfall-data/rulings/rulings-20260728210037.jsonl.gz"
JSONL_ORACLE = "/scryfall-data/oracle-cards/oracle-cards-20260908090157.jsonl.gz"
NEW_SHAPE_LISTING = SITE / "spare" / "constructed" / "bulk-data-2026-shape.json"
UGIN_SHA = "529c2eb311c8411a5f543d80ba128e84b7c603d146e5fb363785d13a4ca1fec0"


@pytest.fixture
def store(tmp_path: Path) -> RawStore:
    return RawStore(tmp_path / "raw")


def fetch(site: TestSite, store: RawStore, clock: FakeClock, sources: list[str],
          **options: Any) -> dict[str, FetchReport]:
    client = fast_client(clock, timeout=options.pop("timeout", 2.0),
                         max_retries=options.pop("max_retries", 4))
    with client:
        return run_fetch(sources, store, site.base_urls(), {"client": client, **options}, progress=False)


def rows(site: TestSite, store: RawStore) -> list[tuple[Any, ...]]:
    """Manifest rows with the site's address cut off the URLs."""
    return [(e.url.removeprefix(site.base), e.status, e.http_status, e.sha256, e.size)
            for e in store.entries()]


def counts(report: FetchReport) -> tuple[int, int, int, int, int]:
    return (report.requests, report.fetched, report.not_modified, report.skipped, report.failed)


# --- wizards-cr --------------------------------------------------------------------------------


def test_find_cr_links_on_the_real_rules_page() -> None:
    html = (SITE / "wizards/rules-page-2024-06.html").read_text(encoding="utf-8")
    assert find_cr_links(html, "https://magic.wizards.com/en/rules") == {
        "txt": "https://media.wizards.com/2024/downloads/MagicCompRules%2020240607.txt",
        "pdf": "https://media.wizards.com/2024/downloads/MagicCompRules%2020240607.pdf",
        "docx": "https://media.wizards.com/2024/downloads/MagicCompRules%2020240607.docx",
    }


def test_find_cr_links_tolerates_relative_and_2022_naming() -> None:
    html = (
        '<a class="cta" href="https://magic.wizards.com/en/magic-gameplay">Learn the basics</a>'
        '<a class="cta" href="//media.wizards.com/2022/downloads/Comprehensive Rules 20221007.txt">TXT</a>'
        '<a href="/docs/Other Thing.pdf">PDF</a>'
        '<a href="../2022/downloads/MagicCompRules 20221007.pdf"><span>PDF</span></a>'
    )
    assert find_cr_links(html, "https://magic.wizards.com/en/rules") == {
        "txt": "https://media.wizards.com/2022/downloads/Comprehensive%20Rules%2020221007.txt",
        "pdf": "https://magic.wizards.com/2022/downloads/MagicCompRules%2020221007.pdf",
    }
    assert find_cr_links("<p>no links</p>", "https://magic.wizards.com/en/rules") == {}


def test_wizards_cr_happy_path_then_conditional_rerun(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["wizards-cr"])["wizards-cr"]
    assert counts(report) == (3, 2, 0, 0, 0)
    assert site.paths() == ["/robots.txt", RULES, CR_TXT]
    cr_request = site.requests[2]
    assert cr_request["path"] == "/wizards-media/2024/downloads/MagicCompRules%2020240607.txt"
    assert cr_request["headers"]["user-agent"] == USER_AGENT
    assert cr_request["headers"]["accept"] == "text/plain,*/*;q=0.5"
    assert "if-none-match" not in cr_request["headers"]
    page_sha = store.latest_good(site.at(RULES)).sha256
    assert rows(site, store) == [
        (RULES, "fetched", 200, page_sha, 119961),
        ("/wizards-media/2024/downloads/MagicCompRules%2020240607.txt", "fetched", 200, CR_0218_SHA, 815801),
    ]
    assert store.latest_good(site.at(RULES)).content_type == "text/html; charset=utf-8"
    assert store.get_state("wizards-cr:txt")["url"] == site.at("/wizards-media/2024/downloads/MagicCompRules%2020240607.txt")

    site.reset()
    again = fetch(site, store, fake_clock, ["wizards-cr"])["wizards-cr"]
    assert counts(again) == (3, 0, 2, 0, 0)
    assert again.bytes == 0
    assert [r["status"] for r in site.requests] == [404, 304, 304]
    assert all("if-none-match" in r["headers"] for r in site.requests[1:])
    assert [r[1] for r in rows(site, store)] == ["fetched", "fetched", "not-modified", "not-modified"]


def test_wizards_cr_switch_to_a_new_cr(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    fetch(site, store, fake_clock, ["wizards-cr"])
    site.replace(CR_TXT, SITE / "spare" / "MagicCompRules-2022-04-29.txt")
    report = fetch(site, store, fake_clock, ["wizards-cr"])["wizards-cr"]
    assert counts(report) == (3, 1, 1, 0, 0)
    assert report.bytes == 823137
    (page, cr) = store.latest_documents("wizards-cr")
    assert (cr.sha256, cr.size) == (CR_0429_SHA, 823137)
    assert store.path_for(CR_0218_SHA).exists()


def test_every_cr_text_file_a_rules_page_links_is_fetched(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    """A page linking the new release's file and the one before had its second one never asked
    for, in silence (an operator's review): each is a CR edition. (The page is the recorded one
    with a link added; the second file is the spare 2022-04-29 edition.)"""
    page = (SITE / "wizards/rules-page-2024-06.html").read_text(encoding="utf-8")
    previous = "/wizards-media/2024/downloads/MagicCompRules 20240206.txt"
    added = '<a href="https://media.wizards.com/2024/downloads/MagicCompRules%2020240206.txt">Previous (TXT)</a>'
    site.replace(RULES, page.replace("</body>", added + "</body>").encode("utf-8"), "text/html; charset=utf-8")
    site.replace(previous, SITE / "spare" / "MagicCompRules-2022-04-29.txt", "text/plain")
    report = fetch(site, store, fake_clock, ["wizards-cr"])["wizards-cr"]
    assert counts(report) == (4, 3, 0, 0, 0)
    assert site.paths() == ["/robots.txt", RULES, CR_TXT, previous]
    assert {entry.sha256 for entry in store.latest_documents("wizards-cr")} >= {CR_0218_SHA, CR_0429_SHA}
    # The page's first file stays the one it points at.
    assert store.get_state("wizards-cr:txt")["url"] == site.at(CR_TXT.replace(" ", "%20"))
    # A further file gone (a dead "Previous" link) is recorded, not a failure of the source: it
    # made every run exit 2 and stopped the raw store's pruning (a second operator's review).
    site.fail(previous, "status", times=None, status=404)
    again = fetch(site, store, fake_clock, ["wizards-cr"])["wizards-cr"]
    assert (again.failed, again.ok) == (0, True)
    assert store.history(site.at(previous.replace(" ", "%20")))[-1].status == "failed"


def test_truncated_cr_keeps_the_earlier_good_document(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    fetch(site, store, fake_clock, ["wizards-cr"])
    site.replace(CR_TXT, SITE / "spare" / "MagicCompRules-2022-04-29.txt")
    site.fail(CR_TXT, "truncate", times=None, fraction=0.25)
    report = fetch(site, store, fake_clock, ["wizards-cr"], max_retries=1)["wizards-cr"]
    cr_url = site.at("/wizards-media/2024/downloads/MagicCompRules%2020240607.txt")
    assert counts(report) == (4, 0, 1, 0, 1)
    assert report.failures[0][0] == cr_url
    assert "received 205784 bytes, expected 823137" in report.failures[0][1]
    assert store.latest_good(cr_url).sha256 == CR_0218_SHA
    assert [e.status for e in store.history(cr_url)] == ["fetched", "failed"]


def test_changed_layout_is_a_clear_failure_naming_the_page(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.replace(RULES, b"<html><body><h2>Comprehensive Rules</h2><p>Coming soon.</p></body></html>")
    report = fetch(site, store, fake_clock, ["wizards-cr"])["wizards-cr"]
    assert counts(report) == (2, 1, 0, 0, 1)
    assert report.failures == [(site.at(RULES), f"no CR TXT link found on {site.at(RULES)} (page layout changed?)")]
    assert site.paths() == ["/robots.txt", RULES]
    assert store.runs()[0]["status"] == "partial"


def test_rules_page_with_wrong_content_type_fails_clearly(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.fail(RULES, "content-type", content_type="application/octet-stream")
    report = fetch(site, store, fake_clock, ["wizards-cr"])["wizards-cr"]
    assert report.failures == [(site.at(RULES),
                                "unexpected content type 'application/octet-stream' (expected text/html)")]
    assert store.latest_documents() == []
    assert store.runs()[0]["status"] == "failed"


# --- scryfall ----------------------------------------------------------------------------------


def test_bulk_listing_legacy_shape(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["scryfall"])["scryfall"]
    # By default every printing in every language too (all_cards), beside rulings and Oracle cards.
    assert counts(report) == (5, 4, 0, 0, 0)
    assert site.paths() == ["/robots.txt", "/scryfall/bulk-data", LEGACY_RULINGS, LEGACY_ORACLE, LEGACY_ALL_CARDS]
    assert len(json.loads(store.read_bytes(store.latest_good(site.at(LEGACY_ALL_CARDS))))) == 229
    rulings = store.latest_good(site.at(LEGACY_RULINGS))
    # Served gzip-encoded; stored decoded, as the JSON array itself.
    assert store.read_bytes(rulings) == (SITE / "scryfall-data/constructed/rulings-20230404210031.json").read_bytes()
    assert len(json.loads(store.read_bytes(rulings))) == 56
    assert store.get_state("scryfall:bulk:rulings") == {
        "updated_at": "2023-04-04T21:00:31.996000Z", "uri": site.at(LEGACY_RULINGS)}

    site.reset()
    again = fetch(site, store, fake_clock, ["scryfall"])["scryfall"]
    # Listing unchanged (304) and the bulk files' updated_at unchanged: no bulk request at all.
    assert counts(again) == (2, 0, 1, 3, 0)
    assert again.bytes == 0
    assert site.paths() == ["/robots.txt", "/scryfall/bulk-data"]


def test_bulk_listing_current_jsonl_shape(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    fetch(site, store, fake_clock, ["scryfall"], bulk_types=["rulings"])
    site.reset()
    site.replace("/scryfall/bulk-data", NEW_SHAPE_LISTING)
    # This listing was written from the two descriptors SOURCES.md quotes: it has no all_cards.
    report = fetch(site, store, fake_clock, ["scryfall"], bulk_types=["rulings", "oracle_cards"])["scryfall"]
    assert counts(report) == (4, 3, 0, 0, 0)
    assert site.paths() == ["/robots.txt", "/scryfall/bulk-data", JSONL_RULINGS, JSONL_ORACLE]
    entry = store.latest_good(site.at(JSONL_RULINGS))
    assert entry.content_type == "application/gzip"
    lines = gzip.decompress(store.read_bytes(entry)).decode().splitlines()
    assert len(lines) == 56
    assert json.loads(lines[0])["object"] == "ruling"
    assert store.get_state("scryfall:bulk:rulings") == {
        "updated_at": "2026-07-28T21:00:37.000+00:00", "uri": site.at(JSONL_RULINGS)}


def test_bulk_entry_selection_reads_either_uri() -> None:
    legacy = json.loads((SITE / "scryfall/bulk-data-2023-04-04.json").read_text())
    current = json.loads(NEW_SHAPE_LISTING.read_text())
    wanted = ["rulings", "oracle_cards"]
    assert {t: bulk_download_uri(e) for t, e in select_bulk_entries(legacy, wanted).items()} == {
        "oracle_cards": "https://data.scryfall.io/oracle-cards/oracle-cards-20230404210321.json",
        "rulings": "https://data.scryfall.io/rulings/rulings-20230404210031.json",
    }
    assert {t: bulk_download_uri(e) for t, e in select_bulk_entries(current, wanted).items()} == {
        "oracle_cards": "https://data.scryfall.io/oracle-cards/oracle-cards-20260908090157.jsonl.gz",
        "rulings": "https://data.scryfall.io/rulings/rulings-20260728210037.jsonl.gz",
    }


def test_bulk_type_missing_from_listing_fails_that_type_only(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["scryfall"], bulk_types=["rulings", "art_crops"])["scryfall"]
    assert counts(report) == (3, 2, 0, 0, 1)
    assert report.failures == [(site.at("/scryfall/bulk-data"),
                                f"bulk type 'art_crops' has no download URI in {site.at('/scryfall/bulk-data')}")]


def test_rulings_by_card_id_and_search_pagination(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["scryfall"], bulk_types=[],
                   scryfall_ids=[JACE_CARD], oracle_ids=[JACE_ORACLE, PHELD_ORACLE])["scryfall"]
    assert counts(report) == (5, 4, 0, 0, 0)
    assert site.paths() == [route_key(path) for path in [
        "/robots.txt",
        f"/scryfall/cards/{JACE_CARD}/rulings",
        f"/scryfall/cards/search?q=oracleid:{JACE_ORACLE}+lang:any&unique=prints",
        JACE_PAGE2,
        f"/scryfall/cards/search?q=oracleid:{PHELD_ORACLE}+lang:any&unique=prints",
    ]]
    # The first search is sent exactly so; page 2 is requested verbatim as next_page gave it.
    assert site.requests[2]["path"] == f"/scryfall/cards/search?q=oracleid%3A{JACE_ORACLE}+lang%3Aany&unique=prints"
    assert site.requests[3]["path"] == (
        "/scryfall/cards/search?format=json&include_extras=false&include_multilingual=false"
        "&include_variations=false&order=released&page=2"
        f"&q=oracleid%3A{JACE_ORACLE}+lang%3Aany&unique=prints")
    printings = []
    for entry in store.latest_documents("scryfall")[1:3]:
        printings += json.loads(store.read_bytes(entry))["data"]
    assert len(printings) == 16
    assert sorted({card["lang"] for card in printings}) == ["de", "en", "es", "fr", "it", "ja", "ko", "pt", "ru", "zhs", "zht"]
    rulings = store.latest_good(site.at(f"/scryfall/cards/{JACE_CARD}/rulings"))
    assert (rulings.sha256, rulings.size) == ("015dc11e19e7e760ec60345be79017cbdade585fccac7813fe3fafdcd2afe56c", 5981)


def test_search_page_failure_is_reported_and_stops_that_search(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.fail(JACE_PAGE2, "503", times=None)
    report = fetch(site, store, fake_clock, ["scryfall"], bulk_types=[], oracle_ids=[JACE_ORACLE],
                   max_retries=1)["scryfall"]
    assert counts(report) == (4, 1, 0, 0, 1)
    assert report.failures[0][1] == "HTTP 503 (gave up after 2 attempts)"


def test_scryfall_429_during_a_run_is_ridden_out(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.fail(f"/scryfall/cards/{JACE_CARD}/rulings", "429", times=1, retry_after=2)
    report = fetch(site, store, fake_clock, ["scryfall"], bulk_types=[], scryfall_ids=[JACE_CARD])["scryfall"]
    assert counts(report) == (3, 1, 0, 0, 0)
    assert fake_clock.slept >= 30.0
    assert fake_clock.slept < 31.0


# --- the other sources -------------------------------------------------------------------------


def test_gatherer_pages_old_style(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["gatherer"], gatherer_urls=[
        "Pages/Card/Details.aspx?multiverseid=217984",
        site.at("/gatherer/Pages/Card/Details.aspx?multiverseid=263789"),
    ])["gatherer"]
    assert counts(report) == (3, 2, 0, 0, 0)
    assert rows(site, store)[0] == (
        "/gatherer/Pages/Card/Details.aspx?multiverseid=217984", "fetched", 200,
        "d3766bad54a0bd5727a2bca315a14f2513f0851c5a4a65ec68072a3c2c684155", 41882)
    # Gatherer gets at most one request a second.
    assert fake_clock.sleeps == [1.0, 1.0]


def test_gatherer_robots_disallow(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.replace("/robots.txt", b"User-agent: *\nDisallow: /gatherer/Pages/\n")
    report = fetch(site, store, fake_clock, ["gatherer"],
                   gatherer_urls=["Pages/Card/Details.aspx?multiverseid=217984"])["gatherer"]
    url = site.at("/gatherer/Pages/Card/Details.aspx?multiverseid=217984")
    assert report.failures == [(url, f"disallowed by {site.base}/robots.txt")]
    assert site.paths() == ["/robots.txt"]
    assert [(e.status, e.error) for e in store.history(url)] == [("failed", f"disallowed by {site.base}/robots.txt")]


def test_mtgjson_checks_sha256_first(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["mtgjson"], mtgjson_sets=["UGIN"])["mtgjson"]
    assert counts(report) == (3, 2, 0, 0, 0)
    assert site.paths() == ["/robots.txt", "/mtgjson/api/v5/UGIN.json.sha256", "/mtgjson/api/v5/UGIN.json"]
    assert store.latest_good(site.at("/mtgjson/api/v5/UGIN.json")).sha256 == UGIN_SHA
    site.reset()
    again = fetch(site, store, fake_clock, ["mtgjson"], mtgjson_sets=["UGIN"])["mtgjson"]
    # The .sha256 is unchanged (304) and matches what we hold: the set file is not requested.
    assert counts(again) == (2, 0, 1, 1, 0)
    assert site.paths() == ["/robots.txt", "/mtgjson/api/v5/UGIN.json.sha256"]


def test_mtgjson_download_not_matching_its_sha256_is_rejected(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.replace("/mtgjson/api/v5/UGIN.json.sha256", b"0" * 64 + b"\n", content_type="text/plain")
    report = fetch(site, store, fake_clock, ["mtgjson"], mtgjson_sets=["UGIN"])["mtgjson"]
    assert report.failures == [(site.at("/mtgjson/api/v5/UGIN.json"),
                                f"sha256 {UGIN_SHA} does not match the published {'0' * 64}")]
    assert store.latest_good(site.at("/mtgjson/api/v5/UGIN.json")) is None
    # The digest published late (a code review): the body, unchanged (304), is checked again and kept.
    site.replace("/mtgjson/api/v5/UGIN.json.sha256", UGIN_SHA.encode() + b"\n", content_type="text/plain")
    again = fetch(site, store, fake_clock, ["mtgjson"], mtgjson_sets=["UGIN"])["mtgjson"]
    assert again.failures == [] and site.requests_to("/mtgjson/api/v5/UGIN.json")[-1]["status"] == 304
    assert store.latest_good(site.at("/mtgjson/api/v5/UGIN.json")).sha256 == UGIN_SHA


def test_cr_zh_version_files(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["cr-zh"], cr_zh_versions=["20250207", "2025-02-07"])["cr-zh"]
    assert counts(report) == (4, 3, 0, 0, 1)
    prefix = "/github-raw/HeliumOctahelide/magic-comp-rules-zh-cn/master"
    assert site.paths()[1:] == [f"{prefix}/plain_text/20250207_Zh.txt", f"{prefix}/plain_text/20250207_En.txt",
                                f"{prefix}/scripts/20250207.json"]
    assert [(e.lang, e.size) for e in store.latest_documents("cr-zh")] == [
        ("zhs", 862098), ("en", 930771), ("zhs", 2584354)]
    assert report.failures == [("2025-02-07", "version '2025-02-07' is not YYYYMMDD")]


def test_cr_ko_chapters(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["cr-ko"], cr_ko_chapters=["100", "200"])["cr-ko"]
    assert counts(report) == (4, 2, 0, 0, 1)
    assert site.paths() == ["/robots.txt", "/cr-ko/", "/cr-ko/100", "/cr-ko/200"]
    assert report.failures == [(site.at("/cr-ko/200"), "HTTP 404")]
    assert [e.lang for e in store.latest_documents("cr-ko")] == ["ko", "ko"]


def test_cr_page_any_url(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, ["cr-page"], page_urls=["es/reglas/702.78"], page_lang="es")["cr-page"]
    assert counts(report) == (2, 1, 0, 0, 0)
    (entry,) = store.latest_documents("cr-page")
    assert (entry.url, entry.lang, entry.size) == (site.at("/pages/es/reglas/702.78"), "es", 2786)


# --- the run and the command -------------------------------------------------------------------


def test_run_is_recorded_and_one_failure_does_not_stop_others(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.fail(RULES, "503", times=None)
    reports = fetch(site, store, fake_clock, ["wizards-cr", "gatherer"], max_retries=1,
                    gatherer_urls=["Pages/Card/Details.aspx?multiverseid=1496"])
    assert counts(reports["wizards-cr"]) == (3, 0, 0, 0, 1)
    assert counts(reports["gatherer"]) == (1, 1, 0, 0, 0)
    (run,) = store.runs()
    assert run["status"] == "partial"
    assert run["details"]["wizards-cr"]["failures"] == [[site.at(RULES), "HTTP 503 (gave up after 2 attempts)"]]
    assert run["details"]["gatherer"]["fetched"] == 1


def test_cli_exit_codes(site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The command builds its own client: give it the fake clock so 1 request/s costs nothing.
    monkeypatch.setattr("scraper.fetch.PoliteClient", lambda **kwargs: fast_client(**kwargs))
    runner = CliRunner()
    raw = str(tmp_path / "raw")
    base = ["--raw", raw, "--base-url", f"gatherer={site.url('gatherer')}", "--timeout", "2"]
    ok = runner.invoke(fetch_command, ["gatherer", *base,
                                       "--gatherer-url", "Pages/Card/Details.aspx?multiverseid=1496"])
    assert ok.exit_code == 0, ok.output
    some = runner.invoke(fetch_command, ["gatherer", *base,
                                         "--gatherer-url", "Pages/Card/Details.aspx?multiverseid=1496",
                                         "--gatherer-url", "Pages/Card/Details.aspx?multiverseid=999"])
    assert some.exit_code == 2
    # One line: "Error:", each URL with its reason (it was the URLs alone, without the prefix).
    assert some.stderr.strip() == f"Error: failed: {site.at('/gatherer/Pages/Card/Details.aspx?multiverseid=999')} (HTTP 404)"
    none = runner.invoke(fetch_command, ["gatherer", *base,
                                         "--gatherer-url", "Pages/Card/Details.aspx?multiverseid=999",
                                         "--gatherer-url", "Pages/Card/Details.aspx?multiverseid=998"])
    assert none.exit_code == 1
    # Each source's first failure, and how many more: a host down made one line of 4 KB.
    assert none.stderr.strip() == (f"Error: failed: {site.at('/gatherer/Pages/Card/Details.aspx?multiverseid=999')}"
                                   " (HTTP 404); and 1 more (mtgkb runs --json lists them)")
    bad = runner.invoke(fetch_command, ["gatherer", "--raw", raw, "--base-url", "nowhere=http://x"])
    assert bad.exit_code == 2 and "expected SOURCE=URL" in bad.output
    with RawStore(Path(raw)) as store:
        assert [run["status"] for run in store.runs()] == ["ok", "partial", "failed"]


def test_a_failed_fetch_says_why_in_one_line_on_stderr(site: TestSite, tmp_path: Path) -> None:
    """CONTRACT.md: "non-zero with a one-line reason on stderr". The log's INFO and WARNING lines
    came before the reason (a newcomer's review); run as the operator runs it, not under pytest's
    log capture. Each source's summary is on stdout."""
    import os
    import subprocess
    import sys

    site.fail(RULES, "status", times=None, status=404)
    done = subprocess.run(
        [sys.executable, "-c", "from kb.cli import cli; cli()", "fetch", "wizards-cr", "--raw", str(tmp_path / "raw"),
         "--base-url", f"wizards-cr={site.url('wizards-cr')}", "--timeout", "5"],
        capture_output=True, text=True, cwd=Path(__file__).parent.parent.parent, env={**os.environ}, timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [f"Error: failed: {site.at(RULES)} (HTTP 404)"]
    assert done.stdout.splitlines() == ["wizards-cr: 2 requests, 0 fetched, 0 not modified, 0 skipped, 1 failed, 0 bytes"]


def test_the_help_names_the_sources_and_bulk_files_fetched_by_default() -> None:
    """It named three sources and two bulk files: a fetch with --base-url for those three went
    to the real hosts for the other three (an operator's review)."""
    from scraper.fetch import DEFAULT_SOURCES
    from scraper.fetchers.scryfall import DEFAULT_BULK_TYPES

    shown = " ".join(CliRunner().invoke(fetch_command, ["--help"]).output.split())
    assert " ".join(DEFAULT_SOURCES) in shown
    assert f"(default: {', '.join(DEFAULT_BULK_TYPES)})" in shown


def test_cli_takes_page_urls_after_their_source(site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("scraper.fetch.PoliteClient", lambda **kwargs: fast_client(**kwargs))
    raw = tmp_path / "raw"
    page = site.url("cr-page").rstrip("/") + "/es/reglas/702.78"
    result = CliRunner().invoke(fetch_command, ["cr-page", page, "--raw", str(raw), "--timeout", "2"])
    assert result.exit_code == 0, result.output
    with RawStore(raw) as store:
        (entry,) = store.latest_documents("cr-page")
    assert entry.url == page
    bad = CliRunner().invoke(fetch_command, ["wizards-cr", page, "--raw", str(raw)])
    assert bad.exit_code == 2 and "wizards-cr takes no URLs" in bad.output
    unknown = CliRunner().invoke(fetch_command, ["nonsense", "--raw", str(raw)])
    assert unknown.exit_code == 2 and "neither a source" in unknown.output


def test_a_body_rejected_and_unchanged_since_is_asked_for_conditionally(
        site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    """An operator's review: a bulk file cut at source was downloaded in full again on every run
    (393 MB for all_cards, every six hours) though it had not changed. Its validators are kept: a
    304 fails as the body failed, and a changed body is fetched again."""
    good = (SITE / "scryfall-data/constructed/rulings-20230404210031.json").read_bytes()
    site.replace(LEGACY_RULINGS, good[: len(good) // 2], "application/json")
    first = fetch(site, store, fake_clock, ["scryfall"], bulk_types=["rulings"])["scryfall"]
    url = site.at(LEGACY_RULINGS)
    assert [reason for failed, reason in first.failures if failed == url] == ["not valid JSON: parse error: premature EOF"]
    again = fetch(site, store, fake_clock, ["scryfall"], bulk_types=["rulings"])["scryfall"]
    request = site.requests_to(LEGACY_RULINGS)[-1]
    # By its ETag alone: its date would also match an older good body a server rolled back to.
    assert request["status"] == 304 and "if-none-match" in request["headers"]
    assert "if-modified-since" not in request["headers"]
    [reason] = [reason for failed, reason in again.failures if failed == url]
    assert reason.startswith("unchanged since its body was rejected (") and "not valid JSON" in reason
    assert store.latest_good(url) is None
    site.replace(LEGACY_RULINGS, good, "application/json")
    fixed = fetch(site, store, fake_clock, ["scryfall"], bulk_types=["rulings"])["scryfall"]
    assert fixed.failures == [] and store.read_bytes(store.latest_good(url)) == good
    assert store.get_state("rejected-body:" + url) is None
