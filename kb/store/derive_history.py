"""Save CR history into the database: ``cr_changes``, rule lineages and ``ruling_rules``.

``save_history(db)`` is part of the linking step (after rulings are derived and CR translations
linked): it diffs every pair of consecutive English CR versions, derives every rule's lineage
from those pairings (``kb.store.derive_lineage``) and links every English ruling to the lineage
of each rule it relies on, all recomputed from scratch on every build, and on every import that
adds or changes a CR version (an import that adds none links only the rulings it changed:
``kb.store.derive``).
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Protocol

import sqlite_utils

from kb.link.cr_compare import HeldEntries, same_but_numbers
from kb.link.cr_diff import Change, diff_and_pairing
from kb.link.cr_merges import LineageLink, confirmed_links
from kb.link.keyword_vocabulary import KeywordIndex
from kb.link.ruling_citations import RuleCitation, link_ruling, numbers_read_ahead, read_back_by_identity
from kb.records import CRDocument, Rule
from kb.store.bulk_indexes import indexes_made_after
from kb.store.derive_cr_links import load_cr_document
from kb.store.derive_lineage import by_number_steps, save_glossary_lineages, save_lineage_links, save_lineages
from kb.store.identity_diff import save_comparison_digests, save_glossary_comparisons
from kb.store.ruling_links import LINK_INDEXES, LINKS, LinkWriter, delete_links
from kb.store.schema import ruling_card_name, stable_id
from kb.store.version_losses import report_version_losses

# Canned queries for the Datasette metadata (merged by the owner of kb/metadata.py). A date is
# taken only as YYYY-MM-DD, a real day (``date(d, '+0 days')`` rolls 2025-02-30 over): compared as
# text, "June 1, 2025" sorted after every version's date, and the newest edition was said in force.
HISTORY_QUERIES: dict[str, dict[str, str]] = {
    "rule_on_date": {
        "title": "What did rule X say on date D?",
        "description": "The rule as the newest English version held on the date (by effective date) has it: the version in force then, unless an edition the database does not hold came between it and the next one held. The date is YYYY-MM-DD; any other text finds nothing.",
        "sql": """select v.id as version_id, v.effective_date, r.number, r.title, r.text,
    (select group_concat(line, char(10)) from (
        select s.number || ' ' || s.text as line from rules s
        where s.version_id = r.version_id and s.parent_number = r.number and s.kind = 'subrule'
        order by s.position)) as subrules
from rules r join cr_versions v on v.id = r.version_id
where v.id = (select id from cr_versions where lang = 'en' and effective_date <= :date and date(:date, '+0 days') = :date
              order by effective_date desc limit 1)
  and r.number = :number""",
    },
    "rule_today_on_date": {
        "title": "What did today's rule X say on date D?",
        "description": "The same rule (its lineage) as the newest English version held on the date had it (in force then, unless an edition not held came between), whatever its number then. The date is YYYY-MM-DD; any other text finds nothing.",
        "sql": """select v.id as version_id, v.effective_date, r.number, r.title, r.text, r.lineage_id
from rules r join cr_versions v on v.id = r.version_id
where v.id = (select id from cr_versions where lang = 'en' and effective_date <= :date and date(:date, '+0 days') = :date
              order by effective_date desc limit 1)
  and r.lineage_id = (select lineage_id from rules where number = :number and version_id =
      (select id from cr_versions where lang = 'en' order by effective_date desc limit 1))""",
    },
    "rule_lineage": {
        "title": "One rule through every version",
        "description": "Every member of the lineage of today's rule X: its number, title and text in each English version.",
        "sql": """select v.id as version_id, v.effective_date, r.number, r.title, r.text
from rules r join cr_versions v on v.id = r.version_id
where r.lineage_id = (select lineage_id from rules where number = :number and version_id =
      (select id from cr_versions where lang = 'en' order by effective_date desc limit 1))
order by v.effective_date""",
    },
    "version_changes": {
        "title": "Changes of a CR version",
        "description": "Everything that changed from the previous English version to this one, 1,000 rows at a time: offset 1000 gives the next.",
        "sql": """select kind, entry_kind, old_number, new_number, similarity, aspects, word_diff
