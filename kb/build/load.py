"""Load one input document into the database under construction: detect its format, parse, save (bulk files streamed)."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import sqlite_utils

from kb.build.checks import (
    CardChecks,
    RulingChecks,
    check_cr_date,
    cr_absent_citations,
    cr_lost_characters,
    cr_rules_in_credits,
)
from kb.build.identity import cr_copy_id, cr_version_id, rules_not_in, rules_one_lacks, version_source_kind
from kb.link.cr_trace import version_id_of
from kb.normalise.decode import describe_decoding
from kb.parse.bounds import (
    GZIP_MAGIC,
    ZIP_MAGIC,
    bounded_json_stream,
    check_json_depth,
    check_regular_file,
    check_zip,
    gunzip_problem,
    read_whole,
    shown,
)
from kb.parse.formats import Format, detect_format, format_named
from kb.records import CardName, CardRecord, CRDocument, ParseError, QualityIssue, RulingsDocument, first_few
from kb.store.bulk_indexes import BULK_UP_TO_ROWS, indexes_made_after
from kb.store.save import (
    DocumentInput,
    LangDetector,
    save_card_names,
    save_cards,
    save_document,
    save_document_made_on,
    save_quality_issue,
    save_ruling_records,
    save_rulings_document,
)
from kb.store.save_cr import mark_conflicting_copy, official_file_of, save_cr_document, source_kind
from kb.store.save_sets import save_file_sets

SNIFF_BYTES = 1 << 20


def is_cr_format(fmt: Format) -> bool:
    """Whether ``fmt`` reads a Comprehensive Rules document (its parser is one of ``kb.parse.cr``)."""
    return fmt.module.startswith("kb.parse.cr.")


def detect_format_of(doc: DocumentInput) -> Format:
    """The format ``load_document`` reads ``doc`` as (``doc.format`` or detected). Raises ParseError."""
    size = check_regular_file(Path(doc.path)).st_size
    if doc.format:
        return format_named(doc.format)
    name = shown(doc.path)
    try:
        with open(doc.path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as error:
        raise ParseError(f"{name}: cannot read: {error.strerror or error}") from None
    if head.startswith(ZIP_MAGIC) and size > len(head):
        # A ZIP's directory is at its end: a DOCX with images is sniffed whole (bounded).
        head = read_whole(Path(doc.path))
        check_zip(head, name)
    try:
        # Sniffers look at the head only: bulk files can be gigabytes.
        return detect_format(head, name)
    except ParseError:
        if head.startswith(GZIP_MAGIC) and size == len(head):
            problem = gunzip_problem(head)
            if problem:
                raise ParseError(f"{name}: a gzip file that cannot be read: {problem}") from None
        raise


def reason(error: BaseException) -> str:
    """A parser's unexpected exception as a reason a person can act on, never a bare "0"."""
    if isinstance(error, MemoryError):
        return "out of memory while reading it"
    if isinstance(error, RecursionError):
        return "nested too deeply to read"
    text = " ".join(str(error).split())
    if isinstance(error, KeyError):
        return f"unexpected structure: no {text} where one was expected"
    if isinstance(error, (TypeError, AttributeError, IndexError)):
        return f"unexpected structure ({text or type(error).__name__})"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def load_document(
    db: sqlite_utils.Database, doc: DocumentInput, deferred: list | None = None
) -> str:
    """Parse one input and save what it holds; returns the format name. Raises ParseError.

    Undated CR pages are appended to ``deferred`` (when given) instead of saved, so they can
    join a dated version that a later input of the same build provides.
    """
    fmt = detect_format_of(doc)
    name = shown(doc.path)
    stream_saver = STREAMING_SAVERS.get(fmt.name)
    if stream_saver is not None:
        document_id = save_document(db, doc, fmt.name, "parsed", lang=doc.lang)
        with open(doc.path, "rb") as raw:
            try:
                handle = bounded_json_stream(raw, name, lines_if_object=fmt.name.startswith("scryfall-bulk"))
                stream_saver(db, handle, name, document_id)
            except ParseError:
                raise
            except (Exception, MemoryError) as error:
                raise ParseError(f"{name}: could not be read as {fmt.name}: {reason(error)}") from error
        return fmt.name
    data = read_whole(Path(doc.path))
    try:
        if data.startswith(ZIP_MAGIC):
            check_zip(data, name)
        elif data.lstrip()[:1] in (b"{", b"["):
            check_json_depth(data, name)
        parsed = fmt.parse(data, name, doc.lang)
    except ParseError:
        raise
    except (Exception, MemoryError) as error:
        raise ParseError(f"{name}: could not be read as {fmt.name}: {reason(error)}") from error
    if isinstance(parsed, CRDocument):
        check_cr_date(parsed, name)
        parsed.warnings.extend(
            cr_lost_characters(parsed, name) + cr_rules_in_credits(parsed, name) + cr_absent_citations(parsed, name)
        )
    lang = getattr(parsed, "lang", None) or doc.lang
    document_id = save_document(db, doc, fmt.name, "parsed", lang=lang)
    if isinstance(parsed, CRDocument):
        parsed.warnings.extend(describe_decoding(data, name, parsed.encoding or ""))
        if parsed.effective_date is None and deferred is not None:
            deferred.append((parsed, document_id, doc.source_id))
        else:
            save_cr(db, parsed, document_id, doc.source_id)
    elif isinstance(parsed, RulingsDocument):
        checks = RulingChecks(name)
        read = len(parsed.rulings)
        parsed.rulings = list(checks.filter(parsed.rulings))
        if read and not parsed.rulings:
            # Every ruling without text: the page's layout changed under the parser.
            raise ParseError(f"{name}: none of its {read} rulings has any text; refused")
        parsed.issues.extend(checks.summary_issues())
        card_checks = CardChecks(name)
        parsed.cards = card_checks.cards(parsed.cards)
        parsed.card_names = card_checks.names(parsed.card_names)
        parsed.issues.extend(card_checks.issues())
        save_rulings_document(db, parsed, document_id)
    else:  # pragma: no cover - a parser returning something else is a programming error
        raise ParseError(f"{doc.path}: parser {fmt.name} returned {type(parsed).__name__}")
    return fmt.name


