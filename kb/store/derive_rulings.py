"""English rulings and their sightings, derived from the stored ruling records.

Everything here is recomputed from ``ruling_records`` on every build, and on every import for
the cards whose records it adds, removes or re-keys (``kb.store.import_changes``; a card whose name
now resolves is re-keyed), so a page whose card was unknown when it was imported is linked as soon
as the card data arrives, without reading the page again.

Each text is stored once: a record whose text is exactly its ruling's keeps none of its own
(``ruling_records.ruling_id`` names the ruling, ``text`` is null). A derive reads every record's
text from either place before it replaces the old rulings, and points each record at its new
ruling, or gives it its text back, before they go.

English rulings are derived one card at a time from a cursor ordered by card, so memory stays
bounded by the largest card, not by the size of a bulk file; ``kb.store.ruling_writer`` writes them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import groupby

import sqlite_utils

from kb.normalise.dates import parse_date
from kb.normalise.losses import restore_from_reference
from kb.normalise.text import quality_score
from kb.records import QualityIssue
from kb.store.derive_cards import RulingNames, ensure_cards_exist, report_unknown_cards
from kb.store.import_changes import ImportChanges
from kb.store.ruling_writer import DerivedRuling, RulingWriter, Sighting, ruling_id
from kb.store.save import identity_hash, place_in_document, save_quality_issue, text_key_of

# Issues this step finds; they are recomputed with the rulings on every build or import.
# Not "empty-ruling": the load reports those (kb.build.checks) as it drops the rulings, so no
# derive could find them again; deleted here, every one was lost at the end of its own build.
# (The derive's report of records stored empty, before those checks, is written with the same
# ids each time.)
DERIVED_ISSUES = (
    "unparseable-date", "unknown-card", "dropped-symbols", "unlinked-translation",
    "untranslated", "card-data-missing",
)

# Which source's order of a card's rulings wins when they print them differently.
SOURCE_PRIORITY = {"scryfall": 0, "mtgjson": 1, "gatherer": 2}


def derive_rulings(db: sqlite_utils.Database, changes: ImportChanges | None = None) -> None:
    """Every English ruling from the records, or (``changes``: an import into a built database)
    only those of the cards whose records it added, removed or re-keyed, and of the cards known by
    name or by no card (few, and matched across the whole database): the rest stand as they are.
    Translations, untranslated pages and the issues found across records are worked out whole."""
    from kb.store.derive_translations import derived_translations, link_translations, record_untranslated

    _resolve_ruling_cards(db)
    # What the derive replaces: rulings and sightings stay until the records have been read
    # (a record's text may be its ruling's: Writer.replace_rulings).
    _choose_rederived(db, None if changes is None else changes.touched_card_keys())
    replaced = "" if changes is None else " and (ruling_id is null or ruling_id in (select id from temp.replaced_rulings))"
    db.execute(f"delete from quality_issues where kind in ({', '.join(repr(k) for k in DERIVED_ISSUES)}){replaced}")
    _report_record_problems(db)
    writer = RulingWriter(db, whole=changes is None, changes=changes)
    cardless = _cardless_english_records(db)
    writer.keep_texts(cardless)
    untranslated: list[tuple[dict, int]] = []
    ruling_names = RulingNames(db, keep_unseen=changes is not None and not changes.changed("english names"))
    for card_key, grouped in groupby(_english_records(db, whole=changes is None), key=lambda row: row["card_key"]):
        rows = list(grouped)
        card_rulings = _card_rulings(card_key, rows)
        texts = [writer.add(ruling, position, quality_score) for ruling, position in card_rulings]
        if card_rulings:
            ruling_names.see(card_rulings[0][0].oracle_id, texts)
    writer.replace_rulings()
    _link_cardless_english(db, writer, untranslated, cardless)
    writer.finish()
    ensure_cards_exist(db, ruling_names)
    report_unknown_cards(db)
    with derived_translations(db):
        link_translations(db)
        record_untranslated(db, untranslated + _untranslated_with_cards(db))


def _choose_rederived(db: sqlite_utils.Database, touched: set[str] | None) -> None:
    """``temp.rederived_cards``: the card keys whose rulings are derived again (None: all);
    ``temp.replaced_rulings``: the rulings they replace, with what linking them to rules reads
    (left empty when all are derived again)."""
    for table in ("rederived_cards", "replaced_rulings", "cardless_documents"):
        db.execute(f"drop table if exists temp.{table}")
    db.execute(f"create temp table replaced_rulings as {RULING_LINK_INPUTS} where 0")
    if touched is None:
        return
    db.execute("create temp table rederived_cards (card_key text primary key)")
    db.conn.executemany(
        "insert or ignore into temp.rederived_cards values (?)",
        [(key,) for key in sorted(touched) if not key.startswith(("name:", "document:"))],
    )
    # Documents with records printed without their card, now or before this import: their
    # sightings are all found again (kb.store.ruling_writer), so every card they print a ruling
    # of is derived again too. Such pages are few and short (old Gatherer pages).
    db.execute("create temp table cardless_documents (document_id integer primary key)")
    db.conn.executemany(
        "insert or ignore into temp.cardless_documents values (?)",
        [(int(key.split(":", 1)[1]),) for key in sorted(touched) if key.startswith("document:")],
    )
    db.execute(
        "insert or ignore into temp.cardless_documents select distinct document_id from ruling_records"
        " where card_key >= 'document:' and card_key < 'document;'"
    )
    db.execute(
        "insert or ignore into temp.rederived_cards select distinct card_key from ruling_records"
        " where document_id in (select document_id from temp.cardless_documents)"
        " and card_key not like 'document:%'"
    )
    # Cards known only by a printed name: always (resolving them may have changed).
    db.execute(
        "insert or ignore into temp.rederived_cards select distinct card_key from ruling_records"
        " where card_key >= 'name:' and card_key < 'name;'"
    )
    # Rulings without an Oracle id are those of cards known by name or by no card.
    db.execute(
        f"insert into temp.replaced_rulings {RULING_LINK_INPUTS}"
        " where rulings.oracle_id in (select card_key from temp.rederived_cards) or rulings.oracle_id is null"
    )
    db.execute("create unique index temp.replaced_rulings_id on replaced_rulings (id)")


# What linking a ruling to rules reads (kb.store.derive_history.save_ruling_rules).
RULING_LINK_INPUTS = (
    "select rulings.id, rulings.oracle_id, rulings.text, rulings.published_at, cards.name as card"
    " from rulings left join cards on cards.oracle_id = rulings.oracle_id"
)


def _resolve_ruling_cards(db: sqlite_utils.Database) -> None:
    """Each record's card: its Oracle id, or the one card its printed name (any language) names."""
    # Records that name their Oracle id were resolved when saved (card_key = the Oracle id):
    # only the others are looked up, so a bulk file's million records are not rewritten.
    db.execute(
        """update ruling_records set resolved_oracle_id = (
            select min(card_names.oracle_id) from card_names
            where card_names.name_key = ruling_records.name_key
            having count(distinct card_names.oracle_id) = 1)
        where oracle_id is null"""
    )
    # Two statements, not one "where oracle_id is null or card_key is null": each reads its own
    # index (a scan of every record otherwise). The key never depends on the key it replaces.
    for which in ("oracle_id is null", "card_key is null"):
        db.execute(
            f"""update ruling_records set card_key = case
                when resolved_oracle_id is not null then resolved_oracle_id
                when name_key is not null then 'name:' || coalesce(card_name_lang, '') || ':' || name_key
                else 'document:' || document_id end
            where {which}"""
        )


