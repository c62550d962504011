"""Documents an operator imported by hand into the served file (``mtgkb import``), carried into
every refresh.

A refresh builds a new file from the raw store, and a document imported into the served file is
in no raw store: built without it, the new file lost it and everything it gave (its CR version,
its printings, its rulings, published as removed upstream), and the refresh exited 0. Each such
document is read again from the file it was imported from, where that file is still there with
the same bytes (a relative path is looked for from the working folder, then from the database's
folder). Where it is not, the refresh publishes nothing and says why, unless told to drop them
(``drop``: ``mtgkb refresh --drop-imported``).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from kb.build.inputs import sha256_of
from kb.refresh.before_swap import RefreshError
from kb.store.save import DocumentInput
from scraper.rawstore import RawStore


def imported_documents(db_path: Path, store: RawStore) -> list[sqlite3.Row]:
    """The served file's documents whose bytes the raw store never held (read whole: not failed,
    not superseded)."""
    if not db_path.exists():
        return []
    held = {entry.sha256 for entry in store.entries() if entry.sha256}
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute(
            "select id, source_id, url, path, lang, format, sha256 from documents"
            " where coalesce(status, 'parsed') = 'parsed' order by rowid"
        ).fetchall()
    except sqlite3.Error:  # not a database this code made: the build's own checks say so
        return []
    finally:
        conn.close()
    return [row for row in rows if row["sha256"] not in held]


def carried_imports(db_path: Path, store: RawStore, drop: bool = False) -> tuple[list[DocumentInput], list[str]]:
    """The documents imported by hand, as inputs read from their files; and the paths of those
    dropped (``drop``) because their files are gone or changed. Raises ``RefreshError`` when some
    would be dropped and ``drop`` is false."""
    inputs: list[DocumentInput] = []
    missing: list[str] = []
    for row in imported_documents(db_path, store):
        found = _file_of(row["path"], row["sha256"], db_path.parent)
        if found is None:
            missing.append(row["path"] or row["url"] or f"document {row['id']}")
            continue
        inputs.append(DocumentInput(
            path=str(found), sha256=row["sha256"], size=found.stat().st_size, source_id=row["source_id"],
            url=row["url"], lang=row["lang"], format=row["format"],
        ))
    if missing and not drop:
        many = len(missing) > 1
        raise RefreshError(
            f"{db_path}: {len(missing)} document{'s' if many else ''} imported by hand (mtgkb import)"
            f" {'are' if many else 'is'} in no raw store and {'their files are' if many else 'its file is'}"
            f" gone or changed (first: {missing[0]}): this refresh would drop {'them' if many else 'it'};"
            f" nothing published (--drop-imported publishes without {'them' if many else 'it'})"
        )
    return inputs, missing


def _file_of(path: str | None, sha256: str, db_folder: Path) -> Path | None:
    if not path:
        return None
    for candidate in (Path(path), db_folder / path):
        if candidate.is_file() and sha256_of(candidate) == sha256:
            return candidate
    return None
