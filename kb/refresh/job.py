"""``mtgkb refresh``: fetch every source incrementally, rebuild, validate, and only then publish.

One refresh is: take ``<raw>/refresh.lock`` (a second refresh exits at once), fetch every source
conditionally into the raw store (``scraper.fetch.run_fetch``), choose the raw store's latest
good documents as the build's inputs, and, unless those inputs are exactly the ones the served
database was built from, build a new file with ``kb.build.publish.build_database``. Before the new file
is renamed over the served one it gets what only a refresh knows: rulings' ``first_seen`` carried
from the served database, rulings that vanished upstream carried over and marked
``removed_upstream = 1``, every run of the raw store as ``refresh_runs`` and the changes against
the served database; then it is checked (no table shrinking by more than 10 % unless allowed,
foreign keys, smoke queries through Datasette's test client). Any failure leaves the served
file byte-identical. The run, failed ones included, is recorded in the raw store's ``runs``.
"""
from __future__ import annotations

import asyncio
import difflib
import fcntl
import json
import logging
import os
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from scraper.fetch import DEFAULT_SOURCES, run_fetch
from scraper.fetchers import FetchReport
from scraper.rawstore import ManifestEntry, RawStore, utc_now

from kb.build.publish import BuildError, build_database, sha256_of, snapshot_inputs
from kb.store.schema import TABLES
from kb.parse.formats import detect_format
from kb.records import ParseError
from kb.store.save import SOURCES as KB_SOURCES
from kb.store.save import DocumentInput

log = logging.getLogger("kb.refresh.job")

EXIT_OK = 0
EXIT_NOTHING_PUBLISHED = 1
EXIT_SOME_SOURCES_FAILED = 2

LOCK_NAME = "refresh.lock"
# What the served database was built from: the inputs' fingerprint and the file's identity.
PUBLISHED_STATE = "refresh:published"
SNIFF_BYTES = 1 << 20
# A table may not lose more than this share of its rows in one refresh (unless allowed).
SHRINK_LIMIT = 0.10
# Fewer quality issues is good news, and runs are only ever added: neither is data loss.
SHRINK_EXEMPT = frozenset({"quality_issues", "refresh_runs"})
# Columns whose change is a re-sighting, not a change of content.
IGNORED_COLUMNS = {
    "rulings": {"first_seen", "last_seen", "position"},
    "documents": {"fetched_at", "path"},
}
# Every body of these ever fetched is a document of its own (each CR file is one dated
# version), even when a site serves a newer one under the same URL.
HISTORY_FORMATS = frozenset({"cr-txt"})
# A bulk file is a complete snapshot of its kind: the newest supersedes every older one, or
# rulings removed upstream would live on through the old file.
SNAPSHOT_FORMATS = frozenset({"scryfall-bulk-rulings", "scryfall-bulk-cards"})
# Scraper source names that the knowledge base's ``sources`` table spells differently.
KB_SOURCE_OF = {"wizards-cr": "wizards"}
# A vanished ruling and a new one of the same card and date this similar are one ruling
# reworded (``changed``), not one removed and one added.
REWORDED_SIMILARITY = 0.6
# Test hook for the crash test: "SECONDS[:MARKER]" sleeps before the swap, after touching MARKER.
PAUSE_ENV = "MTGKB_REFRESH_PAUSE_BEFORE_SWAP"
SMOKE_PATHS = (
    "/{db}.json",
    "/{db}/rules.json?_size=1",
    "/{db}/rulings.json?_size=1",
    "/{db}/cr_versions.json?_size=1",
    "/{db}/current_rules.json?_size=1",
    "/{db}/refresh_runs.json?_size=1",
    "/{db}/rules.json?_search=mana&_size=1",
)


class RefreshLocked(Exception):
    """Another refresh holds the lock of this raw store."""


class RefreshError(Exception):
    """The new database must not be published; the message says why, in one line."""


@dataclass
class RefreshResult:
    exit_code: int
    # published | unchanged | partial | failed
    status: str
    message: str
    published: bool
    run_id: int | None
    started_at: str
    finished_at: str = ""
    seconds: float = 0.0
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    changes: dict[str, Any] = field(default_factory=dict)
    failed_sources: list[str] = field(default_factory=list)


# --- the lock ---------------------------------------------------------------------------------


