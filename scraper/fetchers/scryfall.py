"""Scryfall: bulk files (rulings, oracle cards), per-card rulings, every printing of a card.

Bulk files are timestamped and change about twice a day, so the ``/bulk-data`` listing is
read first and a file is downloaded only when its ``updated_at`` or download URI changed
since the last fetch. Two listing shapes exist (docs/sources.md §2.3): the 2026+ one with
``jsonl_download_uri`` (gzipped JSON Lines) and the legacy one with ``download_uri`` (a JSON
array, served gzip-encoded); both are handled.
"""
from __future__ import annotations

import json
from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore
from scraper.verify import verify_json, verify_json_or_jsonl_gz

SOURCE = "scryfall"
# The list of bulk files, fetched to find them: never a document of its own.
LISTING_PATH = "/bulk-data"
# all_cards: every printing in every language (printed names, type lines and texts), ~2.4 GB
# uncompressed, streamed to disk and never held in memory.
DEFAULT_BULK_TYPES = ("rulings", "oracle_cards", "all_cards")
JSON_TYPES = ("application/json",)
# Bulk files: JSON (legacy) or gzip (JSON Lines); a text/html error page is neither.
BULK_TYPES = ("application/json", "application/gzip", "application/x-gzip",
              "application/octet-stream", "application/jsonl", "application/x-ndjson")
# A search for one card's printings is a few pages at most; stop a runaway next_page chain.
MAX_SEARCH_PAGES = 50


def bulk_download_uri(entry: dict[str, Any]) -> str | None:
    """The file to download for one ``bulk_data`` object, whichever shape the listing has."""
    return entry.get("jsonl_download_uri") or entry.get("download_uri")


def select_bulk_entries(listing: dict[str, Any], types: list[str]) -> dict[str, dict[str, Any]]:
    """``type`` → ``bulk_data`` object for the wanted types present in a ``/bulk-data`` list."""
    wanted = set(types)
    return {item["type"]: item for item in listing.get("data", []) if item.get("type") in wanted}


def search_url(base_url: str, oracle_id: str) -> str:
    """Every printing in every language of one oracle card (first page)."""
    # Built by hand: "+" must stay a literal separator, not become %2B.
    return join_url(base_url, f"/cards/search?q=oracleid%3A{oracle_id}+lang%3Aany&unique=prints")


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """Bulk files (``bulk_types``, default rulings + oracle_cards + all_cards; ``[]`` for none), then
    ``/cards/{id}/rulings`` for ``scryfall_ids`` and the printings search for ``oracle_ids``."""
    report = FetchReport.begin(SOURCE, client)
    run_id = options.get("run_id")
    bulk_types = options.get("bulk_types")
    types = list(DEFAULT_BULK_TYPES) if bulk_types is None else option_list(options, "bulk_types")
    if types:
        fetch_bulk(client, store, report, base_url, types, run_id)
    for card_id in option_list(options, "scryfall_ids"):
        fetch_document(
            client, store, report, join_url(base_url, f"/cards/{card_id}/rulings"),
            source=SOURCE, verify=verify_json, expect_types=JSON_TYPES, run_id=run_id,
        )
    for oracle_id in option_list(options, "oracle_ids"):
        fetch_search(client, store, report, search_url(base_url, oracle_id), run_id)
    return report.end(client)


def fetch_bulk(
    client: PoliteClient,
    store: RawStore,
    report: FetchReport,
    base_url: str,
    types: list[str],
    run_id: int | None,
) -> None:
    listing_url = join_url(base_url, LISTING_PATH)
    listing_entry = fetch_document(
        client, store, report, listing_url, source=SOURCE, verify=verify_json,
        expect_types=JSON_TYPES, run_id=run_id,
    )
    if listing_entry is None:
        return
    listing = json.loads(store.read_bytes(listing_entry))
    entries = select_bulk_entries(listing, types)
    for bulk_type in types:
        item = entries.get(bulk_type)
        uri = bulk_download_uri(item) if item else None
        if item is None or uri is None:
            reason = f"bulk type {bulk_type!r} has no download URI in {listing_url}"
            store.record_failure(f"{listing_url}#{bulk_type}", source=SOURCE, error=reason,
                                 run_id=run_id)
            report.fail(listing_url, reason)
            continue
        _fetch_bulk_file(client, store, report, bulk_type, item, uri, run_id)


def _fetch_bulk_file(
    client: PoliteClient,
    store: RawStore,
    report: FetchReport,
    bulk_type: str,
    item: dict[str, Any],
    uri: str,
    run_id: int | None,
) -> None:
    key = f"{SOURCE}:bulk:{bulk_type}"
    seen = {"updated_at": item.get("updated_at"), "uri": uri}
    if store.get_state(key) == seen and store.latest_good(uri) is not None:
        # Same build as last time: not even a conditional request.
        report.skipped += 1
        return
    entry = fetch_document(
        client, store, report, uri, source=SOURCE, verify=verify_json_or_jsonl_gz,
        accept="application/json,application/gzip;q=0.9,*/*;q=0.8",
        expect_types=BULK_TYPES, run_id=run_id,
    )
    if entry is not None:
        store.set_state(key, seen)


def fetch_search(
    client: PoliteClient, store: RawStore, report: FetchReport, first_url: str, run_id: int | None
) -> None:
    """Follow ``next_page`` verbatim (Scryfall normalises the query in it) until the end."""
    url: str | None = first_url
    visited: set[str] = set()
    while url and url not in visited and len(visited) < MAX_SEARCH_PAGES:
        visited.add(url)
        entry = fetch_document(
            client, store, report, url, source=SOURCE, verify=verify_json,
            expect_types=JSON_TYPES, run_id=run_id,
        )
        if entry is None:
            return
        page = json.loads(store.read_bytes(entry))
        url = page.get("next_page") if page.get("has_more") else None
    if url:
        report.fail(url, f"search pagination stopped after {len(visited)} pages (loop or too many)")
