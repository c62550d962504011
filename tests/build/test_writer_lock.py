"""kb.build.writer_lock: one build, import or refresh writes a database at a time (an operator's
review: an import by hand while a refresh built was lost to the refresh's rename, both exit 0).
Another process's lock is taken here as it would take it: an flock on the lock file."""
from __future__ import annotations

import fcntl
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.build.writer_lock import lock_path, writer_lock
from kb.cli import cli

CR = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextmanager
def held_by_another(db_path: Path) -> Iterator[None]:
    path = lock_path(db_path)
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        handle.seek(0)
        handle.truncate()
        handle.write("refresh, pid 4242 since 2026-12-05T19:00:00Z\n")
        handle.flush()
        yield


def test_an_import_while_another_writer_works_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "2003-03-15.txt")]).exit_code == 0
    served = sha(db_path)
    with held_by_another(db_path):
        refused = runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "2006-02-01.txt")])
        built = runner.invoke(cli, ["build", "--db", str(db_path), "--snapshot", str(CR), "-q"])
    for result in (refused, built):
        assert result.exit_code == 1
        assert result.stderr == (
            f"Error: {db_path}: another writer is at work on it (refresh, pid 4242 since 2026-12-05T19:00:00Z);"
            f" lock {lock_path(db_path)} is held, nothing written (run again when it has finished)\n"
        )
    assert sha(db_path) == served
    # Once it is let go, the next writer goes ahead.
    assert runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "2006-02-01.txt")]).exit_code == 0
    assert sha(db_path) != served


def test_one_process_holds_its_lock_once_however_often_it_asks(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    with writer_lock(db_path, "refresh"), writer_lock(db_path, "build"):
        assert lock_path(db_path).read_text(encoding="utf-8").startswith("refresh, pid ")
    with held_by_another(db_path):  # released when the outer one ends
        pass


def test_a_lock_file_that_cannot_be_written_still_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left by another user (a `sudo mtgkb import`) or in a read-only folder, the lock file made
    every refresh exit 1: an flock needs no write access (a second operator's review). The tests
    run as root, whom no file mode stops: the refusal to open it for writing is made here."""
    import builtins

    import kb.build.writer_lock as module

    db_path = tmp_path / "kb.db"
    with writer_lock(db_path, "import"):
        pass
    path = lock_path(db_path)
    assert path.read_text(encoding="utf-8").splitlines()[1].startswith("The writer lock of the database beside it")

    def read_only(file: object, mode: str = "r", *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if "a" in mode or "w" in mode:
            raise PermissionError(13, "Permission denied", str(file))
        return builtins.open(file, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(module, "open", read_only, raising=False)
    with writer_lock(db_path, "refresh"):
        with open(path, encoding="utf-8") as other:
            with pytest.raises(BlockingIOError):  # held: another taker is refused
                fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    # Its holder's line is the last one written (this holder could not write its own).
    assert path.read_text(encoding="utf-8").startswith("import, pid ")


def test_a_database_named_through_a_link_shares_its_files_lock(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    link = tmp_path / "kb.db"
    link.symlink_to(tmp_path / "real" / "kb.db")
    with held_by_another(tmp_path / "real" / "kb.db"):
        result = CliRunner().invoke(cli, ["import", "--db", str(link), str(CR / "2003-03-15.txt")])
    assert result.exit_code == 1 and "another writer is at work on it" in result.stderr
