"""The raw store: every fetched body, content-addressed, with a manifest of what came from where.

One class whose methods share the manifest's SQL and the temporary-file discipline (write,
verify, rename); what a body must look like to be kept is ``scraper.verify``.

Layout under ``root``::

    objects/<sha[:2]>/<sha>   verified bodies, never overwritten; removed only when the refresh
                              has moved past a superseded bulk snapshot (``remove_body``)
    rejected/<sha>            bodies that failed verification (kept for diagnosis)
    tmp/                      downloads in progress
    manifest.db               sqlite: manifest (one row per fetch attempt), runs, state

A body becomes part of the store only after it is verified (size against Content-Length,
sha256, and a format check), so a truncated download can never shadow an earlier good one:
``latest_documents`` only ever returns good entries.
"""
from __future__ import annotations

import errno
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scraper.verify import Verifier, VerifyError, file_sha256

# A temporary download without a process id in its name, untouched this long, is abandoned.
STALE_TEMP_SECONDS = 24 * 3600

FETCHED = "fetched"
NOT_MODIFIED = "not-modified"
FAILED = "failed"

SCHEMA = """
create table if not exists manifest (
    id integer primary key,
    url text not null,
    source text not null,
    lang text,
    fetched_at text not null,
    status text not null check (status in ('fetched', 'not-modified', 'failed')),
    http_status integer,
    etag text,
    last_modified text,
    content_type text,
    sha256 text,
    size integer,
    error text,
    run_id integer
);
create index if not exists manifest_url on manifest (url, id);
create index if not exists manifest_source on manifest (source, id);
create table if not exists runs (
    id integer primary key,
    started_at text not null,
    finished_at text,
    status text,
    details text
);
create table if not exists state (
    key text primary key,
    value text not null,
    updated_at text not null
);
"""


class RawStoreError(Exception):
    """The raw store itself cannot be written (a full disk, a read-only folder): every source
    would fail the same way, so a fetch stops at once and says so, naming the store, rather than
    reporting each source failed."""


def _reason(error: OSError | sqlite3.Error, path: Path | None = None) -> str:
    if isinstance(error, OSError):
        named = error.filename or path
        where = f"{named}: " if named else ""
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"{where}disk full (no space left on device)"
        if error.errno == errno.EROFS:
            return f"{where}read-only file system"
        if error.errno in (errno.EACCES, errno.EPERM):
            return f"{where}permission denied"
        return f"{where}{error.strerror or error}"
    text = str(error)
    if "full" in text:
        return f"manifest.db: disk full ({text})"
    if "readonly" in text or "read-only" in text:
        return f"manifest.db: read-only ({text})"
    return f"manifest.db: {text}"


@contextmanager
def writing_into(root: Path, path: Path | None = None, doing: str = "") -> Iterator[None]:
    """OS and SQLite errors of writing into the store at ``root`` as a ``RawStoreError``; an OS
    error that names no file (a write) is ``path``'s; ``doing``: what the write was for
    ("downloading <url>": a full disk named the download's temporary file alone, an operator's review)."""
    try:
        yield
    except (OSError, sqlite3.OperationalError) as error:
        raise RawStoreError(f"the raw store {root} cannot be written: {_reason(error, path)}"
                            + (f", {doing}" if doing else "")) from error


@dataclass
class ManifestEntry:
    id: int
    url: str
    source: str
    lang: str | None
    fetched_at: str
    status: str
    http_status: int | None
    etag: str | None
    last_modified: str | None
    content_type: str | None
    sha256: str | None
    size: int | None
    error: str | None
    run_id: int | None