@contextmanager
def refresh_lock(raw_dir: Path) -> Iterator[Path]:
    """Hold ``<raw>/refresh.lock`` (flock, released by the kernel even on kill -9).

    Raises RefreshLocked at once, naming the holder, when another refresh has it.
    """
    raw_dir.mkdir(parents=True, exist_ok=True)
    path = raw_dir / LOCK_NAME
    handle = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown process"
            raise RefreshLocked(
                f"another refresh is running ({holder}); lock {path} is held, exiting"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} since {utc_now()}\n")
        handle.flush()
        yield path
    finally:
        handle.close()


# --- choosing the inputs -----------------------------------------------------------------------


def _format_of(store: RawStore, entry: ManifestEntry) -> str | None:
    """The format of a stored body, or None for pages we only fetch to find documents."""
    assert entry.sha256 is not None
    with store.path_for(entry.sha256).open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    try:
        return detect_format(head, entry.url).name
    except ParseError:
        return None


def kb_source_id(scraper_source: str) -> str:
    source = KB_SOURCE_OF.get(scraper_source, scraper_source)
    return source if source in {s["id"] for s in KB_SOURCES} else "local"


def _document_input(store: RawStore, entry: ManifestEntry, fmt: str) -> DocumentInput:
    assert entry.sha256 is not None
    return DocumentInput(
        path=str(store.path_for(entry.sha256)), sha256=entry.sha256, size=entry.size or 0,
        source_id=kb_source_id(entry.source), url=entry.url, lang=entry.lang,
        fetched_at=entry.fetched_at, format=fmt,
    )


def select_inputs(store: RawStore) -> tuple[list[DocumentInput], list[str]]:
    """The build's inputs from the raw store, and the URLs of stored bodies left out.

    The latest good body of every URL, in fetch order; for CR files every good body ever
    fetched (each is a version); for bulk snapshots only the newest file of each kind.
    Bodies of no readable format (the rules page, the bulk-data listing) are left out.
    """
    chosen: list[tuple[int, DocumentInput]] = []
    left_out: list[str] = []
    newest_snapshot: dict[tuple[str, str], tuple[int, DocumentInput]] = {}
    for entry in store.latest_documents():
        fmt = _format_of(store, entry)
        if fmt is None:
            left_out.append(entry.url)
            continue
        if fmt in SNAPSHOT_FORMATS:
            # latest_documents is in fetch order, so a later file replaces an earlier one.
            newest_snapshot[(entry.source, fmt)] = (entry.id, _document_input(store, entry, fmt))
            continue
        chosen.append((entry.id, _document_input(store, entry, fmt)))
        if fmt in HISTORY_FORMATS:
            chosen.extend(_earlier_bodies(store, entry, fmt))
    chosen.extend(newest_snapshot.values())
    chosen.sort(key=lambda pair: pair[0])
    superseded = {
        entry.url for entry in store.latest_documents()
        if entry.url not in {doc.url for _, doc in chosen} and entry.url not in left_out
    }
    return [doc for _, doc in chosen], sorted(left_out) + sorted(superseded)


def _earlier_bodies(store: RawStore, latest: ManifestEntry, fmt: str) -> list[tuple[int, DocumentInput]]:
    """Earlier good bodies of the same URL, newest sighting of each, one per content."""
    bodies: dict[str, ManifestEntry] = {}
    for entry in store.history(latest.url):
        if entry.status != "failed" and entry.sha256 and entry.sha256 != latest.sha256:
            bodies[entry.sha256] = entry
    return [
        (entry.id, _document_input(store, entry, fmt))
        for entry in bodies.values()
        if store.path_for(entry.sha256).exists() and _format_of(store, entry) == fmt  # type: ignore[arg-type]
    ]


def inputs_fingerprint(inputs: list[DocumentInput]) -> list[list[str]]:
    """What a build reads, independent of when it was confirmed: (url, sha256) pairs."""
    return sorted([doc.url or doc.path, doc.sha256] for doc in inputs)


def file_identity(path: Path) -> list[int] | None:
    """Device, inode, size and mtime: any rename over the file or write to it changes it."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns]


# --- the offline snapshot ----------------------------------------------------------------------


def seed_from_snapshot(store: RawStore, snapshot: Path) -> int:
    """Add a snapshot folder's files to the raw store (once each); returns how many were new."""
    added = 0
    for doc in snapshot_inputs(snapshot):
        url = doc.url or Path(doc.path).resolve().as_uri()
        good = store.latest_good(url)
        if good is not None and good.sha256 == doc.sha256:
            continue
        source = {"wizards": "wizards-cr"}.get(doc.source_id, doc.source_id)
        store.import_file(doc.path, url, source=source, lang=doc.lang)
        added += 1
    return added


