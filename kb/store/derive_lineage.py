"""Rule lineages in the database: derived at build time, read back by the CLI and the rule pages.

``save_lineages`` fills ``rule_lineages`` and ``rules.lineage_id`` for every English version from
the number maps of consecutive versions (``kb.link.cr_lineage``); ``save_lineage_links`` stores
the confirmed merges and splits beside them (``kb.link.cr_merges``); ``save_glossary_lineages``
does the same for glossary entries, whatever their term (``kb.link.glossary_lineage``). The readers below are the one
implementation of tracing: ``mtgkb rule-trace``, ``mtgkb rule-at`` and ``/rule/<number>`` all
ask them which rule is which in another version.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import sqlite_utils

from kb.link.cr_lineage import Lineage, build_lineages
from kb.link.cr_merges import LineageLink
from kb.link.glossary_lineage import glossary_lineages
from kb.records import CRDocument
from kb.store.bulk_indexes import indexes_made_after
from kb.store.schema import stable_id

Connection = sqlite3.Connection | sqlite_utils.Database


def save_lineages(
    db: sqlite_utils.Database,
    versions: Sequence[tuple[str, str]],
    documents: Sequence[CRDocument],
    maps: Sequence[dict[str, str | None]],
) -> list[dict[str, str]]:
    """Recompute ``rule_lineages`` and ``rules.lineage_id`` (and ``rule_comparisons.lineage_id``);
    returns number → lineage per version."""
    db.execute("delete from rule_lineages")
    version_ids = [version_id for version_id, _date in versions]
    by_version, lineages = build_lineages(version_ids, documents, maps)
    _write_lineage_ids(db, "rules", "number", version_ids, by_version)
    save_comparison_lineages(db, version_ids, by_version)
    titles = [{rule.number: rule.title for rule in doc.rules} for doc in documents]
    newest = len(documents) - 1
    db.conn.executemany(
        "insert into rule_lineages (id, kind, first_version_id, first_number, last_version_id,"
        " last_number, current_number, title, numbers, versions) values (?,?,?,?,?,?,?,?,?,?)",
        [_lineage_row(lineage, version_ids, titles, newest) for lineage in lineages.values()],
    )
    return by_version


def save_lineage_links(
    db: sqlite_utils.Database,
    versions: Sequence[tuple[str, str]],
    by_version: Sequence[dict[str, str]],
    links: Sequence[Sequence[LineageLink]],
) -> None:
    """Recompute ``rule_lineage_links``: each pair of consecutive versions' confirmed merges and
    splits, with the lineages on both sides."""
    db.execute("delete from rule_lineage_links")
    rows = []
    for index, found in enumerate(links):
        (old_id, _), (new_id, _) = versions[index], versions[index + 1]
        for link in found:
            rows.append((
                stable_id("lineage_link", link.kind, old_id, link.old_number, new_id, link.new_number),
                link.kind, old_id, new_id, link.old_number, link.new_number,
                by_version[index].get(link.old_number), by_version[index + 1].get(link.new_number), link.share,
            ))
    db.conn.executemany(
        "insert into rule_lineage_links (id, kind, old_version_id, new_version_id, old_number, new_number,"
        " old_lineage_id, new_lineage_id, share) values (?,?,?,?,?,?,?,?,?)",
        rows,
    )


def save_glossary_lineages(
    db: sqlite_utils.Database, versions: Sequence[tuple[str, str]], documents: Sequence[CRDocument],
) -> list[dict[str, str]]:
    """``glossary.lineage_id`` of every English entry, and the glossary lineages in
    ``rule_lineages`` (kind ``glossary``, terms where rules have numbers); each version's term →
    lineage."""
    db.execute("delete from rule_lineages where kind = 'glossary'")
    version_ids = [version_id for version_id, _date in versions]
    by_version, lineages = glossary_lineages(version_ids, [document.glossary for document in documents])
    _write_lineage_ids(db, "glossary", "term", version_ids, by_version)
    newest = len(documents) - 1
    titles = [{entry.term: entry.term for entry in document.glossary} for document in documents]
    db.conn.executemany(
        "insert into rule_lineages (id, kind, first_version_id, first_number, last_version_id,"
        " last_number, current_number, title, numbers, versions) values (?,?,?,?,?,?,?,?,?,?)",
        [_lineage_row(lineage, version_ids, titles, newest) for lineage in lineages.values()],
    )
    return by_version


def save_comparison_lineages(
    db: sqlite_utils.Database, version_ids: list[str], by_version: Sequence[dict[str, str]]
) -> None:
    """``rule_comparisons.lineage_id`` of each version's rules (``kb.store.identity_diff``), row by
    row through its key: the table has no index by number to join on."""
    for version_id, lineage_of in zip(version_ids, by_version, strict=True):
        rows = db.execute("select position, number from rule_comparisons where version_id = ?", [version_id]).fetchall()
        db.conn.executemany(
            "update rule_comparisons set lineage_id = ? where version_id = ? and position = ?",
            [(lineage_of.get(number), version_id, position) for position, number in rows],
        )


def _write_lineage_ids(
    db: sqlite_utils.Database, table: str, key: str, version_ids: list[str], by_version: Sequence[dict[str, str]]
) -> None:
    """``table.lineage_id`` of every row: ``by_version[i][row's key]`` for the rows of
    ``version_ids[i]``, null for every other row.

    One statement, and the lineage index made again afterwards: a row at a time, each update
    looked its row up and put its hash lineage id at a random place of that index (the whole CR
    archive: 231,864 rules, a fifth of its history). Every English row's lineage is written again,
    so the index is always made again; rows already without a lineage are not written again."""
    db.execute("drop table if exists temp.lineage_of")
    db.execute("create temp table lineage_of (version_id text, key text, lineage_id text)")
    for version_id, lineage_of in zip(version_ids, by_version, strict=True):
        db.conn.executemany(
            "insert into temp.lineage_of values (?, ?, ?)",
            [(version_id, found, lineage) for found, lineage in lineage_of.items()],
        )
    with indexes_made_after(db, table, ["lineage_id"], up_to_rows=None):
        db.execute(f"update {table} set lineage_id = null where lineage_id is not null")
        db.execute(
            f"update {table} set lineage_id = found.lineage_id from temp.lineage_of as found"
            f" where {table}.version_id = found.version_id and {table}.{key} = found.key"
        )
    db.execute("drop table temp.lineage_of")


def _lineage_row(lineage: Lineage, version_ids: list[str], titles: list[dict], newest: int) -> tuple:
    first_index, first_number = lineage.members[0]
    last_index, last_number = lineage.members[-1]
    title = next((titles[i][n] for i, n in reversed(lineage.members) if titles[i].get(n)), None)
    return (
        lineage.id, lineage.kind, version_ids[first_index], first_number, version_ids[last_index],
        last_number, last_number if last_index == newest else None, title,
        # Glossary terms hold commas ("Control, Controller"): one per line.
        ("\n" if lineage.kind == "glossary" else ",").join(lineage.numbers),
        len(lineage.members),
    )


# ---------------------------------------------------------------------------- readers


@dataclass
class Member:
    """A lineage in one English version (``number`` None where the version lacks it)."""

    version_id: str
    effective_date: str | None
    number: str | None
    title: str | None
    text: str | None
    rule_id: int | None
    status: str  # first / added / same / changed / moved / moved-changed / removed / absent
    word_diff: str | None = None  # how the text changed into this version (not for pure moves)
    similarity: float | None = None  # of its text before and after that change (``cr_changes``)
    # That change paired it with the rule left at its number by the number alone (``cr_changes``).
    paired_by_number: bool = False


def _query(conn: Connection, sql: str, params: Sequence = ()) -> list[dict]:
    cursor = conn.execute(sql, list(params))
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def has_lineages(conn: Connection) -> bool:
    """True when the database has lineages derived (built with this version of the store)."""
    try:
        return bool(conn.execute("select 1 from rule_lineages limit 1").fetchone())
    except sqlite3.OperationalError:
        return False


def lineage_of(conn: Connection, version_id: str, number: str) -> str | None:
    """The lineage of rule ``number`` in ``version_id``."""
    found = conn.execute(
        "select lineage_id from rules where version_id = ? and number = ? limit 1", [version_id, number]
    ).fetchone()
    return found[0] if found else None


def english_versions(conn: Connection) -> list[tuple[str, str]]:
    """(version id, effective date) of the stored English versions, oldest first."""
    return [
        (row["id"], row["effective_date"])
        for row in _query(
            conn,
            "select id, effective_date from cr_versions where lang = 'en' and effective_date is not null"
            " order by effective_date",
        )
    ]


def by_number_column(conn: Connection) -> str:
    """``, paired_by_number`` where ``cr_changes`` has it (a file built before it was recorded
    is served as it is)."""
    columns = {row[1] for row in conn.execute("pragma table_info(cr_changes)").fetchall()}
    return ", paired_by_number" if "paired_by_number" in columns else ""


def by_number_steps(conn: Connection, lineages: Collection[str | None] | None = None) -> dict[str, list[str]]:
    """Lineage → the English versions into which it was paired by a number alone
    (``cr_changes.paired_by_number``), for ``lineages`` or (None) every lineage; empty in a file
    built before this was recorded."""
    if not by_number_column(conn):
        return {}
    if lineages is None:
        found = conn.execute(
            "select distinct rules.lineage_id, cr_changes.new_version_id from cr_changes"
            " join rules on rules.id = cr_changes.new_rule_id where cr_changes.paired_by_number = 1"
        ).fetchall()
    else:
        wanted = sorted({lineage for lineage in lineages if lineage})
        # The few changes paired by a number alone (54 of the archive's 12,915) through their
        # own index, each rule then read by its key: read by lineage, a section's 193 lineages
        # were 3,800 rules, each looked up among the changes (2.7 ms against 0.15). Without that
        # index (an older file), CROSS JOIN keeps rules the outer loop: SQLite's planner chose to
        # scan every change instead (22 ms against 2 for a section).
        few_first = conn.execute(
            "select 1 from sqlite_master where type = 'index' and name = 'idx_cr_changes_paired_by_number'"
        ).fetchone()
        joined = ("cr_changes cross join rules on rules.id = cr_changes.new_rule_id" if few_first
                  else "rules cross join cr_changes on cr_changes.new_rule_id = rules.id")
        found = conn.execute(
            f"select distinct rules.lineage_id, cr_changes.new_version_id from {joined}"
            f" where rules.lineage_id in ({','.join('?' * len(wanted))}) and cr_changes.paired_by_number = 1",
            wanted,
        ).fetchall() if wanted else []
    steps: dict[str, list[str]] = {}
    for lineage, version_id in found:
        steps.setdefault(lineage, []).append(version_id)
    return steps


def crossed_by_number(
    conn: Connection, lineages: Collection[str | None] | None = None
) -> Callable[[str | None, str | None, str | None], bool]:
    """``crossed(lineage, one, other)``: whether ``lineage`` (one of ``lineages``; None: any)
    took a step paired by a number alone between two English versions, either way round: a
    ruling that cited the rule before such a step may have cited another rule than the one its
    lineage leads to. One query for all of them (a section's page asks for hundreds)."""
    steps = by_number_steps(conn, lineages)
    if not steps:
        return lambda lineage, one, other: False
    order = {version_id: index for index, (version_id, _date) in enumerate(english_versions(conn))}

    def crossed(lineage: str | None, one: str | None, other: str | None) -> bool:
        if lineage not in steps or one not in order or other not in order:
            return False
        low, high = sorted((order[one], order[other]))
        return any(low < order.get(step, -1) <= high for step in steps[lineage])

    return crossed


def trace(conn: Connection, lineage: str) -> list[Member]:
    """The lineage in every English version, oldest first, with how it changed into each."""
    members = {
        row["version_id"]: row
        for row in _query(
            conn, "select id, version_id, number, title, text from rules where lineage_id = ?", [lineage]
        )
    }
    changes = {
        (row["new_version_id"], row["new_number"]): (
            # A rule moved with its text as it was: its word diff marks nothing. Moved with the
            # numbers it cites renumbered (601.2h → 601.2i, "601.2a–g" → "601.2a–h"), the diff
            # shows them: its page said "moved" over a text that had changed (a review).
            row["kind"], row["word_diff"] if row["kind"] != "moved" or row["aspects"] else None,
            row["similarity"], bool(row.get("paired_by_number"))
        )
        for row in _query(
            conn,
            f"select new_version_id, new_number, kind, aspects, word_diff, similarity{by_number_column(conn)} from cr_changes"
            " where new_rule_id in (select id from rules where lineage_id = ?)",
            [lineage],
        )
    }
    result: list[Member] = []
    previous = None
    for index, (version_id, date) in enumerate(english_versions(conn)):
        row = members.get(version_id)
        word_diff = similarity = None
        by_number = False
        if row is None:
            status = "removed" if previous is not None else "absent"
        elif index == 0:
            status = "first"
        elif previous is None:
            status = "added"
        else:
            status, word_diff, similarity, by_number = changes.get((version_id, row["number"]), ("same", None, None, False))
        result.append(
            Member(
                version_id=version_id, effective_date=date, number=row["number"] if row else None,
                title=row["title"] if row else None, text=row["text"] if row else None,
                rule_id=row["id"] if row else None, status=status, word_diff=word_diff,
                similarity=similarity, paired_by_number=by_number,
            )
        )
        previous = row
    return result


# How a link reads from either side, on the trace row of the version it happened in.
LINK_LABELS = {
    ("merge", "old"): "merged into",
    ("merge", "new"): "took in",
    ("split", "old"): "split into",
    ("split", "new"): "split off",
}


def lineage_links(conn: Connection, lineage: str) -> list[dict]:
    """The merges and splits the lineage took part in, each as seen from it: ``label``, the
    partner's ``number`` in the ``version`` it had it, its ``current_number`` and the ``new_version_id``
    (the version the link happened in)."""
    try:
        found = _query(
            conn,
            "select links.*, old.current_number as old_current, new.current_number as new_current"
            " from rule_lineage_links links"
            " left join rule_lineages old on old.id = links.old_lineage_id"
            " left join rule_lineages new on new.id = links.new_lineage_id"
            " where links.old_lineage_id = ? or links.new_lineage_id = ? order by links.new_version_id",
            [lineage, lineage],
        )
    except sqlite3.OperationalError:  # a database made before the table
        return []
    links = []
    for row in found:
        side, partner = ("old", "new") if row["old_lineage_id"] == lineage else ("new", "old")
        links.append({
            "kind": row["kind"], "label": LINK_LABELS[(row["kind"], side)], "new_version_id": row["new_version_id"],
            "number": row[f"{partner}_number"], "version": row[f"{partner}_version_id"],
            "current_number": row[f"{partner}_current"],
            "reworded_since": _reworded_since(conn, row[f"{partner}_lineage_id"], row[f"{partner}_version_id"]),
        })
    return links


def _reworded_since(conn: Connection, lineage: str | None, version_id: str | None) -> bool:
    """Whether the partner of a merge or split reads otherwise today than in the version of the
    link: 2015's commander-exile rule merged into 903.11, which is 903.9b today, but no longer
    speaks of exile (a 2020 rule, 903.9a, took it): "now 903.9b" alone sent a judge there."""
    if not lineage or not version_id:
        return False
    texts = [row[0] for row in conn.execute(
        """select rules.text from rules join cr_versions on cr_versions.id = rules.version_id
        where rules.lineage_id = ? and (rules.version_id = ? or rules.version_id = (
            select id from cr_versions where lang = 'en' order by effective_date desc limit 1))
        order by cr_versions.effective_date""",
        [lineage, version_id],
    )]
    return len(texts) == 2 and " ".join(texts[0].split()) != " ".join(texts[1].split())


def merges_between(conn: sqlite3.Connection, old_id: str, new_id: str) -> dict[str, str]:
    """Rules of ``old_id`` merged, by ``new_id``, into another rule (``rule_lineage_links``,
    followed by lineage through the versions between): old number → the number in ``new_id`` of
    the rule that took its text in (where it was merged, if that rule is gone by ``new_id``)."""
    try:
        rows = conn.execute(
            """select old_rules.number, coalesce(
                    (select number from rules where version_id = :new and lineage_id = links.new_lineage_id limit 1),
                    links.new_number)
            from rule_lineage_links links
            join rules old_rules on old_rules.version_id = :old and old_rules.lineage_id = links.old_lineage_id
            join cr_versions merged on merged.id = links.new_version_id
            where links.kind = 'merge'
                and merged.effective_date > (select effective_date from cr_versions where id = :old)
                and merged.effective_date <= (select effective_date from cr_versions where id = :new)
            order by merged.effective_date""", {"old": old_id, "new": new_id}).fetchall()
    except sqlite3.OperationalError:  # a database built before the links
        return {}
    return {old_number: new_number for old_number, new_number in reversed(rows)}


def number_in(conn: Connection, lineage: str, version_id: str) -> str | None:
    """The lineage's number in ``version_id`` (None where that version lacks it)."""
    found = conn.execute(
        "select number from rules where lineage_id = ? and version_id = ? limit 1", [lineage, version_id]
    ).fetchone()
    return found[0] if found else None
