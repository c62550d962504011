"""Which raw documents a refresh builds from: the latest good body of every source and format."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from kb.build.inputs import snapshot_inputs
from kb.build.kept_content import RECORDS_OF
from kb.normalise.dates import BULK_KIND
from kb.parse.cr.txt import effective_date_of
from kb.parse.formats import detect_format, format_named
from kb.records import CRDocument, ParseError
from kb.refresh.fingerprints import build_code_fingerprint
from kb.store.save import SOURCES as KB_SOURCES
from kb.store.save import DocumentInput
from scraper.fetchers.common import ASK_WHOLE_STATE
from scraper.fetchers.scryfall import LISTING_PATH as SCRYFALL_LISTING_PATH
from scraper.rawstore import ManifestEntry, RawStore

SNIFF_BYTES = 1 << 20


# Every body of these ever fetched is a document of its own (each CR file is one dated
# version), even when a site serves a newer one under the same URL.
HISTORY_FORMATS = frozenset({"cr-txt"})


# A bulk file is a complete snapshot of its kind: the newest supersedes every older one, or
# rulings removed upstream would live on through the old file.
SNAPSHOT_FORMATS = frozenset({"scryfall-bulk-rulings", "scryfall-bulk-cards"})


def snapshot_kind(url: str | None, fmt: str) -> str:
    """What a bulk snapshot is a snapshot of: the kind its URL names, else its format."""
    match = BULK_KIND.search(urlsplit(url or "").path)
    return match.group(1).replace("_", "-") if match else fmt


def expected_bulk_format(entry: ManifestEntry) -> str | None:
    """The format a body fetched as one of Scryfall's bulk files must have: its URL names the
    kind (``BULK_KIND``). Read as that kind whatever it holds, or "[]", an error object or an API
    list under a bulk file's URL was taken for a page, or for another document, and the old file
    stayed the newest of its kind: "nothing changed", exit 0, while the data went stale (an
    operator's review). Read as what it was fetched as, its parser says why it cannot be."""
    if entry.source != "scryfall":
        return None
    match = BULK_KIND.search(urlsplit(entry.url or "").path)
    return _bulk_format(match.group(1).replace("-", "_")) if match else None


def _bulk_format(bulk_type: str) -> str | None:
    """The format of one of Scryfall's bulk types ("rulings", "oracle_cards", "all_cards", …)."""
    if bulk_type == "rulings":
        return "scryfall-bulk-rulings"
    return "scryfall-bulk-cards" if bulk_type in SCRYFALL_BULK_TYPES else None


# The documents the other sources' fetchers take, by the end of their URL's path, and the formats a
# body there may be read as (the first where it sniffs as none of them). Sniffed alone, a body of
# no format there ("data": [] or an error object under MTGJSON's AllPrintings, a rule tree whose
# "subrules" were renamed) was left out as a page: exit 0, its source not failed, and no earlier
# body standing in (an operator's review). Read as what it was fetched as, its parser says why it
# cannot be, and the source fails. Pages fetched to find documents (the rules page, the
# archive's metadata, the Korean index) end otherwise.
DATA_URL_FORMATS: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    ("mtgjson", re.compile(r"\.json(?:\.gz)?$"), ("mtgjson",)),
    ("cr-zh", re.compile(r"/scripts/\d{8}\.json$"), ("cr-zh-aligned-json",)),
    ("cr-zh", re.compile(r"_Zh\.txt$"), ("cr-zh-txt",)),
    ("cr-zh", re.compile(r"_En\.txt$"), ("cr-txt",)),
    ("wizards-cr", re.compile(r"\.txt$", re.IGNORECASE), ("cr-txt", "cr-txt-1999")),
    ("cr-archive", re.compile(r"/txt/[^/]+\.txt$", re.IGNORECASE), ("cr-txt", "cr-txt-1999")),
    ("cr-ko", re.compile(r"/\d{3}$"), ("cr-ko-md",)),
)