# --- comparing with the served database --------------------------------------------------------


def _columns(db: sqlite_utils.Database, schema: str, table: str) -> list[str]:
    return [row[1] for row in db.execute(f'pragma {schema}.table_info("{table}")').fetchall()]


def _pk(table: str) -> list[str]:
    pk = TABLES[table]["pk"]
    return [pk] if isinstance(pk, str) else list(pk)


def table_changes(db: sqlite_utils.Database, tables: list[str]) -> dict[str, dict[str, int]]:
    """Rows added, changed and removed per table, new (``main``) against served (``old``)."""
    old_tables = {row[0] for row in db.execute("select name from old.sqlite_master where type = 'table'")}
    result = {}
    for table in tables:
        after = db.execute(f'select count(*) from main."{table}"').fetchone()[0]
        if table not in old_tables:
            result[table] = {"before": 0, "after": after, "added": after, "changed": 0, "removed": 0}
            continue
        before = db.execute(f'select count(*) from old."{table}"').fetchone()[0]
        keys = _pk(table)
        join = " and ".join(f'n."{k}" = o."{k}"' for k in keys)
        shared = set(_columns(db, "main", table)) & set(_columns(db, "old", table))
        compared = sorted(shared - set(keys) - IGNORED_COLUMNS.get(table, set()))
        kept = db.execute(f'select count(*) from main."{table}" n join old."{table}" o on {join}').fetchone()[0]
        changed = 0
        if compared:
            differs = " or ".join(f'n."{c}" is not o."{c}"' for c in compared)
            changed = db.execute(
                f'select count(*) from main."{table}" n join old."{table}" o on {join} where {differs}'
            ).fetchone()[0]
        result[table] = {
            "before": before, "after": after, "added": after - kept, "changed": changed,
            "removed": before - kept,
        }
    return result


@dataclass
class RulingChanges:
    added: int = 0
    changed: int = 0
    removed: int = 0
    reappeared: int = 0
    still_removed: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _card_of(row: sqlite3.Row | tuple) -> tuple:
    return (row["oracle_id"] or row["card_name"], row["published_at"])


def carry_rulings(db: sqlite_utils.Database) -> RulingChanges:
    """Keep rulings' history across builds: first_seen, reworded rulings, vanished rulings.

    ``main`` is the new build, ``old`` the served database. A ruling keeps the earliest
    first_seen either database knows; a vanished ruling whose card and date match a new one of
    similar text was reworded (``changed``, first_seen kept); any other vanished ruling is
    copied over with its sightings and ``removed_upstream = 1``.
    """
    changes = RulingChanges()
    conn = db.conn
    conn.row_factory = sqlite3.Row
    try:
        old_cols = set(_columns(db, "old", "rulings"))
        removed_flag = "o.removed_upstream" if "removed_upstream" in old_cols else "0"
        vanished = conn.execute(
            f"select o.*, {removed_flag} as was_removed from old.rulings o"
            " where o.id not in (select id from main.rulings)"
        ).fetchall()
        appeared = conn.execute(
            "select * from main.rulings where id not in (select id from old.rulings)"
        ).fetchall()
        changes.reappeared = conn.execute(
            f"select count(*) from main.rulings n join old.rulings o on o.id = n.id where {removed_flag} = 1"
        ).fetchone()[0]
        differs = " or ".join(f"n.{c} is not o.{c}" for c in ("text", "source", "oracle_id", "card_name"))
        same_id_changed = conn.execute(
            f"select count(*) from main.rulings n join old.rulings o on o.id = n.id where {differs}"
        ).fetchone()[0]
    finally:
        conn.row_factory = None
    reworded = _pair_reworded([r for r in vanished if not r["was_removed"]], appeared)
    conn.executemany(
        "update main.rulings set first_seen = ? where id = ? and (first_seen is null or first_seen > ?)",
        [(old["first_seen"], new_id, old["first_seen"]) for old, new_id in reworded if old["first_seen"]],
    )
    conn.execute(
        "update main.rulings set first_seen = o.first_seen from old.rulings o"
        " where o.id = main.rulings.id and o.first_seen is not null"
        " and (main.rulings.first_seen is null or o.first_seen < main.rulings.first_seen)"
    )
    reworded_ids = {old["id"] for old, _ in reworded}
    carried = [r for r in vanished if r["id"] not in reworded_ids]
    _copy_vanished(db, [r["id"] for r in carried], old_cols)
    changes.changed = same_id_changed + len(reworded)
    changes.added = len(appeared) - len(reworded)
    changes.removed = sum(1 for r in carried if not r["was_removed"])
    changes.still_removed = sum(1 for r in carried if r["was_removed"])
    return changes


