"""PoliteClient against the real local test site: headers, limits, retries, robots, failures."""
from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from scraper.http import FetchError, parse_retry_after
from scraper.sources import SOURCES, USER_AGENT, intervals_for
from sitekit import FakeClock, TestSite, fast_client

SITE = Path(__file__).parent.parent / "fixtures" / "site"
JACE_RULINGS = "/scryfall/cards/02d6d693-f1f3-4317-bcc0-c21fa8490d38/rulings"
PHELD_RULINGS = "/scryfall/cards/d9631cb2-d53b-4401-b53b-29d27bdefc44/rulings"
VAULTSKIRGE = "/gatherer/Pages/Card/Details.aspx?multiverseid=217984"
CR_TXT = "/wizards-media/2024/downloads/MagicCompRules%2020240607.txt"


def test_sends_user_agent_accept_and_asks_robots_once(site: TestSite, fake_clock: FakeClock) -> None:
    with fast_client(fake_clock) as client:
        first = client.get(site.at(JACE_RULINGS), source="scryfall")
        client.get(site.at(PHELD_RULINGS), source="scryfall")
        client.get(site.at(VAULTSKIRGE), source="gatherer")
    assert first.status == 200
    assert first.content == (SITE / "scryfall/rulings-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json").read_bytes()
    assert site.paths() == ["/robots.txt", JACE_RULINGS, PHELD_RULINGS,
                            "/gatherer/Pages/Card/Details.aspx?multiverseid=217984"]
    for request in site.requests:
        assert request["headers"]["user-agent"] == USER_AGENT
        assert request["headers"]["accept-encoding"] == "gzip"
    accepts = [r["headers"]["accept"] for r in site.requests]
    assert accepts == [
        "text/plain,*/*;q=0.8",
        "application/json;q=0.9,*/*;q=0.8",
        "application/json;q=0.9,*/*;q=0.8",
        "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
    ]
    assert client.counters.snapshot() == {
        # The 404 body of robots.txt is never read.
        "requests": 4, "bytes_downloaded": 5981 + 208 + 41882,
        "not_modified": 0, "retries": 0, "failures": 0,
    }


def test_rate_limits_per_host_and_slow_path(site: TestSite, fake_clock: FakeClock) -> None:
    search = "/scryfall/cards/search?q=oracleid:d0e99535-0ea0-4aa5-99f5-6c5255b27c38+lang:any&unique=prints"
    with fast_client(fake_clock) as client:
        client.get(site.at(JACE_RULINGS), source="scryfall")   # robots.txt, then this
        client.get(site.at(PHELD_RULINGS), source="scryfall")
        client.get(site.at(search), source="scryfall")
        client.get(site.at(search), source="scryfall")
        client.get(site.at(VAULTSKIRGE), source="gatherer")
    # 100 ms between Scryfall API calls, 500 ms between two searches. Every source lives on
    # one test host here, so the Gatherer request only waits the 100 ms the last Scryfall call
    # set for that host; on the real hosts the table gives Gatherer its own 1 s:
    assert [round(s, 3) for s in fake_clock.sleeps] == [0.1, 0.1, 0.1, 0.5, 0.1]
    assert intervals_for("https://gatherer.wizards.com/x", SOURCES["gatherer"]) == [("gatherer.wizards.com", 1.0)]
    assert intervals_for("https://data.scryfall.io/rulings/x.json", SOURCES["scryfall"]) == [("data.scryfall.io", 0.05)]


def test_conditional_request_gives_304_without_body(site: TestSite, fake_clock: FakeClock) -> None:
    with fast_client(fake_clock) as client:
        first = client.get(site.at(VAULTSKIRGE), source="gatherer")
        second = client.get(site.at(VAULTSKIRGE), source="gatherer", etag=first.etag,
                            last_modified=first.last_modified)
        by_date = client.get(site.at(VAULTSKIRGE), source="gatherer", last_modified=first.last_modified)
    assert (second.status, second.not_modified, second.content) == (304, True, None)
    assert by_date.not_modified
    assert first.etag == '"d3766bad54a0bd5727a2bca315a14f25"'
    assert site.requests[2]["headers"]["if-none-match"] == first.etag
    assert site.requests[2]["headers"]["if-modified-since"] == "Tue, 20 Jan 2026 16:40:12 GMT"
    assert [r["bytes"] for r in site.requests[2:]] == [0, 0]
    assert client.counters.not_modified == 2


def test_429_with_retry_after_is_ridden_out(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "429", times=2, retry_after=7)
    with fast_client(fake_clock) as client:
        result = client.get(site.at(VAULTSKIRGE), source="gatherer")
    assert result.status == 200
    assert [r["status"] for r in site.requests_to(VAULTSKIRGE)] == [429, 429, 200]
    assert fake_clock.sleeps.count(7.0) == 2
    assert client.counters.retries == 2


