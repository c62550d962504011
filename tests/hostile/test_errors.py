"""The hostile catalogue, an unlucky operator: disk full, a read-only folder, a broken snapshot manifest,
leftovers of killed runs. Each failure is one ``Error:`` line naming the file, exit 1, nothing changed.

Disk full and read-only need a small file system of their own: a tmpfs in a private mount
namespace (``unshare -m``, root only); those two cases are skipped where that is not allowed.
"""
from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kit import ROOT, Zygote, assert_refused, sha256

from sitekit import private_tmpfs_allowed

CR = ROOT / "tests/fixtures/cr/en-raw/2003-03-15.txt"
RULINGS = ROOT / "tests/fixtures/constructed/rulings-lethal-scheme.json"
MTGKB = f"{shlex.quote(sys.executable)} -c 'from kb.cli import cli; cli()'"


namespaces = pytest.mark.skipif(not private_tmpfs_allowed(), reason="needs root and unshare -m for a private tmpfs")


def in_small_filesystem(folder: Path, served: Path, size: str, then: str, read_only: bool = False) -> tuple[str, str, str, str]:
    """Run ``then`` with the served database on a tmpfs of ``size``; returns (sha before, stderr, rc, sha after)."""
    mount = folder / "mnt"
    mount.mkdir()
    script = f"""
set -e
mount -t tmpfs -o size={size} tmpfs {mount}
cp {served} {mount}/kb.db
{"mount -o remount,ro " + str(mount) if read_only else ""}
sha256sum {mount}/kb.db | cut -d' ' -f1
set +e
{then} 2>{folder}/stderr
echo "rc=$?"
sha256sum {mount}/kb.db | cut -d' ' -f1
ls -a {mount} | grep -c building || true
"""
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    lines = done.stdout.split()
    assert len(lines) >= 4, done.stdout + done.stderr
    return lines[0], (folder / "stderr").read_text(), lines[1], lines[2] + " leftovers " + lines[3]


def _one_error_line(stderr: str, pattern: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    assert "Traceback" not in stderr
    import re

    assert re.search(pattern, lines[0]), lines[0]


@namespaces
def test_disk_full_is_one_line_and_the_database_is_untouched(served: Path, tmp_path: Path) -> None:
    before, stderr, rc, after = in_small_filesystem(
        tmp_path, served, "1200k", f"{MTGKB} import --db {tmp_path}/mnt/kb.db {CR}"
    )
    assert rc == "rc=1", stderr
    _one_error_line(stderr, r"kb\.db: .*disk full")
    assert after == f"{before} leftovers 0"


@namespaces
def test_a_read_only_database_folder_is_one_line(served: Path, tmp_path: Path) -> None:
    before, stderr, rc, after = in_small_filesystem(
        tmp_path, served, "4m", f"{MTGKB} import --db {tmp_path}/mnt/kb.db {RULINGS.with_name('rulings-ugin-scryfall-shape.json')}",
        read_only=True,
    )
    assert rc == "rc=1", stderr
    _one_error_line(stderr, r"kb\.db: .*read-only file system")
    assert after == f"{before} leftovers 0"


def snapshot(folder: Path, manifest: object) -> Path:
    folder.mkdir()
    shutil.copy(RULINGS, folder / "rulings.json")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ({"path": "rulings.json"}, r"manifest\.json: must be a JSON list of entries, found a dict"),
        ([{"url": "https://example.org/x"}], r"manifest\.json: entry 1 has no \"path\""),
        ([0], r"manifest\.json: entry 1 is a int, not an object"),
        ([{"path": "rulings.json", "source": "nobody"}], r"rulings\.json: unknown source id 'nobody'"),
        ([{"path": "rulings.json", "lang": 3}], r"entry 1 \(rulings\.json\): \"lang\" must be a string"),
    ],
    ids=["not-a-list", "entry-without-path", "entry-not-an-object", "unknown-source", "lang-not-a-string"],
)
def test_a_bad_snapshot_manifest_is_one_line(manifest: object, message: str, zygote: Zygote, served: Path, tmp_path: Path) -> None:
    folder = snapshot(tmp_path / "snap", manifest)
    before = sha256(served)
    outcome = zygote.run(["build", "--snapshot", folder, "--db", served], cwd=tmp_path)
    assert_refused(outcome, message)
    assert sha256(served) == before


