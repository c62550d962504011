"""The issue's refresh scenarios through the local test site: requests, bytes and seconds of each.

    .venv/bin/python bench/refresh_scenarios.py

Prints one line per scenario and writes them to bench/results/refresh.json. The site serves
the recorded trees of tests/fixtures/site; later days upstream are played as described in
tests/fixtures/refresh/README.md (a newer CR, a changed ruling list: constructed at run time).
Fetches use the polite client on a fake clock (rate limits and Retry-After cost no wall time)
except the killed refresh, which is a real subprocess with the real client.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# sitekit, and the refresh tests' helpers for serving later days upstream.
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "refresh")]

from test_refresh import BULK_TYPES, CLI_SOURCES, CR_TXT, LISTING, SITE, SOURCES, changed_rulings, serve_rulings  # noqa: E402

from kb.refresh.job import refresh  # noqa: E402
from sitekit import FakeClock, TestSite, fast_client  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "refresh.json"


def _scenario(site: TestSite, work: Path, name: str, clock: FakeClock | None = None, **kwargs: Any) -> dict[str, Any]:
    clock = clock or FakeClock()
    seen = len(site.requests)
    started = time.monotonic()
    with fast_client(clock) as client:
        # The sources the site holds whole (as tests/refresh/test_refresh.py runs them).
        result = refresh(work / "raw", work / "kb.db", sources=SOURCES, base_urls=site.base_urls(),
                         fetch_options={"client": client, "bulk_types": BULK_TYPES}, progress=False, **kwargs)
    seconds = time.monotonic() - started
    requests = site.requests[seen:]
    return {
        "scenario": name,
        "exit_code": result.exit_code,
        "status": result.status,
        "requests": len(requests),
        "statuses": _tally(r["status"] for r in requests),
        "body_bytes": sum(r["bytes"] for r in requests),
        "seconds": round(seconds, 2),
        "fake_clock_waited_s": round(clock.slept, 1),
        "message": result.message,
    }


def _tally(values) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[str(value)] = counts.get(str(value), 0) + 1
    return dict(sorted(counts.items()))


def _killed(site: TestSite, work: Path) -> dict[str, Any]:
    """A refresh killed with SIGKILL just before its swap; the served file's hash before/after."""
    import hashlib

    db = work / "kb.db"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    marker = work / "paused"
    env = {**os.environ, "MTGKB_REFRESH_PAUSE_BEFORE_SWAP": f"60:{marker}"}
    seen = len(site.requests)
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "kb.cli.refresh", *CLI_SOURCES, "--raw", str(work / "raw"), "--db", str(db),
         "--base-url", f"wizards-cr={site.url('wizards-cr')}", "--base-url", f"scryfall={site.url('scryfall')}",
         "--base-url", f"cr-archive={site.url('cr-archive')}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    while not marker.exists() and child.poll() is None:
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    seconds = time.monotonic() - started
    requests = site.requests[seen:]
    after = hashlib.sha256(db.read_bytes()).hexdigest()
    return {
        "scenario": "killed before the swap (real client, subprocess)",
        "exit_code": -9, "status": "killed", "requests": len(requests),
        "statuses": _tally(r["status"] for r in requests),
        "body_bytes": sum(r["bytes"] for r in requests), "seconds": round(seconds, 2),
        "served_file_unchanged": before == after,
        "leftover": [p.name for p in work.glob(".kb.db.building-*")],
    }


def main() -> None:
    site = TestSite().start()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            rows.append(_scenario(site, work, "first refresh"))
            rows.append(_scenario(site, work, "nothing changed"))
            site.replace(CR_TXT, SITE / "spare" / "MagicCompRules-2022-04-29.txt")
            serve_rulings(site, changed_rulings())
            rows.append(_scenario(site, work, "newer CR + changed rulings"))
            # Another real official CR (tests/fixtures/cr/en-raw) for the run that gets killed.
            site.replace(CR_TXT, ROOT / "tests" / "fixtures" / "cr" / "en-raw" / "2024-02-06.txt")
            rows.append(_killed(site, work))
            row = _scenario(site, work, "after the kill")
            row["leftover_after"] = [p.name for p in work.glob(".kb.db.building-*")]
            rows.append(row)
        with tempfile.TemporaryDirectory() as folder:
            site.reset()  # the recorded trees again, for a first refresh through a 429 storm
            site.fail(LISTING, "429", times=3, retry_after=5)
            site.fail(CR_TXT, "429", times=2, retry_after=3)
            rows.append(_scenario(site, Path(folder), "429 storm with Retry-After (first refresh)"))
    finally:
        site.stop()
    for row in rows:
        print(f"{row['scenario']:48} exit {row['exit_code']:>2}  {row['requests']:>3} requests"
              f"  {row['body_bytes']:>9} body bytes  {row['seconds']:>6.2f} s  {row['statuses']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