def _pair_reworded(vanished: list, appeared: list) -> list[tuple[Any, int]]:
    """(old ruling, new id) pairs: same card and date, texts at least 60 % alike, best first."""
    by_card: dict[tuple, list] = defaultdict(list)
    for row in appeared:
        by_card[_card_of(row)].append(row)
    pairs = []
    for old in vanished:
        candidates = by_card.get(_card_of(old), [])
        scored = [
            (difflib.SequenceMatcher(None, old["text"] or "", new["text"] or "").ratio(), index)
            for index, new in enumerate(candidates)
        ]
        if scored:
            score, index = max(scored)
            if score >= REWORDED_SIMILARITY:
                pairs.append((old, candidates.pop(index)["id"]))
    return pairs


def _copy_vanished(db: sqlite_utils.Database, ids: list[int], old_cols: set[str]) -> None:
    """Copy vanished rulings, their sightings and the documents those name, marked removed."""
    conn = db.conn
    conn.execute("create temp table if not exists carried (id integer primary key)")
    conn.execute("delete from carried")
    conn.executemany("insert into carried (id) values (?)", [(i,) for i in ids])
    columns = [c for c in _columns(db, "main", "rulings") if c in old_cols and c != "removed_upstream"]
    listed = ", ".join(columns)
    picked = ", ".join(f"o.{c}" for c in columns)
    # A card known only through its rulings goes with them (rulings.oracle_id -> cards).
    card_cols = [c for c in _columns(db, "main", "cards") if c in set(_columns(db, "old", "cards"))]
    conn.execute(
        f"insert or ignore into main.cards ({', '.join(card_cols)})"
        f" select {', '.join('c.' + c for c in card_cols)} from old.cards c"
        " where c.oracle_id in (select oracle_id from old.rulings where id in (select id from carried))"
    )
    conn.execute(
        f"insert into main.rulings ({listed}, removed_upstream)"
        f" select {picked}, 1 from old.rulings o where o.id in (select id from carried)"
    )
    document_cols = [c for c in _columns(db, "main", "documents") if c in set(_columns(db, "old", "documents"))]
    conn.execute(
        f"insert or ignore into main.documents ({', '.join(document_cols)})"
        f" select {', '.join('d.' + c for c in document_cols)} from old.documents d"
        " where d.id in (select document_id from old.ruling_sightings where ruling_id in (select id from carried))"
        " and d.id not in (select id from main.documents)"
    )
    # Such a document is no longer among the build's inputs: it was superseded upstream.
    conn.execute(
        "update main.documents set status = 'superseded' where id in (select document_id from"
        " old.ruling_sightings where ruling_id in (select id from carried))"
        " and id not in (select document_id from main.ruling_records)"
    )
    sighting_cols = [c for c in _columns(db, "main", "ruling_sightings") if c in set(_columns(db, "old", "ruling_sightings"))]
    conn.execute(
        f"insert or ignore into main.ruling_sightings ({', '.join(sighting_cols)})"
        f" select {', '.join('s.' + c for c in sighting_cols)} from old.ruling_sightings s"
        " where s.ruling_id in (select id from carried)"
    )
    if "rulings_fts" in db.table_names():
        # The search index was built before these rows arrived: add them to it.
        fts_cols = ", ".join(f"[{c}]" for c in ("text", "card_name"))
        conn.execute(
            f"insert into rulings_fts (rowid, {fts_cols}) select id, text, card_name from main.rulings"
            " where id in (select id from carried)"
        )


def shrink_problems(changes: dict[str, dict[str, int]]) -> list[str]:
    problems = []
    for table, counts in changes.items():
        before, after = counts["before"], counts["after"]
        if table in SHRINK_EXEMPT or before == 0:
            continue
        if after < before * (1 - SHRINK_LIMIT):
            problems.append(f"{table} would shrink from {before} to {after} rows ({(after - before) / before:+.0%})")
    return problems


