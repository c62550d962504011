"""Korean CR (youbeebee.net): the index ``/`` and the chapter pages ``/100`` … ``/900``."""
from __future__ import annotations

from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore
from scraper.verify import text_verifier

SOURCE = "cr-ko"
CHAPTERS = tuple(str(n) for n in range(100, 1000, 100))


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """The index and the chapters in ``cr_ko_chapters`` (default all nine)."""
    report = FetchReport.begin(SOURCE, client)
    chapters = option_list(options, "cr_ko_chapters") or list(CHAPTERS)
    targets = [(join_url(base_url, "/"), text_verifier())]
    # A chapter page carries its own section numbers ("100.1"); a stray 404 page does not.
    targets += [(join_url(base_url, f"/{chapter}"), text_verifier(f"{chapter}.")) for chapter in chapters]
    for url, verify in targets:
        fetch_document(
            client, store, report, url, source=SOURCE, lang="ko", verify=verify,
            expect_types=("text/",), run_id=options.get("run_id"),
        )
    return report.end(client)