@dataclass
class Validators:
    """What to send back for a conditional request (both None: fetch unconditionally)."""

    etag: str | None = None
    last_modified: str | None = None


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RawStore:
    """Content-addressed bodies plus a sqlite manifest of every fetch attempt."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        with writing_into(self.root):
            for folder in ("objects", "rejected", "tmp"):
                (self.root / folder).mkdir(parents=True, exist_ok=True)
            self.remove_stale_temp()
            self.db = sqlite3.connect(self.root / "manifest.db")
            self.db.row_factory = sqlite3.Row
            try:
                self.db.executescript(SCHEMA)
            except sqlite3.DatabaseError as error:
                self.db.close()
                if isinstance(error, sqlite3.OperationalError):
                    raise  # a full disk, a read-only folder: said by ``writing_into``
                # Not a database, or a damaged one: "database error: file is not a database" named
                # neither of an operator's two SQLite files, and the docs' advice was for kb.db.
                raise RawStoreError(
                    f"{self.root / 'manifest.db'}: the raw store's manifest cannot be read ({error}): restore it"
                    " from a backup; moved aside, the next fetch starts a new one and downloads every body again"
                ) from error

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> RawStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ---------------------------------------------------------------------------

    def remove_stale_temp(self) -> list[Path]:
        """Remove downloads left in ``tmp/`` by a process that is gone (killed mid-fetch).

        Their names start with the writing process's id; a file without one is removed once it
        has not been written to for a day.
        """
        removed = []
        for path in (self.root / "tmp").iterdir():
            pid_text = path.name.split("-", 1)[0]
            try:
                if pid_text.isdigit():
                    if _process_alive(int(pid_text)):
                        continue
                elif time.time() - path.stat().st_mtime < STALE_TEMP_SECONDS:
                    continue
                path.unlink()
                removed.append(path)
            except FileNotFoundError:
                continue
        return removed

    def temp_path(self, suffix: str = "") -> Path:
        """A fresh, empty file inside the store for a download to stream into (named by our pid)."""
        with writing_into(self.root):
            fd, name = tempfile.mkstemp(dir=self.root / "tmp", prefix=f"{os.getpid()}-", suffix=suffix or ".part")
            os.close(fd)
        return Path(name)

    def commit(
        self,
        tmp: Path,
        *,
        url: str,
        source: str,
        lang: str | None = None,
        http_status: int | None = 200,
        etag: str | None = None,
        last_modified: str | None = None,
        content_type: str | None = None,
        content_length: int | None = None,
        verify: Verifier | None = None,
        run_id: int | None = None,
    ) -> ManifestEntry:
        """Verify ``tmp`` and move it into the store; record the attempt either way.

        Raises VerifyError (after recording a ``failed`` row) when the body is unusable.
        """
        size = tmp.stat().st_size
        sha = file_sha256(tmp)
        try:
            if content_length is not None and size != content_length:
                raise VerifyError(f"truncated: got {size} bytes of {content_length} announced")
            if verify is not None:
                verify(tmp)
        except VerifyError as exc:
            self._move_into(tmp, self.root / "rejected" / sha)
            exc.rejected_sha256 = sha
            self.record_failure(
                url, source=source, lang=lang, error=str(exc), http_status=http_status,
                run_id=run_id,
            )
            raise
        self._move_into(tmp, self.path_for(sha))
        return self._insert(
            url=url, source=source, lang=lang, status=FETCHED, http_status=http_status,
            etag=etag, last_modified=last_modified, content_type=content_type, sha256=sha,
            size=size, error=None, run_id=run_id,
        )

    def record_not_modified(
        self,
        url: str,
        *,
        source: str,
        lang: str | None = None,
        http_status: int | None = 304,
        etag: str | None = None,
        last_modified: str | None = None,
        run_id: int | None = None,
    ) -> ManifestEntry:
        """A 304 (or a skip because nothing changed): the latest good body still stands."""
        good = self.latest_good(url)
        return self._insert(
            url=url, source=source, lang=lang, status=NOT_MODIFIED, http_status=http_status,
            etag=etag or (good.etag if good else None),
            last_modified=last_modified or (good.last_modified if good else None),
            content_type=good.content_type if good else None,
            sha256=good.sha256 if good else None, size=good.size if good else None,
            error=None, run_id=run_id,
        )

    def record_failure(
        self,
        url: str,
        *,
        source: str,
        lang: str | None = None,
        error: str,
        http_status: int | None = None,
        run_id: int | None = None,
    ) -> ManifestEntry:
        return self._insert(
            url=url, source=source, lang=lang, status=FAILED, http_status=http_status,
            etag=None, last_modified=None, content_type=None, sha256=None, size=None,
            error=error, run_id=run_id,
        )

    def import_file(
        self,
        path: Path | str,
        url: str | None = None,
        *,
        source: str,
        lang: str | None = None,
        content_type: str | None = None,
        verify: Verifier | None = None,
    ) -> ManifestEntry:
        """Add a local file (the bundled offline snapshot) as if it had been fetched."""
        path = Path(path)
        # Reading the file is its own failure; only writing the copy is the store's.
        with path.open("rb") as original:
            tmp = self.temp_path()
            try:
                with writing_into(self.root, tmp):
                    copy = tmp.open("wb")
                try:
                    while chunk := original.read(1 << 20):
                        with writing_into(self.root, tmp):
                            copy.write(chunk)
                finally:
                    with writing_into(self.root, tmp):
                        copy.close()
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
        return self.commit(
            tmp, url=url or path.resolve().as_uri(), source=source, lang=lang,
            http_status=None, content_type=content_type, verify=verify,
        )

    def _move_into(self, tmp: Path, target: Path) -> None:
        with writing_into(self.root):
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                # Same content already stored: keep the existing object untouched.
                tmp.unlink()
            else:
                os.replace(tmp, target)

    def _insert(self, **row: Any) -> ManifestEntry:
        row["fetched_at"] = utc_now()
        columns = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        with writing_into(self.root), self.db:
            cursor = self.db.execute(f"insert into manifest ({columns}) values ({marks})", row)
        return self._entry(cursor.lastrowid)

    # --- reading ---------------------------------------------------------------------------

    def path_for(self, sha256: str) -> Path:
        return self.root / "objects" / sha256[:2] / sha256

    def remove_body(self, sha256: str, reason: str) -> None:
        """Delete a stored body (its manifest rows stay, as history); remembered, so that a body
        missing on purpose is told apart from one lost."""
        path = self.path_for(sha256)
        self.set_state(f"removed-body:{sha256}", {"reason": reason, "size": path.stat().st_size if path.exists() else None})
        path.unlink(missing_ok=True)

    def body_removed(self, sha256: str) -> bool:
        """Whether ``remove_body`` removed this body (and it has not been fetched again since)."""
        return not self.path_for(sha256).exists() and self.get_state(f"removed-body:{sha256}") is not None

    def read_bytes(self, entry: ManifestEntry) -> bytes:
        if entry.sha256 is None:
            raise ValueError(f"no stored body for {entry.url} ({entry.status})")
        return self.path_for(entry.sha256).read_bytes()

    def latest_good(self, url: str) -> ManifestEntry | None:
        """The newest entry for ``url`` whose body is in the store (fetched or confirmed)."""
        row = self.db.execute(
            "select * from manifest where url = ? and status != 'failed' and sha256 is not null"
            " order by id desc limit 1",
            (url,),
        ).fetchone()
        return _to_entry(row) if row else None

    def latest_documents(self, source: str | None = None) -> list[ManifestEntry]:
        """The latest good entry of every URL (of one source), oldest URL first."""
        where = "status != 'failed' and sha256 is not null"
        params: tuple[str, ...] = ()
        if source is not None:
            where += " and source = ?"
            params = (source,)
        rows = self.db.execute(
            f"select * from manifest where id in (select max(id) from manifest where {where}"
            f" group by url) order by id",
            params,
        ).fetchall()
        return [_to_entry(row) for row in rows]

    def history(self, url: str) -> list[ManifestEntry]:
        rows = self.db.execute("select * from manifest where url = ? order by id", (url,))
        return [_to_entry(row) for row in rows]

    def entries(self, source: str | None = None) -> list[ManifestEntry]:
        if source is None:
            rows = self.db.execute("select * from manifest order by id")
        else:
            rows = self.db.execute("select * from manifest where source = ? order by id", (source,))
        return [_to_entry(row) for row in rows]

    def validators_for(self, url: str) -> Validators:
        """ETag / Last-Modified of the latest good body, if that body is really on disk."""
        good = self.latest_good(url)
        if good is None or good.sha256 is None or not self.path_for(good.sha256).exists():
            return Validators()
        return Validators(etag=good.etag, last_modified=good.last_modified)

    def _entry(self, entry_id: int | None) -> ManifestEntry:
        row = self.db.execute("select * from manifest where id = ?", (entry_id,)).fetchone()
        return _to_entry(row)

    # --- runs and small remembered facts ----------------------------------------------------

    def start_run(self) -> int:
        with writing_into(self.root), self.db:
            cursor = self.db.execute("insert into runs (started_at) values (?)", (utc_now(),))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def finish_run(self, run_id: int, status: str, details: dict[str, Any]) -> None:
        with writing_into(self.root), self.db:
            self.db.execute(
                "update runs set finished_at = ?, status = ?, details = ? where id = ?",
                (utc_now(), status, json.dumps(details, sort_keys=True), run_id),
            )

    def runs(self) -> list[dict[str, Any]]:
        rows = self.db.execute("select * from runs order by id").fetchall()
        result = []
        for row in rows:
            run = dict(row)
            run["details"] = json.loads(run["details"]) if run["details"] else None
            result.append(run)
        return result

    def get_state(self, key: str) -> dict[str, Any] | None:
        """A small fact remembered between runs (e.g. a bulk file's ``updated_at``)."""
        row = self.db.execute("select value from state where key = ?", (key,)).fetchone()
        return json.loads(row["value"]) if row else None

    def delete_state(self, key: str) -> None:
        with writing_into(self.root), self.db:
            self.db.execute("delete from state where key = ?", (key,))

    def set_state(self, key: str, value: dict[str, Any]) -> None:
        with writing_into(self.root), self.db:
            self.db.execute(
                "insert into state (key, value, updated_at) values (?, ?, ?)"
                " on conflict (key) do update set value = excluded.value,"
                " updated_at = excluded.updated_at",
                (key, json.dumps(value, sort_keys=True), utc_now()),
            )


_ENTRY_FIELDS = [f.name for f in fields(ManifestEntry)]


def _to_entry(row: sqlite3.Row) -> ManifestEntry:
    return ManifestEntry(**{name: row[name] for name in _ENTRY_FIELDS})