def new_cr_versions(db: sqlite_utils.Database, old_exists: bool) -> list[str]:
    if not old_exists:
        return [row[0] for row in db.execute("select id from main.cr_versions order by id")]
    return [
        row[0]
        for row in db.execute(
            "select id from main.cr_versions where id not in (select id from old.cr_versions) order by id"
        )
    ]


# --- runs --------------------------------------------------------------------------------------


def run_row(run: dict[str, Any]) -> dict[str, Any]:
    """A raw store run as a ``refresh_runs`` row (plain ``mtgkb fetch`` runs included)."""
    details = run.get("details") or {}
    refresh = details.get("refresh")
    if refresh is None:  # a run of `mtgkb fetch`: its details are the per-source reports
        return {
            "id": run["id"], "started_at": run["started_at"], "finished_at": run["finished_at"],
            "status": run["status"], "exit_code": None,
            "sources": json.dumps(details, sort_keys=True), "changes": None,
            "message": "fetch only",
        }
    return {
        "id": run["id"], "started_at": run["started_at"], "finished_at": run["finished_at"],
        "status": refresh["status"], "exit_code": refresh["exit_code"],
        "sources": json.dumps(details.get("sources", {}), sort_keys=True),
        "changes": json.dumps(refresh.get("changes", {}), sort_keys=True),
        "message": refresh.get("message"),
    }


def _record_run(store: RawStore, run_id: int | None, result: RefreshResult) -> None:
    if run_id is None:
        return
    store.finish_run(run_id, result.status, {
        "sources": result.sources,
        "refresh": {
            "status": result.status, "exit_code": result.exit_code, "message": result.message,
            "changes": result.changes, "published": result.published,
        },
    })


# --- smoke queries -----------------------------------------------------------------------------


def smoke_check(db_file: Path, name: str) -> list[str]:
    """Query the file through Datasette's test client, as it will be served; the failures."""
    failures: list[str] = []

    async def run() -> None:
        from datasette.app import Datasette
        from datasette.database import Database

        ds = Datasette([], settings={"sql_time_limit_ms": 5000})
        ds.add_database(Database(ds, path=str(db_file), is_mutable=False), name=name)
        await ds.invoke_startup()
        for template in SMOKE_PATHS:
            path = template.format(db=name)
            response = await ds.client.get(path)
            if response.status_code != 200:
                failures.append(f"{path} answered {response.status_code}")
            elif "rows" in path or "_size" in path:
                if "rows" not in response.json():
                    failures.append(f"{path} returned no rows field")
        for database in ds.databases.values():
            database.close()

    # In its own thread and loop: the caller may itself be running an event loop.
    errors: list[BaseException] = []

    def in_thread() -> None:
        try:
            asyncio.run(run())
        except BaseException as error:  # surfaces below as a validation failure
            errors.append(error)

    worker = threading.Thread(target=in_thread)
    worker.start()
    worker.join()
    if errors:
        failures.append(f"Datasette could not serve the file: {type(errors[0]).__name__}: {errors[0]}")
    return failures


# --- the refresh -------------------------------------------------------------------------------


@dataclass
class _Publish:
    """What ``before_swap`` learns and decides about the new file."""

    db_path: Path
    store: RawStore
    allow_shrink: bool
    current_run: Callable[[dict[str, Any]], dict[str, Any]]
    changes: dict[str, Any] = field(default_factory=dict)

    def before_swap(self, db: sqlite_utils.Database) -> None:
        served = self.db_path.exists()
        temp_file = Path(db.execute("pragma database_list").fetchone()[2])
        if served:
            db.execute("attach database ? as old", [f"file:{self.db_path.resolve()}?mode=ro"])
        try:
            with db.atomic():
                rulings = carry_rulings(db) if served else None
                if served:
                    tables = table_changes(db, [t for t in TABLES if t != "refresh_runs"])
                else:
                    tables = {t: {"before": 0, "after": db[t].count} for t in TABLES if t != "refresh_runs"}
                self.changes = {
                    "tables": tables,
                    "new_cr_versions": new_cr_versions(db, served),
                    "rulings": rulings.as_dict() if rulings else {
                        "added": db["rulings"].count, "changed": 0, "removed": 0,
                        "reappeared": 0, "still_removed": 0,
                    },
                }
                problems = shrink_problems(tables) if served else []
                if problems and not self.allow_shrink:
                    raise RefreshError(
                        f"not published: {'; '.join(problems)} (use --allow-shrink if this is expected)"
                    )
                self._write_runs(db)
        finally:
            if served:
                db.execute("detach database old")
        violations = db.execute("pragma foreign_key_check").fetchall()
        if violations:
            raise RefreshError(f"not published: {len(violations)} foreign key violations after carrying rulings")
        failures = smoke_check(temp_file, self.db_path.stem)
        if failures:
            raise RefreshError(f"not published: smoke queries failed: {'; '.join(failures)}")
        _pause_for_crash_test()

    def _write_runs(self, db: sqlite_utils.Database) -> None:
        rows = [run_row(run) for run in self.store.runs()]
        current = self.current_run(self.changes)
        rows = [row for row in rows if row["id"] != current["id"]] + [current]
        db.execute("delete from refresh_runs")
        db["refresh_runs"].insert_all(rows, pk="id")