def test_leftovers_of_killed_builds_are_removed_by_the_next_run(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    dead = 4_000_000  # above pid_max's default: never a live process
    for name in (f".kb.db.building-{dead}", f".kb.db.building-{dead}-journal"):
        (tmp_path / name).write_bytes(b"\0" * 4096)
    outcome = zygote.run(["import", "--db", served, RULINGS.with_name("rulings-ugin-scryfall-shape.json")], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    assert not [p.name for p in tmp_path.iterdir() if ".building-" in p.name]


def test_a_file_added_to_the_raw_store_that_cannot_be_read_is_its_own_failure(tmp_path: Path) -> None:
    """Its reading failure was reported as the store's ("cannot be written"), which stops a whole
    refresh, and left its temporary copy behind (a review of the change)."""
    from scraper.rawstore import RawStore, RawStoreError

    with RawStore(tmp_path / "raw") as store:
        with pytest.raises(FileNotFoundError) as missing:
            store.import_file(tmp_path / "nowhere.txt", source="wizards-cr")
        assert not isinstance(missing.value, RawStoreError)
    assert list((tmp_path / "raw" / "tmp").iterdir()) == []


def test_downloads_left_by_a_killed_fetch_are_removed(tmp_path: Path) -> None:
    from scraper.rawstore import RawStore

    with RawStore(tmp_path / "raw") as store:
        live = store.temp_path()
    stale = tmp_path / "raw/tmp/4000000-abc.part"
    stale.write_bytes(b"half a download")
    with RawStore(tmp_path / "raw"):
        pass
    assert not stale.exists()
    assert live.exists()  # ours (this process is alive): kept


def test_a_refresh_killed_during_its_fetch_is_recorded_as_interrupted(tmp_path: Path) -> None:
    from kb.refresh.runs import run_row
    from scraper.rawstore import RawStore

    with RawStore(tmp_path / "raw") as store:
        run_id = store.start_run()  # what kill -9 during the fetch leaves: started, never finished
        row = run_row(next(run for run in store.runs() if run["id"] == run_id))
    assert row["status"] == "interrupted"
    assert "killed or crashed" in row["message"]


def test_a_fetch_stopped_by_ctrl_c_is_recorded_as_interrupted_not_as_a_fetch(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """^C (or SIGTERM) during the fetch: the run was finished as "ok" for what it had got, and the
    history said "fetch only (ok)" (an operator's review, 2026-12-05)."""
    import pytest

    from kb.refresh.runs import run_row
    from scraper import fetch
    from scraper.rawstore import RawStore

    def stopped(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(fetch, "_run_one", stopped)
    started: list[int] = []
    with RawStore(tmp_path / "raw") as store:
        with pytest.raises(KeyboardInterrupt):
            fetch.run_fetch(["wizards-cr"], store, {}, {"client": object(), "on_run_started": started.append}, progress=False)
        (run,) = store.runs()
        row = run_row(run)
    assert started == [run["id"]] and run["status"] == "interrupted"
    assert (row["status"], row["message"]) == ("interrupted", "fetch interrupted (Ctrl-C or SIGTERM): nothing published")

    def broken(*_args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(fetch, "_run_one", broken)  # not a ^C: a failed run, not an interrupted one
    with RawStore(tmp_path / "raw") as store:
        with pytest.raises(RuntimeError):
            fetch.run_fetch(["wizards-cr"], store, {}, {"client": object()}, progress=False)
        assert [run["status"] for run in sorted(store.runs(), key=lambda run: run["id"])] == ["interrupted", "failed"]


def test_a_redesigned_page_fails_its_source_in_a_refresh(zygote: Zygote, served: Path, tmp_path: Path) -> None:
    """The refresh reads the layout-changed issue of the new file: its source becomes a failed source."""
    import sqlite_utils

    from kb.refresh.before_swap import BeforeSwap
    from kb.refresh.runs import RefreshResult

    page = (ROOT / "tests/fixtures/gatherer/old/recall.html").read_bytes().replace(b"_rulingDate", b"_rulingDay")
    (tmp_path / "recall.html").write_bytes(page)
    outcome = zygote.run(["import", "--db", served, "--source", "gatherer", tmp_path / "recall.html"], cwd=tmp_path)
    assert outcome.code == 0, outcome.describe()
    result = RefreshResult(0, "published", "", False, 1, "2026-01-01T00:00:00Z")
    publish = BeforeSwap(served, None, False, lambda changes: {}, result)  # type: ignore[arg-type]
    publish._layout_changes(sqlite_utils.Database(served))
    assert result.failed_sources == ["gatherer"]
    assert "no ruling row was recognised" in result.changes["layout_changed"][0]["detail"]