def expected_format(entry: ManifestEntry, sniffed: str | None) -> str | None:
    """The format a body fetched as one of a source's documents is read as: what it sniffs as,
    where that is one its URL may hold; else the first of those; None for any other URL."""
    path = urlsplit(entry.url or "").path
    for source, pattern, formats in DATA_URL_FORMATS:
        if entry.source == source and pattern.search(path):
            return sniffed if sniffed in formats else formats[0]
    return None


# Scryfall's bulk types a refresh may fetch (SOURCES.md), each a kind of bulk file.
SCRYFALL_BULK_TYPES = ("rulings", "oracle_cards", "all_cards", "default_cards", "unique_artwork")


def announced_bulk_formats(store: RawStore) -> dict[str, str]:
    """The format of each bulk file the fetch last took from Scryfall's listing, by its URL (the
    listing says which kind each is: a mirror's "rulings.json" has no dated name to tell it by:
    "[]" there was left out as a page, a second operator's review)."""
    formats = {}
    for bulk_type in SCRYFALL_BULK_TYPES:
        seen = store.get_state(f"scryfall:bulk:{bulk_type}") or {}
        if seen.get("uri") and (fmt := _bulk_format(bulk_type)):
            formats[seen["uri"]] = fmt
    return formats


# Scraper source names that the knowledge base's ``sources`` table spells differently.
KB_SOURCE_OF = {"wizards-cr": "wizards"}


def format_of(store: RawStore, entry: ManifestEntry) -> str | None:
    """The format of a stored body, or None for pages we only fetch to find documents."""
    assert entry.sha256 is not None
    with store.path_for(entry.sha256).open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    try:
        return detect_format(head, entry.url).name
    except ParseError:
        return None


def kb_source_id(scraper_source: str) -> str:
    source = KB_SOURCE_OF.get(scraper_source, scraper_source)
    return source if source in {s["id"] for s in KB_SOURCES} else "local"


def document_input(store: RawStore, entry: ManifestEntry, fmt: str) -> DocumentInput:
    assert entry.sha256 is not None
    return DocumentInput(
        path=str(store.path_for(entry.sha256)), sha256=entry.sha256, size=entry.size or 0,
        source_id=kb_source_id(entry.source), url=entry.url, lang=entry.lang,
        fetched_at=entry.fetched_at, format=fmt,
    )


# Stored bodies a build of this code could not read (``kb.refresh.job``): sha256 → url, source,
# error and the build code that tried. Never an input again while that code builds: a body cut
# short once was read, refused and replaced on every later rebuild, each of which then exited 2
# naming a source that answered well since.
UNREADABLE_STATE = "refresh:unreadable"


def known_unreadable(store: RawStore) -> dict[str, dict[str, str]]:
    """The stored bodies this code could not read (another version of it may: it tries again)."""
    code = build_code_fingerprint()
    return {sha: record for sha, record in (store.get_state(UNREADABLE_STATE) or {}).items()
            if record.get("build_code") == code}


def remember_unreadable(store: RawStore, sha256: str, url: str, source: str, error: str) -> None:
    held = store.get_state(UNREADABLE_STATE) or {}
    held[sha256] = {"url": url, "source": source, "error": error, "build_code": build_code_fingerprint()}
    store.set_state(UNREADABLE_STATE, held)
    ask_whole_while_unreadable(store, url)


def ask_whole_while_unreadable(store: RawStore, url: str) -> None:
    """The URL's next fetch asks for it whole where its unreadable body came without an ETag: a 304
    to its date also answers a server that rolled back to an older body (an operator's review:
    the mended site's source failed every night). ``scraper.fetchers.common.ASK_WHOLE_STATE``."""
    served = store.latest_good(url)
    if served is not None and not served.etag:
        store.set_state(ASK_WHOLE_STATE + url, {"sha256": served.sha256})


