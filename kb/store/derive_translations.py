"""Translated rulings linked to their English originals, from what is stored.

The SQL side of ``kb.link.ruling_translations``; also records rulings whose "translation" is the
English text. Runs after ``derive_rulings`` has written the English rulings.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import groupby

import sqlite_utils

from kb.records import QualityIssue, RulingRecord
from kb.store.derive_rulings import RECORD_COLUMNS, prepared_records
from kb.store.save import legacy_record_id, place_in_document, save_quality_issue, write_differences
from kb.store.schema import stable_id


def record_untranslated(db: sqlite_utils.Database, untranslated: list[tuple[dict, int]]) -> None:
    """A page's "translation" that is really the English text: a sighting of the English
    ruling, and a translation row saying this page gave no real translation."""
    rows = []
    for row, ruling_id in untranslated:
        rows.append(
            (
                stable_id("translation", row["document_id"], row["position"]),
                ruling_id, row["declared_lang"], row["text"], row["method"] or "machine",
                "untranslated", 1.0, "same-text", row["document_id"], row["raw_date"], row["card_name"],
                row["published_at"],
            )
        )
        save_quality_issue(
            db,
            QualityIssue(
                "untranslated",
                f"ruling {place_in_document(row['id'], row['document_id'], row['position'])} is announced as {row['declared_lang']}"
                f" ({row['method'] or 'translation'}) but its text is English",
            ),
            row["document_id"],
        )
    _insert_translations(db, rows)


TRANSLATION_COLUMNS = (
    "id", "ruling_id", "lang", "text", "method", "status", "confidence", "match_method", "document_id",
    "raw_date", "card_name", "published_at",
)


@contextmanager
def derived_translations(db: sqlite_utils.Database) -> Iterator[None]:
    """``link_translations`` and ``record_untranslated`` inside write to a temporary table; at
    the end ``ruling_translations`` becomes it, writing only the rows that differ: an import
    that changes no translation leaves them (and their search index entries) as they are."""
    listed = ", ".join(TRANSLATION_COLUMNS)
    db.execute("drop table if exists temp.derived_translations")
    db.execute(f"create temp table derived_translations ({listed}, primary key (id))")
    yield
    write_differences(db, "ruling_translations", "derived_translations", TRANSLATION_COLUMNS, key=("id",))
    db.execute("drop table temp.derived_translations")


def _insert_translations(db: sqlite_utils.Database, rows: list[tuple]) -> None:
    db.conn.executemany(
        f"insert or replace into temp.derived_translations ({', '.join(TRANSLATION_COLUMNS)})"
        f" values ({', '.join('?' * len(TRANSLATION_COLUMNS))})",
        rows,
    )


def _english_candidates(db: sqlite_utils.Database, oracle_ids: set[str], dates: set[str | None]):
    """The English rulings a translation may be of: the card's when it is known, otherwise
    those of the same dates (bounded: never every ruling in the database)."""
    from kb.link.ruling_translations import EnglishRuling

    if oracle_ids:
        marks = ", ".join("?" for _ in oracle_ids)
        query = f"select * from rulings where oracle_id in ({marks}) order by oracle_id, position"
        params: list = sorted(oracle_ids)
    else:
        dated = sorted(d for d in dates if d)
        if not dated:
            return []
        marks = ", ".join("?" for _ in dated)
        query = f"select * from rulings where published_at in ({marks}) order by oracle_id, position"
        params = dated
    return [
        EnglishRuling(
            ruling_id=row["id"], oracle_id=row["oracle_id"], published_at=row["published_at"],
            position=row["position"], text=row["text"],
        )
        for row in db.query(query, params)
    ]


def _names_in(db: sqlite_utils.Database, english: list, record: dict) -> dict[str, set[str]]:
    """The names of the English rulings' cards in the language of a translation's card name."""
    lang = record["card_name_lang"] or record["detected_lang"]
    oracle_ids = sorted({ruling.oracle_id for ruling in english if ruling.oracle_id})
    names: dict[str, set[str]] = defaultdict(set)
    for start in range(0, len(oracle_ids), 500):
        part = oracle_ids[start : start + 500]
        for oracle_id, name in db.execute(
            f"select oracle_id, name from card_names where lang = ? and oracle_id in ({', '.join('?' * len(part))})",
            [lang, *part],
        ):
            names[oracle_id].add(name)
    return names


def term_lexicons(db: sqlite_utils.Database) -> dict[str, list]:
    """Per language, English→localized term pairs from linked CR glossaries and keywords."""
    from kb.link.ruling_translations import CompiledLexicon, compile_lexicon

    pairs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in db.query(
        """select versions.lang, en.term as english, tr.term as localized
        from glossary_links join glossary as tr on tr.id = glossary_links.glossary_id
        join glossary as en on en.id = glossary_links.en_glossary_id
        join cr_versions as versions on versions.id = tr.version_id"""
    ):
        pairs[row["lang"]].add((row["english"], row["localized"]))
    for row in db.query("select lang, en_term, term from keywords"):
        pairs[row["lang"]].add((row["en_term"], row["term"]))
    return {lang: CompiledLexicon(compile_lexicon(sorted(found))) for lang, found in pairs.items()}


def _lexicon_lang(lang: str | None) -> str | None:
    # Simplified and traditional Chinese rulings share the Chinese glossary.
    return {"zht": "zhs"}.get(lang or "", lang)


def link_translations(db: sqlite_utils.Database) -> None:
    """Rulings in other languages go beside the English ruling they translate."""
    from kb.link.ruling_translations import confined_to_one_card, match_translations

    lexicons = term_lexicons(db)

    records = prepared_records(
        db.query(
            f"select {RECORD_COLUMNS} from ruling_records"
            " join documents on documents.id = ruling_records.document_id"
            " where ruling_records.detected_lang != 'en'"
            " order by ruling_records.document_id, ruling_records.card_key, ruling_records.position"
        )
    )
    unlinked: dict[int, int] = defaultdict(int)
    for (document_id, _card_key), grouped in groupby(records, key=lambda r: (r["document_id"], r["card_key"])):
        group = list(grouped)
        candidates = [
            RulingRecord(
                text=r["text"], raw_date=r["raw_date"], position=r["position"],
                published_at=r["published_at"], source=r["source"], oracle_id=r["oracle_id"],
                card_name=r["card_name"], card_name_lang=r["card_name_lang"],
                lang=r["detected_lang"], method=r["method"],
            )
            for r in group
        ]
        english = _english_candidates(
            db, {r["oracle_id"] for r in group if r["oracle_id"]}, {r["published_at"] for r in group}
        )
        lexicon = lexicons.get(_lexicon_lang(group[0]["detected_lang"]) or "")
        found = match_translations(candidates, english, lexicon) if english else []
        if found and not any(r["oracle_id"] for r in group):
            # Matched against every card's rulings of their dates: kept only where they are one card's.
            found = confined_to_one_card(found, english, group[0]["card_name"], _names_in(db, english, group[0]))
        matches = {m.candidate_index: m for m in found}
        rows = []
        for index, record in enumerate(group):
            match = matches.get(index)
            ruling_id = match.ruling_id if match else None
            if not ruling_id:
                unlinked[document_id] += 1
            rows.append(
                (
                    stable_id("translation", document_id, record["position"], legacy_record_id(record["id"], document_id)),
                    ruling_id, record["detected_lang"], record["text"], record["method"] or "official",
                    "linked" if ruling_id else "unlinked", match.confidence if match else 0.0,
                    match.method if match else None, document_id, record["raw_date"], record["card_name"],
                    record["published_at"],
                )
            )
        _insert_translations(db, rows)
    for document_id, count in sorted(unlinked.items()):
        save_quality_issue(
            db,
            QualityIssue(
                "unlinked-translation",
                f"{count} translated rulings of this document have no English original in the database yet",
            ),
            document_id,
        )