def test_scryfall_429_locks_the_host_for_30_seconds(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(JACE_RULINGS, "429", times=1, retry_after=1)
    with fast_client(fake_clock) as client:
        client.get(site.at(JACE_RULINGS), source="scryfall")
        locked_at = fake_clock.now
        client.get(site.at(PHELD_RULINGS), source="scryfall")
    assert [r["status"] for r in site.requests] == [404, 429, 200, 200]
    # The retry waited out the whole 30 s lockout, not just the 1 s Retry-After.
    assert fake_clock.sleeps[:3] == [pytest.approx(0.1), 0.0, pytest.approx(30.0)]
    assert fake_clock.now - locked_at == pytest.approx(0.1)


def test_retry_after_as_http_date(site: TestSite, fake_clock: FakeClock) -> None:
    now = datetime(2026, 1, 20, 16, 40, 12, tzinfo=UTC)
    site.fail(VAULTSKIRGE, "503", retry_after=format_datetime(now + timedelta(seconds=12), usegmt=True))
    with fast_client(fake_clock, wallclock=lambda: now) as client:
        assert client.get(site.at(VAULTSKIRGE), source="gatherer").status == 200
    assert 12.0 in fake_clock.sleeps
    assert parse_retry_after("not a date", now) is None
    assert parse_retry_after("120", now) == 120.0


def test_retry_after_longer_than_we_wait_fails_the_document(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "429", retry_after=3600)
    with fast_client(fake_clock) as client, pytest.raises(FetchError) as caught:
        client.get(site.at(VAULTSKIRGE), source="gatherer")
    assert caught.value.url == site.at(VAULTSKIRGE)
    assert caught.value.reason == "HTTP 429; Retry-After 3600s is longer than we wait"
    assert fake_clock.slept < 10


def test_503_is_retried_with_exponential_backoff(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "503", times=3)
    with fast_client(fake_clock) as client:
        assert client.get(site.at(VAULTSKIRGE), source="gatherer").status == 200
    assert [r["status"] for r in site.requests_to(VAULTSKIRGE)] == [503, 503, 503, 200]
    # 1 s Gatherer spacing after robots.txt, then backoff 1, 2, 4 s (jitter 0); each backoff
    # already covers the 1 s spacing, so no extra waits.
    assert fake_clock.sleeps == [1.0, 1.0, 2.0, 4.0]


def test_503_forever_gives_a_clear_failure(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "503", times=None)
    with fast_client(fake_clock) as client, pytest.raises(FetchError) as caught:
        client.get(site.at(VAULTSKIRGE), source="gatherer")
    assert str(caught.value) == f"{site.at(VAULTSKIRGE)}: HTTP 503 (gave up after 5 attempts)"
    assert caught.value.status == 503
    assert len(site.requests_to(VAULTSKIRGE)) == 5
    assert client.counters.failures == 1


def test_timeout_is_retried_then_succeeds(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "slow", times=1, delay=1.0)
    with fast_client(fake_clock, timeout=0.3) as client:
        assert client.get(site.at(VAULTSKIRGE), source="gatherer").status == 200
    assert client.counters.retries == 1


def test_timeout_every_time_fails_after_the_budget(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "slow", times=None, delay=1.0)
    with fast_client(fake_clock, timeout=0.3, max_retries=1) as client, pytest.raises(FetchError) as caught:
        client.get(site.at(VAULTSKIRGE), source="gatherer")
    assert caught.value.reason == "timed out (ReadTimeout) (gave up after 2 attempts)"
    assert len(site.requests_to(VAULTSKIRGE)) == 2


def test_connection_reset_is_retried(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "reset", times=1)
    with fast_client(fake_clock) as client:
        assert client.get(site.at(VAULTSKIRGE), source="gatherer").status == 200
    assert [r["status"] for r in site.requests_to(VAULTSKIRGE)] == ["reset", 200]


def test_connection_reset_every_time_fails(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(VAULTSKIRGE, "reset", times=None)
    with fast_client(fake_clock, max_retries=2) as client, pytest.raises(FetchError) as caught:
        client.get(site.at(VAULTSKIRGE), source="gatherer")
    assert caught.value.reason.startswith("connection failed: ")
    assert caught.value.reason.endswith("(gave up after 3 attempts)")


def test_truncated_body_is_retried_then_failed(site: TestSite, fake_clock: FakeClock, tmp_path: Path) -> None:
    site.fail(CR_TXT, "truncate", times=None, fraction=0.5)
    dest = tmp_path / "cr.txt"
    with fast_client(fake_clock, max_retries=1) as client, pytest.raises(FetchError) as caught:
        client.get(site.at(CR_TXT), source="wizards-cr", dest=dest)
    assert caught.value.reason.startswith(
        "connection failed: peer closed connection without sending complete message body")
    assert "received 407900 bytes, expected 815801" in caught.value.reason
    assert caught.value.reason.endswith("(gave up after 2 attempts)")
    assert [r["bytes"] for r in site.requests_to(CR_TXT)] == [407900, 407900]


def test_a_body_that_trickles_in_is_given_up_as_stalled(site: TestSite, fake_clock: FakeClock, tmp_path: Path) -> None:
    """A byte every tenth of a second meets each read's timeout: the download held a refresh and
    its lock for days (an operator's review). Fewer than ``stall_bytes`` in ``stall_seconds``
    (16 KiB a minute by default) is a stall, tried again within the request's retries."""
    site.fail(CR_TXT, "trickle", times=None, size=1, every=0.05)
    started = time.monotonic()
    with fast_client(fake_clock, max_retries=1, stall_seconds=0.6, stall_bytes=1000) as client, \
            pytest.raises(FetchError) as caught:
        client.get(site.at(CR_TXT), source="wizards-cr", dest=tmp_path / "cr.txt")
    assert time.monotonic() - started < 5
    assert caught.value.reason.startswith("stalled: ")
    assert "fewer than 1000" in caught.value.reason and caught.value.reason.endswith("(gave up after 2 attempts)")
    assert len(site.requests_to(CR_TXT)) == 2
    # A body that keeps coming is not a stall, however slowly it began.
    site.reset()
    with fast_client(fake_clock, stall_seconds=0.6, stall_bytes=1000) as client:
        assert client.get(site.at(CR_TXT), source="wizards-cr", dest=tmp_path / "cr.txt").status == 200


def test_wrong_content_type_is_a_clear_failure_not_retried(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(JACE_RULINGS, "content-type", content_type="text/html; charset=utf-8")
    with fast_client(fake_clock) as client, pytest.raises(FetchError) as caught:
        client.get(site.at(JACE_RULINGS), source="scryfall", expect_types=("application/json",))
    assert str(caught.value) == (
        f"{site.at(JACE_RULINGS)}: unexpected content type 'text/html' (expected application/json)")
    assert len(site.requests_to(JACE_RULINGS)) == 1


def test_not_found_is_not_retried(site: TestSite, fake_clock: FakeClock) -> None:
    with fast_client(fake_clock) as client, pytest.raises(FetchError) as caught:
        client.get(site.at("/gatherer/nothing-here"), source="gatherer")
    assert (caught.value.reason, caught.value.status) == ("HTTP 404", 404)
    assert client.counters.retries == 0


def test_robots_disallow_is_honoured(site: TestSite, fake_clock: FakeClock) -> None:
    site.replace("/robots.txt", b"User-agent: mtg-rules-kb\nDisallow: /gatherer/\n\nUser-agent: *\nDisallow:\n")
    with fast_client(fake_clock) as client:
        with pytest.raises(FetchError) as caught:
            client.get(site.at(VAULTSKIRGE), source="gatherer")
        client.get(site.at(JACE_RULINGS), source="scryfall")
    assert caught.value.reason == f"disallowed by {site.base}/robots.txt"
    assert site.paths() == ["/robots.txt", JACE_RULINGS]


def test_unreachable_robots_keeps_us_out(site: TestSite, fake_clock: FakeClock) -> None:
    # Kept out, and the reason says the site did not answer (it said "disallowed by robots.txt",
    # sending an operator to look for a policy that was never there).
    site.fail("/robots.txt", "503", times=None)
    with fast_client(fake_clock, max_retries=1) as client, pytest.raises(FetchError) as caught:
        client.get(site.at(VAULTSKIRGE), source="gatherer")
    assert caught.value.reason.startswith(f"{site.base} unreachable (HTTP 503")
    assert caught.value.reason.endswith("; robots.txt could not be read")
    assert site.paths() == ["/robots.txt", "/robots.txt"]


def test_run_retry_budget_is_shared_across_documents(site: TestSite, fake_clock: FakeClock) -> None:
    site.fail(JACE_RULINGS, "503", times=None)
    site.fail(PHELD_RULINGS, "503", times=None)
    with fast_client(fake_clock, run_retry_budget=3) as client:
        with pytest.raises(FetchError, match=r"HTTP 503 \(gave up after 5 attempts\)|budget"):
            client.get(site.at(JACE_RULINGS), source="scryfall")
        with pytest.raises(FetchError) as second:
            client.get(site.at(PHELD_RULINGS), source="scryfall")
    assert second.value.reason == "HTTP 503 (retry budget of this run spent)"
    assert len(site.requests_to(JACE_RULINGS)) == 4
    assert len(site.requests_to(PHELD_RULINGS)) == 1


def test_gzip_encoded_body_is_decoded_and_streamed_to_file(site: TestSite, fake_clock: FakeClock, tmp_path: Path) -> None:
    url = site.at("/scryfall-data/rulings/rulings-20230404210031.json")
    dest = tmp_path / "rulings.json"
    with fast_client(fake_clock) as client:
        result = client.get(url, source="scryfall", dest=dest)
    served = SITE / "scryfall-data/constructed/rulings-20230404210031.json"
    assert result.headers["content-encoding"] == "gzip"
    assert result.content_length is None  # Content-Length counts gzip bytes: not comparable
    assert dest.read_bytes() == served.read_bytes()
    assert len(json.loads(dest.read_bytes())) == 56
    assert client.counters.bytes_downloaded < served.stat().st_size
