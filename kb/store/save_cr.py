"""Saving a parsed Comprehensive Rules document: its version row, rules, examples, glossary and references."""
from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator

import sqlite_utils

from kb.link.cr_trace import version_id_of
from kb.normalise.editions import edition_set_name
from kb.records import (
    CRDocument,
    QualityIssue,
)
from kb.store.bulk_indexes import indexes_made_after
from kb.store.save import save_quality_issue
from kb.store.schema import stable_id


def version_id_for(db: sqlite_utils.Database, cr: CRDocument, source_id: str) -> str:
    if cr.effective_date:
        return version_id_of(cr)
    # An undated page (a chapter of a translation whose date is on its index page) belongs to
    # the one dated version of the same language from the same source, when there is one.
    dated = [
        row[0]
        for row in db.execute(
            "select cr_versions.id from cr_versions join documents on documents.id = cr_versions.document_id"
            " where cr_versions.lang = ? and cr_versions.effective_date is not null and documents.source_id = ?",
            [cr.lang, source_id],
        )
    ]
    if len(dated) == 1:
        return dated[0]
    # Otherwise undated per-rule pages of one site and language form one growing collection.
    return f"{cr.lang}-pages-{source_id}"


def source_kind(db: sqlite_utils.Database, source_id: str) -> str:
    """``sources.kind`` of a source ("" for one not stored)."""
    return (db.execute("select kind from sources where id = ?", [source_id]).fetchone() or ("",))[0]


def official_file_of(db: sqlite_utils.Database, version_id: str, source_id: str, document_id: int) -> int | None:
    """The official document a complete version is stored from, when this document, from a source
    that is not official, is another copy of it (the same date and text): the official file keeps
    the version. (The last copy imported won: 2014-09-25 was then read from a Venser's Journal
    copy, attributed to "local", its method still "official".)"""
    if source_kind(db, source_id) == "official":
        return None
    found = db.execute(
        "select cr_versions.document_id from cr_versions join documents on documents.id = cr_versions.document_id"
        " join sources on sources.id = documents.source_id"
        " where cr_versions.id = ? and sources.kind = 'official' and cr_versions.status = 'complete'"
        " and cr_versions.document_id != ?",
        [version_id, document_id],
    ).fetchone()
    return found[0] if found else None


@contextlib.contextmanager
def cr_indexes_made_after(db: sqlite_utils.Database) -> Iterator[None]:
    """Within the block, CR tables that are empty (a whole build) keep up only the indexes saving
    a document reads (a version's rules, counts, positions); the others are made once at the
    end. The whole CR archive is 231,864 rules: each insert kept four more indexes up, a fifth
    of the build."""
    with (
        indexes_made_after(db, "rules", ["number"], ["version_id", "parent_number"], ["position"], ["lineage_id"]),
        indexes_made_after(db, "rule_refs", ["target_number"]),
        indexes_made_after(db, "glossary", ["lineage_id"]),
    ):
        yield


def mark_conflicting_copy(db: sqlite_utils.Database, version_id: str, edition_id: str) -> None:
    """A second, different text under a stored edition's date (a damaged copy published again) is
    kept as a version of its own, but it is not that edition, nor in force on its date: undated,
    it is never the current rules, nor a step of the rules' history (a refresh review: a damaged
    re-issue of 2022-02-18 became the current rules, Vigilance and nine keywords "removed"). Its
    printed date stays in ``raw_date``, and ``status`` says whose copy it is."""
    db.execute("update cr_versions set effective_date = null, status = ? where id = ?",
               [f"{CONFLICTING_COPY}{edition_id}", version_id])


# ``cr_versions.status`` of such a copy begins so, the edition's id after it.
CONFLICTING_COPY = "conflicting copy of "


