"""Build the knowledge base into a new file, validate it, and only then swap it into place.

The served file is never modified: a build copies the current database (for ``import``) or
starts empty (for ``build``), writes everything into a temporary file beside the target,
checks it, syncs it to disk, and renames it over the target in one atomic step. A crash at any
moment leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlite_utils

from kb.build.collector import fewer_collections
from kb.build.files import (
    NOT_A_KNOWLEDGE_BASE,
    another_programs_database,
    copy_database,
    damage_of,
    file_in_the_way,
    fsync,
    fsync_dir,
    os_reason,
    remove_if_stale,
)
from kb.build.inputs import BuildError
from kb.build.load import detect_format_of, is_cr_format, load_document, save_cr
from kb.build.writer_lock import writer_lock
from kb.normalise.lang import release_language_model
from kb.parse.bounds import shown
from kb.parse.formats import all_formats, format_named
from kb.records import CRDocument, ParseError, QualityIssue
from kb.store.carry_cr import CRInput, carry_cr_tables, save_cr_read_order
from kb.store.carry_links import detach_served, links_carried
from kb.store.derive import link_all
from kb.store.derive_keywords import derive_keyword_dictionary
from kb.store.files import read_only_uri
from kb.store.import_changes import ImportChanges
from kb.store.migrations import migrations
from kb.store.save import (
    DocumentInput,
    document_id_for,
    save_document,
    save_quality_issue,
    save_sources,
)
from kb.store.save_cr import cr_indexes_made_after
from kb.store.schema import ensure_db_shape, table_counts
from kb.store.tables import TABLES


@dataclass
class BuildReport:
    db_path: Path
    documents: int = 0
    failed: list[str] = field(default_factory=list)
    # Of ``failed``, the CR files cut off in their glossary whose rules were kept, marked incomplete.
    kept_incomplete: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    # The quality issues the inputs raised, by kind: what an operator reads after an import.
    issue_kinds: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    # Every input was already in the database as it is: the file was left untouched.
    unchanged: bool = False
    # The derive steps that ran (kb.store.derive.link_all): an import adding no CR version
    # leaves out the CR history and translation links.
    derived: list[str] = field(default_factory=list)
    # Rulings whose citations were copied from the file the build replaced (kb.store.carry_links).
    links_carried: int = 0
    # CR documents whose tables were copied from the file the build replaced (kb.store.carry_cr).
    cr_documents_carried: int = 0
    # The migrations an import ran on a database an older version made: what they add that only
    # reading the documents again gives (a card's faces) waits for a whole build.
    migrated: list[str] = field(default_factory=list)


# SQLite's sorter helper threads for builds: one where there is a second core (see open_for_build).
SORT_THREADS = 1 if (os.cpu_count() or 1) > 1 else 0

# A build lets py3langid's model go once every document is read: the derive after it is where
# the build's memory peaks. A process that builds again and again may keep it (the test suite,
# tests/conftest.py: loading it took 0.4 s of CPU, 15 times in a run of the suite's in-process
# tests).
RELEASE_LANGUAGE_MODEL = True


def open_for_build(path: Path) -> sqlite_utils.Database:
    conn = sqlite3.connect(str(path), isolation_level=None)
    # The file is private until it is renamed into place, so durability can wait for the end.
    conn.execute("pragma journal_mode = off")
    conn.execute("pragma synchronous = off")
    # Stable ids are hashes, so bulk inserts land all over each B-tree: a larger page cache
    # (16 MiB: VACUUM and sorts take as much again, and a streamed import stays well under
    # 200 MB) saves most of the page reads.
    conn.execute("pragma cache_size = -16384")
    # One helper thread for SQLite's sorter: index builds and the key-order copies of a bulk
    # load sort millions of rows: a fifth to a third faster with it in a 1M-ruling import (a
    # second helper adds little; each keeps a sort buffer, ~16 MB here).
    conn.execute(f"pragma threads = {SORT_THREADS}")
    conn.execute("pragma foreign_keys = off")
    return sqlite_utils.Database(conn)


def validate(db: sqlite_utils.Database, changes: ImportChanges | None = None) -> list[str]:
    """What keeps the new file from being published: a missing table, a damaged page, a broken
    reference. ``changes``: an import's record of what it wrote, so references are checked
    where it wrote (and where it removed keys), not across the whole copied database."""
    problems = []
    existing = set(db.table_names())
    for table in TABLES:
        if table not in existing:
            problems.append(f"table {table} is missing")
    # quick_check: the same page-level checks without re-reading every index entry, which
    # on a freshly written file costs seconds and finds nothing integrity_check would not.
    integrity = db.execute("pragma quick_check").fetchone()[0]
    if integrity != "ok":
        problems.append(f"integrity check: {integrity}")
    violations = changes.foreign_key_violations() if changes is not None else None
    if violations is None:
        violations = db.execute("pragma foreign_key_check").fetchall()
    if violations:
        # A table without rowids (ruling_sightings) has none to name.
        sample = ", ".join(f"{v[0]}{'' if v[1] is None else f' rowid {v[1]}'} -> {v[2]}" for v in violations[:5])
        problems.append(f"{len(violations)} foreign key violations ({sample})")
    return problems


def build_database(
    inputs: list[DocumentInput],
    db_path: Path,
    base: Path | None = None,
    keep_going: bool = False,
    progress: Callable[[str], None] | None = None,
    before_swap: Callable[[sqlite_utils.Database], None] | None = None,
    carry_from: Path | None = None,
    writer: str = "build",
) -> BuildReport:
    """Write a complete database for ``inputs`` (on top of a copy of ``base``) and swap it in.

    ``carry_from``: the file a whole build replaces, built by the same code (a refresh passes
    it when the fingerprint it recorded is this code's): its CR tables are copied when it holds
    exactly these CR documents (``kb.store.carry_cr``), and its citations of unchanged rulings
    when its CR history is this build's (``kb.store.carry_links``). ``writer``: what holds the
    database's writer lock meanwhile ("build", "import"), as a second writer is told."""
    started = time.monotonic()
    db_path = Path(db_path)
    report = BuildReport(db_path=db_path)
    if (blocked := file_in_the_way(db_path)) is not None:
        raise BuildError(f"{shown(db_path)}: {shown(blocked)} is not a folder")
    if another_programs_database(db_path):
        raise BuildError(f"{shown(db_path)}: {NOT_A_KNOWLEDGE_BASE}; it is left as it is: name another --db, or move it aside")
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        for leftover in db_path.parent.glob(f".{glob.escape(db_path.name)}.building-*"):
            remove_if_stale(leftover)
    except OSError as error:
        raise BuildError(f"{shown(db_path)}: cannot write beside the database: {os_reason(error)}") from None
    with writer_lock(db_path, writer):
        return _build_alone(inputs, db_path, base, keep_going, progress, before_swap, carry_from, report, started)


def _build_alone(
    inputs: list[DocumentInput], db_path: Path, base: Path | None, keep_going: bool,
    progress: Callable[[str], None] | None, before_swap: Callable[[sqlite_utils.Database], None] | None,
    carry_from: Path | None, report: BuildReport, started: float,
) -> BuildReport:
    if base is not None and _nothing_new(inputs, base):
        # Every input is already in the database as it is: the file is left untouched.
        report.counts = _counts_of(base)
        report.unchanged = True
        report.seconds = time.monotonic() - started
        return report
    temp_path = db_path.with_name(f".{db_path.name}.building-{os.getpid()}")
    try:
        with fewer_collections():
            return _build(inputs, db_path, temp_path, base, keep_going, progress, before_swap, report, started,
                          carry_from)
    except (OSError, sqlite3.Error) as error:
        reason = os_reason(error)
        # The file it builds on, not the new one, may be what failed: a served file cut short,
        # emptied or overwritten was blamed on writing the new database (an operator's review).
        # Not on a full disk, which the check itself may meet.
        for read in dict.fromkeys(path for path in (base, carry_from, db_path) if path is not None):
            if "disk full" not in reason and (damage := damage_of(read)) is not None:
                what = damage if damage == NOT_A_KNOWLEDGE_BASE else f"damaged ({damage})"
                raise BuildError(
                    f"{shown(read)}: the database this builds on is {what}; it is left as it is."
                    " Restore it from a backup; or move it aside and run again, and the new file holds only"
                    " what the run reads (a refresh, with --allow-shrink: its raw store, without the history of"
                    " rulings removed upstream that only the database held)"
                ) from None
        raise BuildError(f"{shown(db_path)}: could not write the new database: {reason}") from None
    except MemoryError:
        raise BuildError(f"{shown(db_path)}: out of memory while building; the database is unchanged") from None


def _nothing_new(inputs: list[DocumentInput], base: Path) -> bool:
    """True when every input was already read, as the same bytes from the same place, into ``base``."""
    if not inputs or not base.exists():
        return False
    try:
        conn = sqlite3.connect(read_only_uri(base), uri=True)
        try:
            for doc in inputs:
                row = conn.execute(
                    "select sha256, status, source_id, format from documents where id = ?", [document_id_for(doc)]
                ).fetchone()
                if row is None or row[0] != doc.sha256 or row[1] != "parsed" or row[2] != doc.source_id:
                    return False
                if doc.format and row[3] != doc.format:
                    return False
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return True


def issue_kinds_of(db: sqlite_utils.Database, document_ids: list[int]) -> dict[str, int]:
    """How many quality issues of each kind the documents ``document_ids`` hold."""
    return dict(db.execute(
        "select kind, count(*) from quality_issues where document_id in (select value from json_each(?))"
        " group by kind order by kind",
        [json.dumps(document_ids)],
    ).fetchall())


def _counts_of(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        return table_counts(sqlite_utils.Database(conn))
    finally:
        conn.close()


def _build(
    inputs: list[DocumentInput],
    db_path: Path,
    temp_path: Path,
    base: Path | None,
    keep_going: bool,
    progress: Callable[[str], None] | None,
    before_swap: Callable[[sqlite_utils.Database], None] | None,
    report: BuildReport,
    started: float,
    carry_from: Path | None = None,
) -> BuildReport:
    temp_path.unlink(missing_ok=True)
    db: sqlite_utils.Database | None = None
    try:
        # A whole build: into an empty file (``mtgkb import`` into a file not there yet included).
        whole = base is None or not base.exists()
        if base is not None and not whole:
            copy_database(base, temp_path)
        db = open_for_build(temp_path)
        # Adding to a built database whose schema is up to date: its derived tables and search
        # indexes are current (it was built whole). What the inputs change is noted as it
        # happens, so that only that is derived and indexed again.
        pending = [migration.name for migration in migrations.pending(db)] if base is not None and not whole else []
        report.migrated = pending
        adding = base is not None and not pending
        ensure_db_shape(db, search=False)
        changes = ImportChanges(db) if adding else None
        carried_cr = _carry_cr(db, inputs, carry_from, progress) if whole and carry_from is not None else {}
        with db.atomic():
            save_sources(db)
            deferred: list = []
            # Into an empty database (a whole build) the rules' other indexes are made once at the end.
            read_order: list[int] = []  # the CR documents, as read (kb.store.carry_cr)
            with cr_indexes_made_after(db):
                for number, doc in enumerate(inputs, 1):
                    document_id = document_id_for(doc)
                    carried = carried_cr.get(document_id)
                    if carried is not None:
                        fmt, lang = carried
                        save_document(db, doc, fmt, "parsed", lang=lang)
                        read_order.append(document_id)
                        report.documents += 1
                        continue
                    if progress:
                        progress(f"[{number}/{len(inputs)}] reading {doc.path}")
                    try:
                        if is_cr_format(format_named(load_document(db, doc, deferred))):
                            read_order.append(document_id)
                        report.documents += 1
                    except ParseError as error:
                        if not keep_going:
                            raise BuildError(str(error), document=doc) from error
                        report.failed.append(str(error))
                        document_id = save_document(db, doc, doc.format, "failed", error=str(error))
                        save_quality_issue(db, QualityIssue("unreadable-document", str(error)), document_id)
                        partial = getattr(error, "partial", None)
                        if isinstance(partial, CRDocument):
                            # A CR cut off in its glossary: its whole rules part is kept, flagged as
                            # a truncated edition (cr_versions.extra, quality issue), never as complete.
                            save_cr(db, partial, document_id, doc.source_id)
                            save_quality_issue(db, QualityIssue("truncated-document", str(error)), document_id)
                            report.kept_incomplete.append(str(error))
                if progress and deferred:
                    progress(f"saving {len(deferred)} undated CR documents, after the dated versions they join")
                for parsed, document_id, source_id in deferred:
                    save_cr(db, parsed, document_id, source_id)
            if whole:
                save_cr_read_order(db, read_order)
            if RELEASE_LANGUAGE_MODEL:
                release_language_model()  # every document is read: nothing below detects a language
            if changes is not None and changes.changed("cr"):
                # A CR version added or changed: every derived table is made again.
                changes.stop()
                changes = None
            report.derived = link_all(db, progress, changes, carry_from if changes is None else None,
                                      cr_carried=bool(carried_cr))
            report.links_carried = links_carried(db)
            report.cr_documents_carried = len(carried_cr)
            if changes is None or changes.changed("keyword dictionary"):
                if progress:
                    progress("mining the keyword dictionary from printed texts")
                derive_keyword_dictionary(db)
                report.derived.append("keyword dictionary")
        detach_served(db)
        if changes is not None:
            changes.stop()
            ensure_db_shape(db, kept=frozenset(changes.mirrored), cjk=changes.changed("cjk search"))
        else:
            ensure_db_shape(db)
        if progress:
            progress("validating the new database")
        problems = validate(db, changes)
        if problems:
            raise BuildError(f"{db_path}: the new database failed validation: {'; '.join(problems)}")
        if before_swap:
            before_swap(db)
        report.counts = table_counts(db)
        report.issue_kinds = issue_kinds_of(db, [document_id_for(doc) for doc in inputs])
        # Statistics for the query planner: without them it reads a lineage's rules through the
        # (version_id, position) index (80 ms a card page instead of 1 ms). Sampled: seconds at 1M rows.
        db.execute("pragma analysis_limit = 1000")
        db.execute("analyze")
        if progress:
            progress("compacting")
        db.execute("pragma journal_mode = delete")
        pages, free = (db.execute(f"pragma {p}").fetchone()[0] for p in ("page_count", "freelist_count"))
        if free > pages // 10:
            # Only a file that lost much (derived rows replaced on import) is worth rewriting:
            # VACUUM copies the whole file, and a freshly built one has nothing to give back.
            db.conn.execute("vacuum")
        db.close()
        fsync(temp_path)
        os.replace(temp_path, db_path)
        fsync_dir(db_path.parent)
    finally:
        # Closed on a failure too: an unlinked file held open keeps its blocks, and a disk the build
        # filled stayed full while the run was recorded ("killed or crashed": an operator's review).
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()
        temp_path.unlink(missing_ok=True)
        # A journal SQLite left beside the temporary file (rollback after a failure).
        temp_path.with_name(temp_path.name + "-journal").unlink(missing_ok=True)
    report.seconds = time.monotonic() - started
    return report


def _carry_cr(
    db: sqlite_utils.Database, inputs: list[DocumentInput], served: Path, progress: Callable[[str], None] | None
) -> dict[int, tuple[str, str]]:
    """The CR documents of ``inputs`` whose tables were copied from ``served``
    (``kb.store.carry_cr``): document id -> (format, language); empty when none were."""
    documents: dict[int, tuple[DocumentInput, str]] = {}
    for doc in inputs:
        try:
            fmt = detect_format_of(doc)
        except ParseError:
            continue  # read (and refused or kept going past) as every input is
        if is_cr_format(fmt):
            documents[document_id_for(doc)] = (doc, fmt.name)
    wanted = [CRInput(document_id, fmt, doc.source_id) for document_id, (doc, fmt) in documents.items()]
    languages = carry_cr_tables(db, wanted, {fmt.name for fmt in all_formats() if is_cr_format(fmt)}, served)
    if languages is None:
        return {}
    if progress:
        progress(f"{len(languages)} CR documents as in {shown(served)}: their tables carried over")
    return {document_id: (documents[document_id][1], lang) for document_id, lang in languages.items()}


def content_digest(db: sqlite_utils.Database) -> str:
    """A checksum of every row of every table of the schema, independent of file layout.

    Two builds from the same inputs give the same digest; the migrations log (which records
    when it ran) and the search indexes (derived) are left out.
    """
    digest = hashlib.sha256()
    for table in sorted(TABLES):
        digest.update(f"\x1e{table}\x1e".encode())
        # rulings.rowid is the search index's key, numbered by each build: left out with it.
        columns = [column.name for column in db[table].columns if (table, column.name) != ("rulings", "rowid")]
        order = ", ".join(f'"{c}"' for c in columns)
        for row in db.execute(f'select {order} from "{table}" order by {order}'):
            digest.update(json.dumps(row, ensure_ascii=False, default=str).encode("utf-8"))
    return digest.hexdigest()