def save_cr(db: sqlite_utils.Database, parsed: CRDocument, document_id: int, source_id: str) -> str:
    """Save a dated CR under its own identity: a different text for an existing version's date
    from another document is a version of its own, flagged, never a replacement."""
    version_id, conflict = cr_version_id(db, parsed, source_id, document_id)
    official = official_file_of(db, version_id, source_id, document_id) if parsed.effective_date and not conflict else None
    if official is not None and (lacking := rules_not_in(db, version_id, parsed)):
        # The official file lacks rules a copy of it holds: damaged, though nothing in it told
        # (a refresh review: a Wizards body without 702.160–702.179 became 2025-02-07's text, the
        # Chinese CR's copy of the English whole "not read", exit 0). Its text stays the edition's;
        # the copy is kept beside it, and the loss fails the official file's source.
        copy_id = cr_copy_id(db, version_id, source_id)
        save_cr_document(db, parsed, document_id, source_id, version_id=copy_id)
        mark_conflicting_copy(db, copy_id, version_id)
        _save_official_lacks(db, version_id, lacking, f"from source {source_id!r}",
                             f"its text stays the edition's, and the copy is kept as {copy_id}", official)
        return copy_id
    if official is not None:
        save_quality_issue(db, QualityIssue(
            "unofficial-copy",
            f"a copy of {version_id}, whose official file (document {official}) is stored: that file stays its text"
            " and its source, this copy is not read",
        ), document_id)
        return version_id
    save_cr_document(db, parsed, document_id, source_id, version_id=version_id)
    if conflict:
        edition = version_id_of(parsed)
        mark_conflicting_copy(db, version_id, edition)
        save_quality_issue(db, QualityIssue("conflicting-version", conflict), document_id)
        # An official file read after a copy of its edition that holds rules it lacks: the same
        # loss as the other way round (above), whichever was read first (a docs review).
        lacking = rules_one_lacks(db, version_id, edition) if source_kind(db, source_id) == "official" else []
        if lacking and version_source_kind(db, edition) != "official":
            _save_official_lacks(db, edition, lacking, "from another source",
                                 f"it is kept as {version_id}, the copy read before it stays {edition}", document_id)
    return version_id


def _save_official_lacks(
    db: sqlite_utils.Database, edition: str, lacking: list[str], copy_from: str, kept: str, official_document: int
) -> None:
    """``lacks-what-a-copy-holds`` on the official file of ``edition``: a loss, which fails its source in a refresh."""
    rules = f"{len(lacking)} rule{'s' if len(lacking) != 1 else ''}"
    save_quality_issue(db, QualityIssue("lacks-what-a-copy-holds", (
        f"the official file of {edition} lacks {rules} a copy of it {copy_from} holds ({first_few(lacking, 5)}):"
        f" it may be damaged; {kept}")), official_document)


