"""Indexes made once after a bulk load into an empty table, not kept up row by row.

Rows are written in their table's key order (record ids, ruling ids), but some indexes take
keys that come in no order (a card's key, a date, a rule's id): kept up while loading, each
insert lands on a random page of the index, and at a million rows the index no longer fits
SQLite's page cache (the build's is 16 MB). Made after the load, each is one sort: 1M rows
with a card-key index, 23.5–25.3 s kept up against 12.4–13.5 s made afterwards (measured apart).
"""
from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import sqlite_utils

from kb.store.schema import INDEXES

# What a bulk file may find already in a table and still have its indexes made afterwards: the
# rows of an oracle_cards file or a snapshot (an index of a few hundred thousand keys is sorted
# in about a second), not those of a full-size database (where a small file would pay for
# sorting a million keys).
BULK_UP_TO_ROWS = 250_000


def holds_at_most(db: sqlite_utils.Database, table: str, rows: int) -> bool:
    """Whether ``table`` holds at most ``rows`` rows, counting no further than one past them (a
    small file's import would otherwise count every row of a full-size table)."""
    held = db.execute(f"select count(*) from (select 1 from [{table}] limit ?)", [rows + 1]).fetchone()[0]
    return held <= rows


@contextlib.contextmanager
def indexes_made_after(
    db: sqlite_utils.Database, table: str, *indexed: list[str], up_to_rows: int | None = 0
) -> Iterator[None]:
    """Within the block, ``table``'s declared indexes on these columns are dropped if the table
    holds at most ``up_to_rows`` rows (None: whatever it holds, for a block that rewrites the
    indexed column of nearly every row), and made again at the end (also when the block fails: a
    build that goes on after a refused document keeps its shape). A bigger table keeps its
    indexes: sorting them all again could cost more than the rows the block adds. A unique index
    is always kept: without it ``insert or replace`` would keep both rows of a key."""
    if up_to_rows is not None and not holds_at_most(db, table, up_to_rows):
        yield
        return
    declared = {tuple(columns): unique for name, columns, unique in INDEXES if name == table}
    present = {row[0] for row in db.execute("select name from sqlite_master where type = 'index' and tbl_name = ?", [table])}
    dropped: list[list[str]] = []
    for columns in indexed:
        name = f"idx_{table}_{'_'.join(columns)}"  # as sqlite-utils names it (ensure_db_shape)
        if tuple(columns) in declared and not declared[tuple(columns)] and name in present:
            db.execute(f"drop index [{name}]")
            dropped.append(columns)

    def make_again() -> None:
        for columns in dropped:
            db.table(table).create_index(columns, if_not_exists=True)

    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):  # the block's own error is the one to report
            make_again()
        raise
    make_again()
