"""Documents an operator imported by hand into the served file (``mtgkb import``), carried into
every refresh.

A refresh builds a new file from the raw store, and a document imported into the file a refresh
published is in no raw store: built without it, the new file lost it and everything it gave (its
CR version, its printings, its rulings, published as removed upstream), and the refresh exited 0.

Which documents those are: those an earlier refresh carried this way, and the served file's
documents that are not in the raw store, once a refresh has published there (a file it publishes
holds the raw store's documents and these only). Before any has, the file is one ``mtgkb build``
made: its documents (the bundled snapshot's, say) are not imports, and the first refresh replaces
them by the raw store's (seed the store with ``--snapshot`` to keep them).

Each is read again from the file it was imported from, where that file is still there with the
same bytes (a relative path is looked for from the working folder, then from the database's
folder). Where it is not, the refresh publishes nothing and says why, unless told to drop them
(``drop``: ``mtgkb refresh --drop-imported``).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from kb.build.inputs import sha256_of
from kb.refresh.before_swap import RefreshError
from kb.store.save import DocumentInput
from scraper.rawstore import RawStore

# The columns of a document kept for reading it again.
KEPT = ("sha256", "source_id", "url", "path", "lang", "format")


def imported_documents(db_path: Path, store: RawStore, published: dict[str, Any]) -> list[dict[str, Any]]:
    """The served file's documents imported by hand since a refresh published it, and those an
    earlier refresh carried (``published``: the raw store's record of that publish)."""
    if not published:  # no refresh has published here
        return []
    known = {entry.sha256 for entry in store.entries() if entry.sha256}
    found = {row["sha256"]: row for row in published.get("imported", [])}
    for row in _documents(db_path):
        document = dict(zip(KEPT, row, strict=True))
        if document["sha256"] and document["sha256"] not in known:
            found.setdefault(document["sha256"], document)
    return list(found.values())


def carried_imports(
    db_path: Path, store: RawStore, published: dict[str, Any], drop: bool = False
) -> tuple[list[DocumentInput], list[str]]:
    """The documents imported by hand, as inputs read from their files; and the paths of those
    dropped (``drop``) because their files are gone or changed. Raises ``RefreshError`` when some
    would be dropped and ``drop`` is false."""
    inputs: list[DocumentInput] = []
    missing: list[str] = []
    for row in imported_documents(db_path, store, published):
        found = _file_of(row["path"], row["sha256"], db_path.parent)
        if found is None:
            missing.append(row["path"] or row["url"] or row["sha256"])
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


def kept_imports(inputs: list[DocumentInput]) -> list[dict[str, Any]]:
    """What the raw store keeps of the imports a refresh carried, to carry them again next time."""
    return [{"sha256": doc.sha256, "source_id": doc.source_id, "url": doc.url, "path": doc.path,
             "lang": doc.lang, "format": doc.format} for doc in inputs]


def _documents(db_path: Path) -> list[tuple[Any, ...]]:
    if not db_path.exists():
        return []
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return conn.execute(
            f"select {', '.join(KEPT)} from documents where coalesce(status, 'parsed') = 'parsed' order by rowid"
        ).fetchall()
    except sqlite3.Error:  # not a database this code made: the build's own checks say so
        return []
    finally:
        conn.close()


def _file_of(path: str | None, sha256: str, db_folder: Path) -> Path | None:
    if not path:
        return None
    for candidate in (Path(path), db_folder / path):
        if candidate.is_file() and sha256_of(candidate) == sha256:
            return candidate
    return None
