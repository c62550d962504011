"""Gatherer card pages, given by URL: old ``Pages/Card/Details.aspx?multiverseid=N`` or new
``/{SET}/{locale}/{number}/{slug}``. Gatherer publishes no limits, so 1 request/s applies."""
from __future__ import annotations

from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore
from scraper.verify import text_verifier

SOURCE = "gatherer"
# Old and new Gatherer pages alike name the site; an error page from elsewhere does not.
PAGE_MARKER = "gatherer"


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """Every page in ``gatherer_urls`` (absolute, or paths relative to ``base_url``)."""
    report = FetchReport.begin(SOURCE, client)
    for url in option_list(options, "gatherer_urls"):
        fetch_document(
            client, store, report, join_url(base_url, url), source=SOURCE,
            verify=text_verifier(PAGE_MARKER), expect_types=("text/html",),
            run_id=options.get("run_id"),
        )
    return report.end(client)
