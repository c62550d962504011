"""``mtgkb refresh`` and the documents an operator imported by hand into the served file
(kb.refresh.imported): a refresh dropped them, with exit 0 (an operator's review, 2026-12-05)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlite_utils
from click.testing import CliRunner
from test_refresh import run, sha

from kb.cli import cli
from sitekit import TestSite, private_tmpfs_allowed

FIXTURES = Path(__file__).parent.parent / "fixtures"
# A real Scryfall API response: Deathrite Shaman's two rulings (no card data: named by them).
RULINGS_PAGE = FIXTURES / "scryfall" / "misc" / "rulings-deathrite-shaman.json"
DEATHRITE = "22f1a4a4-c423-4d1c-8775-0ed604a9fa51"


def imported(db_path: Path, path: Path) -> None:
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", str(path)])
    assert result.exit_code == 0, result.output


def deathrite(db_path: Path) -> list[tuple[str, int]]:
    return sqlite_utils.Database(db_path).execute(
        "select text, removed_upstream from rulings where oracle_id = ? order by text", [DEATHRITE]).fetchall()


def test_a_refresh_keeps_what_was_imported_by_hand_and_refuses_to_drop_it_unasked(site: TestSite, tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    assert run(site, tmp_path).exit_code == 0
    page = tmp_path / "imports" / RULINGS_PAGE.name
    page.parent.mkdir()
    shutil.copy(RULINGS_PAGE, page)
    imported(db_path, page)
    assert [removed for _text, removed in deathrite(db_path)] == [0, 0]

    # Nothing changed upstream, the served file did: rebuilt, the page read again from its file.
    kept = run(site, tmp_path)
    assert (kept.exit_code, kept.published, kept.changes["imported_by_hand"]) == (0, True, 1)
    assert [removed for _text, removed in deathrite(db_path)] == [0, 0]
    paths = [row[0] for row in sqlite_utils.Database(db_path).execute("select path from documents where source_id = 'scryfall'")]
    assert str(page) in paths
    assert run(site, tmp_path).status == "unchanged"  # and the next run has nothing to do

    # Its file gone: nothing published, and the reason names the file.
    page.unlink()
    served = sha(db_path)
    refused = run(site, tmp_path, allow_shrink=True)
    assert (refused.exit_code, refused.published) == (1, False)
    assert refused.message == (
        f"{db_path}: 1 document imported by hand (mtgkb import) is in no raw store and its file is gone"
        f" or changed (first: {page}): this refresh would drop it; nothing published (--drop-imported"
        " publishes without it)"
    )
    assert sha(db_path) == served

    # Told to drop it: the shrink guard still counts (a quarter of this small file's documents),
    # and its refusal says the drop is part of the shrink.
    guarded = run(site, tmp_path, drop_imported=True)
    assert (guarded.exit_code, guarded.published) == (1, False)
    assert guarded.message.startswith("not published: documents would shrink from 4 to 3 rows (-25%)")
    assert guarded.message.endswith(
        f"; 1 document imported by hand is dropped (--drop-imported: {page}), its rows with it"
        " (use --allow-shrink if this is expected)")
    assert sha(db_path) == served
    dropped = run(site, tmp_path, drop_imported=True, allow_shrink=True)
    assert (dropped.exit_code, dropped.published) == (0, True)
    assert dropped.message.endswith("; dropped with --drop-imported: 1 document imported by hand"), dropped.message
    assert dropped.changes["imported_by_hand_dropped"] == [str(page)]


def test_a_file_imported_by_a_relative_path_is_found_from_any_folder(
    site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Imported as "rulings.json" from its own folder, it was looked for from the refresh's working
    folder, said to be gone or changed, and the refresh refused (an operator's review)."""
    assert run(site, tmp_path).exit_code == 0
    folder = tmp_path / "imports"
    folder.mkdir()
    shutil.copy(RULINGS_PAGE, folder / "rulings.json")
    monkeypatch.chdir(folder)
    imported(tmp_path / "kb.db", Path("rulings.json"))
    monkeypatch.chdir(tmp_path)
    kept = run(site, tmp_path)
    assert (kept.exit_code, kept.changes["imported_by_hand"]) == (0, 1), kept.message
    assert [removed for _text, removed in deathrite(tmp_path / "kb.db")] == [0, 0]


