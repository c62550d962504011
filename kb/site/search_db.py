"""Small SQL helpers the search and the pages share: rows as dicts, table checks, URLs, the current CR."""
from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote

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