from cr_changes where new_version_id = :version
order by position limit 1000 offset cast(coalesce(nullif(:offset, ''), '0') as integer)""",
    },
    "rule_history": {
        "title": "Changes of one rule number",
        "description": "Every recorded change in which the number appears, on either side: several rules where the number passed from one to another (follow one rule with rule_lineage).",
        "sql": """select old_version_id, new_version_id, kind, old_number, new_number, word_diff
from cr_changes where old_number = :number or new_number = :number
order by new_version_id""",
    },
    "citations_to_check": {
        "title": "Citations to check",
        "description": "Rulings citing a rule number that was later renumbered, removed or reworded"
        " (paired_by_number = 1: the rule cited was joined to today's by its number alone, and may be another;"
        " number_uncertain = 1: versions not held may have given the number to another rule by the ruling's date).",
        "sql": """select * from citations_to_check order by published_at desc, ruling_id""",
    },
}

CHECKED_STATUSES = "'renumbered', 'removed', 'changed', 'unknown'"
CITATIONS_TO_CHECK_VIEW = f"""
select link.ruling_id, rulings.published_at, rulings.card_name,
    {ruling_card_name()} as card, rulings.text as ruling_text,
    rr.rule_number as cited_number, rr.version_id as cited_version, rr.status, rr.paired_by_number, link.number_uncertain,
    rr.current_number,
    (select links.new_number || ' of ' || links.new_version_id from rule_lineage_links links
        where links.kind = 'merge' and links.old_lineage_id = cited.lineage_id
        order by links.new_version_id limit 1) as merged_into,
    (select today.number from rule_lineage_links links
        join rules today on today.lineage_id = links.new_lineage_id and today.version_id = (
            select id from cr_versions where lang = 'en' order by effective_date desc limit 1)
        where links.kind = 'merge' and links.old_lineage_id = cited.lineage_id
        order by links.new_version_id limit 1) as merged_into_current,
    cited.title as cited_title, cited.text as cited_text,
    now.title as current_title, now.text as current_text
