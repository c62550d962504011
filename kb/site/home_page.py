"""What the home page shows: counts and the CR versions by language."""
from __future__ import annotations

import sqlite3
from typing import Any

from kb.site.search import (
    newest_english_version,
    rows,
)


def home_stats(conn: sqlite3.Connection) -> dict[str, Any]:
    """The counts the home page shows under the search box."""
    def count(sql: str) -> int:
        return conn.execute(sql).fetchone()[0]

    return {
        "versions": rows(conn, "select id, lang, effective_date, set_name, status from cr_versions order by lang = 'en' desc, effective_date desc"),
        "cards": count("select count(*) from cards"),
        "rulings": count("select count(*) from rulings"),
        "translations": count("select count(*) from ruling_translations"),
        "languages": count("select count(distinct lang) from card_names"),
        "current": newest_english_version(conn),
    }