@pytest.mark.long_proof
def test_a_failed_refresh_says_why_in_one_line_on_stderr(site: TestSite, tmp_path: Path) -> None:
    """CONTRACT.md: "non-zero with a one-line reason on stderr". Each failed source's WARNING lines
    came before the reason (the tests ran the command under pytest's log capture, which hid them:
    this one runs it as the operator does)."""
    import os
    import subprocess
    import sys

    from test_refresh import RULES_PAGE

    site.fail(RULES_PAGE, "status", times=None, status=404)
    done = subprocess.run(
        [sys.executable, "-m", "kb.cli.refresh", "wizards-cr", "--raw", str(tmp_path / "raw"),
         "--db", str(tmp_path / "kb.db"), "--base-url", f"wizards-cr={site.url('wizards-cr')}", "--timeout", "5"],
        capture_output=True, text=True, cwd=Path(__file__).parent.parent.parent, env={**os.environ}, timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"Error: failed sources: wizards-cr ({site.at(RULES_PAGE)}: HTTP 404); nothing could be published:"
        " every source failed: wizards-cr"
    ]


def test_the_operator_lists_every_run_failed_and_unchanged_ones_too(site: TestSite, tmp_path: Path) -> None:
    """A failed or unchanged run never reaches a published file's refresh_runs: there was no
    command to see it (an operator's review)."""
    import json

    from test_refresh import RULES_PAGE

    assert run(site, tmp_path).status == "published"
    assert run(site, tmp_path).status == "unchanged"
    site.fail(RULES_PAGE, "status", times=None, status=404)
    assert run(site, tmp_path, sources=["wizards-cr"]).status == "failed"
    listed = CliRunner().invoke(cli, ["runs", "--raw", str(tmp_path / "raw")])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert [line.split()[2:4] for line in lines] == [["failed", "exit"], ["unchanged", "exit"], ["published", "exit"]]
    assert "nothing could be published: every source failed: wizards-cr" in lines[0]
    rows = [json.loads(line) for line in CliRunner().invoke(cli, ["runs", "--raw", str(tmp_path / "raw"), "--json", "--limit", "1"]).output.splitlines()]
    assert [(row["status"], row["exit_code"]) for row in rows] == [("failed", 1)]
    # Its JSON columns as JSON, not text to decode again (a newcomer's review).
    assert isinstance(rows[0]["sources"], dict) and "wizards-cr" in rows[0]["sources"]
    missing = CliRunner().invoke(cli, ["runs", "--raw", str(tmp_path / "nowhere")])
    assert missing.exit_code == 1 and "no raw store here" in missing.output


def test_a_file_no_refresh_published_has_no_imports_to_carry(site: TestSite, tmp_path: Path) -> None:
    """A file made by `mtgkb build` (the bundled snapshot's, say) or imported into before any
    refresh: its documents are not imports, and the first refresh builds from the raw store (each
    was taken for an import, kept in every later refresh, and kept removed rulings alive). But it
    does not drop them unasked: a CR edition and three cards imported into the file `make run`
    built went with exit 0 and no word, too few to shrink a table by a tenth (a newcomer's review)."""
    db_path = tmp_path / "kb.db"
    imported(db_path, RULINGS_PAGE)  # before any refresh: a file the refresh did not publish
    served = db_path.read_bytes()
    refused = run(site, tmp_path)
    assert (refused.exit_code, refused.published) == (1, False) and db_path.read_bytes() == served
    assert "the served file holds 1 document this build does not" in refused.message
    assert f"(first: {RULINGS_PAGE}; a document imported by hand into a file no refresh published is carried by no" \
        " refresh: publish with --allow-shrink, then `mtgkb import` it again)" in refused.message
    first = run(site, tmp_path, allow_shrink=True)
    assert (first.exit_code, first.published) == (0, True) and "imported_by_hand" not in first.changes
    paths = [row[0] for row in sqlite_utils.Database(db_path).execute("select path from documents")]
    assert str(RULINGS_PAGE) not in paths


