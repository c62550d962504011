"""Refresh runs: the raw store's record of every run, as rows of the published refresh_runs table."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kb.store.columns import REFRESH_STATUSES
from scraper.rawstore import RawStore

# What a plain fetch run's own status (scraper.fetch.run_status) becomes in refresh_runs.
FETCH_RUN_STATUS = {"ok": "fetched", "partial": "fetched", "failed": "failed", "interrupted": "interrupted"}


@dataclass
class RefreshResult:
    exit_code: int
    status: str  # a key of REFRESH_STATUSES
    message: str
    published: bool
    run_id: int | None
    started_at: str
    finished_at: str = ""
    seconds: float = 0.0
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    changes: dict[str, Any] = field(default_factory=dict)
    failed_sources: list[str] = field(default_factory=list)
    # Why each failed source failed, the first reason seen (a URL and what went wrong with it).
    failure_reasons: dict[str, str] = field(default_factory=dict)

    def failed(self, source: str, reason: str) -> None:
        if source not in self.failed_sources:
            self.failed_sources.append(source)
        self.failure_reasons.setdefault(source, reason)

    def failed_with_reasons(self) -> str:
        """The failed sources, each with its reason: what the one line on stderr says."""
        return ", ".join(
            f"{source} ({self.failure_reasons[source]})" if source in self.failure_reasons else source
            for source in self.failed_sources
        )


def run_row(run: dict[str, Any]) -> dict[str, Any]:
    """A raw store run as a ``refresh_runs`` row (plain ``mtgkb fetch`` runs included)."""
    details = run.get("details") or {}
    if run.get("finished_at") is None and run.get("status") is None:
        # Started and never finished: the process was killed (or crashed) during the fetch.
        return {
            "id": run["id"], "started_at": run["started_at"], "finished_at": None,
            "status": "interrupted", "exit_code": None,
            "sources": json.dumps(details, sort_keys=True), "changes": None,
            "message": "run did not finish (killed or crashed during the fetch)",
        }
    refresh = details.get("refresh")
    if refresh is None:  # a run of `mtgkb fetch`, or a refresh that died before it finished
        finished = run["finished_at"] is not None
        return {
            "id": run["id"], "started_at": run["started_at"], "finished_at": run["finished_at"],
            "status": FETCH_RUN_STATUS.get(run["status"], "failed") if finished else "interrupted",
            "exit_code": None,
            "sources": json.dumps(details, sort_keys=True), "changes": None,
            "message": ("fetch interrupted (Ctrl-C or SIGTERM): nothing published" if run["status"] == "interrupted"
                        else f"fetch only ({run['status']})") if finished else "the run never finished (killed or crashed)",
        }
    return {
        "id": run["id"], "started_at": run["started_at"], "finished_at": run["finished_at"],
        "status": refresh["status"], "exit_code": refresh["exit_code"],
        "sources": json.dumps(details.get("sources", {}), sort_keys=True),
        "changes": json.dumps(refresh.get("changes", {}), sort_keys=True),
        "message": refresh.get("message"),
    }


def record_run(store: RawStore, run_id: int | None, result: RefreshResult) -> None:
    if result.status not in REFRESH_STATUSES:
        raise ValueError(f"refresh status {result.status!r} is not in REFRESH_STATUSES")
    if run_id is None:
        return
    store.finish_run(run_id, result.status, {
        "sources": result.sources,
        "refresh": {
            # A run that never finished has no exit code of its own (the process's was a signal's);
            # one stopped by Ctrl-C or SIGTERM and finished on the way out has the one it ends with.
            "status": result.status,
            "exit_code": None if result.status == "interrupted" and not result.finished_at else result.exit_code,
            "message": result.message,
            "changes": result.changes, "published": result.published,
        },
    })


def one_line(text: str) -> str:
    """A message as one line: what a run records and a refresh prints."""
    return " ".join(text.split())
