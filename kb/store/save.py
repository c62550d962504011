"""``save_*`` functions: parsed records into the database, nothing else.

Small writes go through sqlite-utils; the large ones (rules, ruling records) through plain
``executemany`` inside the caller's transaction, which is an order of magnitude faster.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import PurePath, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

import sqlite_utils

from kb.normalise.lang import ascii_but_typography, detect_lang
from kb.normalise.losses import detect_dropped_symbols
from kb.normalise.names import name_key
from kb.normalise.text import clean_text, identity_key, punctuation_twins
from kb.records import (
    CardName,
    CardRecord,
    QualityIssue,
    RulingRecord,
    RulingsDocument,
)
from kb.store.save_sets import save_file_sets, save_sets, sets_named_by
from kb.store.schema import stable_id

SOURCES: list[dict[str, str]] = [
    {"id": "wizards", "name": "Wizards of the Coast (magic.wizards.com, media.wizards.com)", "kind": "official", "url": "https://magic.wizards.com/en/rules", "licence": "Wizards of the Coast Fan Content Policy"},
    {"id": "cr-archive", "name": "Archive of every official CR text file (xremming/rulesraker)", "kind": "official", "url": "https://github.com/xremming/rulesraker", "licence": "MIT (archive); rules text © Wizards of the Coast"},
    {"id": "scryfall", "name": "Scryfall API", "kind": "aggregator", "url": "https://api.scryfall.com", "licence": "Scryfall data guidelines; card data © Wizards of the Coast"},
    {"id": "gatherer", "name": "Gatherer (gatherer.wizards.com)", "kind": "official", "url": "https://gatherer.wizards.com", "licence": "Wizards of the Coast Fan Content Policy"},
    {"id": "mtgjson", "name": "MTGJSON v5", "kind": "aggregator", "url": "https://mtgjson.com", "licence": "MIT (MTGJSON); card data © Wizards of the Coast"},
    # Third parties' copies of official CR files (text as published, bytes not always: Venser's
    # Journal dropped some blank lines, the-arbiter re-encoded): not Wizards' files, nor by hand.
    {"id": "cr-copies", "name": "Official CR text files as others stored them (multimeric/VensersJournal, Roodelia/the-arbiter)", "kind": "aggregator", "url": "https://github.com/multimeric/VensersJournal", "licence": "as each repository licenses it (VensersJournal: MIT); rules text © Wizards of the Coast"},
    {"id": "cr-zh", "name": "Chinese CR translation (HeliumOctahelide/magic-comp-rules-zh-cn)", "kind": "community translation", "url": "https://github.com/HeliumOctahelide/magic-comp-rules-zh-cn", "licence": "community translation of Wizards' rules"},
    {"id": "cr-ko", "name": "Korean CR translation (youbeebee.net)", "kind": "community translation", "url": "https://youbeebee.net", "licence": "community translation of Wizards' rules"},
    {"id": "cr-page", "name": "Per-rule CR pages in other languages", "kind": "page capture", "url": "", "licence": "as published by each site"},
    {"id": "release-notes", "name": "Official localized release notes", "kind": "official", "url": "https://magic.wizards.com", "licence": "Wizards of the Coast Fan Content Policy"},
    {"id": "page-capture", "name": "Captured card pages of rulings sites", "kind": "page capture", "url": "", "licence": "as published by each site"},
    {"id": "local", "name": "Files imported by hand", "kind": "page capture", "url": "", "licence": "unknown"},
]


@dataclass
class DocumentInput:
    """One raw input and where it came from."""

    path: str
    sha256: str
    size: int
    source_id: str = "local"
    url: str | None = None
    lang: str | None = None
    fetched_at: str | None = None
    format: str | None = None


def write_differences(
    db: sqlite_utils.Database, table: str, staged: str, columns: tuple[str, ...], key: tuple[str, ...], kept: str = ""
) -> None:
    """Make ``table`` hold the rows of the temporary table ``staged`` (same ``columns``,
    unique on ``key``), writing only the rows that differ: a row that stays keeps its rowid and
    its search index entries (an import that changes none rewrites none). ``kept``: an SQL
    condition on ``table``'s rows that this leaves alone (rows another step owns)."""
    same = " and ".join(f"staged.{name} is {table}.{name}" for name in columns)
    keyed = " and ".join(f"{table}.{name} = staged.{name}" for name in key)
    listed = ", ".join(columns)
    db.execute(
        f"delete from {table} where {f'not ({kept}) and ' if kept else ''}"
        f"not exists (select 1 from temp.{staged} as staged where {same})"
    )
    db.execute(
        f"insert into {table} ({listed}) select {listed} from temp.{staged} as staged"
        f" where not exists (select 1 from {table} where {keyed}) order by staged.rowid"
    )