def _report_record_problems(db: sqlite_utils.Database) -> None:
    for row in db.query(
        "select document_id, count(*) as n from ruling_records"
        " where trim(coalesce(text, '')) = '' and ruling_id is null group by document_id"
    ):
        save_quality_issue(db, QualityIssue("empty-ruling", f"{row['n']} rulings have no text"), row["document_id"])
    # The one place a ruling's unreadable date is reported (parsers leave the date None and say
    # nothing), so one defect is one issue whichever parser or streaming path read the ruling.
    for row in db.query(
        "select id, document_id, position, raw_date, declared_lang, card_name from ruling_records"
        " where published_at is null and trim(coalesce(raw_date, '')) != ''"  # undated: undated-ruling
    ):
        if parse_date(row["raw_date"], row["declared_lang"] or "en") is None:
            card = f" of {row['card_name']!r}" if row["card_name"] else ""
            save_quality_issue(
                db,
                QualityIssue("unparseable-date", f"ruling {_place(row)}{card}: date {row['raw_date']!r} is not a date"),
                row["document_id"],
            )


RECORD_COLUMNS = """ruling_records.id, ruling_records.document_id, ruling_records.position,
    coalesce(ruling_records.resolved_oracle_id, ruling_records.oracle_id) as oracle_id, ruling_records.card_name,
    ruling_records.card_name_lang, ruling_records.raw_date, ruling_records.published_at,
    ruling_records.source, ruling_records.text, ruling_records.ruling_id, ruling_records.declared_lang,
    ruling_records.detected_lang, ruling_records.method, ruling_records.text_key,
    ruling_records.dropped, ruling_records.card_key, documents.fetched_at, documents.source_id"""


