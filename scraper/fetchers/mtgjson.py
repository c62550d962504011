"""MTGJSON v5 files, each checked against its published ``.sha256`` first: set files ``{SET}.json``
(``mtgjson_sets``) or, by default, ``AllPrintings.json.gz``, every card of every set with its
names and texts in every language MTGJSON knows (a second source of foreign data).

The small ``.sha256`` file is fetched first: when it matches the body we already hold, the
file (AllPrintings: ~100 MB gzipped) is not requested at all; otherwise the download must match
it. The body is streamed to disk and stored as published (gzipped); the build streams it too."""
from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore
from scraper.verify import Verifier, VerifyError, sha256_verifier, text_verifier, verify_json

SOURCE = "mtgjson"
HEX_DIGEST = re.compile(r"\b([0-9a-fA-F]{64})\b")
ALL_PRINTINGS = "AllPrintings.json.gz"
GZIP_TYPES = ("application/gzip", "application/x-gzip", "application/octet-stream")


def published_digest(text: str) -> str | None:
    """The hex digest in a ``.sha256`` file ("<hex>" or "<hex>  <name>")."""
    match = HEX_DIGEST.search(text)
    return match.group(1).lower() if match else None


def verify_json_gz(path: Path) -> None:
    """A gzipped JSON document: the gzip stream intact and the JSON complete (streamed)."""
    import ijson

    try:
        with gzip.open(path, "rb") as handle:
            for _ in ijson.parse(handle):
                pass
    except (OSError, EOFError, ijson.JSONError, ijson.IncompleteJSONError, UnicodeDecodeError) as exc:
        raise VerifyError(f"not a complete gzipped JSON document: {exc}") from None


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """Every set in ``mtgjson_sets`` (set codes, e.g. ``UGIN``); AllPrintings when none are given."""
    report = FetchReport.begin(SOURCE, client)
    run_id = options.get("run_id")
    sets = option_list(options, "mtgjson_sets")
    files: list[tuple[str, Verifier, tuple[str, ...]]] = (
        [(f"{code}.json", verify_json, ("application/json",)) for code in sets]
        if sets else [(ALL_PRINTINGS, verify_json_gz, GZIP_TYPES)]
    )
    for name, verify, types in files:
        fetch_checked(client, store, report, join_url(base_url, name), verify, types, run_id)
    return report.end(client)


def fetch_checked(
    client: PoliteClient, store: RawStore, report: FetchReport, url: str, verify: Verifier,
    types: tuple[str, ...], run_id: int | None,
) -> None:
    """``url.sha256`` first; the file itself only when we do not hold a body with that digest."""
    digest_entry = fetch_document(
        client, store, report, url + ".sha256", source=SOURCE, verify=text_verifier(), run_id=run_id,
    )
    digest = published_digest(store.read_bytes(digest_entry).decode("ascii", "replace")) if digest_entry else None
    if digest is None:
        if digest_entry is not None:
            report.fail(url + ".sha256", "no sha256 hex digest in the file")
        return
    held = store.latest_good(url)
    if held is not None and held.sha256 == digest:
        report.skipped += 1
        return
    fetch_document(
        client, store, report, url, source=SOURCE, verify=sha256_verifier(digest, then=verify),
        expect_types=types, run_id=run_id,
    )
