"""The diff of two stored English CR versions along rule lineages, read from the database.

Each English rule is stored as a diff compares it (``rule_comparisons``: its number, kind, lineage
and a digest of its words, written by ``save_comparison_digests`` while the build compares
consecutive versions, a version's rows together): two versions years apart are compared by these
(``kb.link.cr_diff.changes_by_lineage``), without reading or folding their texts again, and only
the changes a page shows read their texts (``read_texts``). A file without them (built before
them) is compared from its documents (``kb.link.cr_diff.diff_by_lineage``): the same changes.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import sqlite_utils

from kb.link.cr_compare import Entry, comparison_digest, glossary_digest
from kb.link.cr_diff import (
    Change,
    Compared,
    ComparedTerm,
    changes_by_lineage,
    diff_by_lineage,
    diff_glossary,
    glossary_changes_by_digest,
    with_texts,
)
from kb.records import GlossaryEntry
from kb.store.derive_cr_links import load_cr_document
from kb.store.derive_lineage import crossed_by_number, has_lineages

Connection = sqlite3.Connection | sqlite_utils.Database
# Numbers or terms a query names at once (SQLite's variables).
CHUNK = 500


def save_comparison_digests(db: sqlite_utils.Database, version_id: str, entries: Mapping[str, Entry]) -> None:
    """``rule_comparisons`` of one version's rules (``entries``: by number, as compared), in the
    order a diff reads them; their lineages are written with the rules'
    (``kb.store.derive_lineage.save_lineages``)."""
    db.conn.executemany(
        "insert into rule_comparisons (version_id, position, number, kind, digest) values (?, ?, ?, ?, ?)",
        [
            (version_id, position, number, entry.rule.kind, comparison_digest(entry))
            for position, (number, entry) in enumerate(entries.items())
        ],
    )


def save_glossary_comparisons(
    db: sqlite_utils.Database, version_ids: Sequence[str], glossaries: Sequence[Sequence[GlossaryEntry]],
    lineages: Sequence[Mapping[str, str]],
) -> None:
    """``glossary_comparisons`` of every English version (``lineages``: each version's term →
    lineage), written again whole as the glossary lineages are."""
    db.execute("delete from glossary_comparisons")
    db.conn.executemany(
        "insert into glossary_comparisons (version_id, position, term, lineage_id, digest) values (?, ?, ?, ?, ?)",
        [
            (version_id, position, entry.term, lineage_of.get(entry.term), glossary_digest(entry.text or ""))
            for version_id, glossary, lineage_of in zip(version_ids, glossaries, lineages, strict=True)
            for position, entry in enumerate(glossary)
        ],
    )


@dataclass(frozen=True)
class StoredVersion:
    """What a diff along lineages reads of one English version: its rules as compared
    (``stored_compared``), its glossary entries as compared (``glossary_comparisons``; None in a
    file made before them), else its glossary's texts, and its glossary entries' lineages
    (lineage, term; None in a file made before them). Read only: a site keeps it for the next diff."""

    rules: dict[str, Compared]
    glossary: list[GlossaryEntry] | None
    glossary_lineages: list[tuple[str, str]] | None
    compared_glossary: list[ComparedTerm] | None = None


def stored_version(conn: Connection, version_id: str) -> StoredVersion | None:
    """``StoredVersion`` of ``version_id``; None when its rules' comparisons are not stored."""
    rules = stored_compared(conn, version_id)
    if rules is None:
        return None
    compared = stored_glossary(conn, version_id)
    if compared is not None:
        return StoredVersion(
            rules, None, [(entry.lineage, entry.term) for entry in compared if entry.lineage is not None], compared
        )
    lineaged = _has_glossary_lineages(conn)
    rows = conn.execute(
        f"select term, text, {'lineage_id' if lineaged else 'null'} from glossary where version_id = ? order by position",
        [version_id],
    ).fetchall()
    return StoredVersion(
        rules, [GlossaryEntry(term=term, text=text or "") for term, text, _lineage in rows],
        [(lineage, term) for term, _text, lineage in rows if lineage is not None] if lineaged else None,
    )


