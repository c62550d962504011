"""Run the fetchers of several sources into one raw store, as one recorded refresh run."""
from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from scraper.fetchers import FETCHERS, FetchReport
from scraper.http import PoliteClient
from scraper.rawstore import RawStore, RawStoreError
from scraper.sources import DEFAULT_SOURCES, get_source

log = logging.getLogger("scraper.fetch")

__all__ = ["DEFAULT_SOURCES", "run_fetch"]


def run_fetch(
    sources: list[str],
    store: RawStore,
    base_urls: dict[str, str],
    options: dict[str, Any],
    verbose: bool = False,
    progress: bool | None = None,
) -> dict[str, FetchReport]:
    """Fetch every source in turn; one failed document or source never stops the others.

    ``base_urls`` overrides a source's base URL (the test site, a mirror). ``options`` holds
    the per-source inputs (``scryfall_ids``, ``oracle_ids``, ``bulk_types``,
    ``gatherer_urls``, ``page_urls``, ``mtgjson_sets``, ``cr_zh_versions``,
    ``cr_ko_chapters``, ``wizards_formats``) and optionally a ready ``client``
    (PoliteClient) or ``timeout``, and ``on_run_started`` (called with the run's id). The run is
    recorded in the store's ``runs`` table.
    """
    for name in sources:
        get_source(name)  # unknown names fail before any request is made
    if verbose:
        logging.getLogger("scraper").setLevel(logging.DEBUG)
    if progress is None:
        progress = sys.stderr.isatty()
    client = options.get("client") or PoliteClient(timeout=float(options.get("timeout", 30.0)))
    run_id = store.start_run()
    if options.get("on_run_started"):  # a refresh's own run, whatever another process starts meanwhile
        options["on_run_started"](run_id)
    reports: dict[str, FetchReport] = {}
    stopped: BaseException | None = None
    try:
        with _progress_bar(progress, len(sources)) as advance:
            for name in sources:
                reports[name] = _run_one(name, client, store, base_urls, {**options, "run_id": run_id})
                _log_report(reports[name])
                advance(name)
    except BaseException as error:
        stopped = error
        raise
    finally:
        # Ctrl-C or SIGTERM on the way (not an Exception): the run says so, not "ok" for what it
        # got; anything else that stopped it, "failed".
        if stopped is None:
            status = run_status(reports)
        else:
            status = "failed" if isinstance(stopped, Exception) else "interrupted"
        try:
            store.finish_run(run_id, status, {n: r.as_dict() for n, r in reports.items()})
        except RawStoreError:
            if not isinstance(stopped, RawStoreError):
                raise
            # The store could not record the run: the error that stopped it says why.
        if "client" not in options:
            client.close()
    return reports


def _run_one(
    name: str,
    client: PoliteClient,
    store: RawStore,
    base_urls: dict[str, str],
    options: dict[str, Any],
) -> FetchReport:
    base_url = base_urls.get(name) or get_source(name).base_url
    try:
        return FETCHERS[name](client, store, base_url, options)
    except RawStoreError:  # every other source would fail the same way
        raise
    except Exception as exc:  # a bug in one fetcher must not lose the other sources' work
        # One line (the report carries the reason to the command's last line); the traceback with -v.
        log.error("fetcher %s crashed: %s: %s", name, type(exc).__name__, exc, exc_info=log.isEnabledFor(logging.DEBUG))
        report = FetchReport(name)
        report.fail(base_url or name, f"fetcher crashed: {type(exc).__name__}: {exc}")
        return report


def run_status(reports: dict[str, FetchReport]) -> str:
    """``ok`` (nothing failed), ``partial`` (some documents failed) or ``failed`` (nothing got)."""
    failed = sum(r.failed for r in reports.values())
    got = sum(r.fetched + r.not_modified + r.skipped for r in reports.values())
    if failed == 0:
        return "ok"
    return "partial" if got else "failed"


def _log_report(report: FetchReport) -> None:
    log.info(
        "source=%s requests=%d fetched=%d not_modified=%d skipped=%d failed=%d bytes=%d",
        report.source, report.requests, report.fetched, report.not_modified, report.skipped,
        report.failed, report.bytes,
    )
    for url, reason in report.failures:
        log.warning("source=%s failed url=%s reason=%s", report.source, url, reason)


@contextmanager
def _progress_bar(enabled: bool, total: int) -> Iterator[Any]:
    """A rich progress bar over sources on a terminal; a no-op otherwise."""
    if not enabled:
        yield lambda name: None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("fetching", total=total)

        def advance(name: str) -> None:
            bar.update(task, advance=1, description=f"fetched {name}")

        yield advance
