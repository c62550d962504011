"""One fetcher per source, each ``fetch(client, store, base_url, options) -> FetchReport``.

``FETCHERS`` maps source names to those functions; ``scraper.fetch.run_fetch`` drives them.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scraper.fetchers import (
    cr_archive,
    cr_ko,
    cr_page,
    cr_zh,
    gatherer,
    mtgjson,
    scryfall,
    wizards_cr,
)
from scraper.fetchers.common import FetchReport
from scraper.http import PoliteClient
from scraper.rawstore import RawStore

Fetcher = Callable[[PoliteClient, RawStore, str, dict[str, Any]], FetchReport]

FETCHERS: dict[str, Fetcher] = {
    "wizards-cr": wizards_cr.fetch,
    "cr-archive": cr_archive.fetch,
    "scryfall": scryfall.fetch,
    "gatherer": gatherer.fetch,
    "mtgjson": mtgjson.fetch,
    "cr-zh": cr_zh.fetch,
    "cr-ko": cr_ko.fetch,
    "cr-page": cr_page.fetch,
}

__all__ = ["FETCHERS", "FetchReport", "Fetcher"]