def save_cr_document(
    db: sqlite_utils.Database, cr: CRDocument, document_id: int, source_id: str, version_id: str | None = None
) -> str:
    """Store one CR document as (part of) a version (``version_id`` when the caller chose it); returns the version id."""
    version_id = version_id or version_id_for(db, cr, source_id)
    conn = db.conn
    earlier = conn.execute("select document_id from cr_versions where id = ?", [version_id]).fetchone()
    # One version may come in several documents (chapter pages of a translation, per-rule
    # pages, a re-encoded copy of an official file): each document adds or replaces the rules
    # it carries, and positions are renumbered in rule-number order afterwards.
    # A number printed twice (a misprint the parser flagged) keeps both rules: the second and
    # later ones get an id of their own, with the number as printed.
    rule_ids = _rule_ids(version_id, cr.rules)
    # A rule's id names its version: a version without rules yet (every version of a build)
    # has nothing to replace. Four statements per rule cost a 14-version build 1.3 s.
    if conn.execute("select 1 from rules where version_id = ? limit 1", [version_id]).fetchone():
        replaced = [(rule_id,) for rule_id in rule_ids]
        for table in ("rule_examples", "rule_refs", "rule_links"):
            conn.executemany(f"delete from {table} where rule_id = ?", replaced)
        conn.executemany("delete from rules where id = ?", replaced)
    merging = db.execute("select count(*) from rules where version_id = ?", [version_id]).fetchone()[0] > 0
    english_titles = cr.extra.get("english_titles", {}) if cr.extra else {}
    rule_rows = []
    example_rows = []
    ref_rows = []
    for position, (rule, rule_id) in enumerate(zip(cr.rules, rule_ids, strict=True)):
        rule_rows.append(
            (
                rule_id,
                version_id,
                rule.number,
                rule.kind,
                rule.title,
                rule.text,
                rule.parent,
                rule.section,
                position,
                rule.number_confidence,
                english_titles.get(rule.number),
            )
        )
        for example_position, example in enumerate(rule.examples):
            example_rows.append(
                (stable_id("example", rule_id, example_position), rule_id, example_position, example)
            )
        for target in dict.fromkeys(rule.refs):
            ref_rows.append((rule_id, target))
    conn.executemany(
        "insert or replace into rules (id, version_id, number, kind, title, text, parent_number,"
        " section, position, number_confidence, english_title) values (?,?,?,?,?,?,?,?,?,?,?)",
        rule_rows,
    )
    conn.executemany(
        "insert or replace into rule_examples (id, rule_id, position, text) values (?,?,?,?)",
        example_rows,
    )
    conn.executemany(
        "insert or replace into rule_refs (rule_id, target_number) values (?,?)", ref_rows
    )
    glossary_rows = []
    glossary_ref_rows = []
    # A term may head two entries (a translation can give two concepts one word): the id
    # counts repeats so both are kept, while a later document of the version replaces them.
    glossary_ids = []
    repeats: dict[str, int] = {}
    for entry in cr.glossary:
        repeats[entry.term] = repeats.get(entry.term, 0) + 1
        glossary_ids.append(stable_id("glossary", version_id, entry.term, repeats[entry.term] - 1))
    conn.executemany("delete from glossary_refs where glossary_id = ?", [(gid,) for gid in glossary_ids])
    for position, entry in enumerate(cr.glossary):
        glossary_id = glossary_ids[position]
        glossary_rows.append((glossary_id, version_id, entry.term, entry.text, position))
        for target in dict.fromkeys(entry.refs):
            glossary_ref_rows.append((glossary_id, target))
    conn.executemany(
        "insert or replace into glossary (id, version_id, term, text, position) values (?,?,?,?,?)",
        glossary_rows,
    )
    conn.executemany(
        "insert or replace into glossary_refs (glossary_id, target_number) values (?,?)",
        glossary_ref_rows,
    )
    if merging:
        _renumber_positions(db, version_id)
    counts = db.execute(
        "select (select count(*) from rules where version_id = :v and kind in ('rule', 'subrule')),"
        " (select count(*) from glossary where version_id = :v), (select count(*) from rules where version_id = :v)",
        {"v": version_id},
    ).fetchone()
    version_row = {
        "id": version_id,
        "lang": cr.lang,
        "effective_date": cr.effective_date,
        "raw_date": cr.raw_date,
        "title": cr.title,
        "method": cr.method or ("official" if cr.lang == "en" else None),
        "document_id": document_id,
        "encoding": cr.encoding,
        "intro": cr.intro,
        "credits": cr.credits,
        "extra": _small_extra(cr.extra),
        "set_name": (cr.extra or {}).get("set_name") or (edition_set_name(cr.effective_date) if cr.lang == "en" else None),
        "status": f"truncated in its {cr.extra['truncated']}" if (cr.extra or {}).get("truncated") else "complete",
    }
    if merging and not cr.effective_date:
        # A chapter joining a dated version adds rules, not the version's own description; the
        # version names the documents that joined it (its page lists their reading notes).
        version_row = {"id": version_id}
        if earlier and earlier[0] not in (None, document_id):
            stored = conn.execute("select extra from cr_versions where id = ?", [version_id]).fetchone()
            extra = json.loads(stored[0]) if stored and stored[0] else {}
            joined = extra.get("joined_documents", [])
            if document_id not in joined:
                extra["joined_documents"] = [*joined, document_id]
                version_row["extra"] = json.dumps(extra, ensure_ascii=False, sort_keys=True)
    version_row.update({"rule_count": counts[0], "glossary_count": counts[1]})
    db.table("cr_versions").upsert(version_row, pk="id")
    if earlier and earlier[0] not in (None, document_id) and cr.effective_date and counts[2] == len(set(rule_ids)):
        # Another copy of the whole version (re-encoded, line endings changed) replaced every rule
        # the earlier one gave: its format notes describe rows no longer there, and this copy's
        # own come next (each note was listed twice, once per copy).
        conn.execute("delete from quality_issues where kind = 'cr-format' and document_id = ?", [earlier[0]])
    for warning in cr.warnings:
        save_quality_issue(db, QualityIssue("cr-format", warning), document_id)
    return version_id