def diff_by_identity(
    conn: Connection, old_id: str, new_id: str, texts: bool = True,
    read: Callable[[Connection, str], StoredVersion | None] = stored_version,
) -> list[Change] | None:
    """The differences between two stored English versions, each rule followed by its lineage
    through the versions between (``kb.link.cr_diff.diff_by_lineage``); None when either version has
    no lineages (another language, or a database built before them). ``texts`` False: the changes
    are counted and paired but their texts and word diffs are left to ``read_texts``. ``read``:
    how a version is read (``stored_version``; the site keeps what it read)."""
    if not has_lineages(conn):
        return None
    old_version, new_version = read(conn, old_id), read(conn, new_id)
    if old_version is None or new_version is None:  # not stored: compared from the documents
        old_lineages, new_lineages = lineage_numbers(conn, old_id), lineage_numbers(conn, new_id)
        if not old_lineages or not new_lineages:
            return None
        db = sqlite_utils.Database(conn) if isinstance(conn, sqlite3.Connection) else conn
        return diff_by_lineage(
            load_cr_document(db, old_id), load_cr_document(db, new_id), old_lineages, new_lineages,
            _crossed(conn, old_lineages, old_id, new_id), glossary_lineage_pairs(conn, old_id, new_id),
        )
    lineages = {number: rule.lineage for number, rule in old_version.rules.items() if rule.lineage}
    changes = changes_by_lineage(old_version.rules, new_version.rules, _crossed(conn, lineages, old_id, new_id))
    glossary_pairs = (
        _lineage_pairs(old_version.glossary_lineages, new_version.glossary_lineages)
        if old_version.glossary_lineages is not None and new_version.glossary_lineages is not None else None
    )
    if glossary_pairs is not None and old_version.compared_glossary and new_version.compared_glossary:
        changes += glossary_changes_by_digest(old_version.compared_glossary, new_version.compared_glossary, glossary_pairs)
    else:  # compared by their texts (paired afresh where no lineage pairs them)
        changes += diff_glossary(
            _glossary_of(conn, old_id, old_version), _glossary_of(conn, new_id, new_version), glossary_pairs, texts=False
        )
    if texts:
        read_texts(conn, old_id, new_id, changes)
    return changes


def _crossed(conn: Connection, lineages: Mapping[str, str], old_id: str, new_id: str) -> set[str]:
    """Old numbers whose lineage was paired by a number alone between the two versions."""
    crossed = crossed_by_number(conn)
    return {number for number, lineage in lineages.items() if crossed(lineage, old_id, new_id)}


def stored_compared(conn: Connection, version_id: str) -> dict[str, Compared] | None:
    """Each rule of ``version_id`` by number, as a diff along lineages compares it; None when
    none is stored (a file built before ``rule_comparisons``, or not an English version)."""
    try:
        found = {
            row[0]: Compared(*row)
            for row in conn.execute(
                "select number, kind, lineage_id, digest from rule_comparisons where version_id = ? order by position",
                [version_id],
            )
        }
    except sqlite3.OperationalError:  # a file made before the table, served as it is
        return None
    return found or None


def stored_glossary(conn: Connection, version_id: str) -> list[ComparedTerm] | None:
    """Each glossary entry of ``version_id`` in order, as a diff along lineages compares it; None
    when none is stored (a file built before ``glossary_comparisons``)."""
    try:
        found = [
            ComparedTerm(*row) for row in conn.execute(
                "select term, lineage_id, digest from glossary_comparisons where version_id = ? order by position",
                [version_id],
            )
        ]
    except sqlite3.OperationalError:  # a file made before the table, served as it is
        return None
    return found or None


def _glossary_of(conn: Connection, version_id: str, version: StoredVersion) -> list[GlossaryEntry]:
    """The glossary entries of ``version`` with their texts (read now where only its comparisons were)."""
    if version.glossary is not None:
        return version.glossary
    rows = conn.execute("select term, text from glossary where version_id = ? order by position", [version_id]).fetchall()
    return [GlossaryEntry(term=term, text=text or "") for term, text in rows]


