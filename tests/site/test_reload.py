"""A running ``mtgkb serve`` answers every request across a refresh's swap, then the new data."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from kb.refresh.job import refresh
from kb.site.serve import datasette_args
from sitekit import FakeClock, TestSite, fast_client

ROOT = Path(__file__).parent.parent.parent
SITE = Path(__file__).parent.parent / "fixtures" / "site"
CR_TXT = "/wizards-media/2024/downloads/MagicCompRules 20240607.txt"
VERSIONS = "/kb/cr_versions.json?_shape=arrayfirst&_col=id&_sort=id"
from site_databases import free_port, wait_until_serving


def run_refresh(site: TestSite, tmp_path: Path) -> None:
    with fast_client(FakeClock()) as client:
        result = refresh(tmp_path / "raw", tmp_path / "kb.db", base_urls=site.base_urls(),
                         sources=["wizards-cr", "cr-archive", "scryfall"],
                         fetch_options={"client": client, "bulk_types": ["rulings", "oracle_cards"]}, progress=False)
    assert result.exit_code == 0, result.message


@pytest.fixture
def server(site: TestSite, tmp_path: Path):
    """``mtgkb serve``'s exact Datasette command on the first refresh's database: its address
    and its process."""
    run_refresh(site, tmp_path)
    port = free_port()
    env = {**os.environ, "MTGKB_RELOAD_INTERVAL_MS": "50", "MTGKB_RELOAD_GRACE_S": "1"}
    args = [sys.executable, "-m", "datasette", *datasette_args(tmp_path / "kb.db", "127.0.0.1", port)]
    server = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    wait_until_serving(base, server)
    yield base, server
    server.terminate()
    server.wait(10)


@pytest.mark.long_proof
def test_serving_follows_the_swap_without_a_failed_request(
    site: TestSite, tmp_path: Path, server: tuple[str, subprocess.Popen]
) -> None:
    served, process = server
    answers: list[tuple[int, list[str]] | str] = []
    # (asked at, answered at, versions) of every good answer: three clients at once, so a request
    # asked just before the switch may be answered after another client's first new answer.
    timed: list[tuple[float, float, list[str]]] = []
    stop = threading.Event()

    def query_in_a_loop() -> None:
        with httpx.Client(base_url=served, timeout=5) as client:
            while not stop.is_set():
                try:
                    asked = time.monotonic()
                    response = client.get(VERSIONS)
                    answers.append((response.status_code, response.json() if response.status_code == 200 else []))
                    if response.status_code == 200:
                        timed.append((asked, time.monotonic(), response.json()))
                except Exception as error:  # a connection error is exactly what must not happen
                    answers.append(f"{type(error).__name__}: {error}")

    loops = [threading.Thread(target=query_in_a_loop) for _ in range(3)]
    for loop in loops:
        loop.start()
    try:
        time.sleep(0.3)
        site.replace(CR_TXT, SITE / "spare" / "MagicCompRules-2022-04-29.txt")
        run_refresh(site, tmp_path)
        deadline = time.monotonic() + 20
        while not answers or answers[-1] != (200, ["en-2022-02-18", "en-2022-04-29"]):
            assert time.monotonic() < deadline, answers[-3:]
            time.sleep(0.05)
        time.sleep(1.5)  # past the grace period: the old connections are closed meanwhile
    finally:
        stop.set()
        for loop in loops:
            loop.join()
    failures = [a for a in answers if isinstance(a, str) or a[0] != 200]
    assert failures == []
    seen = [a[1] for a in answers]  # type: ignore[index]
    assert seen[0] == ["en-2022-02-18"]
    assert seen[-1] == ["en-2022-02-18", "en-2022-04-29"]
    # Once switched, never back to the old file: every request asked after the first new answer
    # reads the new one.
    switched = min(answered for _asked, answered, versions in timed if versions == ["en-2022-02-18", "en-2022-04-29"])
    assert {tuple(versions) for asked, _answered, versions in timed if asked > switched} == {("en-2022-02-18", "en-2022-04-29")}
    assert len(answers) > 20
    # The table counts Datasette shows follow the new file too (not the start-up inspect file).
    counts = httpx.get(served + "/kb.json", timeout=5).json()
    tables = {table["name"]: table["count"] for table in counts["tables"]}
    assert tables["cr_versions"] == 2
    assert tables["rules"] == 2772 + 2797
    # The old file is let go: past the grace period no connection of the server still reads it
    # (its connections are closed, not left for Python's collector, which the site keeps away
    # from what it held before the swap: kb.site.warm.keep_out_of_collections).
    assert old_files_held(process.pid, tmp_path / "kb.db") == []


def old_files_held(pid: int, path: Path) -> list[str]:
    """Files a process has open at ``path`` that are no longer there (replaced by a rename)."""
    held = []
    for descriptor in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(descriptor)
        except OSError:  # closed meanwhile
            continue
        if target.startswith(str(path)) and target.endswith(" (deleted)"):
            held.append(target)
    return held
