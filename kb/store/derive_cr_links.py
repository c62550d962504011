"""Link every translated CR version in the database to the English rules it translates.

Runs after English rule lineages are derived (``kb.store.derive_history.save_cr_history``): a
translated rule links to the English rule of the same identity, in the English version it
translates or, when that version is not held, in the neighbouring versions
(``kb.link.cr_translation_targets``); its status says how that English rule stands today.
Undated chapters of a translation join its dated version here, whatever the import order.
"""
from __future__ import annotations

import json

import sqlite_utils

from kb.records import CRDocument, GlossaryEntry, Rule
from kb.store.save_cr import CONFLICTING_COPY
from kb.store.schema import stable_id


def load_cr_document(db: sqlite_utils.Database, version_id: str, shared: dict[str, str] | None = None) -> CRDocument:
    """Rebuild the parsed document of one stored version (what the pure linkers take).

    ``shared``: one string for each distinct text across the documents loaded with it. A CR
    edition repeats most of the one before, and the history holds every English edition at once:
    with the whole archive (111 editions) the copies were ~3.5 MB an edition, 420 MB in all."""
    same = shared.setdefault if shared is not None else _as_is
    version = db.table("cr_versions").get(version_id)
    examples: dict[int, list[str]] = {}
    for rule_id, text in db.conn.execute(
        "select rule_id, text from rule_examples where rule_id in"
        " (select id from rules where version_id = ?) order by rule_id, position",
        [version_id],
    ):
        examples.setdefault(rule_id, []).append(same(text, text))
    refs: dict[int, list[str]] = {}
    for rule_id, target in db.conn.execute(
        "select rule_id, target_number from rule_refs where rule_id in"
        " (select id from rules where version_id = ?) order by rowid",
        [version_id],
    ):
        refs.setdefault(rule_id, []).append(same(target, target))
    rules = []
    english_titles = {}
    # A plain cursor, not a dict a row: the history reads every rule of every English edition.
    for rule_id, number, kind, text, title, parent, section, confidence, english_title in db.conn.execute(
        "select id, number, kind, text, title, parent_number, section, number_confidence, english_title"
        " from rules where version_id = ? order by position", [version_id],
    ):
        number = same(number, number)
        rules.append(
            Rule(
                number=number,
                kind=same(kind, kind),
                text=same(text or "", text or ""),
                title=title and same(title, title),
                parent=parent and same(parent, parent),
                section=section and same(section, section),
                examples=examples.get(rule_id, []),
                refs=refs.get(rule_id, []),
                number_confidence=confidence if confidence is not None else 1.0,
            )
        )
        if english_title:
            english_titles[number] = english_title
    glossary = [
        GlossaryEntry(term=same(term, term), text=same(text or "", text or ""))
        for term, text in db.conn.execute(
            "select term, text from glossary where version_id = ? order by position", [version_id]
        )
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


def _as_is(text: str, _default: str) -> str:
    return text


def link_cr_translations(db: sqlite_utils.Database, loaded: dict[str, CRDocument] | None = None) -> None:
    """``loaded``: English versions already read back by this derive (the history's), not read twice."""
    from kb.link.cr_glossary_links import link_glossary
    from kb.link.cr_translations import link_rules
    from kb.store.translation_coverage import clear_what_translations_lack, report_what_it_lacks

    db.execute("delete from rule_links")
    db.execute("delete from glossary_links")
    db.execute("delete from keywords")
    clear_what_translations_lack(db)
    if "en" in join_undated_chapters(db):
        loaded = None  # an English version grew since it was read
    resolve_rule_refs(db)
    # Not a conflicting copy of an edition (kb.store.save_cr.mark_conflicting_copy): no translation
    # follows it (its id names the edition's date, and it took a Chinese translation from the
    # edition on a tie: a code review).
    english_ids = [row["id"] for row in db.query(
        "select id from cr_versions where lang = 'en' and coalesce(status, '') not like ? order by effective_date",
        [CONFLICTING_COPY + "%"],
    )]
    translated_ids = [row["id"] for row in db.query(
        "select id from cr_versions where lang != 'en' order by id"
    )]
    if not translated_ids or not english_ids:
        return
    loaded = loaded or {}
    english = {version_id: loaded.get(version_id) or load_cr_document(db, version_id) for version_id in english_ids}
    lineages = _English_lineages(db, english_ids)
    keyword_rows: dict[tuple, tuple] = {}
    for version_id in translated_ids:
        translated = load_cr_document(db, version_id)
        en_version, how, _links = link_rules(translated, english)
        note = None
        if isinstance(how, tuple):
            how, note = how
        db.table("cr_versions").update(
            version_id,
            {"translates_version_id": en_version, "translation_match": how, "translation_note": note},
        )
        if en_version is None:
            continue
        glossary_links = link_glossary(translated, english[en_version])
        links = _link_by_lineage(translated, en_version, how, english, lineages, glossary_links)
        report_what_it_lacks(db, version_id, translated, english, (en_version, how), links, glossary_links, lineages.of)
        db.conn.executemany(
            "insert or replace into rule_links (rule_id, en_rule_id, status, confidence, reasons)"
            " select ?, id, ?, ?, ? from rules where id = ?",
            [
                (stable_id("rule", version_id, link.number), link.status, link.confidence,
                 "; ".join(link.reasons) if link.reasons else None, stable_id("rule", link.en_version, link.en_number))
                for link in links if link.en_number and link.en_version
            ],
        )
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
        keyword_rows.update(_keyword_rows(translated, english[en_version], en_version, version_id, links, keyword_rows))
    db.conn.executemany(
        "insert or replace into keywords (id, lang, term, en_term, rule_number, version_id, source)"
        " values (?,?,?,?,?,?,?)",
        list(keyword_rows.values()),
    )


class _English_lineages:  # noqa: N801 (a small record, named for what it holds)
    """Lineage of every English (version, number) and each lineage's member in the newest version."""

    def __init__(self, db: sqlite_utils.Database, english_ids: list[str]) -> None:
        self.of: dict[tuple[str, str], str] = {}
        for row in db.query("select version_id, number, lineage_id from rules where lineage_id is not null"):
            self.of.setdefault((row["version_id"], row["number"]), row["lineage_id"])
        self.newest_version = english_ids[-1]
        self.newest = {lineage: number for (version, number), lineage in self.of.items() if version == self.newest_version}

    def lineage_of(self, version_id: str, number: str) -> str | None:
        return self.of.get((version_id, number))


def _link_by_lineage(translated, en_version, how, english, lineages, glossary_links) -> list:
    from kb.link.cr_compare import same_content
    from kb.link.cr_translation_targets import link_across_versions, relabel
    from kb.link.cr_translations import _clean_term, earlier_titles

    candidates = [(en_version, english[en_version])]
    if how != "effective-date" and translated.effective_date:
        candidates = _neighbours(translated.effective_date, english) or candidates
    glossary_pairs = {_clean_term(link.term): link.en_term for link in glossary_links}
    first = min(candidates, key=lambda candidate: candidate[1].effective_date or "")[0]
    links = link_across_versions(translated, candidates, lineages.lineage_of, glossary_pairs,
                                 earlier_titles(first, english))
    rules = {version_id: {rule.number: rule for rule in doc.rules} for version_id, doc in english.items()}
    newest_rules = rules[lineages.newest_version]
    for link in links:
        if not (link.en_version and link.en_number):
            continue
        lineage = lineages.lineage_of(link.en_version, link.en_number)
        newest_number = lineages.newest.get(lineage) if lineage else link.en_number
        newest = newest_rules.get(newest_number) if newest_number else None
        en_rule = rules[link.en_version][link.en_number]
        status, reason = relabel(link.status, en_rule, newest, lineages.newest_version, same_content, link.number)
        link.status = status
        if reason:
            link.reasons.insert(0, reason)
    return links


def _neighbours(date: str, english: dict[str, CRDocument]) -> list[tuple[str, CRDocument]]:
    """The English versions just before and just after ``date``, nearest first."""
    import datetime

    dated = sorted((doc.effective_date, version_id) for version_id, doc in english.items() if doc.effective_date)
    before = [item for item in dated if item[0] <= date][-1:]
    after = [item for item in dated if item[0] > date][:1]
    day = datetime.date.fromisoformat(date)
    chosen = sorted(before + after, key=lambda item: abs((datetime.date.fromisoformat(item[0]) - day).days))
    return [(version_id, english[version_id]) for _date, version_id in chosen]


def _keyword_rows(translated, english_doc, en_version, version_id, links, seen) -> dict[tuple, tuple]:
    """Keyword pairs (translated term, English keyword) from links into ``en_version``."""
    from kb.link.cr_translations import RuleLink
    from kb.link.keywords import build_keyword_dictionary

    as_rule_links = [
        RuleLink(link.number, link.en_number, link.status, link.confidence, link.reasons)
        for link in links if link.en_version == en_version
    ]
    rows: dict[tuple, tuple] = {}
    for keyword in build_keyword_dictionary(translated, english_doc, as_rule_links):
        key = (keyword.lang, keyword.term, keyword.en_term)
        if key not in seen and key not in rows:
            rows[key] = (stable_id("keyword", *key), keyword.lang, keyword.term, keyword.en_term,
                         keyword.rule_number, version_id, keyword.source)
    return rows


def join_undated_chapters(db: sqlite_utils.Database) -> set[str]:
    """Move the rules of an undated page collection (``<lang>-pages-<source>``: chapters imported
    before their index) into the one dated version of that language and source, if there is one.
    Returns the languages whose versions changed."""
    from kb.store.save_cr import save_cr_document

    joined: set[str] = set()
    for row in list(db.query("select id, lang, document_id from cr_versions where effective_date is null and id like '%-pages-%'")):
        source = db.execute("select source_id from documents where id = ?", [row["document_id"]]).fetchone()
        if source is None:
            continue
        dated = [
            found[0] for found in db.execute(
                "select cr_versions.id from cr_versions join documents on documents.id = cr_versions.document_id"
                " where cr_versions.lang = ? and cr_versions.effective_date is not null and documents.source_id = ?",
                [row["lang"], source[0]],
            )
        ]
        if len(dated) != 1:
            continue
        pages = load_cr_document(db, row["id"])
        pages.effective_date = None
        pages.extra = {key: value for key, value in pages.extra.items() if key == "english_titles"}
        for table in ("rule_examples", "rule_refs", "rule_links"):
            db.execute(f"delete from {table} where rule_id in (select id from rules where version_id = ?)", [row["id"]])
        db.execute("delete from rules where version_id = ?", [row["id"]])
        db.execute("delete from cr_versions where id = ?", [row["id"]])
        save_cr_document(db, pages, row["document_id"], source[0])
        joined.add(row["lang"])
    return joined


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
