"""``mtgkb serve`` refuses what it cannot serve with one line and exit 1, as every command does
(it exited 3 after six lines of uvicorn's on a busy port, and 2, with Datasette's usage text, on a
port out of range)."""
from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from kb.cli import cli


def _database(tmp_path: Path) -> Path:
    path = tmp_path / "kb.db"
    path.write_bytes(b"")  # serve looks for the file before it binds
    return path


def test_a_busy_port_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for workers in ("1", "2"):
            result = CliRunner().invoke(cli, ["serve", "--db", str(_database(tmp_path)), "--port", str(port),
                                              "--workers", workers])
            assert result.exit_code == 1, workers
            assert result.stderr.splitlines() == [f"Error: cannot serve on 127.0.0.1:{port}: Address already in use"]


def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["serve", "--db", str(_database(tmp_path)), "--port", "99999"])
    assert result.exit_code == 1
    assert "99999 is not in the range 1<=x<=65535" in result.stderr


def test_a_file_made_by_an_older_version_is_served_with_a_warning(tmp_path: Path, monkeypatch) -> None:
    """Served as it is, a file made before ruling_translations.published_at failed the canned
    query reading it, with no word of why (a review of the change)."""
    import shutil
    import sqlite3

    import kb.site.serve
    from site_databases import built_snapshot_db

    served: list[Path] = []
    monkeypatch.setattr(kb.site.serve, "serve", lambda path, *args: served.append(path))
    older = tmp_path / "older.db"
    shutil.copy(built_snapshot_db(), older)
    with sqlite3.connect(older) as conn:
        conn.execute("delete from _sqlite_migrations where name = 'm024_ruling_translations_published_at'")
    result = CliRunner().invoke(cli, ["serve", "--db", str(older)])
    assert result.exit_code == 0 and served == [older]
    assert result.stderr.splitlines() == [
        f"Warning: {older} was made by an older mtg-rules-kb (m024_ruling_translations_published_at not applied):"
        " some pages and queries may fail on it until it is made again (`mtgkb build`, then `mtgkb import` of"
        " any file imported by hand; or, where `mtgkb refresh` publishes this file, its next run)"
    ]
    current = CliRunner().invoke(cli, ["serve", "--db", str(built_snapshot_db())])
    assert current.exit_code == 0 and current.stderr == ""