def lineage_numbers(conn: Connection, version_id: str) -> dict[str, str]:
    """Each rule number of ``version_id`` → its lineage (empty: a version without lineages, such as
    a translation)."""
    return dict(
        conn.execute(
            "select number, lineage_id from rules where version_id = ? and lineage_id is not null order by position",
            [version_id],
        ).fetchall()
    )


def _has_glossary_lineages(conn: Connection) -> bool:
    return "lineage_id" in {column[1] for column in conn.execute("pragma table_info(glossary)")}


def glossary_lineage_pairs(conn: Connection, old_id: str, new_id: str) -> dict[str, str] | None:
    """Old term → new term of the two versions' glossary entries of one lineage: versions years
    apart are compared as the history pairs them (and without pairing the glossaries afresh, a
    third of a distant diff's time); None where glossary lineages are not stored."""
    if not _has_glossary_lineages(conn):
        return None
    # Each version's entries read by its own index and joined here: joined in SQL, each entry
    # of one version looked through every version's entries of its lineage (25 ms a distant diff).
    lineage_terms = "select lineage_id, term from glossary where version_id = ? and lineage_id is not null order by position"
    return _lineage_pairs(conn.execute(lineage_terms, [old_id]).fetchall(), conn.execute(lineage_terms, [new_id]).fetchall())


def _lineage_pairs(old: list[tuple[str, str]], new: list[tuple[str, str]]) -> dict[str, str] | None:
    """Old term → new term of entries of one lineage (each side: (lineage, term) in order; a
    lineage listed twice: its last term); None when none is paired so (paired afresh)."""
    new_terms = dict(new)
    found = {old_term: new_terms[lineage] for lineage, old_term in old if lineage in new_terms}
    return found or None


def read_texts(conn: Connection, old_id: str, new_id: str, changes: Iterable[Change]) -> None:
    """Give each of ``changes`` between the two versions its texts and word diff (those that
    have them already are left as they are)."""
    unread = [change for change in changes if change.old_text is None and change.new_text is None]
    rules = [change for change in unread if change.entry_kind != "glossary"]
    terms = [change for change in unread if change.entry_kind == "glossary"]
    old_rules = _rule_texts(conn, old_id, {change.old_number for change in rules if change.old_number})
    new_rules = _rule_texts(conn, new_id, {change.new_number for change in rules if change.new_number})
    for change in rules:
        with_texts(change, old_rules.get(change.old_number or ""), new_rules.get(change.new_number or ""))
    old_terms = _glossary_texts(conn, old_id, {change.old_number for change in terms if change.old_number})
    new_terms = _glossary_texts(conn, new_id, {change.new_number for change in terms if change.new_number})
    for change in terms:
        with_texts(change, old_terms.get(change.old_number or ""), new_terms.get(change.new_number or ""))


def _rule_texts(conn: Connection, version_id: str, numbers: set[str]) -> dict[str, str]:
    """Title, text and examples of the rules ``numbers`` of ``version_id`` as one text each
    (``kb.link.cr_compare.rule_display_text``; a number printed twice: the last)."""
    found: dict[str, str] = {}
    ordered = sorted(numbers)
    for start in range(0, len(ordered), CHUNK):
        part = ordered[start : start + CHUNK]
        # Sorted here: "order by position" read the version's every rule through that index.
        rows = sorted(conn.execute(
            f"""select position, number, title, text,
                (select group_concat(text, char(10)) from
                    (select text from rule_examples where rule_id = rules.id and text != '' order by position))
            from rules where version_id = ? and number in ({", ".join("?" * len(part))})""",
            [version_id, *part],
        ).fetchall(), key=lambda row: row[0])
        for _position, number, title, text, examples in rows:
            found[number] = "\n".join(piece for piece in (title or "", text or "", examples or "") if piece)
    return found


def _glossary_texts(conn: Connection, version_id: str, terms: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    ordered = sorted(terms)
    for start in range(0, len(ordered), CHUNK):
        part = ordered[start : start + CHUNK]
        rows = sorted(conn.execute(
            f"select position, term, coalesce(text, '') from glossary where version_id = ?"
            f" and term in ({', '.join('?' * len(part))})",
            [version_id, *part],
        ).fetchall(), key=lambda row: row[0])
        found.update((term, text) for _position, term, text in rows)
    return found
