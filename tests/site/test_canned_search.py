"""The canned full-text queries rank a bounded window of matches, never every match."""
from __future__ import annotations

import sqlite3

import pytest
from datasette.utils import escape_fts

from kb.site.metadata import CANNED_QUERIES, CANNED_SEARCH_WINDOW

# The queries as they were: every match ranked by bm25, then the best 50 (a rule with no text
# shows its title's snippet).
RANKED_ALL = {
    "search_rules": """select rules.version_id, rules.number, rules.title,
  coalesce(nullif(snippet(rules_fts, 2, '[', ']', '…', 20), ''), snippet(rules_fts, 1, '[', ']', '…', 20)) as snippet
from rules_fts join rules on rules.rowid = rules_fts.rowid
where rules_fts match escape_fts(coalesce(nullif(trim(:q), ''), 'kbnothingyet'))
order by rank limit 50""",
    "search_rulings": """select rulings.published_at, coalesce(cards.name, rulings.card_name) as card,
  snippet(rulings_fts, 0, '[', ']', '…', 24) as snippet, rulings.id
from rulings_fts join rulings on rulings.rowid = rulings_fts.rowid
left join cards on cards.oracle_id = rulings.oracle_id
where rulings_fts match escape_fts(coalesce(nullif(trim(:q), ''), 'kbnothingyet'))
order by rank limit 50""",
}


@pytest.fixture(scope="module")
def conn(snapshot_conn: sqlite3.Connection) -> sqlite3.Connection:
    snapshot_conn.create_function("escape_fts", 1, escape_fts)
    return snapshot_conn


def matches(conn: sqlite3.Connection, table: str, query: str) -> int:
    return conn.execute(f"select count(*) from {table}_fts where {table}_fts match ?", [escape_fts(query)]).fetchone()[0]


@pytest.mark.parametrize(
    ("name", "table", "query"),
    [
        ("search_rules", "rules", "storm"),
        ("search_rules", "rules", "connive"),
        ("search_rulings", "rulings", "connive"),
        ("search_rulings", "rulings", "commander"),
    ],
)
def test_a_query_with_fewer_matches_than_the_window_gives_what_ranking_every_match_gave(
    conn: sqlite3.Connection, name: str, table: str, query: str
) -> None:
    assert 0 < matches(conn, table, query) <= CANNED_SEARCH_WINDOW
    expected = conn.execute(RANKED_ALL[name], {"q": query}).fetchall()
    assert conn.execute(CANNED_QUERIES[name]["sql"], {"q": query}).fetchall() == expected != []


def test_a_common_word_reads_only_the_window(conn: sqlite3.Connection) -> None:
    # "the" is in thousands of rules: the best 50 of the first 200 the index gives, each a match.
    assert matches(conn, "rules", "the") > 5 * CANNED_SEARCH_WINDOW
    found = conn.execute(CANNED_QUERIES["search_rules"]["sql"], {"q": "the"}).fetchall()
    assert len(found) == 50
    window = conn.execute(
        "select rowid from rules_fts where rules_fts match 'the' limit ?", [CANNED_SEARCH_WINDOW]
    ).fetchall()
    in_window = {row[0] for row in window}
    numbers = conn.execute(
        f"select version_id, number from rules where rowid in ({', '.join('?' * len(in_window))})", list(in_window)
    ).fetchall()
    assert {(row[0], row[1]) for row in found} <= set(numbers)