def _rule_ids(version_id: str, rules: list) -> list[int]:
    repeats: dict[str, int] = {}
    ids = []
    for rule in rules:
        repeat = repeats.get(rule.number, 0)
        repeats[rule.number] = repeat + 1
        key = ("rule", version_id, rule.number) if repeat == 0 else ("rule", version_id, rule.number, repeat)
        ids.append(stable_id(*key))
    return ids


def rule_number_key(number: str) -> tuple:
    """Document order from a number: part 1, 100, 100.1, 100.1a, …, 199, part 2, 200, …;
    702.9 before 702.10."""
    parts = re.findall(r"\d+|[a-z]+", number)
    if not parts:
        return ((0, -1),)
    head = int(parts[0]) if parts[0].isdigit() else 0
    # A part ("7") sorts just before its first section ("700").
    first = (head * 100, -1) if len(parts[0]) == 1 else (head, 0)
    rest = tuple((int(p), "") if p.isdigit() else (-1, p) for p in parts[1:])
    return (first, *rest)


def _renumber_positions(db: sqlite_utils.Database, version_id: str) -> None:
    rows = db.execute("select id, number from rules where version_id = ?", [version_id]).fetchall()
    ordered = sorted(rows, key=lambda row: rule_number_key(row[1]))
    db.conn.executemany(
        "update rules set position = ? where id = ?",
        [(position, rule_id) for position, (rule_id, _number) in enumerate(ordered)],
    )


# Parser facts too big or too private to keep: per-rule titles live in rules.english_title,
# and an alignment answer key belongs to tests, not to the published database.
_EXTRA_KEPT_ELSEWHERE = {"english_titles", "alignment"}


def _small_extra(extra: dict | None) -> str | None:
    kept = {k: v for k, v in (extra or {}).items() if k not in _EXTRA_KEPT_ELSEWHERE}
    return json.dumps(kept, ensure_ascii=False, sort_keys=True) if kept else None