def _pause_for_crash_test() -> None:
    value = os.environ.get(PAUSE_ENV)
    if not value:
        return
    seconds, _, marker = value.partition(":")
    if marker:
        Path(marker).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(float(seconds))


def _failed_sources(reports: dict[str, FetchReport]) -> list[str]:
    return [name for name, report in reports.items() if report.failed]


def _nothing_fetched(reports: dict[str, FetchReport]) -> bool:
    return not any(r.fetched + r.not_modified + r.skipped for r in reports.values())


def refresh(
    raw_dir: Path,
    db_path: Path,
    *,
    sources: list[str] | None = None,
    base_urls: dict[str, str] | None = None,
    fetch_options: dict[str, Any] | None = None,
    allow_shrink: bool = False,
    snapshot: Path | None = None,
    verbose: bool = False,
    progress: bool | None = None,
) -> RefreshResult:
    """One refresh run (see the module docstring). Raises RefreshLocked if one is running."""
    raw_dir, db_path = Path(raw_dir), Path(db_path)
    with refresh_lock(raw_dir), RawStore(raw_dir) as store:
        return _refresh_locked(
            store, db_path, list(sources or DEFAULT_SOURCES), base_urls or {},
            dict(fetch_options or {}), allow_shrink, snapshot, verbose, progress,
        )


def _refresh_locked(
    store: RawStore,
    db_path: Path,
    sources: list[str],
    base_urls: dict[str, str],
    fetch_options: dict[str, Any],
    allow_shrink: bool,
    snapshot: Path | None,
    verbose: bool,
    progress: bool | None,
) -> RefreshResult:
    started = time.monotonic()
    last_run = max((run["id"] for run in store.runs()), default=0)
    result = RefreshResult(EXIT_NOTHING_PUBLISHED, "failed", "", False, None, utc_now())
    try:
        reports = run_fetch(sources, store, base_urls, fetch_options, verbose=verbose, progress=progress)
        result.run_id = max((run["id"] for run in store.runs() if run["id"] > last_run), default=None)
        result.sources = {name: report.as_dict() for name, report in reports.items()}
        result.failed_sources = _failed_sources(reports)
        if snapshot is not None:
            result.changes["snapshot_documents_added"] = seed_from_snapshot(store, snapshot)
        # Provisional: what the store says if this process dies before it can say more.
        _record_run(store, result.run_id, RefreshResult(
            EXIT_NOTHING_PUBLISHED, "interrupted", "refresh did not finish (killed or crashed)",
            False, result.run_id, result.started_at, sources=result.sources,
        ))
        if result.failed_sources and _nothing_fetched(reports) and not snapshot:
            result.message = f"nothing could be published: every source failed: {', '.join(result.failed_sources)}"
        else:
            _build_or_skip(store, db_path, allow_shrink, result)
    except (BuildError, RefreshError) as error:
        # before_swap may have filled in a published outcome: the swap did not happen.
        result.exit_code, result.status, result.published = EXIT_NOTHING_PUBLISHED, "failed", False
        result.message = _one_line(str(error))
    except Exception as error:  # recorded, then surfaced: a bug must not pass for a clean run
        result.exit_code, result.status = EXIT_NOTHING_PUBLISHED, "failed"
        result.message = _one_line(f"refresh crashed: {type(error).__name__}: {error}")
        _finish(store, result, started)
        raise
    _finish(store, result, started)
    return result