-- The cited targets of those statuses (a few thousand), then their links by an index ("cross
-- join": SQLite's word for "in this order"; without statistics it chose to scan every link); and
-- the links whose number is in doubt, by their partial index. Never a keyword's or a term's
-- link, nor every cited link (a scan of those was 22 ms at 300k, and the view read them all
-- again once it was of the links and their targets: 0.35 s at 345k; code reviews).
from (
    select link.ruling_id, link.target_id, link.number_uncertain
    from ruling_rule_targets rr cross join ruling_rule_links link on link.target_id = rr.id
    where rr.method = 'cited' and rr.status in ({CHECKED_STATUSES})
    union all
    select link.ruling_id, link.target_id, link.number_uncertain
    from ruling_rule_links link join ruling_rule_targets rr on rr.id = link.target_id
    where link.number_uncertain = 1 and rr.method = 'cited' and (rr.status is null or rr.status not in ({CHECKED_STATUSES}))
) as link
join ruling_rule_targets rr on rr.id = link.target_id
join rulings on rulings.id = link.ruling_id
left join cards on cards.oracle_id = rulings.oracle_id
left join rules cited on cited.id = rr.rule_id
left join rules now on now.id = rr.current_rule_id
"""


def english_versions(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(version id, effective date) of the stored English versions, oldest first."""
    return [
        (row["id"], row["effective_date"])
        for row in db.query(
            "select id, effective_date from cr_versions where lang = 'en' and effective_date is not null"
            " order by effective_date"
        )
    ]


History = tuple[list[tuple[str, str]], list[CRDocument], list[dict[str, str]]]


class LineagesByPosition(Protocol):
    """Each version's rule number → lineage id, by the version's position (a list, or
    ``kb.store.linking_history.StoredLineages`` reading them when asked)."""

    def __getitem__(self, at: int, /) -> dict[str, str]: ...


def stored_cr_history(db: sqlite_utils.Database) -> History:
    """What ``save_cr_history`` returns, read back from the stored versions and lineages."""
    versions = english_versions(db)
    return versions, english_documents(db, versions), [stored_lineages(db, version_id) for version_id, _date in versions]


def english_documents(db: sqlite_utils.Database, versions: list[tuple[str, str]]) -> list[CRDocument]:
    """The stored documents of ``versions``, held together by a history: one string for each
    distinct text across them (``load_cr_document``)."""
    shared: dict[str, str] = {}
    return [load_cr_document(db, version_id, shared) for version_id, _date in versions]


def stored_lineages(db: sqlite_utils.Database, version_id: str) -> dict[str, str]:
    """Rule number → lineage id of one stored version."""
    return {
        row[0]: row[1]
        for row in db.execute(
            "select number, lineage_id from rules where version_id = ? and lineage_id is not null"
            " order by position", [version_id],
        )
    }


def save_history(db: sqlite_utils.Database) -> None:
    """Recompute ``cr_changes``, lineages and ``ruling_rules`` and (re)create the citations view."""
    save_ruling_links(db, save_cr_history(db))


def save_cr_history(db: sqlite_utils.Database) -> History:
    """Recompute ``cr_changes`` and the rule and glossary lineages (what translations link through)."""
    db.execute("delete from cr_changes")
    versions = english_versions(db)
    documents = english_documents(db, versions)
    maps, links = save_changes(db, versions, documents)
    report_version_losses(db)
    by_version = save_lineages(db, versions, documents, maps)
    save_lineage_links(db, versions, by_version, links)
    glossary_lineages = save_glossary_lineages(db, versions, documents)
    save_glossary_comparisons(
        db, [version_id for version_id, _date in versions], [document.glossary for document in documents], glossary_lineages
    )
    return versions, documents, by_version


def save_ruling_links(db: sqlite_utils.Database, history: History | None, carry_from: Path | None = None) -> None:
    """Recompute ``ruling_rules`` (after the rulings are derived) and the citations view; with
    ``carry_from`` (the file this build replaces, made by the same linking code), the rows of the
    rulings that are as there are copied from it when the CR history is too
    (``kb.store.carry_links``). ``history`` None: the CR tables were copied from ``carry_from``
    (``kb.store.carry_cr``), so its history is that file's, and the rulings left to link read of
    it only what they cite (``kb.store.linking_history``: the whole archive's editions read back
    were ~220 MB and seconds)."""
    from kb.store.carry_links import CARRIED, carry_ruling_links
    from kb.store.linking_history import link_rulings_where

    delete_links(db)
    carried = 0
    with indexes_made_after(db, LINKS, *LINK_INDEXES):
        if carry_from is not None:
            carried = carry_ruling_links(db, history, carry_from)
        where = f"rulings.id not in (select id from {CARRIED})" if carried else ""
        if db.execute(f"select exists (select 1 from rulings{' where ' + where if where else ''})").fetchone()[0]:
            if history is None:
                link_rulings_where(db, where)
            else:
                save_ruling_rules(db, *history, where=where)
    db.create_view("citations_to_check", CITATIONS_TO_CHECK_VIEW, replace=True)


def save_changes(
    db: sqlite_utils.Database, versions: list[tuple[str, str]], documents: list[CRDocument]
) -> tuple[list[dict[str, str | None]], list[list[LineageLink]]]:
    """Diffs of consecutive versions into ``cr_changes``, and each version's rules' comparison
    digests (``rule_comparisons``, what a diff of any two versions reads: ``kb.store.identity_diff``;
    their lineages are written with the rules'); returns their old → new number maps and their
    confirmed merges and splits."""
    db.execute("delete from rule_comparisons")
    maps, links = [], []
    entries = HeldEntries()
    for ((old_id, _), (new_id, _)), (old, new) in zip(pairwise(versions), pairwise(documents), strict=True):
        changes, pairing = diff_and_pairing(old, new, entries)
        save_comparison_digests(db, old_id, entries(old))
        entries.release(old)  # paired with both its neighbours
        maps.append(pairing.mapping())
        links.append(confirmed_links(pairing))
        db.conn.executemany(
            "insert or replace into cr_changes (id, old_version_id, new_version_id, kind, entry_kind,"
            " old_number, new_number, old_rule_id, new_rule_id, similarity, aspects, word_diff,"
            " old_text, new_text, position, paired_by_number) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [_change_row(old_id, new_id, position, change) for position, change in enumerate(changes)],
        )
    if len(versions) > 1:
        save_comparison_digests(db, versions[-1][0], entries(documents[-1]))
    return maps, links


def _change_row(old_id: str, new_id: str, position: int, change: Change) -> tuple:
    is_rule = change.entry_kind != "glossary"
    return (
        stable_id("cr_change", old_id, new_id, change.kind, change.old_number, change.new_number),
        old_id,
        new_id,
        change.kind,
        change.entry_kind,
        change.old_number,
        change.new_number,
        stable_id("rule", old_id, change.old_number) if is_rule and change.old_number else None,
        stable_id("rule", new_id, change.new_number) if is_rule and change.new_number else None,
        change.similarity,
        change.aspects_text,
        change.word_diff,
        change.old_text,
        change.new_text,
        position,
        int(change.paired_by_number),
    )


def save_ruling_rules(
    db: sqlite_utils.Database,
    versions: list[tuple[str, str]],
    documents: list[CRDocument],
    lineages: LineagesByPosition,
    where: str = "",
    rule_at: Callable[[int, str], Rule] | None = None,
    subrules_at: Callable[[int, str], list[Rule]] | None = None,
) -> None:
    """Every English ruling's cited rules and named keywords into ``ruling_rules``, each with
    its lineage and that lineage's member in the newest version (``where``: only the rulings
    that SQL condition selects). ``rule_at(position, number)`` and ``subrules_at(position,
    number)``: a version's rule whole and its subrules (a section's: every rule and subrule
    under it), where ``documents`` are outlines (``kb.store.linking_history``)."""
    if not versions:
        return
    index = KeywordIndex.from_versions(documents)
    position_of = {version_id: i for i, (version_id, _) in enumerate(versions)}
    if rule_at is None or subrules_at is None:
        rules_of = [{rule.number: rule for rule in doc.rules} for doc in documents]
        children_of: dict[int, dict[str, list[Rule]]] = {}

        def rule_at(at: int, number: str) -> Rule:
            return rules_of[at][number]

        def subrules_at(at: int, number: str) -> list[Rule]:
            if at not in children_of:
                children: dict[str, list[Rule]] = {}
                for rule in documents[at].rules:
                    if rule.kind == "subrule" and rule.parent:
                        children.setdefault(rule.parent, []).append(rule)
                    # A section's: every rule under it (``_status``).
                    if rule.kind in ("rule", "subrule") and rule.section:
                        children.setdefault(rule.section, []).append(rule)
                children_of[at] = children
            return children_of[at].get(number, [])
    current_of = {lineage: number for number, lineage in lineages[-1].items()}

    def lineage_at(at: int, number: str) -> str | None:
        return lineages[at].get(number)

    members: dict[int, dict[str, str]] = {}

    def number_of(at: int, lineage: str) -> str | None:
        if at not in members:
            members[at] = {member: number for number, member in lineages[at].items()}
        return members[at].get(lineage)

    newest_id = versions[-1][0]
    oldest_date = versions[0][1]
    # The last version each lineage was paired into by a number alone: a citation in a version
    # before it may have cited another rule than the one its lineage leads to today.
    last_by_number = {
        lineage: max(position_of.get(version_id, -1) for version_id in steps)
        for lineage, steps in by_number_steps(db).items()
    }
    rule_ids: dict[tuple[str, str], int] = {}  # a few thousand rules, cited by a million rulings
    # Each rule's status once: compared with its subrules, ten rules' texts a citation.
    statuses: dict[tuple[str, int, str | None, str | None], str] = {}

    def rule_id(version_id: str, number: str) -> int:
        found = rule_ids.get((version_id, number))
        if found is None:
            found = rule_ids[(version_id, number)] = stable_id("rule", version_id, number)
        return found

    # Written in batches as the rulings are read: held until the end, the rows of a million
    # rulings took the import to 525 MB (1M rulings into a built database).
    batch: list[tuple] = []
    writer = LinkWriter(db)
    query = (
        "select rulings.id, rulings.text, rulings.published_at, cards.name as card"
        " from rulings left join cards on cards.oracle_id = rulings.oracle_id"
        + (f" where {where}" if where else "")
    )
    for ruling_id, text, published_at, card in db.conn.execute(query):
        # One ruling's citations, each once (a ruling's rows never share a key with another's).
        rows: dict[tuple, tuple] = {}
        linked = link_ruling(text or "", published_at, index, [card] if card else [])
        for citation in read_back_by_identity(
                numbers_read_ahead(linked, position_of, lineage_at), position_of, lineage_at, number_of):
            if citation.version_id not in position_of:
                continue
            at = position_of[citation.version_id]
            lineage = lineages[at].get(citation.number)
            current = current_of.get(lineage) if lineage else None
            status_key = (citation.number, at, lineage, current)
            status = statuses.get(status_key)
            if status is None:
                status = statuses[status_key] = _status(citation.number, at, lineage, current, rule_at, subrules_at)
            key = (ruling_id, citation.version_id, citation.number, citation.method)
            if key in rows:
                continue
            # In the columns' order of the ruling_rules view (kb.store.ruling_links).
            rows[key] = (
                ruling_id,
                citation.number,
                citation.version_id,
                rule_id(citation.version_id, citation.number) if lineage else None,
                citation.method,
                citation.confidence,
                citation.matched_text,
                current,
                rule_id(newest_id, current) if current else None,
                status,
                lineage,
                citation.in_force_version_id,
                published_at,
                int(lineage is not None and last_by_number.get(lineage, -1) > at),
                int(_number_in_doubt(
                    citation, lineage, lineages[at + 1] if at + 1 < len(versions) else None, published_at, oldest_date)),
            )
        batch.extend(rows.values())
        if len(batch) >= RULING_RULES_BATCH:
            writer.write(batch)
            batch = []
    writer.write(batch)


RULING_RULES_BATCH = 20_000


def _number_in_doubt(
    citation: RuleCitation, lineage: str | None, next_held: dict[str, str] | None, published_at: str | None, oldest_date: str
) -> bool:
    """Whether the number a ruling is linked under may not be the one in force on its date: the
    version is only the newest held before that date, and the next held version numbers this
    rule otherwise, or gives its number to another rule (2014's Morph rulings were linked as
    702.35 of 2013-05-01; by then an edition not held had made 702.35 Fear). Or the date is
    older than every version held."""
    if lineage is None or citation.version_id != citation.in_force_version_id or not published_at:
        return False  # not found in that version, or found in a later one (marked as such)
    if published_at < oldest_date:
        return True
    return next_held is not None and next_held.get(citation.number) != lineage


def _status(
    number: str, at: int, lineage: str | None, current: str | None,
    rule_at: Callable[[int, str], Rule], subrules_at: Callable[[int, str], list[Rule]],
) -> str:
    """same / renumbered (the same text, another number) / changed (other text, under its number
    or another) / removed, comparing the cited rule and its subrules with its lineage's member in
    the newest version and its subrules; unknown when the number does not exist in the version
    relied on, the rule numbers they cite aside (those follow the rules cited). (A keyword rule is
    its title: compared alone, "Transform" was the same in 2018 and 2026, though every subrule but
    one was reworded and one added; and a renumbered rule was never said to be reworded: 2020's
    Transform, which only transforming double-faced cards could do. A section is compared with
    every rule under it: 2018's 115 Special Actions, "There are eight special actions", was said
    renumbered as 2026's 116, which lists twelve: an SQL user's review.)"""
    if lineage is None:
        return "unknown"
    if current is None:
        return "removed"
    then, now = subrules_at(at, number), subrules_at(-1, current)
    same = same_but_numbers(rule_at(at, number), rule_at(-1, current)) and len(then) == len(now) and all(
        old.number[len(number):] == new.number[len(current):] and same_but_numbers(old, new)
        for old, new in zip(then, now, strict=True))
    if not same:
        return "changed"
    return "same" if current == number else "renumbered"
