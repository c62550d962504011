"""Load one input document into the database under construction: detect its format, parse, save (bulk files streamed)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from kb.parse.formats import Format, detect_format, format_named
from kb.records import CRDocument, ParseError, RulingsDocument
from kb.store.save import (
    DocumentInput,
    LangDetector,
    save_card_names,
    save_cards,
    save_cr_document,
    save_document,
    save_quality_issue,
    save_ruling_records,
    save_rulings_document,
)

SNIFF_BYTES = 1 << 20


def _detect(doc: DocumentInput) -> Format:
    if doc.format:
        return format_named(doc.format)
    with open(doc.path, "rb") as handle:
        head = handle.read(SNIFF_BYTES)
    # Sniffers look at the head only: bulk files can be gigabytes.
    return detect_format(head, doc.path)


def load_document(
    db: sqlite_utils.Database, doc: DocumentInput, deferred: list | None = None
) -> str:
    """Parse one input and save what it holds; returns the format name. Raises ParseError.

    Undated CR pages are appended to ``deferred`` (when given) instead of saved, so they can
    join a dated version that a later input of the same build provides.
    """
    fmt = _detect(doc)
    stream_saver = STREAMING_SAVERS.get(fmt.name)
    if stream_saver is not None:
        document_id = save_document(db, doc, fmt.name, "parsed", lang=doc.lang)
        with open(doc.path, "rb") as handle:
            try:
                stream_saver(db, handle, doc.path, document_id)
            except ParseError:
                raise
            except Exception as error:
                raise ParseError(f"{doc.path}: could not be read as {fmt.name}: {error}") from error
        return fmt.name
    data = Path(doc.path).read_bytes()
    try:
        parsed = fmt.parse(data, doc.path, doc.lang)
    except ParseError:
        raise
    except Exception as error:
        raise ParseError(f"{doc.path}: could not be read as {fmt.name}: {error}") from error
    lang = getattr(parsed, "lang", None) or doc.lang
    document_id = save_document(db, doc, fmt.name, "parsed", lang=lang)
    if isinstance(parsed, CRDocument):
        if parsed.effective_date is None and deferred is not None:
            deferred.append((parsed, document_id, doc.source_id))
        else:
            save_cr_document(db, parsed, document_id, doc.source_id)
    elif isinstance(parsed, RulingsDocument):
        save_rulings_document(db, parsed, document_id)
    else:  # pragma: no cover - a parser returning something else is a programming error
        raise ParseError(f"{doc.path}: parser {fmt.name} returned {type(parsed).__name__}")
    return fmt.name


def stream_bulk_rulings(db: sqlite_utils.Database, handle, name: str, document_id: int) -> None:
    from kb.parse.rulings.scryfall import iter_bulk_rulings

    save_ruling_records(db, iter_bulk_rulings(handle, name), document_id, LangDetector())


def stream_bulk_cards(db: sqlite_utils.Database, handle, name: str, document_id: int) -> None:
    from kb.parse.rulings.scryfall import iter_bulk_card_names

    cards, names = [], []
    for card, card_names in iter_bulk_card_names(handle, name):
        cards.append(card)
        names.extend(card_names)
        if len(cards) >= 5_000:
            save_cards(db, cards, document_id)
            save_card_names(db, names, document_id)
            cards, names = [], []
    save_cards(db, cards, document_id)
    save_card_names(db, names, document_id)


def stream_mtgjson(db: sqlite_utils.Database, handle, name: str, document_id: int) -> None:
    """AllPrintings can be hundreds of megabytes: card by card, rulings once per card."""
    from kb.parse.rulings.mtgjson import iter_cards

    seen_rulings: set[tuple] = set()

    def rulings():
        for entry in iter_cards(handle, name):
            save_cards(db, entry.cards, document_id)
            save_card_names(db, entry.names, document_id)
            for issue in entry.issues:
                save_quality_issue(db, issue, document_id)
            for ruling in entry.rulings:
                key = (ruling.oracle_id or ruling.card_name, ruling.raw_date, ruling.text)
                if key not in seen_rulings:
                    seen_rulings.add(key)
                    yield ruling

    save_ruling_records(db, rulings(), document_id, LangDetector())


# Formats read as streams, never whole: bulk files run to gigabytes.
STREAMING_SAVERS: dict[str, Callable] = {
    "scryfall-bulk-rulings": stream_bulk_rulings,
    "scryfall-bulk-cards": stream_bulk_cards,
    "mtgjson": stream_mtgjson,
}