def save_sources(db: sqlite_utils.Database) -> None:
    db.table("sources").upsert_all(SOURCES, pk="id")


def document_id_for(doc: DocumentInput) -> int:
    """A document's bytes and where they were published: its URL, or for a local file its name,
    not the folder it was read from. (Keyed on the path, the same snapshot built from two folders,
    or named relative and absolute, published other ids for the rulings of a page that names no
    card, their translations and issues; a refresh names such a file by a ``file:`` URL.)"""
    return stable_id("document", doc.sha256, local_file_name(doc.url) or doc.url or PurePath(doc.path).name)


def local_file_name(url: str | None) -> str | None:
    """The file name of a ``file:`` URL (None for any other URL)."""
    if not url or not url.startswith("file:"):
        return None
    return PurePosixPath(unquote(urlsplit(url).path)).name


def save_document(
    db: sqlite_utils.Database,
    doc: DocumentInput,
    fmt: str | None,
    status: str,
    error: str | None = None,
    lang: str | None = None,
) -> int:
    document_id = document_id_for(doc)
    db.table("documents").upsert(
        {
            "id": document_id,
            "source_id": doc.source_id,
            "url": doc.url,
            "path": doc.path,
            "lang": lang or doc.lang,
            "fetched_at": doc.fetched_at,
            "sha256": doc.sha256,
            "size": doc.size,
            "format": fmt,
            "status": status,
            "error": error,
        },
        pk="id",
    )
    return document_id


def save_document_made_on(db: sqlite_utils.Database, document_id: int, day: str | None) -> None:
    """The day ``document_id`` says it was made (MTGJSON's meta.date), once it is read."""
    if day:
        db.table("documents").update(document_id, {"made_on": day})


def save_quality_issue(
    db: sqlite_utils.Database,
    issue: QualityIssue,
    document_id: int | None = None,
    ruling_id: int | None = None,
    rule_id: int | None = None,
) -> None:
    record_id = record_id_prefix(document_id) | issue.record if issue.record is not None and document_id is not None else None
    db.execute(
        "insert or replace into quality_issues (id, kind, detail, document_id, ruling_id, rule_id, record_id)"
        " values (?,?,?,?,?,?,?)",
        [
            stable_id("issue", issue.kind, _detail_from_any_folder(db, issue.detail, document_id), document_id, ruling_id, rule_id),
            issue.kind,
            issue.detail,
            document_id,
            ruling_id,
            rule_id,
            record_id,
        ],
    )


def _detail_from_any_folder(db: sqlite_utils.Database, detail: str, document_id: int | None) -> str:
    """The detail as the issue's id reads it: its document's path as typed ("data/snapshot/…",
    an absolute path, a raw store's folder) is the file's name, as in the document's own id
    (``document_id_for``), so the same file read from another folder keeps its issues' ids."""
    if document_id is None or not detail:
        return detail
    row = db.execute("select path from documents where id = ?", [document_id]).fetchone()
    if row is None or not row[0] or row[0] not in detail:
        return detail
    return detail.replace(row[0], PurePath(row[0]).name)


def _stats(card: CardRecord) -> tuple[str | None, str | None, str | None, str | None]:
    return card.power, card.toughness, card.loyalty, card.defense


