"""``rows`` reads a statement's rows as one JSON value once a plain read showed that gives the same
rows; these pin that the rows, their order and their values never change by it."""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from kb.site import search_db
from kb.site.search_db import rowids, rows


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute("create table t (id integer primary key, name text, score real, data blob, note text)")
    conn.executemany("insert into t values (?, ?, ?, ?, ?)", [
        (1, "Ugin", None, None, None),
        (2, "Jace, \"the\" Mind Sculptor", None, None, "née ü 灵龙"),
        (3, "Zur", None, None, None),
    ])
    yield conn
    conn.close()


def packed_statements(conn: sqlite3.Connection) -> list[str]:
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    return seen


def test_rows_read_at_once_keep_order_and_values(conn: sqlite3.Connection) -> None:
    sql = "select id, name, note from t where id >= ? order by name desc"
    plain = rows(conn, sql, (1,))
    statements = packed_statements(conn)
    again = rows(conn, sql, (1,))
    assert again == plain == [
        {"id": 3, "name": "Zur", "note": None},
        {"id": 1, "name": "Ugin", "note": None},
        {"id": 2, "name": "Jace, \"the\" Mind Sculptor", "note": "née ü 灵龙"},
    ]
    assert [statement.startswith("select json_group_array") for statement in statements] == [True]
    assert rows(conn, sql, (4,)) == []


def test_a_real_read_plain_even_where_the_first_read_had_none(conn: sqlite3.Connection) -> None:
    # JSON holds a REAL with 15 digits: 0.1 + 0.2 came back as 0.3.
    sql = "select id, score from t where id = ?"
    assert rows(conn, sql, (1,)) == [{"id": 1, "score": None}]
    conn.execute("update t set score = 0.1 + 0.2 where id = 2")
    assert rows(conn, sql, (2,)) == [{"id": 2, "score": 0.1 + 0.2}]
    assert sql in search_db._READ_PLAIN and sql not in search_db._AT_ONCE


def test_a_blob_read_plain(conn: sqlite3.Connection) -> None:
    sql = "select id, data from t where id = ?"
    assert rows(conn, sql, (1,)) == [{"id": 1, "data": None}]
    conn.execute("update t set data = x'00ff' where id = 3")
    assert rows(conn, sql, (3,)) == [{"id": 3, "data": b"\x00\xff"}]
    assert rows(conn, "select data from t where id = 3") == [{"data": b"\x00\xff"}]


def test_columns_of_one_name_read_plain(conn: sqlite3.Connection) -> None:
    sql = "select a.id, b.id from t a join t b on b.id = a.id + 1 order by a.id"
    assert rows(conn, sql) == [{"id": 2}, {"id": 3}]  # a dict keeps the last, as before
    assert rows(conn, sql) == [{"id": 2}, {"id": 3}]
    assert sql not in search_db._AT_ONCE


def test_rowids_in_order(conn: sqlite3.Connection) -> None:
    assert rowids(conn, "select rowid from t order by name") == [2, 1, 3]
    assert rowids(conn, "select rowid from t where id > 5") == []
