"""Datasette's schema look-ups answered once per immutable served file, not through the SQL threads on every page."""
from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

# Schema look-ups Datasette (and datasette-search-all's menu hook, on every page) run through the
# same SQL threads as public queries: behind sixteen runaway queries a card page waited seconds
# for "select name from sqlite_master". An immutable file's schema never changes (a new file is
# a new Database object, see kb.site.reload), so each answer is kept on its Database.
SCHEMA_METHODS = (
    "table_exists", "table_names", "view_names", "hidden_table_names", "fts_table", "table_columns",
    "table_column_details", "primary_keys", "label_column_for_table", "foreign_keys_for_table",
    "get_all_foreign_keys", "get_table_definition", "get_view_definition", "attached_databases",
)


def _cached_schema_method(method: Callable) -> Callable:
    @functools.wraps(method)
    async def cached(self: Any, *args: Any) -> Any:
        if self.is_mutable or (args and not await _names_a_table(self, args[0])):
            return await method(self, *args)
        cache = _cache_of(self)
        key = (method.__name__, args)
        if key not in cache:
            cache[key] = await method(self, *args)
        value = cache[key]
        return copy.deepcopy(value) if isinstance(value, (list, dict)) else value

    cached._kb_cached = True  # type: ignore[attr-defined]
    return cached


def _cache_of(database: Any) -> dict:
    return database.__dict__.setdefault("_kb_schema_cache", {})


async def _names_a_table(database: Any, name: Any) -> bool:
    """Whether ``name`` is a table or view of the file, spelt as the file spells it: only those
    answers are kept, so a crawler asking for made-up tables (``/kb/nosuch1``, ``/kb/RuLiNgS``, …)
    cannot grow the cache without bound. Others are looked up every time, as Datasette does."""
    cache = _cache_of(database)
    if "names" not in cache:
        cache["names"] = frozenset(await database.table_names()) | frozenset(await database.view_names())
    return name in cache["names"]


def cache_schema_lookups() -> None:
    from datasette.database import Database

    for name in SCHEMA_METHODS:
        method = getattr(Database, name, None)
        if method is not None and not getattr(method, "_kb_cached", False):
            setattr(Database, name, _cached_schema_method(method))
    if not getattr(Database.execute, "_kb_cached", False):
        Database.execute = _with_table_names_cached(Database.execute)


# The query Datasette 0.65.5's ``permission_allowed`` runs for every "view-table" check, to spell
# the table as SQLite does: twice for each table the database page lists, ~150 queries through
# the SQL threads (~25 ms of its ~53 on the 1M database). Answered once per immutable file for
# the names it has; any other query, or name, runs as before.
TABLE_NAME_SQL = "select name from sqlite_master where type in ('table', 'view') and name = ? collate nocase"


def _with_table_names_cached(execute: Callable) -> Callable:
    @functools.wraps(execute)
    async def cached_execute(self: Any, sql: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        if (sql != TABLE_NAME_SQL or self.is_mutable or args or kwargs or not isinstance(params, (tuple, list))
                or len(params) != 1 or not await _names_a_table(self, params[0])):
            return await execute(self, sql, params, *args, **kwargs)
        cache = _cache_of(self)
        key = ("table name", params[0])
        if key not in cache:
            cache[key] = await execute(self, sql, params)
        return cache[key]

    cached_execute._kb_cached = True  # type: ignore[attr-defined]
    return cached_execute


async def warm_schema_cache(datasette: Any) -> None:
    """Fill the schema caches before the first visitor: a cold cache would send a page's
    look-ups through the SQL threads, behind whatever queries are running."""
    await datasette.refresh_schemas()
    for database in list(datasette.databases.values()):
        await warm_database(database)


async def warm_database(database: Any) -> None:
    """One immutable file's schema look-ups, cached (also before a reload registers a new file)."""
    if database.is_mutable:
        return
    hidden = set(await database.hidden_table_names())
    for table in await database.table_names():
        await database.fts_table(table)
        if table not in hidden:
            await database.table_columns(table)
            await database.label_column_for_table(table)
    await database.view_names()
    await database.get_all_foreign_keys()


def refresh_schemas_once(datasette_class: Any) -> None:
    """Datasette 0.65 refreshes its schema tables on every request, through the SQL threads;
    with every served file immutable, once per set of Database objects is enough (a reload
    registers a new object, which refreshes them again)."""
    original = datasette_class.refresh_schemas
    if getattr(original, "_kb_cached", False):
        return

    @functools.wraps(original)
    async def refresh_schemas(self: Any) -> None:
        served = {name: db for name, db in self.databases.items() if name != "_internal"}
        key = tuple((name, id(db)) for name, db in served.items())
        if getattr(self, "_kb_schemas_of", None) == key and not any(db.is_mutable for db in served.values()):
            return
        await original(self)
        self._kb_schemas_of = key

    refresh_schemas._kb_cached = True  # type: ignore[attr-defined]
    datasette_class.refresh_schemas = refresh_schemas
