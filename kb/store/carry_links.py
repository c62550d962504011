"""Ruling citations carried over from the file a rebuild replaces, for the rulings whose inputs did not change.

Linking every English ruling to the rules it relies on is a quarter of a full build (a million
rulings: about two minutes). A refresh rebuilds the whole file when any input changed (one printed
name in a card bulk file, a day's new rulings), and the citations of every other ruling come out
as they were: what ``kb.store.derive_history.save_ruling_rules`` computes for a ruling depends only
on the CR history (the English versions, every rule's text and lineage), the ruling's text, date
and card name, and the linking code. So where all of these are the same, the served file's rows
are copied, and only the other rulings are linked.

Each is checked, never assumed: the history by comparing the served file's stored history with
the one this build derived (or known the same: this build's CR tables were copied from that file,
``kb.store.carry_cr``), the rulings in SQL, and the code by ``linking_code_fingerprint``,
which the refresh records with what it publishes (a file built by other code is linked whole).
"""
from __future__ import annotations

import sqlite3
from functools import lru_cache
from pathlib import Path

import sqlite_utils
from sqlite_utils.db import NotFoundError

from kb.checksums import code_fingerprint, module_files
from kb.link.cr_diff import content_key
from kb.store.derive_cr_links import load_cr_document
from kb.store.derive_history import History, english_versions, stored_lineages
from kb.store.derive_rulings import RULING_LINK_INPUTS
from kb.store.files import read_only_uri
from kb.store.ruling_links import LinkWriter, delete_links
from kb.store.tables import RULING_RULES_COLUMNS

# What linking a ruling to rules runs, and what reads, compares and links the CR documents: a
# change to any of these files links every ruling again and reads every CR document again.
LINKING_CODE = (
    "kb.link", "kb.normalise", "kb.records", "kb.store.schema", "kb.store.derive_cr_links",
    "kb.store.derive_lineage", "kb.store.derive_history", "kb.store.carry_links", "kb.store.identity_diff",
    # What reads and stores the CR documents whose tables a build may carry (kb.store.carry_cr),
    # and the build that runs it all in its order.
    "kb.parse", "kb.build.load", "kb.build.identity", "kb.store.save", "kb.store.save_cr", "kb.store.tables",
    "kb.store.carry_cr", "kb.build.publish", "kb.store.derive",
)


def linking_code_files() -> list[Path]:
    """The source and data files ``linking_code_fingerprint`` reads."""
    return module_files(LINKING_CODE)


@lru_cache(maxsize=1)
def linking_code_fingerprint() -> str:
    """``code_fingerprint`` of ``LINKING_CODE``: a file whose recorded fingerprint differs was
    linked by other code, and nothing of it is carried."""
    return code_fingerprint(LINKING_CODE)


def served_history_is(path: Path, ours: History) -> bool:
    """Whether the file at ``path`` stores the history ``ours``: the same English versions, with
    the same rules, glossaries and lineages (False when it cannot be read, damaged rows included:
    a refresh is never blocked by the file it replaces). Its versions are read and compared one at
    a time: the whole CR archive (111 editions) held a second time was ~100 MB."""
    versions, documents, lineages = ours
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error:
        return False
    try:
        db = sqlite_utils.Database(conn)
        if english_versions(db) != versions:
            return False
        for (version_id, _date), document, numbers in zip(versions, documents, lineages, strict=True):
            if stored_lineages(db, version_id) != numbers:
                return False
            theirs = load_cr_document(db, version_id)
            if (document.lang, document.effective_date, content_key(document)) != (
                theirs.lang, theirs.effective_date, content_key(theirs)
            ):
                return False
        return True
    except (sqlite3.Error, NotFoundError, ValueError):  # a version row gone, its extra not JSON
        return False
    finally:
        conn.close()


CARRIED = "temp.carried_rulings"
CARRY_BATCH = 20_000
SERVED = "served"

# The served file's rulings and what linking reads of them (RULING_LINK_INPUTS, read there).
SERVED_LINK_INPUTS = (
    f"select rulings.id, rulings.text, rulings.published_at, cards.name as card from {SERVED}.rulings as rulings"
    f" left join {SERVED}.cards as cards on cards.oracle_id = rulings.oracle_id"
)


def carry_ruling_links(db: sqlite_utils.Database, history: History | None, served: Path) -> int:
    """Copy ``served``'s ``ruling_rules`` rows of every ruling whose text, date and card name are
    as there, when its CR history is this build's ``history`` (None: this build's CR tables were
    copied from ``served``, ``kb.store.carry_cr``, so it is); returns how many rulings were carried
    (their ids in ``temp.carried_rulings``, empty when none). The caller links the rest.

    The served file stays attached (read only) until ``detach_served``: a database cannot be
    detached inside the build's transaction."""
    db.execute(f"drop table if exists {CARRIED}")
    db.execute(f"create table {CARRIED} (id integer primary key)")
    if history is not None and not served_history_is(served, history):
        return 0
    try:
        db.execute(f"attach database ? as {SERVED}", [read_only_uri(served)])
    except sqlite3.Error:  # gone since its history was read
        return 0
    # The served file's links as ruling_rules rows: its view, or the table it was before m032.
    if not set(RULING_RULES_COLUMNS) <= {row[1] for row in db.execute(f"pragma {SERVED}.table_info(ruling_rules)")}:
        return 0
    try:
        db.execute(
            f"insert into {CARRIED} select now.id from ({RULING_LINK_INPUTS}) as now join ({SERVED_LINK_INPUTS}) as was"
            " on was.id = now.id"
            " where was.text is now.text and was.published_at is now.published_at and was.card is now.card"
        )
        # Written as a build writes them (each target by its content's id): the rebuilt file's
        # rows are the ones a build linking every ruling would hold.
        writer = LinkWriter(db)
        served_links = db.execute(
            f"select {', '.join(RULING_RULES_COLUMNS)} from {SERVED}.ruling_rules"
            f" where ruling_id in (select id from {CARRIED})"
        )
        while batch := served_links.fetchmany(CARRY_BATCH):
            writer.write(batch)
    except sqlite3.DatabaseError:
        # A served file damaged where it was not read before (its citations): what it would give
        # is no longer known, so every ruling is linked (a refresh is never blocked by the file
        # it replaces). A failed statement left nothing behind; the one before it did.
        db.execute(f"delete from {CARRIED}")
        delete_links(db)
        return 0
    return db.execute(f"select count(*) from {CARRIED}").fetchone()[0]


def links_carried(db: sqlite_utils.Database) -> int:
    """How many rulings ``carry_ruling_links`` carried on this connection (0 when it did not run)."""
    if not db.execute("select 1 from temp.sqlite_master where name = 'carried_rulings'").fetchone():
        return 0
    return db.execute(f"select count(*) from {CARRIED}").fetchone()[0]


def detach_served(db: sqlite_utils.Database) -> None:
    """Close the served file ``carry_ruling_links`` attached, if it did (outside a transaction)."""
    if any(row[1] == SERVED for row in db.execute("pragma database_list")):
        db.execute(f"detach database {SERVED}")
