"""``rows`` reads a statement's rows as one JSON value once a plain read of the same file showed
that gives the same rows; these pin that the rows, their order and their values never change by it."""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.site.search_db import one_request, rowids, rows

TEXTS = [(1, "Ugin", None, None, None), (2, 'Jace, "the" Mind Sculptor', 0.1 + 0.2, None, "née ü 灵龙 \x00 end"),
         (3, "Zur", None, b"\x00\xff", None)]


def served(path: Path, schema: str, values: list[tuple]) -> sqlite3.Connection:
    with sqlite3.connect(path) as writing:
        writing.execute(schema)
        writing.executemany(f"insert into t values ({', '.join('?' * len(values[0]))})", values)
    writing.close()
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    conn = served(tmp_path / "kb.db", "create table t (id integer primary key, name text, score real, data blob, note text)",
                  TEXTS)
    yield conn
    conn.close()


def statements_run(conn: sqlite3.Connection) -> list[str]:
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    return seen


def test_rows_read_at_once_keep_order_and_values(conn: sqlite3.Connection) -> None:
    sql = "select id, name, note from t where id >= ? order by name desc"
    plain = rows(conn, sql, (1,))
    run = statements_run(conn)
    again = rows(conn, sql, (1,))
    assert again == plain == [
        {"id": 3, "name": "Zur", "note": None},
        {"id": 1, "name": "Ugin", "note": None},
        {"id": 2, "name": 'Jace, "the" Mind Sculptor', "note": "née ü 灵龙 \x00 end"},
    ]
    assert [statement.startswith("select json_group_array") for statement in run if "from t " in statement] == [True]
    assert rows(conn, sql, (4,)) == []


def test_a_real_is_read_exactly_where_the_first_read_had_none(conn: sqlite3.Connection) -> None:
    # JSON holds a REAL with 15 digits: 0.1 + 0.2 came back as 0.3.
    sql = "select id, score from t where id = ?"
    assert rows(conn, sql, (1,)) == [{"id": 1, "score": None}]
    assert rows(conn, sql, (2,)) == [{"id": 2, "score": 0.1 + 0.2}]
    assert rows(conn, sql, (2,)) == [{"id": 2, "score": 0.1 + 0.2}]


def test_a_blob_is_read_as_written(conn: sqlite3.Connection) -> None:
    sql = "select id, data from t where id = ?"
    assert rows(conn, sql, (1,)) == [{"id": 1, "data": None}]
    assert rows(conn, sql, (3,)) == [{"id": 3, "data": b"\x00\xff"}]


def test_columns_of_one_name_are_read_as_written(conn: sqlite3.Connection) -> None:
    sql = "select a.id, b.id, a.name as n, b.name as N from t a join t b on b.id = a.id + 1 order by a.id"
    expected = [{"id": 2, "n": "Ugin", "N": 'Jace, "the" Mind Sculptor'}, {"id": 3, "n": 'Jace, "the" Mind Sculptor', "N": "Zur"}]
    assert rows(conn, sql) == expected  # a dict keeps the last of a name, as before
    assert rows(conn, sql) == expected


def test_a_statement_of_every_column_reads_each_files_own(tmp_path: Path) -> None:
    """A file with a column more (a newer build) or fewer (an older one) than the last file read:
    its own columns, never the other file's names (one lacking a column read its name as a text)."""
    sql = "select * from t order by id"
    older = served(tmp_path / "older.db", "create table t (id integer primary key, name text)", [(1, "Ugin")])
    newer = served(tmp_path / "newer.db", "create table t (id integer primary key, name text, set_name text)",
                   [(1, "Ugin", "Fate Reforged")])
    for _ in range(2):
        with one_request(older):
            assert rows(older, sql) == [{"id": 1, "name": "Ugin"}]
        with one_request(newer):
            assert rows(newer, sql) == [{"id": 1, "name": "Ugin", "set_name": "Fate Reforged"}]


def test_a_statement_sqlite_will_not_take_whole_is_read_as_written(conn: sqlite3.Connection) -> None:
    sql = "select id from t where id < 3 order by id; -- the lowest"
    assert rows(conn, sql) == rows(conn, sql) == [{"id": 1}, {"id": 2}]


def test_rowids_in_order(conn: sqlite3.Connection) -> None:
    assert rowids(conn, "select rowid from t order by name") == [2, 1, 3]
    assert rowids(conn, "select rowid from t where id > 5") == []
