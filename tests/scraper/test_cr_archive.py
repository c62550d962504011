"""The cr-archive fetcher through the local test site: listing, every text file, reruns, failures."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from scraper.fetch import DEFAULT_SOURCES, run_fetch
from scraper.fetchers import FetchReport
from scraper.fetchers.cr_archive import archive_files
from scraper.rawstore import RawStore
from sitekit import FakeClock, TestSite, fast_client

SITE = Path(__file__).parent.parent / "fixtures" / "site"
ARCHIVE = "/github-raw/xremming/rulesraker/two/archive"
DEFAULT_ARCHIVE = "/github-raw/xremming/rulesraker/main/archive"
FULL_ARCHIVE = "/github-raw/xremming/rulesraker/full/archive"


@pytest.fixture
def store(tmp_path: Path) -> RawStore:
    return RawStore(tmp_path / "raw")


def fetch(site: TestSite, store: RawStore, clock: FakeClock, base: str = ARCHIVE, **options: Any) -> FetchReport:
    client = fast_client(clock, timeout=2.0, max_retries=options.pop("max_retries", 2))
    with client:
        reports = run_fetch(["cr-archive"], store, {"cr-archive": site.at(base)}, {"client": client, **options},
                            progress=False)
    return reports["cr-archive"]


def counts(report: FetchReport) -> tuple[int, int, int, int]:
    return (report.requests, report.fetched, report.not_modified, report.failed)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_archive_files_of_the_real_listing() -> None:
    """The real metadata.json: 115 dates known to exist (4 more known missing), 43 found as text."""
    files = archive_files(json.loads((SITE / "cr-archive" / "metadata.json").read_bytes()))
    assert len(files) == 115
    assert files[0] == ("2003-03-15", "txt/2003-03-15.txt")
    assert "2017-09-29" not in dict(files)  # a known missing edition is not asked for
    assert all(path == f"txt/{date}.txt" for date, path in files)


def test_archive_files_refuses_another_layout() -> None:
    with pytest.raises(ValueError, match="layout changed"):
        archive_files({"files": []})


def test_fetch_listing_and_every_file(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock)
    assert counts(report) == (4, 3, 0, 0)  # and robots.txt
    assert site.paths() == [
        "/robots.txt", f"{ARCHIVE}/metadata.json", f"{ARCHIVE}/txt/2003-03-15.txt", f"{ARCHIVE}/txt/2009-10-01.txt",
    ]
    bodies = {e.url.removeprefix(site.at(ARCHIVE)): e.sha256 for e in store.entries()}
    assert bodies["/txt/2003-03-15.txt"] == sha(SITE / "cr-archive" / "txt" / "2003-03-15.txt")
    assert bodies["/txt/2009-10-01.txt"] == sha(SITE / "cr-archive" / "txt" / "2009-10-01.txt")
    assert {e.source for e in store.entries()} == {"cr-archive"}


def test_rerun_is_conditional(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    fetch(site, store, fake_clock)
    again = fetch(site, store, fake_clock)
    assert counts(again) == (4, 0, 3, 0)
    assert all(r["headers"].get("if-none-match") for r in site.requests[-3:])


def test_only_some_dates_of_the_full_listing(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    report = fetch(site, store, fake_clock, base=FULL_ARCHIVE, cr_archive_dates=["2003-03-15"])
    assert counts(report) == (3, 2, 0, 0)


def test_missing_file_is_a_failure_the_others_still_fetched(
    site: TestSite, store: RawStore, fake_clock: FakeClock
) -> None:
    report = fetch(site, store, fake_clock, base=FULL_ARCHIVE, cr_archive_dates=["2003-03-15", "2003-07-01"])
    assert (report.fetched, report.failed) == (2, 1)
    assert report.failures[0][0].endswith("/txt/2003-07-01.txt")


def test_a_page_that_is_not_a_cr_is_refused(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    site.replace(f"{ARCHIVE}/txt/2009-10-01.txt", b"<html>Rate limit exceeded</html>", "text/plain")
    report = fetch(site, store, fake_clock)
    assert (report.fetched, report.failed) == (2, 1)
    assert "marker" in report.failures[0][1]


def test_cr_archive_is_a_default_source(site: TestSite, store: RawStore, fake_clock: FakeClock) -> None:
    assert "cr-archive" in DEFAULT_SOURCES
    # The site's default listing names no file (so refresh tests see only the rules page's CR).
    report = fetch(site, store, fake_clock, base=DEFAULT_ARCHIVE)
    assert counts(report) == (2, 1, 0, 0)