def _build_or_skip(store: RawStore, db_path: Path, allow_shrink: bool, result: RefreshResult) -> None:
    inputs, left_out = select_inputs(store)
    fingerprint = inputs_fingerprint(inputs)
    published = store.get_state(PUBLISHED_STATE) or {}
    failed_note = (
        f"; failed sources keep their last good data: {', '.join(result.failed_sources)}"
        if result.failed_sources else ""
    )
    code = EXIT_SOME_SOURCES_FAILED if result.failed_sources else EXIT_OK
    if (
        published.get("inputs") == fingerprint
        and published.get("file") == file_identity(db_path)
        and db_path.exists()
    ):
        result.exit_code, result.published = code, False
        result.status = "partial" if result.failed_sources else "unchanged"
        result.changes.update({"inputs": len(inputs), "rebuilt": False})
        result.message = f"nothing changed: {len(inputs)} documents as published{failed_note}"
        return
    if not inputs:
        raise RefreshError("nothing to publish: the raw store holds no readable document")

    def current_run(changes: dict[str, Any]) -> dict[str, Any]:
        # The run as it will read once published: written into the new file itself.
        result.changes.update(changes)
        result.changes.update({"inputs": len(inputs), "left_out": len(left_out), "rebuilt": True})
        result.exit_code, result.published = code, True
        result.status = "partial" if result.failed_sources else "published"
        result.message = _summary(result) + failed_note
        result.finished_at = utc_now()
        return {
            "id": result.run_id, "started_at": result.started_at, "finished_at": result.finished_at,
            "status": result.status, "exit_code": result.exit_code,
            "sources": json.dumps(result.sources, sort_keys=True),
            "changes": json.dumps(result.changes, sort_keys=True), "message": result.message,
        }

    publish = _Publish(db_path, store, allow_shrink, current_run)
    for _attempt in range(MAX_UNREADABLE_BODIES + 1):
        try:
            build_database(inputs, db_path, before_swap=publish.before_swap)
            break
        except BuildError as error:
            if error.document is None or not _fall_back(store, inputs, error, result):
                raise
            # The failed source now keeps its last good data: say so and build again.
            code = EXIT_SOME_SOURCES_FAILED
            failed_note = f"; failed sources keep their last good data: {', '.join(result.failed_sources)}"
    else:
        raise RefreshError(f"more than {MAX_UNREADABLE_BODIES} stored documents could not be read")
    store.set_state(PUBLISHED_STATE, {"inputs": fingerprint, "file": file_identity(db_path),
                                      "sha256": sha256_of(db_path)})


# How many unreadable stored bodies one refresh replaces by earlier ones before giving up.
MAX_UNREADABLE_BODIES = 5


def _fall_back(store: RawStore, inputs: list[DocumentInput], error: BuildError, result: RefreshResult) -> bool:
    """Replace a stored body that cannot be read by the previous good body of its URL, or
    leave it out when there is none; its source is then reported as failed."""
    bad = error.document
    if bad is None or bad not in inputs or not bad.url:
        return False
    index = inputs.index(bad)
    entries = [e for e in store.history(bad.url) if e.status != "failed" and e.sha256]
    raw_source = entries[-1].source if entries else bad.source_id
    used = {doc.sha256 for doc in inputs if doc.url == bad.url}
    earlier = [
        e for e in entries
        if e.sha256 != bad.sha256 and e.sha256 not in used and store.path_for(e.sha256).exists()
    ]
    if earlier:
        inputs[index] = _document_input(store, earlier[-1], bad.format or "")
    else:
        del inputs[index]
    if raw_source not in result.failed_sources:
        result.failed_sources.append(raw_source)
    result.changes.setdefault("unreadable", []).append(
        {"url": bad.url, "error": _one_line(str(error)), "replaced_by_earlier": bool(earlier)}
    )
    return True


def _summary(result: RefreshResult) -> str:
    rulings = result.changes.get("rulings", {})
    versions = result.changes.get("new_cr_versions", [])
    return (
        f"published {result.changes.get('inputs', 0)} documents;"
        f" new CR versions: {', '.join(versions) or 'none'};"
        f" rulings +{rulings.get('added', 0)} ~{rulings.get('changed', 0)} -{rulings.get('removed', 0)}"
    )


def _finish(store: RawStore, result: RefreshResult, started: float) -> None:
    result.finished_at = utc_now()
    result.seconds = time.monotonic() - started
    if not result.published and result.exit_code == EXIT_NOTHING_PUBLISHED:
        result.status = "failed"
    _record_run(store, result.run_id, result)


def _one_line(text: str) -> str:
    return " ".join(text.split())
