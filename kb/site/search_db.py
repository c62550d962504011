"""Small SQL helpers the search and the pages share: rows as dicts, table checks, URLs, the current CR."""
from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from typing import Any
from urllib.parse import quote

from kb.site.page_cache import file_signature
from kb.site.search_text import fold


def rows(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def table_exists(conn: sqlite3.Connection, name: str) -> bool:
    found = conn.execute(
        "select 1 from sqlite_master where type in ('table', 'view') and name = ?", (name,)
    ).fetchone()
    return found is not None


def table_has_rows(conn: sqlite3.Connection, name: str) -> bool:
    return table_exists(conn, name) and conn.execute(f'select 1 from "{name}" limit 1').fetchone() is not None


def register_functions(conn: sqlite3.Connection) -> None:
    """``kb_fold(text)`` for accent-insensitive comparisons in SQL (cheap to call repeatedly)."""
    conn.create_function("kb_fold", 1, fold, deterministic=True)


def newest_english_version(conn: sqlite3.Connection) -> str | None:
    row = conn.execute(
        "select id from cr_versions where lang = 'en' order by effective_date desc limit 1"
    ).fetchone()
    return row[0] if row else None


# The CR version of every rule, by rowid, per served file: the search sorts full-text matches
# into the current, translated and older versions, and looking each match up in the rules table
# read a thousand scattered rows per query (most of a common word's search time).
_RULE_VERSIONS: OrderedDict[tuple, dict[int, str]] = OrderedDict()
_RULE_VERSIONS_LOCK = threading.Lock()


def rule_versions(conn: sqlite3.Connection) -> dict[int, str]:
    """``rules.rowid`` → ``rules.version_id``, kept while the file is unchanged (a few files at most)."""
    path = conn.execute("pragma database_list").fetchone()[2]
    signature = file_signature(path)
    if signature is None:  # an in-memory database: nothing to key a copy on
        return dict(conn.execute("select rowid, version_id from rules"))
    key = (path, signature)
    with _RULE_VERSIONS_LOCK:
        found = _RULE_VERSIONS.get(key)
        if found is not None:
            _RULE_VERSIONS.move_to_end(key)
            return found
    found = dict(conn.execute("select rowid, version_id from rules"))
    with _RULE_VERSIONS_LOCK:
        _RULE_VERSIONS[key] = found
        while len(_RULE_VERSIONS) > 4:
            _RULE_VERSIONS.popitem(last=False)
    return found


def translated_versions(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("select id from cr_versions where lang != 'en' order by id")]


def bounded_count(conn: sqlite3.Connection, sql: str, params: Any, cap: int) -> int:
    """``count(*)`` of ``sql``'s rows, reading at most ``cap + 1`` of them."""
    return conn.execute(f"select count(*) from ({sql} limit {int(cap) + 1})", params).fetchone()[0]


def card_url(oracle_id: str | None, name: str | None = None) -> str:
    if oracle_id:
        return f"/card/{oracle_id}"
    return "/card?name=" + quote(name or "")


def rule_url(number: str, version: str | None = None, anchor: str = "") -> str:
    url = f"/rule/{number}"
    if version:
        url += "?version=" + quote(version)
    return url + (f"#{anchor}" if anchor else "")


def newest_ruling_ids(conn: sqlite3.Connection, lineage: str, count: int) -> list[int]:
    """The ids of the ``count`` newest rulings relying on ``lineage`` (a date's rulings by id,
    highest first), read newest first from the (lineage, date, ruling) index."""
    ids: list[int] = []
    seen: set[int] = set()
    cursor = conn.execute(
        """select ruling_id from ruling_rules where lineage_id = ?
        order by published_at desc, ruling_id desc""",
        (lineage,),
    )
    try:
        for (ruling_id,) in cursor:
            if ruling_id not in seen:
                seen.add(ruling_id)
                ids.append(ruling_id)
                if len(ids) >= count:
                    break
    finally:
        cursor.close()
    return ids
