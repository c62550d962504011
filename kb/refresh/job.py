"""``mtgkb refresh``: fetch every source incrementally, rebuild, validate, and only then publish.

One refresh is: take ``<raw>/refresh.lock`` (a second refresh exits at once), fetch every source
conditionally into the raw store (``scraper.fetch.run_fetch``), choose the raw store's latest
good documents as the build's inputs, and, unless those inputs are exactly the ones the served
database was built from by this code, build a new file with ``kb.build.publish.build_database``
(keeping the served file's CR tables when it holds this build's CR documents,
``kb.store.carry_cr``, and its rule citations of unchanged rulings when its CR history is this
build's, ``kb.store.carry_links``; both only from a file this code built). Before the new file is
renamed over the served one, ``kb.refresh.before_swap`` writes into it what only a refresh knows
and checks it. Any failure leaves the served file byte-identical. The run, failed ones included,
is recorded in the raw store's ``runs``.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from kb.build.inputs import BuildError, read_once
from kb.build.kept_content import RECORDS_OF
from kb.build.publish import build_database
from kb.build.writer_lock import writer_lock
from kb.checksums import file_sha256
from kb.refresh.before_swap import PUBLISHED_STATE, BeforeSwap, RefreshError
from kb.refresh.fingerprints import build_code_fingerprint, file_identity, inputs_fingerprint, kept_fingerprint
from kb.refresh.imported import carried_imports, kept_imports
from kb.refresh.inputs import (
    HISTORY_FORMATS,
    SNAPSHOT_FORMATS,
    ask_whole_while_unreadable,
    document_input,
    prune_superseded,
    remember_unreadable,
    seed_from_snapshot,
    select_inputs,
    snapshot_kind,
    still_unreadable,
)
from kb.refresh.lock import refresh_lock
from kb.refresh.runs import RefreshResult, one_line, record_run
from kb.store.carry_links import linking_code_fingerprint
from kb.store.save import DocumentInput
from scraper.fetch import DEFAULT_SOURCES, run_fetch
from scraper.fetchers import FetchReport
from scraper.rawstore import RawStore, RawStoreError, utc_now

log = logging.getLogger("kb.refresh.job")


EXIT_OK = 0


EXIT_NOTHING_PUBLISHED = 1


EXIT_SOME_SOURCES_FAILED = 2



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
    keep_superseded: bool = False,
    drop_imported: bool = False,
) -> RefreshResult:
    """One refresh run (see the module docstring). Raises RefreshLocked if one is running.

    ``keep_superseded``: keep the bodies of bulk snapshots a newer file replaced (by default a
    refresh that publishes or finds nothing to change removes them: ``prune_superseded``).
    ``drop_imported``: publish without the documents imported by hand into the served file whose
    files are gone (``kb.refresh.imported``; by default such a refresh publishes nothing)."""
    raw_dir, db_path = Path(raw_dir), Path(db_path)
    # The database's writer lock too, from before the served file is first read to the swap: an
    # import by hand meanwhile was lost to this refresh's rename (an operator's review).
    with refresh_lock(raw_dir), writer_lock(db_path, "refresh"), RawStore(raw_dir) as store:
        return _refresh_locked(
            store, db_path, list(sources or DEFAULT_SOURCES), base_urls or {},
            dict(fetch_options or {}), allow_shrink, snapshot, verbose, progress, keep_superseded, drop_imported,
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
    keep_superseded: bool = False,
    drop_imported: bool = False,
) -> RefreshResult:
    started = time.monotonic()
    result = RefreshResult(EXIT_NOTHING_PUBLISHED, "failed", "", False, None, utc_now())

    def run_started(run_id: int) -> None:
        # This run's id as the fetch starts it: a `mtgkb fetch` on the same store meanwhile
        # starts runs of its own (taking the highest id swapped the two runs' records).
        result.run_id = run_id

    try:
        reports = run_fetch(sources, store, base_urls, {**fetch_options, "on_run_started": run_started},
                            verbose=verbose, progress=progress)
        result.sources = {name: report.as_dict() for name, report in reports.items()}
        for name, report in reports.items():
            if report.failed:
                url, reason = report.failures[0] if report.failures else ("", "")
                result.failed(name, one_line(f"{url}: {reason}" if url else reason))
        if snapshot is not None:
            result.changes["snapshot_documents_added"] = seed_from_snapshot(store, snapshot)
        # Provisional: what the store says if this process dies before it can say more.
        record_run(store, result.run_id, RefreshResult(
            EXIT_NOTHING_PUBLISHED, "interrupted", "refresh did not finish (killed or crashed)",
            False, result.run_id, result.started_at, sources=result.sources,
        ))
        if result.failed_sources and _nothing_fetched(reports) and not snapshot:
            result.message = f"nothing could be published: every source failed: {', '.join(result.failed_sources)}"
        else:
            inputs = _build_or_skip(store, db_path, allow_shrink, result, drop_imported)
            # Only after a clean run: a partial one may have left out a body it could not read.
            if not keep_superseded and result.exit_code == EXIT_OK and not result.failed_sources:
                removed = prune_superseded(store, inputs)
                if removed:
                    result.changes["removed_superseded_bodies"] = len(removed)
    except RawStoreError as error:
        # The store's own disk or folder: every source would fail alike. A file already swapped in
        # stays, and is said to be (exit 2, as for a publish some sources failed; exit 1 promises
        # the served file untouched); the next run, finding no record of it, builds again.
        if result.published:
            result.exit_code, result.status = EXIT_SOME_SOURCES_FAILED, "partial"
            # Recorded already (the removal of superseded bodies failed after it): no rebuild next.
            recorded = (store.get_state(PUBLISHED_STATE) or {}).get("file") == file_identity(db_path)
            result.message = one_line(f"published, but {error}" + ("" if recorded else ": the next run builds again"))
        else:
            result.exit_code, result.status = EXIT_NOTHING_PUBLISHED, "failed"
            result.message = one_line(str(error))
    except (BuildError, RefreshError) as error:
        # before_swap may have filled in a published outcome: the swap did not happen.
        result.exit_code, result.status, result.published = EXIT_NOTHING_PUBLISHED, "failed", False
        result.message = one_line(str(error))
    except Exception as error:  # recorded, then surfaced: a bug must not pass for a clean run
        result.exit_code, result.status = EXIT_NOTHING_PUBLISHED, "failed"
        result.message = one_line(f"refresh crashed: {type(error).__name__}: {error}")
        _finish(store, result, started)
        raise
    except BaseException as stop:
        # Ctrl-C or SIGTERM (the command raises it where the process is, with the exit code it
        # ends with) after the fetch: recorded as what it was, not as "killed or crashed" with no
        # exit code (an operator's review).
        # While the new file was checked or renamed in (the run says "published" once its checks
        # pass), either file is whole: the rename is atomic, and the next run builds again
        # unless the new one is what it finds (a second review).
        checked = result.published
        result.exit_code = getattr(stop, "exit_code", EXIT_NOTHING_PUBLISHED)
        result.status, result.published = "interrupted", False
        result.message = ("refresh interrupted (Ctrl-C or SIGTERM) as it published: the served file is the old one"
                          " or the new one, whole" if checked else
                          "refresh interrupted (Ctrl-C or SIGTERM) before it published: the served file is as it was")
        _finish(store, result, started)
        raise
    _finish(store, result, started)
    return result


def _build_or_skip(
    store: RawStore, db_path: Path, allow_shrink: bool, result: RefreshResult, drop_imported: bool = False
) -> list[DocumentInput]:
    """Build and publish, or find nothing to change; returns the inputs it chose (raises if it
    could not publish)."""
    inputs, left_out = select_inputs(store)
    published = store.get_state(PUBLISHED_STATE) or {}
    if published.get("file") and not db_path.exists() and not allow_shrink:
        # Built again from the raw store alone, it held only today's rulings: the rulings removed
        # upstream and when each was first seen, which only the file held, were gone, exit 0 (an
        # operator's review).
        raise RefreshError(
            f"not published: {db_path}, which a refresh published, is missing. Restore it from a backup: it alone holds"
            " the rulings removed upstream and when each ruling was first seen. Or run with --allow-shrink to build a"
            " new file from the raw store alone, without that history"
        )
    # What the operator imported into the served file by hand, read again from its files.
    imported, dropped = carried_imports(db_path, store, published, drop_imported)
    inputs += imported
    if imported:
        result.changes["imported_by_hand"] = len(imported)
    if dropped:
        result.changes["imported_by_hand_dropped"] = dropped
    # One body's bytes fetched from two addresses (a mirror, a page moved) and read as one format:
    # one document, not every row twice (a code review; ``mtgkb import`` and ``build`` do so too).
    inputs, repeated = read_once(inputs)
    if repeated:
        result.changes["read_once"] = [{"url": doc.url or doc.path, "same_bytes_as": first.url or first.path}
                                       for doc, first in repeated]
    # A site still serving a body this code could not read (the one before it stands in): its
    # source has failed, in every run until the site serves another.
    for known in still_unreadable(store):
        result.failed(known["source"], f"{known['url']}: still the body it serves, which cannot be read: {known['error']}")
        ask_whole_while_unreadable(store, known["url"])
        result.changes.setdefault("unreadable", []).append(
            {"url": known["url"], "error": known["error"], "replaced_by_earlier": True, "still_served": True}
        )
    fingerprint = inputs_fingerprint(inputs)
    failed_note = _failed_note(store, result)
    code = EXIT_SOME_SOURCES_FAILED if result.failed_sources else EXIT_OK
    served = published.get("file") == file_identity(db_path) and db_path.exists()
    # A file published by other code (an upgrade; a file from before the code was recorded) is
    # built again whatever its documents: a fixed parser or a new column must reach the site.
    build_code = build_code_fingerprint()
    same_code = published.get("build_code") == build_code
    other_code = served and not same_code
    # The bytes first (no body read); then what a build keeps of them: card bulk files come with
    # new prices twice a day, AllPrintings with a new build date every day.
    same_bytes = served and same_code and published.get("inputs") == fingerprint
    # Reading what the bulk bodies keep can only save a build when every other document is as
    # published; otherwise it waits until the new file is live (a new CR version, say, is not
    # held back by a minute of parsing card files).
    may_skip = (served and same_code and not same_bytes
                and _other_documents(published.get("inputs")) == _other_documents(fingerprint))
    selected = list(inputs)  # the build's fall-back may replace some; the fingerprints are of this choice
    kept = kept_fingerprint(store, selected) if may_skip else None
    if same_bytes or (may_skip and published.get("kept") == kept):
        refetched = 0 if same_bytes else _bodies_changed(published.get("inputs"), fingerprint)
        if refetched:
            result.changes["changed_bodies_same_content"] = refetched
        kept_note = (
            "; fetched again with no change to what the knowledge base keeps (prices, ranks, build dates):"
            f" {refetched} document{'' if refetched == 1 else 's'}" if refetched else ""
        )
        _left_as_published(result, code, inputs, kept_note + _same_bytes_note(store, inputs, left_out) + failed_note)
        if not same_bytes:
            store.set_state(PUBLISHED_STATE, {**published, "inputs": fingerprint})
        return inputs
    if not inputs:
        raise RefreshError("nothing to publish: the raw store holds no readable document")

    def current_run(changes: dict[str, Any]) -> dict[str, Any]:
        # The run as it will read once published: written into the new file itself.
        result.changes.update(changes)
        result.changes.update({"inputs": len(inputs), "left_out": len(left_out), "rebuilt": True})
        if other_code:
            result.changes["build_code_changed"] = True
        result.exit_code = EXIT_SOME_SOURCES_FAILED if result.failed_sources else EXIT_OK
        result.published = True
        result.status = "partial" if result.failed_sources else "published"
        note = _failed_note(store, result)
        if dropped:
            note += f"; dropped with --drop-imported: {len(dropped)} document{'' if len(dropped) == 1 else 's'} imported by hand"
        if other_code:
            note += "; rebuilt by this version of the code (the served file was built by another)"
        result.message = _summary(result) + note
        result.finished_at = utc_now()
        return {
            "id": result.run_id, "started_at": result.started_at, "finished_at": result.finished_at,
            "status": result.status, "exit_code": result.exit_code,
            "sources": json.dumps(result.sources, sort_keys=True),
            "changes": json.dumps(result.changes, sort_keys=True), "message": result.message,
        }

    publish = BeforeSwap(db_path, store, allow_shrink, current_run, result)
    # The served file's CR tables and citations of unchanged rulings are kept when the code that
    # made them is this code (kb.store.carry_cr checks the CR documents, kb.store.carry_links the
    # CR history and each ruling).
    linking_code = linking_code_fingerprint()
    carry_from = db_path if served and published.get("linking_code") == linking_code else None
    fell_back = False
    for _attempt in range(MAX_UNREADABLE_BODIES + 1):
        try:
            build_database(inputs, db_path, before_swap=publish.before_swap, carry_from=carry_from)
            break
        except BuildError as error:
            if error.document is None or not _fall_back(store, inputs, error, result):
                raise
            # The failed source now keeps its last good data: say so and build again.
            code = EXIT_SOME_SOURCES_FAILED
            failed_note = _failed_note(store, result)
            fell_back = True
            if served and same_code and inputs_fingerprint(inputs) == published.get("inputs"):
                # What it falls back on is what is published: the file is left as it is, as the
                # docs say of such a run (it was built and published again: an operator's review).
                _left_as_published(result, code, inputs, failed_note)
                return inputs
    else:
        raise RefreshError(f"more than {MAX_UNREADABLE_BODIES} stored documents could not be read")
    if fell_back:
        # What was built, as the next run chooses it (the unreadable body now known): recorded as
        # first chosen, the next run found it changed and built and published again (an
        # operator's review).
        selected, kept = list(inputs), None
        fingerprint = inputs_fingerprint(inputs)
    if kept is None:
        kept = kept_fingerprint(store, selected)
    store.set_state(PUBLISHED_STATE, {"inputs": fingerprint, "kept": kept, "file": file_identity(db_path),
                                      "sha256": file_sha256(db_path), "linking_code": linking_code,
                                      "build_code": build_code, "imported": kept_imports(imported)})
    return inputs


def _same_bytes_note(store: RawStore, inputs: list[DocumentInput], left_out: list[str]) -> str:
    """Where a site serves the bytes of an input under a new URL (an edition's file renamed):
    said, so that the operator knows why nothing was published."""
    held = {doc.sha256 for doc in inputs if doc.format in HISTORY_FORMATS}  # a bulk file's new name is its input
    again = [entry.url for entry in store.latest_documents() if entry.url in left_out and entry.sha256 in held]
    return f"; the same bytes as a published document under a new URL: {', '.join(again)}" if again else ""


def _left_as_published(result: RefreshResult, code: int, inputs: list[DocumentInput], note: str) -> None:
    """``result`` as a run that leaves the served file as it is ("nothing changed")."""
    result.exit_code, result.published = code, False
    result.status = "partial" if result.failed_sources else "unchanged"
    result.changes.update({"inputs": len(inputs), "rebuilt": False})
    result.message = f"nothing changed: {len(inputs)} documents as published{note}"


def _other_documents(fingerprint: list[list[str]] | None) -> list[list[str]]:
    """The entries of a fingerprint that are not bulk bodies: these count by their bytes alone."""
    return [entry for entry in fingerprint or [] if entry[1] not in RECORDS_OF]


def _bodies_changed(before: list[list[str]] | None, after: list[list[str]]) -> int:
    """How many of ``after``'s bodies the published fingerprint ``before`` does not hold."""
    held = {tuple(entry) for entry in before or []}
    return sum(1 for entry in after if tuple(entry) not in held)


# How many unreadable stored bodies one refresh replaces by earlier ones before giving up.
MAX_UNREADABLE_BODIES = 5


def _fall_back(store: RawStore, inputs: list[DocumentInput], error: BuildError, result: RefreshResult) -> bool:
    """Replace a stored body that cannot be read by the previous good body of its URL (a bulk
    file, which comes under a new dated URL each time: by the newest file of its kind before it),
    or leave it out when there is none; its source is then reported as failed."""
    bad = error.document
    if bad is None or bad not in inputs or not bad.url:
        return False
    index = inputs.index(bad)
    entries = [e for e in store.history(bad.url) if e.status != "failed" and e.sha256]
    raw_source = entries[-1].source if entries else bad.source_id
    used = {doc.sha256 for doc in inputs if doc.url == bad.url}
    earlier = [
        e for e in entries
        if e.sha256 and e.sha256 != bad.sha256 and e.sha256 not in used and store.path_for(e.sha256).exists()
    ]
    if bad.sha256:
        remember_unreadable(store, bad.sha256, bad.url, raw_source, one_line(str(error)))
    stand_in: DocumentInput | None = None
    if earlier:
        stand_in = document_input(store, earlier[-1], bad.format or "")
    elif bad.sha256 and bad.format in SNAPSHOT_FORMATS:
        # The inputs chosen again, this body now known unreadable: the newest file of its kind
        # before it, as every later run chooses (left out, the rulings of every card were
        # published as removed upstream, after a shrink guard that advised --allow-shrink).
        kind = snapshot_kind(bad.url, bad.format)
        stand_in = next((doc for doc in select_inputs(store)[0] if doc.format == bad.format and doc.url
                         and doc.source_id == bad.source_id and snapshot_kind(doc.url, doc.format) == kind), None)
    if stand_in is not None:
        inputs[index] = stand_in
    else:
        del inputs[index]
    result.failed(raw_source, one_line(f"{bad.url}: {error}"))
    result.changes.setdefault("unreadable", []).append(
        {"url": bad.url, "error": one_line(str(error)), "replaced_by_earlier": stand_in is not None}
    )
    return True


def _failed_note(store: RawStore, result: RefreshResult) -> str:
    """The failed sources, those with earlier data (kept) and those without (a first run)."""
    if not result.failed_sources:
        return ""
    keeping = [name for name in result.failed_sources if store.latest_documents(name)]
    lacking = [name for name in result.failed_sources if name not in keeping]
    return ((f"; failed sources keep their last good data: {', '.join(keeping)}" if keeping else "")
            + (f"; failed sources with no data yet: {', '.join(lacking)}" if lacking else ""))


def _summary(result: RefreshResult) -> str:
    rulings = result.changes.get("rulings", {})
    versions = result.changes.get("new_cr_versions", [])
    issues = result.changes.get("quality_issues", {})
    shown = "; quality issues " + ", ".join(
        f"{kind} {counts['before']}→{counts['after']}" for kind, counts in issues.items()
    ) if issues else ""
    dropped = result.changes.get("conflicting_copies_dropped")
    gone = f" conflicting copies gone (their edition's file published again whole): {', '.join(dropped)};" if dropped else ""
    return (
        f"published {result.changes.get('inputs', 0)} document{'' if result.changes.get('inputs', 0) == 1 else 's'};"
        f" new CR versions: {', '.join(versions) or 'none'};{gone}"
        f" rulings +{rulings.get('added', 0)} ~{rulings.get('changed', 0)} -{rulings.get('removed', 0)}"
        # Rulings a source published again after removing them (they were kept, marked removed).
        + (f" (back upstream: {rulings['reappeared']})" if rulings.get("reappeared") else "")
        + shown
    )


def _finish(store: RawStore, result: RefreshResult, started: float) -> None:
    result.finished_at = utc_now()
    result.seconds = time.monotonic() - started
    if not result.published and result.exit_code == EXIT_NOTHING_PUBLISHED and result.status != "interrupted":
        result.status = "failed"
    try:
        record_run(store, result.run_id, result)
    except RawStoreError as error:
        # A store that cannot be written cannot record the run: its message says so.
        if result.exit_code == EXIT_OK:
            # Exit 2 is a publish some part of which failed; a run that published nothing, 1.
            result.exit_code, result.status = (
                (EXIT_SOME_SOURCES_FAILED, "partial") if result.published else (EXIT_NOTHING_PUBLISHED, "failed"))
            result.message += f"; {error}"
        result.message += "; this run could not be recorded in the raw store"

