"""Simplified Chinese CR from HeliumOctahelide/magic-comp-rules-zh-cn (raw GitHub files).

Per version YYYYMMDD: ``plain_text/<v>_Zh.txt``, ``plain_text/<v>_En.txt`` (line-aligned) and
``scripts/<v>.json`` (the pre-aligned bilingual tree)."""
from __future__ import annotations

import re
from typing import Any

from scraper.fetchers.common import FetchReport, fetch_document, join_url, option_list
from scraper.http import PoliteClient
from scraper.rawstore import RawStore
from scraper.verify import Verifier, text_verifier, verify_json

SOURCE = "cr-zh"
VERSION = re.compile(r"^\d{8}$")
# Rule numbers stay Western in the translation, so "100.1" marks a CR in either language.
CR_MARKER = "100.1"
# Versions the repository is known to publish, fetched when none are named.
KNOWN_VERSIONS = ("20250207",)


def version_files(version: str) -> list[tuple[str, str, Verifier]]:
    """(path, lang, verifier) of the three files published for one version."""
    return [
        (f"plain_text/{version}_Zh.txt", "zhs", text_verifier(CR_MARKER)),
        (f"plain_text/{version}_En.txt", "en", text_verifier(CR_MARKER)),
        (f"scripts/{version}.json", "zhs", verify_json),
    ]


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """The files of every version in ``cr_zh_versions`` (YYYYMMDD; default ``KNOWN_VERSIONS``)."""
    report = FetchReport.begin(SOURCE, client)
    for version in option_list(options, "cr_zh_versions") or list(KNOWN_VERSIONS):
        if not VERSION.match(version):
            report.fail(version, f"version {version!r} is not YYYYMMDD")
            continue
        for path, lang, verify in version_files(version):
            # raw.githubusercontent.com serves everything as text/plain; JSON included.
            fetch_document(
                client, store, report, join_url(base_url, path), source=SOURCE, lang=lang,
                verify=verify, expect_types=("text/plain", "application/json"),
                run_id=options.get("run_id"),
            )
    return report.end(client)
