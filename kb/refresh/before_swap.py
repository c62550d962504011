"""A refresh's last step on its new file, before it is renamed over the served one.

What only a refresh knows goes into the file (rulings' ``first_seen`` and the rulings that
vanished upstream carried from the served file, the changes against it, every run of the raw
store as ``refresh_runs``), then it is checked: no table shrinking by more than 10 % unless
allowed, foreign keys where rulings were carried, smoke queries through Datasette. A failed check
raises ``RefreshError`` and the served file stays as it was.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from kb.refresh.carry import carry_rulings, table_changes
from kb.refresh.checks import (
    LOSS_KINDS,
    dropped_copies,
    new_cr_versions,
    rows_of_dropped_copies,
    shrink_problems,
    smoke_check,
)
from kb.refresh.inputs import KB_SOURCE_OF
from kb.refresh.runs import RefreshResult, one_line, run_row
from kb.store.carry_cr import cr_documents_carried
from kb.store.carry_links import links_carried
from kb.store.files import read_only_uri
from kb.store.tables import TABLES
from scraper.rawstore import RawStore

# Test hook for the crash test: "SECONDS[:MARKER]" sleeps before the swap, after touching MARKER.
PAUSE_ENV = "MTGKB_REFRESH_PAUSE_BEFORE_SWAP"

# What the served database was built from: the inputs' fingerprints (by bytes, and by what a
# build keeps of them: ``kb.refresh.fingerprints.kept_fingerprint``) and the file's identity.
PUBLISHED_STATE = "refresh:published"


class RefreshError(Exception):
    """The new database must not be published; the message says why, in one line."""


@dataclass
class BeforeSwap:
    """What ``before_swap`` learns and decides about the new file (``build_database`` calls it
    with the new file complete, before the rename)."""

    db_path: Path
    store: RawStore
    allow_shrink: bool
    current_run: Callable[[dict[str, Any]], dict[str, Any]]
    result: RefreshResult | None = None
    changes: dict[str, Any] = field(default_factory=dict)

    def before_swap(self, db: sqlite_utils.Database) -> None:
        served = self.db_path.exists()
        temp_file = Path(db.execute("pragma database_list").fetchone()[2])
        rulings = None
        if served:
            db.execute("attach database ? as old", [read_only_uri(self.db_path)])
        try:
            # Before the served file's removed rulings are carried (their documents with them).
            # Only where no refresh has published: then the file is one `mtgkb build` made.
            seeded = self.result is not None and "snapshot_documents_added" in self.result.changes
            not_rebuilt = _documents_not_rebuilt(db, seeded) if served and not self.store.get_state(PUBLISHED_STATE) else ""
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
                issues = issue_kind_changes(db, served)
                if issues:
                    self.changes["quality_issues"] = issues
                carried = links_carried(db)
                if carried:
                    self.changes["ruling_links_carried"] = carried
                carried_cr = cr_documents_carried(db)
                if carried_cr:
                    self.changes["cr_documents_carried"] = carried_cr
                self._layout_changes(db)
                self._losses(db, served)
                copies = dropped_copies(db) if served else []
                if copies:
                    self.changes["conflicting_copies_dropped"] = copies
                problems = shrink_problems(tables, rows_of_dropped_copies(db, copies, list(tables))) if served else []
                if problems and not self.allow_shrink:
                    # A few tables named, the others counted: a file `mtgkb build` made shrinks in
                    # twenty tables (a line of 2,000 characters; a second operator's review).
                    listed = problems if len(problems) <= 3 else [*problems[:3], f"{len(problems) - 3} more tables likewise"]
                    raise RefreshError(
                        f"not published: {'; '.join(listed)}{self._dropped_imports()}"
                        f"{not_rebuilt or _new_documents(db) + ' (use --allow-shrink if this is expected)'}"
                    )
                if not_rebuilt and not self.allow_shrink:
                    # Too few to shrink a table by a tenth: a CR edition and three cards imported by
                    # hand into the file `make run` built were dropped by the first refresh, which
                    # said nothing (a newcomer's review). Imports are carried only into a file a
                    # refresh published (kb.refresh.imported).
                    raise RefreshError(f"not published{not_rebuilt}{_first_not_rebuilt(db)}")
                self._write_runs(db, served)
        finally:
            if served:
                db.execute("detach database old")
        # The build checked every reference (kb.build.publish.validate); only rulings carried over
        # from the served file (with their cards, documents and sightings) can break one: 6.5 s
        # of a 1M-ruling refresh for a check that, with nothing carried, finds what the build found.
        carried = rulings is not None and rulings.removed + rulings.still_removed > 0
        violations = db.execute("pragma foreign_key_check").fetchall() if carried else []
        if violations:
            raise RefreshError(f"not published: {len(violations)} foreign key violations after carrying rulings")
        failures = smoke_check(temp_file, self.db_path.stem)
        if failures:
            raise RefreshError(f"not published: smoke queries failed: {'; '.join(failures)}")
        _pause_for_crash_test()

    def _dropped_imports(self) -> str:
        """What the operator's ``--drop-imported`` takes out of the served file, as part of why it
        shrinks (the guard cannot tell their rows from the others)."""
        dropped = self.result.changes.get("imported_by_hand_dropped") if self.result else None
        if not dropped:
            return ""
        many = len(dropped) > 1
        return (f"; {len(dropped)} document{'s' if many else ''} imported by hand {'are' if many else 'is'} dropped"
                f" (--drop-imported: {dropped[0]}{', …' if many else ''}), {'their' if many else 'its'} rows with"
                f" {'them' if many else 'it'}")

    def _layout_changes(self, db: sqlite_utils.Database) -> None:
        """A page whose parser recognised it but found none of what it always has (a site
        redesign) makes its source a failed source of this run, not a quiet "0 rulings"."""
        rows = db.execute(
            "select documents.source_id, documents.url, quality_issues.detail from quality_issues"
            " join documents on documents.id = quality_issues.document_id"
            " where quality_issues.kind = 'layout-changed' order by documents.source_id, documents.url"
        ).fetchall()
        if not rows or self.result is None:
            return
        for source_id, url, detail in rows:
            if source_id not in self.result.failed_sources:
                self.result.failed_sources.append(source_id)
            self.changes.setdefault("layout_changed", []).append({"url": url, "detail": one_line(detail)})
        self.result.changes["layout_changed"] = self.changes["layout_changed"]

    def _losses(self, db: sqlite_utils.Database, served: bool) -> None:
        """A document this run brings that lost what its source should hold (rules its neighbours
        print, an edition cut short) is published with its quality issue, and its source is a
        failed source of the run: an edition missing 214 rules was published with exit 0, its
        diff announcing them removed (an operator's review). Said once, by the run that brings it."""
        if self.result is None:
            return
        kinds = ", ".join(f"'{kind}'" for kind in sorted(LOSS_KINDS))
        new = (" and not exists (select 1 from old.quality_issues as held where held.kind = quality_issues.kind"
               " and held.detail = quality_issues.detail)") if served else ""
        rows = db.execute(
            "select documents.source_id, documents.url, documents.path, quality_issues.kind, quality_issues.detail"
            " from quality_issues join documents on documents.id = quality_issues.document_id"
            f" where quality_issues.kind in ({kinds}){new} order by documents.source_id, documents.url, quality_issues.rowid"
        ).fetchall()
        scraper_source = {kb: scraper for scraper, kb in KB_SOURCE_OF.items()}
        for source_id, url, path, kind, detail in rows:
            # The source as the command names it (--sources wizards-cr), not as the file does.
            self.result.failed(scraper_source.get(source_id, source_id), one_line(f"{url or path}: {detail}"))
            self.changes.setdefault("lost_in_source", []).append({"url": url or path, "kind": kind, "detail": one_line(detail)})
        if rows:
            self.result.changes["lost_in_source"] = self.changes["lost_in_source"]

    def _write_runs(self, db: sqlite_utils.Database, served: bool) -> None:
        rows = [run_row(run) for run in self.store.runs()]
        if served:
            # A run the raw store could not record after its swap (a full disk) is "interrupted"
            # there; the file it published holds what it did, written before the swap.
            # The same run: its id and its start (a file published from another raw store may
            # hold other runs under the same ids).
            published = {(row["id"], row["started_at"]): row for row in db.query(
                "select * from old.refresh_runs where status in ('published', 'partial')")}
            rows = [published.get((row["id"], row["started_at"]), row) if row["status"] == "interrupted" else row
                    for row in rows]
        current = self.current_run(self.changes)
        rows = [row for row in rows if row["id"] != current["id"]] + [current]
        db.execute("delete from refresh_runs")
        db.table("refresh_runs").insert_all(rows, pk="id")


def issue_kind_changes(db: sqlite_utils.Database, served: bool) -> dict[str, dict[str, int]]:
    """The kinds of quality issues whose count this run changes (the served file's as ``old``):
    what an operator reads to see that a source began to send damaged data."""
    def by_kind(schema: str) -> dict[str, int]:
        return dict(db.execute(f"select kind, count(*) from {schema}.quality_issues group by kind").fetchall())

    after = by_kind("main")
    before = by_kind("old") if served else {}
    return {
        kind: {"before": before.get(kind, 0), "after": after.get(kind, 0)}
        for kind in sorted(set(before) | set(after))
        if before.get(kind, 0) != after.get(kind, 0)
    }


def _pause_for_crash_test() -> None:
    value = os.environ.get(PAUSE_ENV)
    if not value:
        return
    seconds, _, marker = value.partition(":")
    if marker:
        Path(marker).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(float(seconds))


# A served document the new file holds neither as it is nor by its bytes: a CR edition the
# archive also serves is one document under the URL fetched first (kb.refresh.inputs), and the
# snapshot's copy of it (another URL: another id) counted as dropped, which refused the first
# refresh that docs/refresh.md has an operator run (a code review). Nor is the body of a CR edition
# the new file holds from another body (an edition published again, corrected).
NOT_REBUILT = ("id not in (select id from main.documents) and (sha256 is null"
               " or sha256 not in (select sha256 from main.documents where sha256 is not null))"
               " and id not in (select document_id from old.cr_versions where document_id is not null"
               " and id in (select id from main.cr_versions))")


def _documents_not_rebuilt(db: sqlite_utils.Database, seeded: bool = False) -> str:
    """Why the file shrinks, when the served file holds documents this build does not: a file
    `mtgkb build` made from a snapshot (`make run`) holds the snapshot's release notes, page
    captures and CR editions, which no raw store has until ``--snapshot`` adds them. The guard
    advised --allow-shrink alone, which dropped 33 of 34 CR versions and published 247 rulings as
    removed upstream (an operator's review). ``seeded``: this refresh was given --snapshot, so the
    advice is not to give it again but another folder."""
    rows = db.execute(
        f"select source_id, count(*) from old.documents where {NOT_REBUILT} group by source_id order by count(*) desc, source_id"
    ).fetchall()
    if not rows:
        return ""
    total = sum(count for _, count in rows)
    by_source = ", ".join(f"{source} {count}" for source, count in rows)
    held = f"; the served file holds {total} document{'s' if total != 1 else ''} this build does not ({by_source})"
    if seeded:
        return (f"{held}, though --snapshot added its folder's files to the raw store: the file was built from"
                " another folder, or holds files imported by hand; refresh with --snapshot naming the folder it was"
                " built from, or --allow-shrink publishes without them, their rulings as removed upstream")
    return (f"{held}:"
            " a file `mtgkb build` made from a snapshot is refreshed with --snapshot DIR (the folder it was"
            " built from; data/snapshot by default), which adds the snapshot's files to the raw store;"
            " --allow-shrink publishes without them, their rulings as removed upstream")


def _first_not_rebuilt(db: sqlite_utils.Database) -> str:
    """The first documents of the served file this build does not hold, by path: those imported
    by hand are kept by importing them again after the first refresh."""
    found = [row[0] for row in db.execute(
        f"select coalesce(path, url) from old.documents where {NOT_REBUILT} order by rowid limit 4")]
    more = ", …" if len(found) > 3 else ""
    return (f" (first: {', '.join(str(path) for path in found[:3])}{more}; a document imported by hand into a file no"
            " refresh published is carried by no refresh: publish with --allow-shrink, then `mtgkb import` it again)")


def _new_documents(db: sqlite_utils.Database) -> str:
    """The documents this build reads that the served file did not: where a shrink comes from
    (the refusal named tables only; a second operator's review)."""
    found = [row[0] or "(no URL)" for row in db.execute(
        "select url from main.documents where id not in (select id from old.documents) order by url limit 4")]
    if not found:
        return ""
    more = ", …" if len(found) > 3 else ""
    return f"; documents new since the served file: {', '.join(found[:3])}{more}"