def still_unreadable(store: RawStore) -> list[dict[str, str]]:
    """Known unreadable bodies that are still the newest of their URL: the site still serves them.
    Not a bulk file a newer one of its kind replaced: each comes under a dated URL of its own,
    which stays the newest of that URL after the site has moved on (its source was reported as
    failed in every later run, and no run was clean enough to prune superseded bodies)."""
    unreadable = known_unreadable(store)
    if not unreadable:
        return []
    latest = store.latest_documents()
    # Only the sources of unreadable bodies are looked at (each body sniffed for its format).
    concerned = {entry.source for entry in latest if entry.sha256 in unreadable}
    latest = [entry for entry in latest if entry.source in concerned]
    newest_of_kind: dict[tuple[str, str, str], int] = {}
    formats = {entry.id: format_of(store, entry) if entry.sha256 and store.path_for(entry.sha256).exists() else None
               for entry in latest}
    for entry in latest:
        fmt = formats[entry.id]
        if fmt in SNAPSHOT_FORMATS and entry.sha256 not in unreadable:
            key = (entry.source, fmt, snapshot_kind(entry.url, fmt))
            newest_of_kind[key] = max(newest_of_kind.get(key, 0), entry.id)

    def replaced(entry: ManifestEntry) -> bool:
        if entry.sha256 and store.body_removed(entry.sha256):
            return True  # removed as a superseded bulk body (prune_superseded)
        fmt = formats[entry.id]
        return fmt in SNAPSHOT_FORMATS and newest_of_kind.get((entry.source, fmt, snapshot_kind(entry.url, fmt)), 0) > entry.id

    return [{**unreadable[entry.sha256], "url": entry.url, "source": entry.source}
            for entry in latest if entry.sha256 in unreadable and not replaced(entry)]


def _previous_readable(store: RawStore, latest: ManifestEntry, unreadable: dict) -> ManifestEntry | None:
    """The newest good body of ``latest``'s URL before it that a build could read."""
    earlier = [entry for entry in store.history(latest.url)
               if entry.id < latest.id and entry.status != "failed" and entry.sha256
               and entry.sha256 not in unreadable and store.path_for(entry.sha256).exists()]
    return earlier[-1] if earlier else None


def _dated_before(url: str | None, other: str | None) -> bool:
    """Whether the bulk file at ``url`` is named as made before the one at ``other``, by the time
    in their names (``BULK_KIND``: rulings-20230404210031.json); where either name has none, the
    one fetched later is taken as the newer."""
    stamp, other_stamp = (BULK_KIND.search(urlsplit(each or "").path) for each in (url, other))
    return bool(stamp and other_stamp and stamp[2] < other_stamp[2])


