"""sha256 of files (build inputs, refresh runs, the served file's inspect data) and of the code that made a file."""
from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import sqlite3
import sys
import uuid
from collections.abc import Iterable
from pathlib import Path

# The libraries that read documents (HTML, JSON, dates, languages, Word files), compare them
# (cydifflib: CR diffs, pairings, translation matches) and write them (sqlite-utils): another
# version may read or compare the same bytes otherwise.
READING_LIBRARIES = (
    "beautifulsoup4", "lxml", "ijson", "orjson", "dateparser", "babel", "py3langid", "python-docx", "cydifflib",
    "sqlite-utils",
)


def file_sha256(path: Path | str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def module_files(modules: Iterable[str]) -> list[Path]:
    """The source files of ``modules`` (a package: all its files, and the tables its ``data``
    folders hold: the editions' set names, the symbols' spellings)."""
    files: list[Path] = []
    for name in modules:
        path = Path(importlib.import_module(name).__file__ or "")
        if path.name == "__init__.py":
            files += sorted(path.parent.rglob("*.py"))
            files += sorted(file for file in path.parent.rglob("data/*.json"))
        else:
            files.append(path)
    return files


def code_fingerprint(modules: Iterable[str]) -> str:
    """A digest of ``modules``' files (names and contents), of the Python version (its regular
    expressions and Unicode tables), SQLite's, and the versions of ``READING_LIBRARIES``."""
    digest = hashlib.sha256(sys.version.encode())
    digest.update(f"\x1esqlite {sqlite3.sqlite_version}".encode())
    for library in READING_LIBRARIES:
        try:
            found = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            found = "absent"
        digest.update(f"\x1e{library} {found}".encode())
    root = Path(importlib.import_module("kb").__file__ or "").parent
    files = module_files(modules)
    if not files or not all(file.suffix in (".py", ".json") and file.is_file() for file in files):
        # Installed without its source (bytecode only): the code cannot be told apart from
        # another release's, so it is taken as other code every time.
        return f"unknown-{uuid.uuid4().hex}"
    for file in files:
        digest.update(f"\x1e{file.relative_to(root).as_posix()}\x1e".encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()
