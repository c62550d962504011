"""Databases and Datasette instances for the site tests: a pytest plugin (see conftest.py).

Registered once through ``pytest_plugins`` in ``tests/conftest.py``, so test modules use the
fixtures by name and import only constants and helpers from here. The databases are built once
per test run: under pytest-xdist the workers share one build (a file lock in a folder named by the
run's id), so two cores do not both spend half a minute building the same snapshot.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
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


def _shared_workdir(run_id: str) -> Path:
    return Path(tempfile.gettempdir()) / f"kb-site-tests-{run_id}"


def _workdir() -> Path:
    if not _WORKDIR:
        run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
        if run_id:  # one folder for every worker of this run
            folder = _shared_workdir(run_id)
            folder.mkdir(exist_ok=True)
        else:
            folder = Path(tempfile.mkdtemp(prefix="kb-site-tests-"))
        _WORKDIR.append(folder)
    return _WORKDIR[0]


def _built_once(name: str, build) -> Path:  # type: ignore[no-untyped-def]
    if name not in _BUILT:
        path = _workdir() / f"{name}-kb.db"
        with open(_workdir() / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be building it right now
            if not path.exists():  # build_database swaps the file in only when it is complete
                build(path)
        _BUILT[name] = path
    return _BUILT[name]


def built_snapshot_db() -> Path:
    """The bundled snapshot."""
    return _built_once("snapshot", lambda path: build_database(snapshot_inputs(SNAPSHOT), path))


def built_hostile_db() -> Path:
    """A small database: the real Phelddagrif card and a constructed rulings list (see README)."""
    files = [FIXTURES / "card-d9631cb2-phelddagrif.json", FIXTURES / "rulings-constructed-hostile.json"]
    return _built_once("hostile", lambda path: build_database(path_inputs(files, source_id="scryfall"), path))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start building the snapshot in a process of its own while the first tests run.

    Many modules need it and it takes half a minute: built on demand, one worker builds while
    the other waits on the lock with a core idle. One worker (or a run without xdist) starts it;
    whoever needs the file first waits on the same lock as before."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker not in (None, "gw0") or os.environ.get("KB_TESTS_NO_EARLY_BUILD"):
        return
    if not os.environ.get("PYTEST_XDIST_TESTRUNUID"):
        return  # a single process: nothing would run beside the build
    _EARLY_BUILD.append(subprocess.Popen(
        [sys.executable, "-c", "import site_databases; site_databases.built_snapshot_db()"],
        cwd=Path(__file__).parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    ))


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist the controller names the run itself, so that it knows which folder its workers
    shared and can remove it when they are all done (each run's databases are ~50 MB)."""
    if hasattr(config, "workerinput") or not hasattr(config.option, "testrunuid"):
        return
    if config.option.testrunuid is None:
        config.option.testrunuid = uuid.uuid4().hex


def pytest_sessionfinish(session: pytest.Session) -> None:
    for process in _EARLY_BUILD:
        process.wait()  # never leave it writing after the run
    if not os.environ.get("PYTEST_XDIST_TESTRUNUID"):  # a run without workers: its own folder
        for folder in _WORKDIR:
            shutil.rmtree(folder, ignore_errors=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # a worker: the controller removes the shared folder once every worker has stopped
    run_id = getattr(config.option, "testrunuid", None)
    if run_id:
        shutil.rmtree(_shared_workdir(run_id), ignore_errors=True)


_EARLY_BUILD: list[subprocess.Popen] = []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_serving(base: str, server: subprocess.Popen, seconds: float = 120) -> None:
    """Wait for a server process to answer ``/-/versions.json``; fail with its stderr if it dies.

    The generous default is for a loaded two-core machine, where Datasette starts slowly."""
    deadline = time.monotonic() + seconds
    # One client for the whole wait: each new httpx client reads the certificate store again
    # (~40 ms of CPU, taken from the server that is starting, ten times a second).
    with httpx.Client(timeout=1) as client:
        while True:
            try:
                if client.get(base + "/-/versions.json").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if server.poll() is not None:
                stderr = server.communicate()[1]
                raise AssertionError(stderr.decode() if isinstance(stderr, bytes) else stderr)
            assert time.monotonic() < deadline, f"{base} did not start within {seconds:.0f}s"
            time.sleep(0.1)


def open_immutable(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True, check_same_thread=False)


def make_datasette(db_path: Path):
    """Datasette configured as ``mtgkb serve`` configures it: the plugin brings metadata, templates
    and static files itself; only the settings are ours to pass."""
    from datasette.app import Datasette

    from kb.site.serve import SETTINGS

    return Datasette(immutables=[str(db_path)], settings=dict(SETTINGS))


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


# One Datasette per worker and database: a new instance compiles every template again (about half
# a second each), and no test changes an instance's settings or databases.
@pytest.fixture(scope="session")
def snapshot_ds(snapshot_db: Path):
    return make_datasette(snapshot_db)


@pytest.fixture(scope="session")
def hostile_ds(hostile_db: Path):
    return make_datasette(hostile_db)
