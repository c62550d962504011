"""The build's files: a consistent copy of a database that may be served meanwhile, a file and its
folder synced to disk, the leftovers of a killed build, a file where a folder must be, and what
an OS or SQLite error means."""
from __future__ import annotations

import errno
import os
import re
import shutil
import sqlite3
from pathlib import Path

from kb.store.files import read_only_uri


def file_in_the_way(db_path: Path) -> Path | None:
    """What stands where a folder of ``db_path``'s must be ("notes.txt/kb.db"; a link to nothing),
    if anything: making the folders failed with "File exists", which named nothing (a docs
    review)."""
    for folder in Path(db_path).parents:
        if folder.is_symlink() and not folder.exists():
            return folder
        if folder.exists():
            return None if folder.is_dir() else folder
    return None


def os_reason(error: BaseException) -> str:
    """An OS or SQLite error in words: disk full, read-only, permission denied."""
    if isinstance(error, OSError):
        if error.errno == errno.ENOSPC:
            return "disk full (no space left on device)"
        if error.errno == errno.EROFS:
            return "read-only file system"
        if error.errno in (errno.EACCES, errno.EPERM):
            return "permission denied"
        return error.strerror or str(error)
    text = str(error)
    problem = sqlite_write_problem(text)
    if problem == "full":
        return f"disk full ({text})"
    if problem == "read-only" or "unable to open" in text:
        return f"cannot write the file: {text} (read-only folder?)"
    return text


def sqlite_write_problem(text: str) -> str | None:
    """What an SQLite error's words say kept it from writing: "full" (the disk), "read-only" (the
    file or its folder), or None. (The raw store words its own: ``scraper`` imports nothing of kb.)"""
    if "full" in text:
        return "full"
    if "readonly" in text or "read-only" in text:
        return "read-only"
    return None


def copy_database(source_path: Path, target_path: Path) -> None:
    """A consistent copy of a database that may be served (or written) meanwhile.

    A rollback-journal database is copied as a file while a read transaction holds its shared
    lock: no writer can change the file until the lock is released, and the kernel copies it
    (the 1.67 GB full-scale database: 1.0–2.5 s, against 4.0–6.9 s through SQLite's backup API,
    interleaved). A WAL database keeps committed pages outside the file: the backup API."""
    source = sqlite3.connect(read_only_uri(source_path), uri=True, isolation_level=None)
    try:
        source.execute("begin")
        source.execute("select count(*) from sqlite_master").fetchone()  # takes the shared lock
        if source.execute("pragma journal_mode").fetchone()[0] != "wal":
            shutil.copyfile(source_path, target_path)
            return
        target = sqlite3.connect(str(target_path))
        try:
            # Private until renamed into place (open_for_build says the same): no journal, no syncs.
            target.execute("pragma journal_mode = off")
            target.execute("pragma synchronous = off")
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()


LEFTOVER = re.compile(r"\.building-(\d+)(?:-journal|-wal|-shm)?$")


def remove_if_stale(path: Path) -> None:
    """A half-built file (or its journal) left by a killed build whose process is gone."""
    match = LEFTOVER.search(path.name)
    if match is None:
        return
    pid = int(match.group(1))
    if pid == os.getpid():
        path.unlink(missing_ok=True)
        return
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        path.unlink(missing_ok=True)
    except PermissionError:
        pass


def fsync(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


NOT_A_KNOWLEDGE_BASE = "not a knowledge base: it has no documents or rulings table (another program's file, or a wrong --db?)"


def another_programs_database(path: Path) -> bool:
    """Whether ``path`` is a SQLite file with tables, none of them a knowledge base's: another
    program's file, or a wrong --db. A refresh onto one failed with "no such table: old.rulings"
    (an operator's review), an import added a knowledge base's tables to it, and a build replaced
    it. Reads the schema only; a file that is no database is ``damage_of``'s."""
    if not Path(path).is_file() or Path(path).stat().st_size == 0:
        return False
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            return _another_programs(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def _another_programs(conn: sqlite3.Connection) -> bool:
    tables = {name for (name,) in conn.execute("select name from sqlite_master where type = 'table'")}
    return bool(tables) and not tables & {"documents", "rulings"}


def damage_of(path: Path) -> str | None:
    """What is wrong with the SQLite file at ``path`` as a knowledge base, or None: not a
    database, no tables (an emptied file), or what SQLite's quick check finds. Read only where
    a build failed: the check reads every page."""
    if not Path(path).exists():
        return None
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            if conn.execute("select count(*) from sqlite_master where type = 'table'").fetchone()[0] == 0:
                return "no tables: an empty file" if Path(path).stat().st_size == 0 else "no tables"
            if _another_programs(conn):
                return NOT_A_KNOWLEDGE_BASE
            found = conn.execute("pragma quick_check(1)").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error as error:
        return str(error)
    return None if found == "ok" else found