def prepared_records(rows: Iterable[dict]) -> Iterator[dict]:
    """Records with a date and their text key, skipping empty ones (texts were cleaned when
    they were saved). Each row is completed in place: the rows are the caller's own, read for
    this derive (a copy of each was a tenth of the derive's Python)."""
    for row in rows:
        if not row["text"]:
            continue
        if not row["published_at"]:
            row["published_at"] = parse_date(row["raw_date"], row["declared_lang"] or "en")
        row["text_key"] = text_key_of(row)
        yield row


def _english_records(db: sqlite_utils.Database, whole: bool = True) -> Iterator[dict]:
    """English records with a card, card by card (``whole=False``: of ``temp.rederived_cards``)."""
    chosen = "" if whole else " and ruling_records.card_key in (select card_key from temp.rederived_cards)"
    rows = _english_record_rows(db, f"ruling_records.card_key not like 'document:%'{chosen}", BY_CARD)
    for _card_key, grouped in groupby(rows, key=lambda row: row["card_key"]):
        yield from prepared_records(with_ruling_texts(db, list(grouped)))


BY_CARD = "ruling_records.card_key, ruling_records.document_id, ruling_records.position"


def _english_record_rows(db: sqlite_utils.Database, where: str, order: str, few: bool = False) -> Iterator[dict]:
    """English records (``RECORD_COLUMNS``) meeting ``where``, in ``order``. ``few``: ``where``
    picks a few records through an index of its own, so the join never starts from the documents
    (for a range of card keys SQLite guessed that reading every document's records was cheaper:
    0.76 s for 16 records at a million)."""
    document_id = "+ruling_records.document_id" if few else "ruling_records.document_id"
    return db.query(
        f"select {RECORD_COLUMNS} from ruling_records"
        f" join documents on documents.id = {document_id}"
        f" where ruling_records.detected_lang = 'en' and {where} order by {order}"
    )


def _untranslated_with_cards(db: sqlite_utils.Database) -> list[tuple[dict, int]]:
    """English records of a card that their page announced in another language, with the
    ruling each is a copy of (read after the rulings are written: a record may keep no text)."""
    rows = list(
        _english_record_rows(
            db,
            "ruling_records.card_key not like 'document:%' and ruling_records.declared_lang is not null"
            " and ruling_records.declared_lang != 'en'",
            BY_CARD,
            few=True,
        )
    )
    return [(row, _ruling_of_record(row, row["card_key"])) for row in prepared_records(with_ruling_texts(db, rows))]


def with_ruling_texts(db: sqlite_utils.Database, rows: list[dict]) -> list[dict]:
    """Records with their text, read from their ruling where they keep none of their own.

    One query a card, run to its end, not a subquery of the long cursor over the records: that
    cursor was aborted ("abort due to ROLLBACK") while the writer flushed rows beside it, in a
    30k-ruling import into the built snapshot (not seen on small files)."""
    wanted = [row["ruling_id"] for row in rows if row["text"] is None and row["ruling_id"] is not None]
    if not wanted:
        return rows
    texts: dict[int, str] = {}
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        texts.update(db.execute(f"select id, text from rulings where id in ({', '.join('?' * len(part))})", part).fetchall())
    missing = sorted({ruling_id for ruling_id in wanted if ruling_id not in texts})
    if missing:
        # A text lost would be published silently: refuse the build instead.
        raise ValueError(f"ruling_records point at rulings that are gone: {missing[:5]}")
    return [dict(row, text=texts[row["ruling_id"]]) if row["text"] is None and row["ruling_id"] is not None else row for row in rows]


def _sighting(row: dict) -> Sighting:
    return Sighting(
        row["id"], row["document_id"], row["position"], row["raw_date"], row["source"],
        row["text"], row["fetched_at"], row["source_id"],
    )


def _new_ruling(card_key: str, row: dict, identity: str) -> DerivedRuling:
    oracle_id = row["oracle_id"]
    if oracle_id:
        return DerivedRuling(card_key, oracle_id, None, None, row["published_at"], identity)
    return DerivedRuling(card_key, oracle_id, row["card_name"], row["card_name_lang"], row["published_at"], identity)


def _join(rulings: dict[tuple[str | None, str], DerivedRuling], card_key: str, row: dict) -> DerivedRuling:
    """The ruling this record is a copy of (by date and typography-blind text), made if new."""
    key = (row["published_at"], row["text_key"])
    if key not in rulings:
        rulings[key] = _new_ruling(card_key, row, row["text_key"])
    ruling = rulings[key]
    ruling.sightings.append(_sighting(row))
    ruling.texts.append(row["text"])
    return ruling


