"""Datasette's table pages sorted by a column, paged without losing or repeating rows.

Datasette 0.65 orders a sorted table page (the metadata's default sort, ``?_sort=``,
``?_sort_desc=``) by that column alone on its first page, and every later page (``?_next=``) by
that column and then the primary key. Where rows of one value straddle the first page's end, the
first page lists them in whatever order the index gives (a descending sort: the keys falling),
and the next page starts after the last key it saw in rising order: the snapshot's rulings,
newest first, listed 306 rows of which 9 were never shown (CSV exports too), and a descending
sort of the rules lost 1,318 of 75,711. The first page's query is given the same tie-breaker.
"""
from __future__ import annotations

import re
from typing import Any

from datasette.database import Database
from datasette.utils import escape_sqlite

# The query of a table page's rows before ``_next`` (kb's pinned Datasette 0.65.5 builds it as
# "select {columns} from {table} {where}order by {column}[ desc] limit {page size + 1}"); a later
# page's "order by" already names the primary key, after a comma.
FIRST_PAGE = re.compile(
    r"^(?P<head>select .+? from (?P<table>\[[^\]]+\]|\w+) (?:where .+ )?order by (?:\[[^\]]+\]|\w+)(?: desc)?)"
    r" (?P<tail>limit \d+)$",
    re.S,
)
_ORIGINAL = "_kb_execute_without_tie_breaker"


def install() -> None:
    """Make every Datasette database give sorted first pages their tie-breaker (once a process)."""
    if hasattr(Database, _ORIGINAL):
        return
    original = Database.execute
    setattr(Database, _ORIGINAL, original)

    async def execute(self: Database, sql: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        # Table pages run with ``truncate``; so do queries typed in the SQL box, which this
        # rewrites only when they are exactly a table page's query (a tie-breaker changes no row).
        # The call goes on as it came (kb.site.schema_cache answers some calls without arguments).
        truncate = args[0] if args else kwargs.get("truncate", False)
        if truncate and (match := FIRST_PAGE.match(sql)):
            keys = await _tie_breaker(self, match["table"])
            if keys:
                sql = f"{match['head']}, {keys} {match['tail']}"
        return await original(self, sql, params, *args, **kwargs)

    Database.execute = execute


async def _tie_breaker(db: Database, escaped_table: str) -> str | None:
    """The primary key columns Datasette pages the table by (rowid without one); None for a view."""
    table = escaped_table[1:-1] if escaped_table.startswith("[") else escaped_table
    if not await db.table_exists(table):
        return None
    keys = await db.primary_keys(table)
    return ", ".join(escape_sqlite(key) for key in keys) if keys else "rowid"