def select_inputs(store: RawStore) -> tuple[list[DocumentInput], list[str]]:
    """The build's inputs from the raw store, and the URLs of stored bodies left out.

    The latest good body of every URL, in fetch order; for CR files every good body ever
    fetched (each is a version); for bulk snapshots only the newest file of each kind
    (rulings, oracle cards and all cards are three kinds, though the cards share a format).
    Bodies of no readable format (the rules page, the bulk-data listing) are left out, and so
    are bodies a build of this code could not read (``known_unreadable``): the body before one
    stands in for it.
    """
    chosen: list[tuple[int, DocumentInput]] = []
    left_out: list[str] = []
    newest_snapshot: dict[tuple[str, str, str], tuple[int, DocumentInput]] = {}
    unreadable = known_unreadable(store)
    announced = announced_bulk_formats(store)
    for latest in store.latest_documents():
        entry: ManifestEntry | None = latest
        if latest.sha256 in unreadable:
            entry = _previous_readable(store, latest, unreadable)
            if entry is None:
                continue
        assert entry is not None
        if entry.sha256 and store.body_removed(entry.sha256):
            continue  # a superseded bulk snapshot whose body a refresh removed (prune_superseded)
        if entry.source == "scryfall" and urlsplit(entry.url or "").path.rstrip("/").endswith(SCRYFALL_LISTING_PATH):
            # The listing, whatever it holds: an empty one ("data": []) was read as a rulings file
            # and published as a document (an operator's review).
            left_out.append(entry.url)
            continue
        fmt = format_of(store, entry)
        fmt = ((announced.get(entry.url) if entry.source == "scryfall" else None) or expected_bulk_format(entry)
               or expected_format(entry, fmt) or fmt)
        if fmt is None:
            left_out.append(entry.url)
            continue
        if fmt in SNAPSHOT_FORMATS:
            # latest_documents is in fetch order, so a later file replaces an earlier one; but not
            # a file dated earlier than it: a stale listing that names an older file had it
            # fetched again, and the rulings rolled back to it (an operator's review).
            kind = (entry.source, fmt, snapshot_kind(entry.url, fmt))
            held = newest_snapshot.get(kind)
            if held is None or not _dated_before(entry.url, held[1].url):
                newest_snapshot[kind] = (entry.id, document_input(store, entry, fmt))
            continue
        chosen.append((entry.id, document_input(store, entry, fmt)))
        if fmt in HISTORY_FORMATS:
            chosen.extend(pair for pair in earlier_bodies(store, entry, fmt) if pair[1].sha256 not in unreadable)
    chosen.extend(newest_snapshot.values())
    chosen.sort(key=lambda pair: pair[0])
    chosen, same_bytes = _first_of_each_edition(chosen)
    left_out += same_bytes
    superseded = {
        entry.url for entry in store.latest_documents()
        if entry.url not in {doc.url for _, doc in chosen} and entry.url not in left_out and entry.sha256 not in unreadable
    }
    return [doc for _, doc in chosen], sorted(left_out) + sorted(superseded)


def _first_of_each_edition(
    chosen: list[tuple[int, DocumentInput]],
) -> tuple[list[tuple[int, DocumentInput]], list[str]]:
    """A CR file's bytes once, under the URL they were first fetched from; and the URLs of the
    same bytes fetched later under another. The rules page linking an edition under a new file
    name rebuilt and republished the database, two documents of one edition (an operator's
    review): the same bytes under a new name are not a rebuild, as for bulk files."""
    seen: set[tuple[str, str | None]] = set()
    kept: list[tuple[int, DocumentInput]] = []
    again: list[str] = []
    for pair in chosen:
        doc = pair[1]
        if doc.format in HISTORY_FORMATS and doc.sha256:
            if (doc.sha256, doc.lang) in seen:
                if doc.url:
                    again.append(doc.url)
                continue
            seen.add((doc.sha256, doc.lang))
        kept.append(pair)
    return kept, again


def prune_superseded(store: RawStore, inputs: list[DocumentInput]) -> list[str]:
    """Remove the bodies of bulk snapshots a newer file of their kind replaced (Scryfall's card
    files come every 12 hours, each a new body of hundreds of megabytes) and all but the latest
    earlier body of a bulk file kept under one name; returns the sha256 of each body removed.

    Only bodies no input shares (the same bytes under a new name stay); manifest rows stay. Run
    after a refresh has published or found nothing to change, never after a failure."""
    urls = {doc.url for doc in inputs}
    kept = {doc.sha256 for doc in inputs}
    removed = []
    for entry in store.latest_documents():
        sha = entry.sha256
        if entry.url in urls or not sha or sha in kept or not store.path_for(sha).exists():
            continue
        if format_of(store, entry) in SNAPSHOT_FORMATS:
            store.remove_body(sha, f"superseded bulk snapshot {entry.url}")
            removed.append(sha)
    # A bulk file under a fixed name (MTGJSON's AllPrintings, rebuilt daily) piles up earlier
    # bodies of its own: the one before the current stays (the refresh falls back to it when the
    # newest cannot be read: ``kb.refresh.job._fall_back``), older ones go.
    for doc in inputs:
        if doc.format not in RECORDS_OF or not doc.url:
            continue
        earlier = [entry.sha256 for entry in store.history(doc.url)
                   if entry.status != "failed" and entry.sha256 and entry.sha256 != doc.sha256]
        for sha in list(dict.fromkeys(reversed(earlier)))[1:]:
            if sha not in kept and store.path_for(sha).exists():
                store.remove_body(sha, f"earlier bulk body of {doc.url}")
                removed.append(sha)
    return removed


