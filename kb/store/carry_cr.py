"""The CR tables carried over from the file a whole build replaces, when its CR documents are this build's.

Parsing every CR edition, comparing consecutive ones (rule lineages, ``cr_changes``) and linking
the translations to their English rules is ~35 s of a rebuild with the whole CR archive, and it
comes out as it was whenever the CR documents and the code reading them are the same: a daily
refresh rebuilds for a day's new rulings or a renamed printing, almost never for a new CR. So
where the served file holds exactly this build's CR documents (the same bytes from the same
places, read as the same formats, every one of them read whole), its CR tables are copied and
those documents are not read again.

What the CR tables hold depends on the CR documents, the order they are read in, and the code that
reads, compares and links them: the caller carries only from a file this code built
(``kb.store.carry_links``'s fingerprint covers the CR parsers, their data and this module), and a
whole build records its CR documents in the order it read them (``cr_read_order``), since the
order decides where two documents claim one version: the first of two different texts of one date
keeps the date's version id (``kb.build.identity``; the Chinese CR comes from two sources that
way), the last of two equal ones is the version's document. A refresh reads the same documents in
the same order (the raw store's fetch order); any other order reads them all again.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from kb.store.derive_rulings import DERIVED_ISSUES
from kb.store.files import read_only_uri
from kb.store.migrations import is_without_rowid
from kb.store.save_cr import cr_indexes_made_after

# Written from the CR documents and derived from them alone (kb.store.save_cr,
# kb.store.derive_history, kb.store.derive_lineage, kb.store.derive_cr_links).
CR_TABLES = (
    "cr_versions", "rules", "rule_examples", "rule_refs", "glossary", "glossary_refs", "cr_changes",
    "rule_lineages", "rule_lineage_links", "rule_comparisons", "glossary_comparisons", "rule_links", "glossary_links", "keywords",
)
SERVED_CR = "served_cr"
# The CR documents of the last whole build, in the order it read them.
READ_ORDER_TABLE = "cr_read_order"
CARRIED_DOCUMENTS = "temp.carried_cr_documents"


@dataclass(frozen=True)
class CRInput:
    """One CR document of this build: its id (``kb.store.save.document_id_for``), its format
    and its source."""
    document_id: int
    format: str
    source_id: str


def carry_cr_tables(
    db: sqlite_utils.Database, documents: list[CRInput], cr_formats: set[str], served: Path
) -> dict[int, str] | None:
    """Copy ``served``'s CR tables, and the quality issues found reading its CR documents, into
    ``db`` (a whole build, its CR tables empty, outside a transaction) when ``served`` holds
    exactly ``documents`` as its documents of ``cr_formats`` (every format a CR is read from),
    each read whole (status ``parsed``), read in the order of ``documents``. Returns each carried
    document's language (what its ``documents`` row says), or None when nothing was carried
    (other CR documents, another order, an unreadable or damaged file, no CR at all): the build
    then reads the documents itself."""
    if not documents:
        return None
    try:
        db.execute(f"attach database ? as {SERVED_CR}", [read_only_uri(served)])
    except sqlite3.Error:
        return None
    try:
        languages = _served_documents(db, documents, cr_formats)
        if languages is None:
            return None
        try:
            with cr_indexes_made_after(db):
                copied = _copy(db, list(languages))
        except sqlite3.DatabaseError:  # its schema unreadable: nothing was copied yet
            copied = False
        if not copied:
            return None
        db.execute(f"create temp table {CARRIED_DOCUMENTS} (id integer primary key)")
        db.conn.executemany(f"insert into {CARRIED_DOCUMENTS} values (?)", [(key,) for key in languages])
        return languages
    finally:
        # Outside any transaction (the caller's begins after): a database cannot be detached in one.
        db.execute(f"detach database {SERVED_CR}")


def _served_documents(db: sqlite_utils.Database, documents: list[CRInput], cr_formats: set[str]) -> dict[int, str] | None:
    """The language of each of ``documents`` as the served file read them, or None unless the
    served file's CR documents are exactly these, every one parsed, read in this order."""
    ours = {(doc.document_id, doc.format, doc.source_id) for doc in documents}
    formats = sorted(cr_formats | {doc.format for doc in documents})
    try:
        rows = db.execute(
            f"select id, format, source_id, status, lang from {SERVED_CR}.documents"
            f" where format in ({', '.join('?' * len(formats))})"
            f" or id in (select document_id from {SERVED_CR}.cr_versions)",
            formats,
        ).fetchall()
        order = [row[0] for row in db.execute(f"select document_id from {SERVED_CR}.{READ_ORDER_TABLE} order by position")]
    except sqlite3.DatabaseError:  # damaged, or built before the order was recorded
        return None
    theirs = {(row[0], row[1], row[2]) for row in rows}
    if theirs != ours or any(row[3] != "parsed" for row in rows) or order != [doc.document_id for doc in documents]:
        return None
    return {row[0]: row[4] for row in rows}


