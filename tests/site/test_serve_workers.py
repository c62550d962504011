"""``mtgkb serve --workers N``: N server processes, each the site ``datasette serve`` gives, each following a swap."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from site_databases import ROOT, built_hostile_db, built_snapshot_db, free_port, wait_until_serving


@pytest.mark.long_proof
def test_workers_serve_the_same_site_and_each_follows_a_swap(tmp_path: Path) -> None:
    served = tmp_path / "kb.db"
    shutil.copy(built_snapshot_db(), served)
    port = free_port()
    env = {**os.environ, "MTGKB_RELOAD_INTERVAL_MS": "0"}
    server = subprocess.Popen(
        [sys.executable, "-c", "from kb.cli import cli; cli()", "serve", "--db", str(served), "--port", str(port),
         "--workers", "2"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, server)
        with httpx.Client(base_url=base, timeout=10) as client:
            assert client.get("/search.json", params={"q": "flying"}).json()["best"]["title"] == "702.9 Flying"
            settings = client.get("/-/settings.json").json()
            assert (settings["sql_time_limit_ms"], settings["suggest_facets"]) == (1500, False)
            assert client.get("/-/metadata.json").json()["title"] == "MTG Rules KB"
            assert [(db["name"], db["is_mutable"]) for db in client.get("/-/databases.json").json()] == [("kb", False)]
            before = client.get("/kb.json").json()["tables"]
            rulings_before = next(table["count"] for table in before if table["name"] == "rulings")
            # A refresh renames a new file over the served one: every request after it, whichever
            # process answers, reads the new file.
            replacement = tmp_path / "new.db"
            shutil.copy(built_hostile_db(), replacement)
            os.replace(replacement, served)
            # A worker notices at its next request and switches without making it wait: polled
            # on new connections (either process may take one) until twenty in a row are new.
            deadline, streak = time.monotonic() + 60, 0
            while streak < 20 and time.monotonic() < deadline:
                tables = client.get("/kb.json", headers={"Connection": "close"}).json()["tables"]
                count = next(table["count"] for table in tables if table["name"] == "rulings")
                streak = streak + 1 if count != rulings_before else 0
            assert streak == 20
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=20)
    assert stderr.count("Started server process") == 2, stderr
