"""``copy_database``: what an import into a built database starts from is exactly the served file's
committed content, whether the file keeps a rollback journal (copied as a file) or a WAL (whose
committed pages are not in the file yet)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from kb.build.files import copy_database


def rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("select id, text from notes order by id").fetchall()
    finally:
        conn.close()


def make(path: Path, journal_mode: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"pragma journal_mode = {journal_mode}")
    conn.execute("pragma wal_autocheckpoint = 0")
    conn.execute("create table notes (id integer primary key, text text)")
    conn.executemany("insert into notes (text) values (?)", [(f"note {n}",) for n in range(500)])
    return conn


def test_a_rollback_journal_database_is_copied_byte_for_byte(tmp_path: Path) -> None:
    source, target = tmp_path / "served.db", tmp_path / "copy.db"
    make(source, "delete").close()

    copy_database(source, target)

    assert target.read_bytes() == source.read_bytes()
    assert rows(target) == rows(source) and len(rows(target)) == 500


def test_a_wal_database_keeps_the_commits_its_file_does_not_hold_yet(tmp_path: Path) -> None:
    source, target = tmp_path / "served.db", tmp_path / "copy.db"
    writer = make(source, "wal")  # left open: nothing is checkpointed into the file
    try:
        writer.execute("update notes set text = 'changed' where id = 7")
        assert (tmp_path / "served.db-wal").stat().st_size > 0

        copy_database(source, target)
    finally:
        writer.close()

    copied = rows(target)
    assert len(copied) == 500 and copied[6] == (7, "changed")