def _stored_faces(db: sqlite_utils.Database, oracle_ids: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """The faces stored for these cards, by card and face name."""
    stored: dict[str, dict[str, dict[str, Any]]] = {}
    for start in range(0, len(oracle_ids), 500):
        chunk = oracle_ids[start:start + 500]
        for oracle_id, faces in db.execute(
            f"select oracle_id, card_faces from cards where card_faces is not null and oracle_id in ({','.join('?' * len(chunk))})",
            chunk,
        ):
            stored[oracle_id] = {face.get("name"): face for face in json.loads(faces)}
    return stored


def _faces_json(card: CardRecord, held: dict[str, dict[str, Any]]) -> str | None:
    """The card's faces, a field its source leaves out filled from the same face as stored: a
    whole ``card_faces`` replaced the stored one, and MTGJSON's Jace faces, after Scryfall's,
    erased their power, toughness and loyalty (a code review)."""
    if not card.card_faces:
        return None
    faces = [{key: value if value is not None else held.get(face.name, {}).get(key) for key, value in asdict(face).items()}
             for face in card.card_faces]
    return json.dumps(faces, ensure_ascii=False)


def save_cards(db: sqlite_utils.Database, cards: Iterable[CardRecord], document_id: int) -> None:
    cards = list(cards)
    save_sets(db, sets_named_by(cards), document_id)
    chosen: dict[str, CardRecord] = {}
    printing_rows = []
    for card in cards:
        # The card's row names it in English: an English printing wins over a localized one.
        if card.oracle_id and (card.oracle_id not in chosen or card.lang == "en"):
            chosen[card.oracle_id] = card
        if card.scryfall_id or card.multiverse_id or card.place:
            printing_id = card.scryfall_id or (f"multiverse:{card.multiverse_id}" if card.multiverse_id
                                               else f"document:{document_id}:{card.place}")
            printing_rows.append(
                (
                    printing_id,
                    card.oracle_id,
                    card.lang,
                    card.name,
                    card.printed_name,
                    card.printed_type_line,
                    card.printed_text,
                    card.set_code,
                    card.collector_number,
                    card.multiverse_id,
                    document_id,
                    # Only where no card row can hold it: the cost is the card's, not the printing's.
                    card.mana_cost if not card.oracle_id else None,
                    card.note,
                    # So are its Oracle wording (a Gatherer page's Oracle view) and its numbers.
                    *((card.type_line, card.oracle_text, *_stats(card)) if not card.oracle_id else (None,) * 6),
                    card.released_at,
                    printing_id,
                    # A set named without its code has no row of sets to name it: its name stays here.
                    card.set_name if not card.set_code else None,
                )
            )
    stored = _stored_faces(db, [oracle_id for oracle_id, card in chosen.items() if card.card_faces])
    card_rows = [
        (
            oracle_id,
            card.name,
            json.dumps(card.faces, ensure_ascii=False) if card.faces else None,
            card.layout,
            card.type_line,
            card.mana_cost,
            card.oracle_text,
            _faces_json(card, stored.get(oracle_id, {})),
            *_stats(card),
            document_id if card.oracle_text is not None or card.type_line is not None else None,
        )
        for oracle_id, card in chosen.items()
    ]
    db.conn.executemany(
        # Sources describe a card in more or less detail: keep what is known, fill what is new.
        "insert into cards (oracle_id, name, faces, layout, type_line, mana_cost, oracle_text, card_faces,"
        " power, toughness, loyalty, defense, oracle_document_id)"
        " values (?,?,?,?,?,?,?,?,?,?,?,?,?) on conflict(oracle_id) do update set name = excluded.name,"
        " faces = coalesce(excluded.faces, faces), layout = coalesce(excluded.layout, layout),"
        " type_line = coalesce(excluded.type_line, type_line),"
        " mana_cost = coalesce(excluded.mana_cost, mana_cost),"
        " oracle_text = coalesce(excluded.oracle_text, oracle_text),"
        " card_faces = coalesce(excluded.card_faces, card_faces),"
        " power = coalesce(excluded.power, power), toughness = coalesce(excluded.toughness, toughness),"
        " loyalty = coalesce(excluded.loyalty, loyalty), defense = coalesce(excluded.defense, defense),"
        # The document whose text the row shows: the one that gave the text kept (a source that
        # lost a card's text, giving its type line alone, was credited with the other's text).
        " oracle_document_id = case when excluded.oracle_text is not null then excluded.oracle_document_id"
        " when oracle_text is null and excluded.oracle_document_id is not null then excluded.oracle_document_id"
        " else oracle_document_id end",
        card_rows,
    )
    db.conn.executemany(
        "insert or replace into printings (id, oracle_id, lang, name, printed_name,"
        " printed_type_line, printed_text, set_code, collector_number, multiverse_id, document_id, mana_cost, note,"
        " type_line, oracle_text, power, toughness, loyalty, defense, released_at, set_name)"
        # A printing's day stays where this source gives none: MTGJSON names Scryfall's printings
        # by their ids and dates them by their sets, after its cards; replaced, a Secret Lair
        # drop's own day became its set's first (a code review).
        " values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,coalesce(?, (select released_at from printings as held where held.id = ?)),?)",
        printing_rows,
    )


def save_card_names(
    db: sqlite_utils.Database, names: Iterable[CardName], document_id: int, written: set[int] | None = None
) -> None:
    """``written``: the ids of the names this document already wrote, for a caller saving one
    document in batches. A card bulk file names each card once per printing (five or more times
    in all_cards): a name already written is the same row again, so it is not sent to SQLite,
    whose ``insert or replace`` of it deleted and inserted the row again."""
    rows = []
    for name in names:
        if not name.name:
            continue
        row_id = stable_id("card-name", document_id, name.lang, name.name, name.oracle_id, name.english_name)
        if written is not None:
            if row_id in written:
                continue
            written.add(row_id)
        rows.append((row_id, document_id, name.oracle_id, name.english_name, name.lang, name.name,
                     name_key(name.name), name_key(name.english_name)))
    db.conn.executemany(
        "insert or replace into card_name_records (id, document_id, oracle_id, english_name, lang,"
        " name, name_key, english_key) values (?,?,?,?,?,?,?,?)",
        rows,
    )


def ruling_record_rows(
    rulings: Iterable[RulingRecord], document_id: int, detect: LangDetector
) -> Iterator[tuple]:
    # Positions restart per card in some formats (MTGJSON): the record's identity is its
    # place in the document's stream.
    prefix = record_id_prefix(document_id)
    for index, ruling in enumerate(rulings):
        if index > RECORD_INDEX_MASK:
            raise ValueError(f"document {document_id} holds more than {RECORD_INDEX_MASK + 1} rulings")
        text = clean_text(ruling.text or "")
        dropped = detect_dropped_symbols(text) if text else []
        # The card is known by its Oracle id when the document gives it: its card key now, so
        # the linking step rewrites only the records it has to look up by name
        # (resolved_oracle_id stays null: it would be oracle_id a second time).
        yield (
            prefix | index,
            document_id,
            ruling.position,
            ruling.oracle_id,
            ruling.card_name,
            ruling.card_name_lang,
            ruling.raw_date,
            ruling.published_at,
            ruling.source,
            text,
            ruling.lang,
            detect(text, ruling.lang),
            ruling.method,
            name_key(ruling.card_name),
            stored_text_key(text),
            json.dumps(dropped, ensure_ascii=False) if dropped else None,
            None,
            ruling.oracle_id,
        )


# A record's id: its document's hash in the high bits, its place in the document's stream in
# the low 24, so a document's records are written in key order, one page after the other
# (a hash per record sent every insert to a random page of a table of a million rows).
RECORD_INDEX_BITS = 24


RECORD_INDEX_MASK = (1 << RECORD_INDEX_BITS) - 1


def record_id_prefix(document_id: int) -> int:
    return stable_id("ruling-records", document_id) >> RECORD_INDEX_BITS << RECORD_INDEX_BITS


def place_in_document(record_id: int, document_id: int, position: int) -> int:
    """The record's place among its document's rulings, from 1, as quality issues name it
    (whatever its format numbers from: Scryfall from 0, a page capture from 1); a record of
    the older id scheme, its ``position``."""
    if record_id & ~RECORD_INDEX_MASK == record_id_prefix(document_id):
        return (record_id & RECORD_INDEX_MASK) + 1
    return position


def legacy_record_id(record_id: int, document_id: int) -> int:
    """The id the record had when every record id was a hash of (document, index): what
    translation ids are made from, so they stay as published."""
    if record_id & ~RECORD_INDEX_MASK == record_id_prefix(document_id):
        return stable_id("ruling-record", document_id, record_id & RECORD_INDEX_MASK)
    return record_id


def plain_text_key(text: str) -> str:
    """The typography-blind key of a clean text in the common case: plain quotes and dashes,
    no final period. Cheap, so the stored key can be left out whenever it is this."""
    text = punctuation_twins(text).replace("\u2026", "...")
    # What TRAILING_PERIODS ([\s.]+$) removes, without a regex search of the whole text.
    end = len(text)
    while end and (text[end - 1] == "." or text[end - 1].isspace()):
        end -= 1
    return text[:end]


def stored_text_key(text: str) -> str | None:
    """``identity_key(text)`` as ``ruling_records.text_key`` keeps it: null when it is
    ``plain_text_key(text)`` (most texts: the key would store the text a second time)."""
    if not text:
        return ""
    plain = plain_text_key(text)
    if "{" not in plain and _single_spaced(plain) and not _SPACE_BEFORE_PUNCTUATION.search(plain):
        # identity_key would only redo what plain_text_key did (no braced symbols to spell,
        # no spacing to fold): a fifth of a bulk import's time, spared for most texts.
        return None
    key = identity_key(text)
    return None if key == plain else key


_SPACE_BEFORE_PUNCTUATION = re.compile(r" [,.;:!?]")


def _single_spaced(text: str) -> bool:
    """``" ".join(text.split()) == text``, without splitting a printable text into words (the
    plain space is the one printable white space character)."""
    if text.isprintable():
        return "  " not in text and text[:1] != " " and text[-1:] != " "
    return " ".join(text.split()) == text


def text_key_of(row: dict) -> str:
    """A ruling record's typography-blind key, stored or implied (see ``stored_text_key``)."""
    key = row["text_key"]
    return plain_text_key(row["text"] or "") if key is None else key


def identity_hash(text_key: str) -> str:
    """``rulings.identity``: a short digest of the typography-blind text (the ruling's id is
    made from the text itself; the column only finds copies of a ruling, and the text stored
    twice more with its index was a quarter of the database)."""
    return f"{stable_id('identity', text_key):015x}"


def save_ruling_records(
    db: sqlite_utils.Database,
    rulings: Iterable[RulingRecord],
    document_id: int,
    detect: LangDetector,
    batch_size: int = 20_000,
) -> int:
    """Stream ruling records into the database in batches; returns how many were written."""
    sql = (
        "insert or replace into ruling_records (id, document_id, position, oracle_id, card_name,"
        " card_name_lang, raw_date, published_at, source, text, declared_lang, detected_lang,"
        " method, name_key, text_key, dropped, resolved_oracle_id, card_key)"
        " values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
    )
    # A document read again replaces its records (ids from an older scheme included).
    db.conn.execute("delete from ruling_records where document_id = ?", [document_id])
    written = 0
    batch: list[tuple] = []
    for row in ruling_record_rows(rulings, document_id, detect):
        batch.append(row)
        if len(batch) >= batch_size:
            db.conn.executemany(sql, batch)
            written += len(batch)
            batch = []
    if batch:
        db.conn.executemany(sql, batch)
        written += len(batch)
    return written


class LangDetector:
    """Language of a ruling text; English texts are detected cheaply, others offline."""

    def __call__(self, text: str, declared: str | None) -> str:
        if not text:
            return declared or "en"
        # Declared English in ASCII letters (curly apostrophes and dashes included: half of
        # Scryfall's rulings have one) is English; detecting it was half of a bulk import.
        if declared == "en" and ascii_but_typography(text):
            return "en"
        code, _confidence = detect_lang(text)
        return code


def _with_claims(parsed: RulingsDocument) -> Iterator[RulingRecord]:
    """Rulings with the language the page claimed for them, where the text turned out to be
    in another one (a "translation" that is really the English original)."""
    extra = parsed.extra or {}
    claimed = extra.get("claimed_text_lang")
    mismatched = set(extra.get("language_mismatch_positions") or [])
    for ruling in parsed.rulings:
        if claimed and ruling.position in mismatched:
            yield replace(ruling, lang=claimed, method=extra.get("claimed_method") or ruling.method)
        else:
            yield ruling


def save_rulings_document(
    db: sqlite_utils.Database, parsed: RulingsDocument, document_id: int
) -> None:
    save_cards(db, parsed.cards, document_id)
    save_document_made_on(db, document_id, parsed.extra.get("made_on"))
    if parsed.extra.get("sets"):
        # A file that names its sets apart from its cards (MTGJSON), read whole.
        save_file_sets(db, parsed.extra["sets"], document_id)
    save_card_names(db, parsed.card_names, document_id)
    save_ruling_records(db, _with_claims(parsed), document_id, LangDetector())
    for issue in parsed.issues:
        save_quality_issue(db, issue, document_id)