def earlier_bodies(store: RawStore, latest: ManifestEntry, fmt: str) -> list[tuple[int, DocumentInput]]:
    """Earlier good bodies of the same URL, newest sighting of each, one per content: each an
    edition of its own. Not one that a later body of the URL saying the same edition (its
    effective date) holds whole: every rule number it has, with no more doubts of the reader
    (``CRDocument.warnings``). That is the edition published again, corrected: kept beside it, a
    damaged file (rules cut, a number printed twice) stayed the edition's text for good and its
    correction became a copy of it ("-wizards"), and a refresh refused for the damage was refused
    in every run after the site served the correction (an operator's review). A later body that
    is not whole beside it (the good edition published again, damaged) is kept beside it, as a
    conflicting copy, as before: the newest alone replaced the good text quietly (a code review)."""
    bodies: dict[str, ManifestEntry] = {}
    for entry in store.history(latest.url):
        if entry.status != "failed" and entry.sha256 and entry.sha256 != latest.sha256:
            bodies[entry.sha256] = entry
    readable = [entry for entry in bodies.values()
                if store.path_for(entry.sha256).exists() and format_of(store, entry) == fmt]  # type: ignore[arg-type]
    dates = {entry.id: _effective_date(store, entry) for entry in [latest, *readable]}
    newest_of_date: dict[str, int] = {}
    for entry in sorted([latest, *readable], key=lambda entry: (entry.id != latest.id, -entry.id)):
        date = dates[entry.id]
        if date is not None:
            newest_of_date.setdefault(date, entry.id)
    by_id = {entry.id: entry for entry in [latest, *readable]}

    def replaced(entry: ManifestEntry) -> bool:
        newest = newest_of_date.get(dates[entry.id] or "", entry.id)
        return newest != entry.id and _holds_whole(store, by_id[newest], entry, fmt)

    return [(entry.id, document_input(store, entry, fmt)) for entry in readable if not replaced(entry)]


def _holds_whole(store: RawStore, newer: ManifestEntry, older: ManifestEntry, fmt: str) -> bool:
    """Whether ``newer`` holds every rule number ``older`` does, read with no more doubts."""
    try:
        new, old = (format_named(fmt).parse(store.read_bytes(entry), entry.url or "") for entry in (newer, older))
    except ParseError:
        return False
    if not isinstance(new, CRDocument) or not isinstance(old, CRDocument):
        return False
    return {rule.number for rule in old.rules} <= {rule.number for rule in new.rules} and len(new.warnings) <= len(old.warnings)


def _effective_date(store: RawStore, entry: ManifestEntry) -> str | None:
    assert entry.sha256 is not None
    with store.path_for(entry.sha256).open("rb") as handle:
        return effective_date_of(handle.read(SNIFF_BYTES), entry.url or entry.sha256)


def seed_from_snapshot(store: RawStore, snapshot: Path) -> int:
    """Add a snapshot folder's files to the raw store (once each); returns how many were new."""
    added = 0
    for doc in snapshot_inputs(snapshot):
        url = doc.url or Path(doc.path).resolve().as_uri()
        good = store.latest_good(url)
        if good is not None and good.sha256 == doc.sha256:
            continue
        source = {"wizards": "wizards-cr"}.get(doc.source_id, doc.source_id)
        store.import_file(doc.path, url, source=source, lang=doc.lang)
        added += 1
    return added
