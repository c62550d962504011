"""Link every translated CR version in the database to the English version it translates."""
from __future__ import annotations

import json

import sqlite_utils

from kb.records import CRDocument, GlossaryEntry, Rule
from kb.store.schema import stable_id


def load_cr_document(db: sqlite_utils.Database, version_id: str) -> CRDocument:
    """Rebuild the parsed document of one stored version (what the pure linkers take)."""
    version = db["cr_versions"].get(version_id)
    examples: dict[int, list[str]] = {}
    for row in db.query(
        "select rule_id, text from rule_examples where rule_id in"
        " (select id from rules where version_id = ?) order by rule_id, position",
        [version_id],
    ):
        examples.setdefault(row["rule_id"], []).append(row["text"])
    refs: dict[int, list[str]] = {}
    for row in db.query(
        "select rule_id, target_number from rule_refs where rule_id in"
        " (select id from rules where version_id = ?) order by rowid",
        [version_id],
    ):
        refs.setdefault(row["rule_id"], []).append(row["target_number"])
    rules = []
    english_titles = {}
    for row in db.query("select * from rules where version_id = ? order by position", [version_id]):
        rules.append(
            Rule(
                number=row["number"],
                kind=row["kind"],
                text=row["text"] or "",
                title=row["title"],
                parent=row["parent_number"],
                section=row["section"],
                examples=examples.get(row["id"], []),
                refs=refs.get(row["id"], []),
                number_confidence=row["number_confidence"] if row["number_confidence"] is not None else 1.0,
            )
        )
        if row["english_title"]:
            english_titles[row["number"]] = row["english_title"]
    glossary = [
        GlossaryEntry(term=row["term"], text=row["text"] or "")
        for row in db.query("select * from glossary where version_id = ? order by position", [version_id])
    ]
    extra: dict = json.loads(version["extra"]) if version["extra"] else {}
    extra["english_titles"] = english_titles
    return CRDocument(
        lang=version["lang"],
        effective_date=version["effective_date"],
        raw_date=version["raw_date"],
        title=version["title"],
        intro=version["intro"] or "",
        rules=rules,
        glossary=glossary,
        credits=version["credits"] or "",
        method=version["method"],
        extra=extra,
    )


def link_cr_translations(db: sqlite_utils.Database) -> None:
    from kb.link.cr_translations import link_glossary, link_rules
    from kb.link.keywords import build_keyword_dictionary

    db.execute("delete from rule_links")
    db.execute("delete from glossary_links")
    db.execute("delete from keywords")
    resolve_rule_refs(db)
    english_ids = [row["id"] for row in db.query(
        "select id from cr_versions where lang = 'en' order by effective_date"
    )]
    translated_ids = [row["id"] for row in db.query(
        "select id from cr_versions where lang != 'en' order by id"
    )]
    if not translated_ids or not english_ids:
        return
    english = {version_id: load_cr_document(db, version_id) for version_id in english_ids}
    keyword_rows: dict[tuple, tuple] = {}
    for version_id in translated_ids:
        translated = load_cr_document(db, version_id)
        en_version, how, links = link_rules(translated, english)
        note = None
        if isinstance(how, tuple):
            how, note = how
        db["cr_versions"].update(
            version_id,
            {"translates_version_id": en_version, "translation_match": how, "translation_note": note},
        )
        if en_version is None:
            continue
        rows = []
        for link in links:
            if not link.en_number:
                continue
            rows.append(
                (
                    stable_id("rule", version_id, link.number),
                    stable_id("rule", en_version, link.en_number),
                    link.status,
                    link.confidence,
                    "; ".join(link.reasons) if link.reasons else None,
                )
            )
        db.conn.executemany(
            "insert or replace into rule_links (rule_id, en_rule_id, status, confidence, reasons)"
            " select ?, id, ?, ?, ? from rules where id = ?",
            [(r[0], r[2], r[3], r[4], r[1]) for r in rows],
        )
        glossary_links = link_glossary(translated, english[en_version])
        # Terms can repeat within a glossary: hand out the entries of a term in document order.
        glossary_ids = _ids_by_term(db, version_id)
        en_glossary_ids = _ids_by_term(db, en_version)
        rows = []
        for link in glossary_links:
            if glossary_ids.get(link.term) and en_glossary_ids.get(link.en_term):
                rows.append((glossary_ids[link.term].pop(0), en_glossary_ids[link.en_term][0], link.confidence))
        db.conn.executemany(
            "insert or replace into glossary_links (glossary_id, en_glossary_id, confidence) values (?,?,?)",
            rows,
        )
        for keyword in build_keyword_dictionary(translated, english[en_version], links):
            key = (keyword.lang, keyword.term, keyword.en_term)
            keyword_rows.setdefault(
                key,
                (
                    stable_id("keyword", *key),
                    keyword.lang,
                    keyword.term,
                    keyword.en_term,
                    keyword.rule_number,
                    version_id,
                    keyword.source,
                ),
            )
    db.conn.executemany(
        "insert or replace into keywords (id, lang, term, en_term, rule_number, version_id, source)"
        " values (?,?,?,?,?,?,?)",
        list(keyword_rows.values()),
    )


def _ids_by_term(db: sqlite_utils.Database, version_id: str) -> dict[str, list[int]]:
    ids: dict[str, list[int]] = {}
    for row in db.query("select id, term from glossary where version_id = ? order by position", [version_id]):
        ids.setdefault(row["term"], []).append(row["id"])
    return ids


def resolve_rule_refs(db: sqlite_utils.Database) -> None:
    """Point each cross-reference at the rule of the same version it names, where it exists."""
    for table, key in (("rule_refs", "rule_id"), ("glossary_refs", "glossary_id")):
        owner = "rules" if table == "rule_refs" else "glossary"
        db.execute(
            f"""update {table} set target_rule_id = (
                select target.id from {owner} as source
                join rules as target on target.version_id = source.version_id
                    and target.number = {table}.target_number
                where source.id = {table}.{key})"""
        )
