"""``search_terms``: the words of each full-text index that begin with a letter a–z, kept beside the indexes.

The one-box search asks the last word of a query as a prefix ("transform" finds "transformed").
FTS5 answers a prefix without a prefix index by merging the index entries of every word it
begins before any other word of the query can narrow them: "until end of turn*" took 32 ms on a
million rulings although its other words match one ruling. Asked as the words themselves
(``"until" AND … AND ("turn" OR "turns" OR "turned")``) the rarest word drives: 1–2 ms, the same
rows. ``fts5vocab`` lists an index's words but counts each word's rows as it goes (10–20 ms for
"turn*"), so the list is kept here: made with each index, and added to by an import with the
words of the rows it writes (``kb.store.import_changes``). A word whose last row went may stay
listed (asking for it finds nothing); every word the index holds is listed.

Only words beginning with a–z: prefix queries that begin otherwise ("7021*", "zerstör*") are
asked natively (``kb.site.search_prefix``), and the counters, numbers and CJK runs an index
holds would make the list several times longer.
"""
from __future__ import annotations

import sqlite_utils

TERMS_TABLE = "search_terms"
LETTER_TERMS = "term >= 'a' and term < '{'"


def ensure_terms_table(db: sqlite_utils.Database) -> None:
    # Without rowid: the key is the row, stored once.
    db.execute(
        f"create table if not exists {TERMS_TABLE} (index_name text not null, term text not null,"
        " primary key (index_name, term)) without rowid"
    )


def make_terms(db: sqlite_utils.Database, index: str) -> None:
    """Every a–z word of the full-text index ``index`` (made afresh)."""
    ensure_terms_table(db)
    db.execute(f"delete from {TERMS_TABLE} where index_name = ?", [index])
    _insert_vocabulary(db, index, "main", index)


def add_terms_of_rows(
    db: sqlite_utils.Database, index: str, table: str, columns: list[str], rowids_sql: str, tokenize: str
) -> None:
    """The a–z words of the rows of ``table`` (``columns``, as ``index`` holds them) whose rowids
    ``rowids_sql`` selects, added to ``index``'s list: the rows an import or a refresh wrote
    after the index was made.

    When they are more than an eighth of the table, the index's whole vocabulary is listed again
    instead: tokenizing rows again costs about 38 µs a row, reading every word's entries about
    4.5 µs a row of the index (a million rulings: 38.5 s against 4.5 s)."""
    ensure_terms_table(db)
    written = db.execute(f"select count(*) from (select distinct * from ({rowids_sql}))").fetchone()[0]
    if not has_terms(db, index) or written * 8 > db.execute(f"select count(*) from {table}").fetchone()[0]:
        # Also a database made before the list.
        make_terms(db, index)
        return
    if not written:
        return
    listed = ", ".join(columns)
    db.execute("drop table if exists temp.written_rows")
    db.execute(f"create virtual table temp.written_rows using fts5({listed}, content='', tokenize='{tokenize}')")
    db.execute(f"insert into temp.written_rows ({listed}) select {listed} from {table} where rowid in ({rowids_sql})")
    _insert_vocabulary(db, index, "temp", "written_rows")
    db.execute("drop table temp.written_rows")


def has_terms(db: sqlite_utils.Database, index: str) -> bool:
    return db.execute(f"select 1 from {TERMS_TABLE} where index_name = ? limit 1", [index]).fetchone() is not None


def _insert_vocabulary(db: sqlite_utils.Database, index: str, schema: str, source: str) -> None:
    vocabulary = f"{source}_vocabulary"
    db.execute(f"drop table if exists temp.{vocabulary}")
    db.execute(f"create virtual table temp.{vocabulary} using fts5vocab({schema}, {source}, row)")
    # "insert or ignore": an import's words are mostly listed already.
    db.execute(
        f"insert or ignore into {TERMS_TABLE} (index_name, term)"
        f" select ?, term from temp.{vocabulary} where {LETTER_TERMS}",
        [index],
    )
    db.execute(f"drop table temp.{vocabulary}")