# Bulk files bring hundreds of thousands of rows: the indexes whose keys they bring in no order
# are made once afterwards (kb.store.bulk_indexes).
def _records_indexed_after(db: sqlite_utils.Database) -> AbstractContextManager[None]:
    return indexes_made_after(db, "ruling_records", ["card_key"], up_to_rows=BULK_UP_TO_ROWS)


def _printings_indexed_after(db: sqlite_utils.Database) -> AbstractContextManager[None]:
    return indexes_made_after(
        db, "printings", ["oracle_id"], ["multiverse_id"], ["collector_number"], up_to_rows=BULK_UP_TO_ROWS
    )


def _card_names_indexed_after(db: sqlite_utils.Database) -> AbstractContextManager[None]:
    return indexes_made_after(db, "card_name_records", ["name_key"], up_to_rows=BULK_UP_TO_ROWS)


def _save_checked_rulings(db: sqlite_utils.Database, rulings, name: str, document_id: int, what: str) -> None:
    checks = RulingChecks(name)
    with _records_indexed_after(db):
        save_ruling_records(db, checks.filter(rulings), document_id, LangDetector())
    for issue in checks.summary_issues():
        save_quality_issue(db, issue, document_id)
    if checks.kept == 0:
        raise ParseError(f"{name}: {what} holds no readable ruling; refused")


def stream_bulk_rulings(db: sqlite_utils.Database, handle, name: str, document_id: int) -> None:
    from kb.parse.rulings.scryfall import iter_bulk_rulings

    _save_checked_rulings(db, iter_bulk_rulings(handle, name), name, document_id, "the rulings bulk file")


def stream_bulk_cards(db: sqlite_utils.Database, handle, name: str, document_id: int) -> None:
    from kb.parse.rulings.scryfall import iter_bulk_card_names

    cards: list[CardRecord] = []
    names: list[CardName] = []
    total = 0
    written: set[int] = set()
    card_checks = CardChecks(name)

    def save_batch() -> None:
        save_cards(db, card_checks.cards(cards), document_id)
        save_card_names(db, card_checks.names(names), document_id, written)

    with _printings_indexed_after(db), _card_names_indexed_after(db):
        for card, card_names in iter_bulk_card_names(handle, name):
            total += 1
            cards.append(card)
            names.extend(card_names)
            if len(cards) >= 5_000:
                save_batch()
                cards, names = [], []
        save_batch()
    if total == 0:
        raise ParseError(f"{name}: the card bulk file holds no card; refused")
    for issue in card_checks.issues():
        save_quality_issue(db, issue, document_id)


def stream_mtgjson(db: sqlite_utils.Database, handle, name: str, document_id: int) -> None:
    """AllPrintings can be hundreds of megabytes: card by card, rulings once per card."""
    from kb.parse.rulings.mtgjson import iter_cards, made_on, set_names

    seen_rulings: set[tuple] = set()
    names_written: set[int] = set()
    cards = 0
    card_checks = CardChecks(name)
    # A set's name and day come after its cards in the file: saved once the stream is read.
    set_fields: dict[str, dict[str, str]] = {}
    # The day the file was made, its meta.date: where the file puts it is not promised.
    meta: dict[str, str] = {}

    def rulings():
        nonlocal cards
        for entry in iter_cards(handle, name, set_fields, meta):
            cards += 1
            save_cards(db, card_checks.cards(entry.cards), document_id)
            save_card_names(db, card_checks.names(entry.names), document_id, names_written)
            for issue in card_checks.noted(entry.issues):
                save_quality_issue(db, issue, document_id)
            for ruling in entry.rulings:
                key = (ruling.oracle_id or ruling.card_name, ruling.raw_date, ruling.text)
                if key not in seen_rulings:
                    seen_rulings.add(key)
                    yield ruling

    checks = RulingChecks(name)
    with _records_indexed_after(db), _printings_indexed_after(db), _card_names_indexed_after(db):
        save_ruling_records(db, checks.filter(rulings()), document_id, LangDetector())
    for issue in checks.summary_issues():
        save_quality_issue(db, issue, document_id)
    if cards == 0:
        raise ParseError(f"{name}: no cards found (expected data.cards or data.<SET>.cards); refused")
    save_file_sets(db, set_names(set_fields), document_id)
    save_document_made_on(db, document_id, made_on(meta))
    for issue in card_checks.issues():
        save_quality_issue(db, issue, document_id)


# Formats read as streams, never whole: bulk files run to gigabytes.
STREAMING_SAVERS: dict[str, Callable] = {
    "scryfall-bulk-rulings": stream_bulk_rulings,
    "scryfall-bulk-cards": stream_bulk_cards,
    "mtgjson": stream_mtgjson,
}
