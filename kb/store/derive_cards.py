"""Cards and their names from the stored card and name records: names resolved to cards, cards that rulings name but no card source has, unknown cards reported."""
from __future__ import annotations

import json

import sqlite_utils

from kb.normalise.names import name_key
from kb.records import QualityIssue
from kb.store.save import save_quality_issue


def resolve_card_names(db: sqlite_utils.Database) -> None:
    """card_names = every name record whose card is known, by oracle id or by English name."""
    db.execute("delete from cards where name is null")
    db.execute("delete from card_names")
    english_rows = []
    for row in db.query("select oracle_id, name, faces from cards"):
        names = [row["name"], *json.loads(row["faces"] or "[]")]
        for name in dict.fromkeys(filter(None, names)):
            english_rows.append((row["oracle_id"], "en", name, "oracle", name_key(name)))
    db.conn.executemany(
        "insert or ignore into card_names (oracle_id, lang, name, source, name_key) values (?,?,?,?,?)",
        english_rows,
    )
    # By Oracle id where the document gives it, else by a unique English name, else through
    # the multiverse id of the one printing the document shows (old Gatherer printed pages
    # name a card only in its own language).
    db.execute(
        """insert or ignore into card_names (oracle_id, lang, name, source, name_key)
        select coalesce(records.oracle_id, (
                select min(english.oracle_id) from card_names as english
                where english.lang = 'en' and english.name_key = records.english_key
                having count(distinct english.oracle_id) = 1), (
                select min(known.oracle_id) from printings as shown
                join printings as known on known.multiverse_id = shown.multiverse_id
                where shown.document_id = records.document_id and known.oracle_id is not null
                having count(distinct known.oracle_id) = 1)) as resolved,
            records.lang, records.name, documents.source_id, records.name_key
        from card_name_records as records join documents on documents.id = records.document_id
        where resolved in (select oracle_id from cards)
        order by documents.source_id, records.id"""
    )


def ensure_cards_exist(db: sqlite_utils.Database) -> None:
    """A ruling may name an Oracle id whose card data we have not imported: keep the ruling,
    give the card a row without a name, and say so."""
    missing = [
        row[0]
        for row in db.execute(
            "select distinct oracle_id from rulings where oracle_id is not null"
            " and oracle_id not in (select oracle_id from cards) order by oracle_id"
        )
    ]
    db.conn.executemany("insert into cards (oracle_id) values (?)", [(oracle_id,) for oracle_id in missing])
    if missing:
        # One issue, not one per card: a rulings bulk file imported alone would flood the table.
        shown = ", ".join(missing[:5]) + (", …" if len(missing) > 5 else "")
        save_quality_issue(
            db,
            QualityIssue(
                "card-data-missing",
                f"rulings name {len(missing)} Oracle ids with no imported card data ({shown});"
                " their cards have no name until card data is imported",
            ),
        )


def report_unknown_cards(db: sqlite_utils.Database) -> None:
    for row in db.query(
        "select distinct rulings.card_name, rulings.card_name_lang, ruling_sightings.document_id"
        " from rulings join ruling_sightings on ruling_sightings.ruling_id = rulings.id"
        " where rulings.oracle_id is null and rulings.card_name is not null"
        " order by 1, 2, 3"
    ):
        save_quality_issue(
            db,
            QualityIssue(
                "unknown-card",
                f"card {row['card_name']!r} ({row['card_name_lang']}) is not in the card data yet; its rulings wait to be linked",
            ),
            row["document_id"],
        )
