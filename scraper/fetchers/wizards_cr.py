"""Official English CR: GET the rules page, find the CR TXT link on it, download it conditionally.

The page (magic.wizards.com/en/rules) links the CR as TXT, PDF and DOCX; the hrefs carry a
literal space ("MagicCompRules 20240607.txt") and share class ``cta`` with unrelated links, so
links are chosen by file extension and name, never by class (docs/sources.md §1.2–1.4).
"""
from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from bs4 import BeautifulSoup

from scraper.fetchers.common import FetchReport, fetch_document, option_list
from scraper.http import PoliteClient
from scraper.rawstore import ManifestEntry, RawStore
from scraper.verify import decode_text, text_verifier

log = logging.getLogger(__name__)

SOURCE = "wizards-cr"
EXTENSIONS = ("txt", "pdf", "docx")
# "MagicCompRules 20240607.txt", "MagicCompRules_20120720.txt", and the one-off 2022-10-07
# "Comprehensive Rules 20221007.txt".
CR_FILE_NAME = re.compile(r"magic\s*comp\s*rules|comprehensive[\s_]*rules", re.IGNORECASE)
# Every CR since 2003 has rule 100.1; a page of another kind served under the TXT URL has not.
CR_TEXT_MARKER = "100.1"
EXPECTED_TYPES = {
    "txt": ("text/plain",),
    "pdf": ("application/pdf",),
    "docx": ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",),
}
RULES_PAGE_MARKER = "Comprehensive Rules"


def find_cr_links(html: str, page_url: str) -> dict[str, str]:
    """The CR download links on a rules page: extension → absolute, request-ready URL.

    Links are recognised by extension (txt/pdf/docx) and preferably by a CR-like file name;
    relative and protocol-relative hrefs are resolved against ``page_url``; spaces and other
    characters unsafe in a URL are percent-encoded. Extensions not linked are absent.
    """
    links = {}
    for extension, candidates in _linked_files(html, page_url).items():
        # A CR-named file wins over any other document of the same type linked from the page.
        preferred = [url for named, url in candidates if named] or [url for _, url in candidates]
        links[extension] = preferred[0]
    return links


def more_cr_links(html: str, page_url: str, extension: str) -> list[str]:
    """The CR-named files of ``extension`` a rules page links after the first: a page linking
    this release's file and the one before ("Previous: …20240607.txt") had its second one never
    fetched, in silence (an operator's review). Each is a CR edition: all are fetched."""
    named = [url for is_named, url in _linked_files(html, page_url).get(extension, []) if is_named]
    return list(dict.fromkeys(named))[1:]


def _linked_files(html: str, page_url: str) -> dict[str, list[tuple[bool, str]]]:
    """Each extension's linked files in page order: (named like a CR file, absolute URL)."""
    soup = BeautifulSoup(html, "html.parser")
    by_extension: dict[str, list[tuple[bool, str]]] = {}
    for anchor in soup.find_all("a", href=True):
        href = str(anchor["href"]).strip()
        extension = _extension(href)
        if extension not in EXTENSIONS:
            continue
        url = urljoin(page_url, _encode_unsafe(href))
        named_like_cr = bool(CR_FILE_NAME.search(_file_name(href)))
        by_extension.setdefault(extension, []).append((named_like_cr, url))
    return by_extension


def _encode_unsafe(href: str) -> str:
    # Keep reserved characters and existing %XX escapes; encode spaces and the like.
    return quote(href, safe=":/?#[]@!$&'()*+,;=%~")


def _file_name(href: str) -> str:
    path = urlsplit(href).path
    return path.rsplit("/", 1)[-1].replace("%20", " ")


def _extension(href: str) -> str:
    name = _file_name(href)
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def fetch(client: PoliteClient, store: RawStore, base_url: str, options: dict[str, Any]) -> FetchReport:
    """Fetch the rules page at ``base_url`` and the CR files it links (TXT unless told)."""
    report = FetchReport.begin(SOURCE, client)
    run_id = options.get("run_id")
    page = fetch_document(
        client, store, report, base_url, source=SOURCE, lang="en",
        verify=text_verifier(RULES_PAGE_MARKER), expect_types=("text/html",), run_id=run_id,
    )
    if page is not None:
        html = decode_text(store.read_bytes(page))
        links = find_cr_links(html, base_url)
        for extension in option_list(options, "wizards_formats") or ["txt"]:
            _fetch_linked_file(client, store, report, base_url, links, extension, run_id)
            for url in more_cr_links(html, base_url, extension):
                # A further file (an earlier release's): its failure is recorded in the store and
                # logged, but does not fail the source, whose file is the first one: a dead
                # "Previous" link made every run exit 2 and stopped the raw store's pruning (a
                # second operator's review).
                further = FetchReport(SOURCE)
                _fetch_cr_file(client, store, further, url, extension, run_id)
                report.fetched += further.fetched
                report.not_modified += further.not_modified
                for failed_url, reason in further.failures:
                    log.warning("%s: %s (a further CR file %s links; not a failure of the source)",
                                failed_url, reason, base_url)
    return report.end(client)


def _fetch_linked_file(
    client: PoliteClient,
    store: RawStore,
    report: FetchReport,
    page_url: str,
    links: dict[str, str],
    extension: str,
    run_id: int | None,
) -> None:
    url = links.get(extension)
    if url is None:
        # A changed layout: say so plainly rather than fetching nothing in silence.
        reason = f"no CR {extension.upper()} link found on {page_url} (page layout changed?)"
        store.record_failure(page_url + f"#cr-{extension}", source=SOURCE, lang="en",
                             error=reason, run_id=run_id)
        report.fail(page_url, reason)
        return
    previous = store.get_state(f"{SOURCE}:{extension}")
    entry = _fetch_cr_file(client, store, report, url, extension, run_id)
    if entry is not None:
        # Remember which file the page pointed at: a new URL means a new CR release.
        store.set_state(f"{SOURCE}:{extension}", {
            "url": url, "sha256": entry.sha256,
            "previous_url": (previous or {}).get("url"),
        })


def _fetch_cr_file(
    client: PoliteClient, store: RawStore, report: FetchReport, url: str, extension: str, run_id: int | None,
) -> ManifestEntry | None:
    return fetch_document(
        client, store, report, url, source=SOURCE, lang="en",
        verify=text_verifier(CR_TEXT_MARKER) if extension == "txt" else None,
        accept=f"{EXPECTED_TYPES[extension][0]},*/*;q=0.5",
        expect_types=EXPECTED_TYPES[extension], run_id=run_id,
    )
