"""Any per-rule or per-card pages given by URL (community CR translations and the like)."""
from __future__ import annotations

from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore
from scraper.verify import text_verifier

SOURCE = "cr-page"


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """Every URL in ``page_urls`` (relative ones joined to ``base_url``); text or HTML only."""
    report = FetchReport.begin(SOURCE, client)
    for url in option_list(options, "page_urls"):
        fetch_document(
            client, store, report, join_url(base_url, url), source=SOURCE,
            lang=options.get("page_lang"), verify=text_verifier(),
            expect_types=("text/",), run_id=options.get("run_id"),
        )
    return report.end(client)
