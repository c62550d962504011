"""Databases and Datasette instances for the site tests: a pytest plugin (see conftest.py).

Registered once through ``pytest_plugins`` in ``tests/conftest.py``, so test modules use the
fixtures by name and import only constants and helpers from here. The databases are built once
per test process (a module-level cache shared with the browser tests' own server).
"""
from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.build.inputs import path_inputs, snapshot_inputs
from kb.build.publish import build_database

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "data" / "snapshot"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "site-pages"

JACE = "594f6881-c059-46f8-aa4e-7151d502de73"
PHELDDAGRIF = "d0e99535-0ea0-4aa5-99f5-6c5255b27c38"

_BUILT: dict[str, Path] = {}
_WORKDIR: list[Path] = []


def _workdir() -> Path:
    if not _WORKDIR:
        _WORKDIR.append(Path(tempfile.mkdtemp(prefix="kb-site-tests-")))
    return _WORKDIR[0]


def built_snapshot_db() -> Path:
    """The bundled snapshot, built once per process."""
    if "snapshot" not in _BUILT:
        path = _workdir() / "snapshot-kb.db"
        build_database(snapshot_inputs(SNAPSHOT), path)
        _BUILT["snapshot"] = path
    return _BUILT["snapshot"]


def built_hostile_db() -> Path:
    """A small database: the real Phelddagrif card and a constructed rulings list (see README)."""
    if "hostile" not in _BUILT:
        path = _workdir() / "hostile-kb.db"
        files = [FIXTURES / "card-d9631cb2-phelddagrif.json", FIXTURES / "rulings-constructed-hostile.json"]
        build_database(path_inputs(files, source_id="scryfall"), path)
        _BUILT["hostile"] = path
    return _BUILT["hostile"]


def open_immutable(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True, check_same_thread=False)


def make_datasette(db_path: Path):
    """Datasette configured as ``mtgkb serve`` configures it (metadata, templates, static)."""
    from datasette.app import Datasette

    from kb.site.metadata import build_metadata
    from kb.site.serve import PACKAGE_DIR, SQL_TIME_LIMIT_MS

    return Datasette(
        immutables=[str(db_path)],
        metadata=build_metadata(db_path.stem),
        template_dir=str(PACKAGE_DIR / "templates"),
        static_mounts=[("kb-static", str(PACKAGE_DIR / "static"))],
        settings={"sql_time_limit_ms": SQL_TIME_LIMIT_MS, "default_page_size": 50, "suggest_facets": False},
    )


@pytest.fixture(scope="session")
def snapshot_db() -> Path:
    return built_snapshot_db()


@pytest.fixture(scope="session")
def hostile_db() -> Path:
    return built_hostile_db()


@pytest.fixture(scope="session")
def snapshot_conn(snapshot_db: Path) -> Iterator[sqlite3.Connection]:
    conn = open_immutable(snapshot_db)
    yield conn
    conn.close()


@pytest.fixture
def snapshot_ds(snapshot_db: Path):
    return make_datasette(snapshot_db)


@pytest.fixture
def hostile_ds(hostile_db: Path):
    return make_datasette(hostile_db)
