"""Refresh runs: the raw store's record of every run, as rows of the published refresh_runs table."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from scraper.rawstore import RawStore


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


def record_run(store: RawStore, run_id: int | None, result: RefreshResult) -> None:
    if run_id is None:
        return
    store.finish_run(run_id, result.status, {
        "sources": result.sources,
        "refresh": {
            "status": result.status, "exit_code": result.exit_code, "message": result.message,
            "changes": result.changes, "published": result.published,
        },
    })
