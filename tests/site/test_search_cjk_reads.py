"""What the CJK search reads: each kind's own first matches, the short words of a query as a filter
of a long word's matches, one statement for the rows found. Plans and counts, never timings."""
from __future__ import annotations

import sqlite3
from typing import Any

import pytest
import sqlite_utils

from kb.site import search_cjk
from kb.site.search_cjk import CJK_SCAN, cjk_rows, cjk_translations
from kb.store.cjk_search import ensure_cjk_bigrams


def cjk_index(rows: list[tuple[str, int, str, str]]) -> sqlite3.Connection:
    """An in-memory file with the two CJK indexes as a build makes them (``kb.store.cjk_search``),
    holding ``rows`` (kind, key, lang, text) in that order."""
    db = sqlite_utils.Database(memory=True)
    db.execute("create virtual table cjk_search using fts5("
               "kind unindexed, key unindexed, lang unindexed, text, squeezed, tokenize='trigram')")
    db.conn.executemany("insert into cjk_search (kind, key, lang, text) values (?, ?, ?, ?)", rows)
    ensure_cjk_bigrams(db)
    return db.conn


@pytest.mark.parametrize("word", ["异能", "异能标记"])  # the two-character index; the trigram index
def test_a_translation_after_thousands_of_rules_holding_the_word_is_found(word: str) -> None:
    """A build writes the rules first: read in one pass capped at CJK_SCAN rows, a common word's
    rules filled the pass and the translation after them was never read."""
    rules = [("rule", number, "zhs", f"{number}. 此异能标记的规则") for number in range(CJK_SCAN + 500)]
    conn = cjk_index([*rules, ("ruling_translation", 7, "zhs", "异能标记的裁定"), ("keyword", 8, "zhs", "异能标记")])
    found = cjk_rows(conn, word, 3)
    assert [row["key"] for row in found["rule"]] == [0, 1, 2]
    assert [row["key"] for row in found["ruling_translation"]] == [7]
    assert [row["key"] for row in found["keyword"]] == [8]
    # One kind asked for: the others are not read.
    assert {kind: len(rows) for kind, rows in cjk_rows(conn, word, 1, ("keyword",)).items() if rows} == {"keyword": 1}


def test_kinds_whose_rows_interleave_are_read_in_one_pass_as_before() -> None:
    conn = cjk_index([("rule", 1, "zhs", "异能一"), ("keyword", 2, "zhs", "异能"), ("rule", 3, "zhs", "异能三")])
    assert search_cjk.kind_rowids(conn) == {}
    found = cjk_rows(conn, "异能", 5)
    assert ([row["key"] for row in found["rule"]], [row["key"] for row in found["keyword"]]) == ([1, 3], [2])


def plan(conn: sqlite3.Connection, sql: str, params: Any) -> str:
    return " | ".join(row[3] for row in conn.execute("explain query plan " + sql, params))


def test_short_words_filter_a_long_words_matches_and_alone_are_looked_up(snapshot_conn: sqlite3.Connection) -> None:
    """FTS5 writes "=" in its plan for rowids looked up one by one: the 289 rules holding 堆叠,
    each looked up to test "触发式异能" (9.5 ms), where reading the 232 that hold "触发式异能" and
    keeping those that hold 堆叠 takes 0.4."""
    sql, params = search_cjk._holding_each(snapshot_conn, ["触发式异能", "堆叠"])
    both = plan(snapshot_conn, f"select kind from cjk_search where {sql.format(within='')}", params)
    assert "cjk_search VIRTUAL TABLE INDEX 0:M" in both and "INDEX 0:=" not in both, both
    sql, params = search_cjk._holding_each(snapshot_conn, ["异能", "堆叠"])
    short = plan(snapshot_conn, f"select kind from cjk_search where {sql.format(within='')}", params)
    assert "cjk_search VIRTUAL TABLE INDEX 0:=" in short, short  # never a scan of the whole index


def test_the_translations_found_are_read_in_one_statement(snapshot_conn: sqlite3.Connection) -> None:
    found = cjk_rows(snapshot_conn, "生物", 40)["ruling_translation"]
    assert len(found) > 10
    seen: list[str] = []
    snapshot_conn.set_trace_callback(seen.append)
    try:
        hits = cjk_translations(snapshot_conn, found, "生物")
    finally:
        snapshot_conn.set_trace_callback(None)
    assert len([sql for sql in seen if "from ruling_translations" in sql]) == 1
    assert len(hits) == len(found) - sum(1 for row in found if _untranslated(snapshot_conn, row["key"]))


def _untranslated(conn: sqlite3.Connection, key: int) -> bool:
    return conn.execute("select status is 'untranslated' from ruling_translations where id = ?", (key,)).fetchone()[0]


def test_a_rare_words_matches_are_read_in_one_statement_and_a_common_words_kind_by_kind() -> None:
    rules = [("rule", number, "zhs", f"{number}. 此异能标记的规则") for number in range(search_cjk.FIRST_PASS + 50)]
    conn = cjk_index([*rules, ("ruling_translation", 7, "zhs", "虚弱创伤的裁定"), ("keyword", 8, "zhs", "异能标记")])
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    rare = cjk_rows(conn, "虚弱创伤", 3)
    assert [row["key"] for row in rare["ruling_translation"]] == [7]
    assert len([sql for sql in seen if "cjk_search match" in sql]) == 1
    seen.clear()
    common = cjk_rows(conn, "异能标记", 3)
    assert ([row["key"] for row in common["rule"]], [row["key"] for row in common["keyword"]]) == ([0, 1, 2], [8])
    # The first pass filled the rules; each other kind the index holds (a translation, a
    # keyword) was then read alone.
    assert len([sql for sql in seen if "cjk_search match" in sql]) == 1 + 2