def _card_rulings(card_key: str, rows: list[dict]) -> list[tuple[DerivedRuling, int]]:
    """One card's records → its rulings, each stored once with every sighting, in order."""
    rulings: dict[tuple[str | None, str], DerivedRuling] = {}
    damaged = []
    for row in rows:
        if row["dropped"]:
            damaged.append(row)
            continue
        _join(rulings, card_key, row)
    # A copy that lost its symbols joins the ruling it is a damaged copy of, when one is known.
    for row in damaged:
        evidence = json.loads(row["dropped"])
        restored = None
        for (published, _identity), ruling in rulings.items():
            if published != row["published_at"]:
                continue
            found = restore_from_reference(row["text"], max(ruling.texts, key=quality_score))
            if found:
                restored = (ruling, found[1])
                break
        if restored:
            ruling, missing = restored
            ruling.sightings.append(_sighting(row))
            ruling.issues.append(
                QualityIssue(
                    "dropped-symbols",
                    f"ruling {_place(row)} of document {row['document_id']} lost {' '.join(missing)};"
                    " the stored text has them from another source of this ruling",
                )
            )
            continue
        _join(rulings, card_key, row).issues.append(
            QualityIssue(
                "dropped-symbols",
                f"symbols evidently missing ({'; '.join(evidence)}); no other source of this ruling to restore them from",
            )
        )

    # Rulings keep their order per card: by date, then as the most authoritative source
    # printed them.
    def order(ruling: DerivedRuling) -> tuple:
        sightings = ruling.sightings
        # Most rulings were seen once (a bulk file): that sighting is the best one.
        best = sightings[0] if len(sightings) == 1 else min(sightings, key=_authority)
        return (ruling.published_at or "9999", SOURCE_PRIORITY.get(best.source_id, 9), best.document_id, best.position)

    return [(ruling, position) for position, ruling in enumerate(sorted(rulings.values(), key=order))]


def _place(row: dict) -> int:
    return place_in_document(row["id"], row["document_id"], row["position"])


def _authority(sighting: Sighting) -> tuple:
    return (SOURCE_PRIORITY.get(sighting.source_id, 9), sighting.document_id, sighting.position)


def _ruling_of_record(row: dict, card_key: str) -> int:
    return ruling_id(card_key, row["published_at"], row["text_key"])


def _claimed_other_language(row: dict) -> bool:
    return bool(row["declared_lang"]) and row["declared_lang"] != "en"


def _cardless_english_records(db: sqlite_utils.Database) -> list[dict]:
    """English records printed without their card (read while the old rulings are there)."""
    rows = list(
        _english_record_rows(
            db, "ruling_records.card_key >= 'document:' and ruling_records.card_key < 'document;'",
            "ruling_records.document_id, ruling_records.position", few=True,
        )
    )
    return list(prepared_records(with_ruling_texts(db, rows)))


def _link_cardless_english(db: sqlite_utils.Database, writer: RulingWriter, untranslated: list, rows: list[dict]) -> None:
    """English rulings printed without their card: found among the known rulings by content."""
    if not rows:
        return
    # Made for this lookup only, and only for many records (no query of the site finds rulings
    # by identity): a few are found through the rulings of their date.
    indexed = len(rows) > 1_000
    if indexed:
        db.execute("create index if not exists temp_rulings_identity on rulings (identity)")
    sightings = []
    unmatched: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        matches = db.execute(
            "select id from rulings where published_at is ? and identity = ? and oracle_id is not null",
            [row["published_at"], identity_hash(row["text_key"])],
        ).fetchall()
        if len(matches) == 1:
            ruling_id = matches[0][0]
            sightings.append(
                (ruling_id, row["document_id"], row["position"], row["raw_date"], row["source"], row["text"])
            )
            if _claimed_other_language(row):
                untranslated.append((row, ruling_id))
        else:
            unmatched[row["card_key"]].append(row)
    db.conn.executemany(
        "insert or replace into ruling_sightings (ruling_id, document_id, position, raw_date,"
        " source_as_seen, text_as_seen) values (?,?,?,?,?,?)",
        sightings,
    )
    if indexed:
        db.execute("drop index temp_rulings_identity")
    for card_key, card_rows in unmatched.items():
        for ruling, position in _card_rulings(card_key, card_rows):
            ruling.issues.append(
                QualityIssue("unknown-card", "the page names no card and no known ruling has this text")
            )
            writer.add(ruling, position, quality_score)
        untranslated.extend(
            (row, _ruling_of_record(row, card_key)) for row in card_rows if _claimed_other_language(row)
        )
