"""Every historical English CR edition from the public archive xremming/rulesraker, conditionally.

The archive (github.com/xremming/rulesraker, MIT) keeps each official CR text file Wizards
published since 2003 byte for byte as ``archive/txt/<date>.txt`` and lists them in
``archive/metadata.json``: ``FoundFiles`` holds ``{"Date", "Format", "File", "OriginalURL",
"Source", "Comment"}`` per file (``File`` relative to ``archive/``, e.g. ``txt/2003-10-01.txt``),
``KnownExistingDates`` every edition known to exist and ``KnownMissingDates`` (``{"Date", …}``)
the ones nobody has found. ``FoundFiles`` names only the text files found as text (43 of them in
2026); the archive converted the others (from .doc/.docx/.pdf/.rtf) into ``txt/<date>.txt`` too,
so the text file of every known, not-missing date is asked for. We GET the listing, then each
file with its validators, so a rerun costs one 304 per file.
"""
from __future__ import annotations

import json
from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore
from scraper.verify import text_verifier

SOURCE = "cr-archive"
LISTING = "metadata.json"
# Every CR text file, 1999 to now, says what it is near its top.
CR_TEXT_MARKER = "Comprehensive Rules"
LISTING_MARKER = '"FoundFiles"'


def archive_files(listing: dict[str, Any]) -> list[tuple[str, str]]:
    """(date, path under archive/) of every CR text file the listing promises, oldest first."""
    found = listing.get("FoundFiles")
    known = listing.get("KnownExistingDates")
    if not isinstance(found, list) or not isinstance(known, list):
        raise ValueError("metadata.json has no FoundFiles/KnownExistingDates lists (archive layout changed?)")
    missing = {str(item.get("Date")) for item in listing.get("KnownMissingDates") or [] if isinstance(item, dict)}
    paths = {str(date): f"txt/{date}.txt" for date in known if str(date) not in missing}
    for entry in found:
        if isinstance(entry, dict) and entry.get("Format") == "txt" and str(entry.get("File", "")).endswith(".txt"):
            paths[str(entry.get("Date"))] = str(entry["File"])
    return sorted(paths.items())


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """Fetch the archive listing at ``base_url``/metadata.json and every CR text file it names.

    Options: ``cr_archive_dates`` (only these dates, "YYYY-MM-DD"), ``limit`` (at most this many).
    """
    report = FetchReport.begin(SOURCE, client)
    run_id = options.get("run_id")
    listing_url = join_url(base_url, LISTING)
    entry = fetch_document(
        client, store, report, listing_url, source=SOURCE, lang="en",
        verify=text_verifier(LISTING_MARKER), accept="application/json,text/plain;q=0.9,*/*;q=0.5",
        run_id=run_id,
    )
    if entry is None:
        return report.end(client)
    try:
        files = archive_files(json.loads(store.read_bytes(entry)))
    except (ValueError, UnicodeDecodeError) as error:
        reason = f"unreadable archive listing: {error}"
        store.record_failure(listing_url + "#listing", source=SOURCE, lang="en", error=reason, run_id=run_id)
        report.fail(listing_url, reason)
        return report.end(client)
    wanted = set(option_list(options, "cr_archive_dates"))
    if wanted:
        files = [(date, path) for date, path in files if date in wanted]
    limit = options.get("limit")
    if limit:
        files = files[: int(limit)]
    for _date, path in files:
        fetch_document(
            client, store, report, join_url(base_url, path), source=SOURCE, lang="en",
            verify=text_verifier(CR_TEXT_MARKER), accept="text/plain,*/*;q=0.5",
            expect_types=("text/plain", "application/octet-stream"), run_id=run_id,
        )
    store.set_state(f"{SOURCE}:listing", {"sha256": entry.sha256, "files": len(files)})
    return report.end(client)