def test_a_raw_store_failing_after_the_swap_says_the_file_was_published(
    site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store failing once the new file is live (its record of the publish, then of the run)
    exited 1, which promises the served file untouched, and the run's message was lost (a review
    of the change)."""
    from kb.refresh.job import PUBLISHED_STATE
    from scraper.rawstore import RawStore, RawStoreError

    set_state, finish_run, published = RawStore.set_state, RawStore.finish_run, []

    def full(store: RawStore) -> RawStoreError:
        return RawStoreError(f"the raw store {store.root} cannot be written: manifest.db: disk full (database or disk is full)")

    def record_publish(self: RawStore, key: str, value: dict) -> None:
        if key == PUBLISHED_STATE:  # written once the new file is live
            published.append(key)
            raise full(self)
        set_state(self, key, value)

    def record_run(self: RawStore, *args: object) -> None:
        if published:
            raise full(self)
        finish_run(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(RawStore, "set_state", record_publish)
    monkeypatch.setattr(RawStore, "finish_run", record_run)
    result = run(site, tmp_path)
    assert (result.exit_code, result.status, result.published) == (2, "partial", True)
    assert (tmp_path / "kb.db").exists()
    assert result.message == (
        f"published, but the raw store {tmp_path / 'raw'} cannot be written: manifest.db: disk full (database or"
        " disk is full): the next run builds again; this run could not be recorded in the raw store")
    # The store kept its provisional record: interrupted, with no exit code (it had said exit 1,
    # "the served file untouched"). The next run builds again, and keeps what the published file
    # says of that run, not the provisional record (an operator's review).
    monkeypatch.undo()
    with RawStore(tmp_path / "raw") as store:
        provisional = next(run for run in store.runs() if run["id"] == result.run_id)
    assert (provisional["status"], provisional["details"]["refresh"]["exit_code"]) == ("interrupted", None)
    again = run(site, tmp_path)
    assert (again.exit_code, again.published) == (0, True)
    rows = sqlite_utils.Database(tmp_path / "kb.db").execute(
        "select status, exit_code from refresh_runs where id = ?", [result.run_id]).fetchall()
    assert rows == [("published", 0)]


def test_an_unchanged_run_the_raw_store_cannot_record_exits_1(
    site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing published, so not exit 2 ("a partial publish"): a review of the change."""
    from scraper.rawstore import RawStore, RawStoreError

    assert run(site, tmp_path).status == "published"
    finish_run = RawStore.finish_run

    def full(self: RawStore, run_id: int, status: str, details: dict) -> None:
        if "refresh" in details and status != "interrupted":  # the run's last record, not its provisional one
            raise RawStoreError(f"the raw store {self.root} cannot be written: manifest.db: disk full")
        finish_run(self, run_id, status, details)

    monkeypatch.setattr(RawStore, "finish_run", full)
    unchanged = run(site, tmp_path)
    assert (unchanged.exit_code, unchanged.status, unchanged.published) == (1, "failed", False), unchanged.message
    assert unchanged.message.endswith("; this run could not be recorded in the raw store")


@pytest.mark.long_proof
@pytest.mark.skipif(not private_tmpfs_allowed(), reason="needs root and unshare -m for a private tmpfs")
@pytest.mark.parametrize(("size", "what_failed"), [
    ("160k", "manifest.db: disk full (database or disk is full)"),  # the run's first record
    # Room for the manifest and the rules page, not for the CR's text: the download is named too.
    ("600k", "/mnt/raw/tmp/{pid}-"),
])
def test_a_raw_store_on_a_full_disk_stops_the_refresh_in_one_line_naming_it(
    site: TestSite, tmp_path: Path, size: str, what_failed: str
) -> None:
    """A refresh whose raw store could not be written read as every source failing, each with
    the same OSError (an operator's review): the store's own failure stops the run and says so."""
    import os
    import shlex
    import subprocess
    import sys

    mount = tmp_path / "mnt"
    mount.mkdir()
    command = shlex.join([
        sys.executable, "-c", "from kb.cli import cli; cli()", "refresh", "wizards-cr", "scryfall", "--raw", str(mount / "raw"),
        "--db", str(tmp_path / "kb.db"), "--timeout", "5",
        "--base-url", f"wizards-cr={site.url('wizards-cr')}", "--base-url", f"scryfall={site.url('scryfall')}",
    ])
    script = f"mount -t tmpfs -o size={size} tmpfs {shlex.quote(str(mount))} && exec {command}"
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                          cwd=Path(__file__).parent.parent.parent, env={**os.environ}, timeout=120)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"Error: the raw store {mount / 'raw'} cannot be written: "), done.stderr
    assert "disk full" in lines[0] and what_failed.split("{pid}")[0] in lines[0]
    assert (", downloading http://127.0.0.1:" in lines[0]) == ("{pid}" in what_failed), done.stderr
    assert not (tmp_path / "kb.db").exists()