def _copy(db: sqlite_utils.Database, document_ids: list[int]) -> bool:
    """Every CR table's rows, and the quality issues found reading the documents; False (and
    nothing copied) when the served file's tables do not have this schema's columns or cannot be
    read."""
    copies = []
    for table in CR_TABLES:
        columns = [row[1] for row in db.execute(f"pragma main.table_info([{table}])")]
        served_columns = {row[1] for row in db.execute(f"pragma {SERVED_CR}.table_info([{table}])")}
        if not columns or not set(columns) <= served_columns:
            return False
        # A table keyed by an integer primary key is ordered by it; any other keeps the served
        # file's row order, as a build that read the documents in this order wrote it.
        keyed = db.execute(
            f"select count(*) = 1 and max(type = 'INTEGER') from pragma_table_info('{table}', 'main') where pk > 0"
        ).fetchone()[0]
        listed = ", ".join(f"[{column}]" for column in columns)
        if keyed or is_without_rowid(db, table):  # ordered by its key; a table without rowids has nothing else
            copies.append(f"insert into main.[{table}] ({listed}) select {listed} from {SERVED_CR}.[{table}]")
        else:
            copies.append(
                f"insert into main.[{table}] (rowid, {listed}) select rowid, {listed} from {SERVED_CR}.[{table}]"
                " order by rowid"
            )
    issue_columns = ", ".join(row[1] for row in db.execute("pragma main.table_info(quality_issues)"))
    copies.append(
        f"insert or replace into main.quality_issues ({issue_columns}) select {issue_columns}"
        f" from {SERVED_CR}.quality_issues where document_id in ({', '.join('?' * len(document_ids))})"
        f" and kind not in ({', '.join('?' * len(DERIVED_ISSUES))})"
    )
    try:
        for statement in copies[:-1]:
            db.execute(statement)
        db.execute(copies[-1], [*document_ids, *DERIVED_ISSUES])
    except sqlite3.DatabaseError:
        # Damaged where it was not read before: what it holds is not known, so the build reads
        # the documents itself (a refresh is never blocked by the file it replaces). What was
        # copied goes by hand: a build's file keeps no journal to roll back with.
        for table in CR_TABLES:
            db.execute(f"delete from main.[{table}]")
        return False
    return True


def cr_documents_carried(db: sqlite_utils.Database) -> int:
    """How many CR documents ``carry_cr_tables`` carried on this connection (0 when it did not)."""
    if not db.execute("select 1 from temp.sqlite_master where name = 'carried_cr_documents'").fetchone():
        return 0
    return db.execute(f"select count(*) from {CARRIED_DOCUMENTS}").fetchone()[0]


def save_cr_read_order(db: sqlite_utils.Database, document_ids: list[int]) -> None:
    """Record a whole build's CR documents in the order it read them (``carry_cr_tables`` compares)."""
    db.execute(f"create table if not exists {READ_ORDER_TABLE} (position integer primary key, document_id integer not null)")
    db.execute(f"delete from {READ_ORDER_TABLE}")
    db.conn.executemany(f"insert into {READ_ORDER_TABLE} values (?, ?)", list(enumerate(document_ids)))
