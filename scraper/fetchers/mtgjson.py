"""MTGJSON v5 set files ``{SET}.json``, checked against the published ``{SET}.json.sha256``.

The small ``.sha256`` file is fetched first: when it matches the body we already hold, the
set file (often MBs) is not requested at all; otherwise the download must match it."""
from __future__ import annotations

import re
from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore, sha256_verifier, text_verifier, verify_json

SOURCE = "mtgjson"
HEX_DIGEST = re.compile(r"\b([0-9a-fA-F]{64})\b")


def published_digest(text: str) -> str | None:
    """The hex digest in a ``.sha256`` file ("<hex>" or "<hex>  <name>")."""
    match = HEX_DIGEST.search(text)
    return match.group(1).lower() if match else None


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """Every set in ``mtgjson_sets`` (set codes, e.g. ``UGIN``)."""
    report = FetchReport.begin(SOURCE, client)
    run_id = options.get("run_id")
    for code in option_list(options, "mtgjson_sets"):
        set_url = join_url(base_url, f"{code}.json")
        digest_entry = fetch_document(
            client, store, report, set_url + ".sha256", source=SOURCE,
            verify=text_verifier(), run_id=run_id,
        )
        digest = published_digest(store.read_bytes(digest_entry).decode("ascii", "replace")) if digest_entry else None
        if digest is None:
            if digest_entry is not None:
                report.fail(set_url + ".sha256", "no sha256 hex digest in the file")
            continue
        held = store.latest_good(set_url)
        if held is not None and held.sha256 == digest:
            report.skipped += 1
            continue
        fetch_document(
            client, store, report, set_url, source=SOURCE,
            verify=sha256_verifier(digest, then=verify_json),
            expect_types=("application/json",), run_id=run_id,
        )
    return report.end(client)
