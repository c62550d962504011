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
        if self.is_mutable:
            return await method(self, *args)
        cache = self.__dict__.setdefault("_kb_schema_cache", {})
        key = (method.__name__, args)
        if key not in cache:
            cache[key] = await method(self, *args)
        value = cache[key]
        return copy.deepcopy(value) if isinstance(value, (list, dict)) else value

    cached._kb_cached = True  # type: ignore[attr-defined]
    return cached


def cache_schema_lookups() -> None:
    from datasette.database import Database

    for name in SCHEMA_METHODS:
        method = getattr(Database, name, None)
        if method is not None and not getattr(method, "_kb_cached", False):
            setattr(Database, name, _cached_schema_method(method))


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
