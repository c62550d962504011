"""What linking some rulings to rules reads of the stored CR history, and no more.

Linking a ruling (``kb.store.derive_history.save_ruling_rules``) needs every English version's
rule numbers and keywords (a ruling may name a keyword a later version added), the lineage of
each rule it cites, and, to tell whether a cited rule still reads the same, that rule and its
lineage's member in the newest version. An import that links only its own rulings read every
stored version whole instead (``stored_cr_history``): 1.2 s of the 1.6 s of importing a small
rulings file into the bundled snapshot's 31 editions, growing with the CR archive. Here the
versions are read as outlines, and rules and lineages when a citation asks for them.
"""
from __future__ import annotations

import json

import sqlite_utils

from kb.link.keyword_vocabulary import KEYWORD_SECTION_TITLES, pointed_to
from kb.records import CRDocument, GlossaryEntry, Rule
from kb.store.derive_history import english_versions, save_ruling_rules, stored_lineages


def version_outline(db: sqlite_utils.Database, version_id: str) -> CRDocument:
    """A stored version as the keyword index reads it (``KeywordIndex.from_versions``): its
    sections, and the rules of the keyword sections (701 and 702; 502 before 2009) with their titles and texts (a
    keyword heading may be printed as text), the other rules that bear a title (a glossary term may name
    one: "Commander Draft" is 903.13; an import linked only the terms of sections, a build those of every
    titled rule: a review of the rulings' links), and its glossary entries that point to a rule (a term a
    later version made a keyword may be defined by another rule of it); no other rules, examples or references."""
    version = db.table("cr_versions").get(version_id)
    titles = list(KEYWORD_SECTION_TITLES)
    # Only entries that point to a rule ("See rule 700.4."): the others define no term elsewhere.
    glossary = [GlossaryEntry(term=term, text=text or "") for term, text in db.conn.execute(
        "select term, text from glossary where version_id = ? and text like '%See rule%' order by position",
        [version_id])]
    # And the rules they point to: a term may name an untitled rule that says it (202.3, "The
    # mana value of an object is …").
    pointed = sorted({number for entry in glossary for number in pointed_to(entry.text)})
    rules = [
        Rule(number=number, kind=kind, text=text or "", title=title, parent=parent, section=section)
        for number, kind, title, parent, section, text in db.conn.execute(
            "select number, kind, title, parent_number, section, text from rules"
            " where version_id = ? and (kind = 'section' or title <> '' or section in (select number from rules"
            f" where version_id = ? and kind = 'section' and title in ({', '.join('?' for _ in titles)}))"
            f" or number in (select value from json_each(?)))"
            " order by position",
            [version_id, version_id, *titles, json.dumps(pointed)],
        )
    ]
    return CRDocument(
        lang=version["lang"],
        effective_date=version["effective_date"],
        raw_date=version["raw_date"],
        title=version["title"],
        intro="",
        rules=rules,
        glossary=glossary,
        method=version["method"],
        extra=json.loads(version["extra"]) if version["extra"] else {},
    )


class StoredLineages:
    """Rule number → lineage id of each version (``stored_lineages``), read the first time a
    version is asked for; a negative position counts from the newest."""

    def __init__(self, db: sqlite_utils.Database, version_ids: list[str]) -> None:
        self._db = db
        self._version_ids = version_ids
        self._read: dict[int, dict[str, str]] = {}

    def __getitem__(self, at: int) -> dict[str, str]:
        at = range(len(self._version_ids))[at]  # IndexError past either end
        found = self._read.get(at)
        if found is None:
            found = self._read[at] = stored_lineages(self._db, self._version_ids[at])
        return found


class StoredRules:
    """A version's rule as ``load_cr_document`` gives it (title, text, examples), read when asked.
    A number printed twice in a version is its last rule, as a document's rules by number are."""

    def __init__(self, db: sqlite_utils.Database, version_ids: list[str]) -> None:
        self._db = db
        self._version_ids = version_ids
        self._read: dict[tuple[int, str], Rule] = {}
        self._subrules: dict[tuple[int, str], list[Rule]] = {}

    def __call__(self, at: int, number: str) -> Rule:
        at = range(len(self._version_ids))[at]
        found = self._read.get((at, number))
        if found is None:
            row = self._db.execute(
                "select id, kind, text, title, parent_number, section from rules"
                " where version_id = ? and number = ? order by position desc limit 1",
                [self._version_ids[at], number],
            ).fetchone()
            if row is None:
                raise KeyError(f"{self._version_ids[at]} has no rule {number}")
            rule_id, kind, text, title, parent, section = row
            examples = [example for (example,) in self._db.execute(
                "select text from rule_examples where rule_id = ? order by position", [rule_id])]
            found = self._read[(at, number)] = Rule(
                number=number, kind=kind, text=text or "", title=title, parent=parent, section=section,
                examples=examples,
            )
        return found


    def subrules(self, at: int, number: str) -> list[Rule]:
        """The version's subrules of rule ``number`` (of a section: every rule and subrule under
        it), in their order (read once: every citation of a rule asks, a million rulings' for a few
        hundred rules)."""
        at = range(len(self._version_ids))[at]
        found = self._subrules.get((at, number))
        if found is None:
            under = "section = ? and kind in ('rule', 'subrule')" if "." not in number else "parent_number = ? and kind = 'subrule'"
            numbers = [row[0] for row in self._db.execute(
                f"select number from rules where version_id = ? and {under} order by position", [self._version_ids[at], number],
            )]
            found = self._subrules[(at, number)] = [self(at, subrule) for subrule in numbers]
        return found


def link_rulings_where(db: sqlite_utils.Database, where: str) -> None:
    """``ruling_rules`` of the rulings the SQL condition ``where`` selects, reading of the CR
    history only what their citations need (the same rows as from the history read whole)."""
    versions = english_versions(db)
    version_ids = [version_id for version_id, _date in versions]
    outlines = [version_outline(db, version_id) for version_id in version_ids]
    save_ruling_rules(
        db, versions, outlines, StoredLineages(db, version_ids), where=where, rule_at=(rules := StoredRules(db, version_ids)),
        subrules_at=rules.subrules,
    )
