"""``mtgkb refresh`` through the local test site: publish, skip, record changes, survive failures.

What the site serves after the first refresh is changed at test time; see
tests/fixtures/refresh/README.md for what is constructed.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from click.testing import CliRunner

from kb.build.publish import content_digest
from kb.cli import cli
from kb.cli.refresh import refresh as refresh_command
from kb.refresh import job
from kb.refresh.inputs import select_inputs
from kb.refresh.job import refresh
from kb.refresh.lock import refresh_lock
from kb.refresh.runs import RefreshResult
from kb.store.search_terms import LETTER_TERMS
from scraper.rawstore import RawStore
from sitekit import FakeClock, TestSite, fast_client

ROOT = Path(__file__).parent.parent.parent
SITE = Path(__file__).parent.parent / "fixtures" / "site"
CR_TXT = "/wizards-media/2024/downloads/MagicCompRules 20240607.txt"
RULES_PAGE = "/wizards/en/rules"
LISTING = "/scryfall/bulk-data"
ARCHIVE_LISTING = "/github-raw/xremming/rulesraker/main/archive/metadata.json"
RULINGS = "/scryfall-data/rulings/rulings-20230404210031.json"
NEW_RULINGS = "/scryfall-data/rulings/rulings-20230405210031.json"
ORACLE_CARDS = "/scryfall-data/oracle-cards/oracle-cards-20230404210321.json"
NEW_RULINGS_UPDATED = "2023-04-05T21:00:31.996000Z"
JACE = "594f6881-c059-46f8-aa4e-7151d502de73"
DEATHRITE = "22f1a4a4-c423-4d1c-8775-0ed604a9fa51"
REWORDED = "You can control two of this permanent at the same time, one front face up and the other back face up."
ADDED = "Constructed for the refresh test: not a real ruling."


# These scenarios were written for the English CR and Scryfall's rulings and Oracle cards: the
# whole default refresh (every source, every printing) is tests/refresh/test_refresh_defaults.py.
SOURCES = ["wizards-cr", "cr-archive", "scryfall"]
BULK_TYPES = ["rulings", "oracle_cards"]
CLI_SOURCES = [*SOURCES, *(arg for kind in BULK_TYPES for arg in ("--bulk-type", kind))]


def run(site: TestSite, tmp_path: Path, clock: FakeClock | None = None, **kwargs: Any) -> RefreshResult:
    clock = clock or FakeClock()
    kwargs.setdefault("sources", SOURCES)
    with fast_client(clock) as client:
        return refresh(
            tmp_path / "raw", tmp_path / "kb.db", base_urls=site.base_urls(),
            fetch_options={"client": client, "bulk_types": BULK_TYPES}, progress=False, **kwargs,
        )


@pytest.fixture
def cli_on_a_fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's own client on a fake clock: its politeness waits (~3 s a command here) pass
    at once. The command's real client and waits are those of the killed refresh below (a child
    process) and of tests/scraper."""
    monkeypatch.setattr("scraper.fetch.PoliteClient", lambda timeout: fast_client(timeout=timeout))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def digest(path: Path) -> str:
    return content_digest(sqlite_utils.Database(path))


def serve_rulings(site: TestSite, rulings: list[dict[str, Any]]) -> None:
    """Announce a new bulk rulings file the way Scryfall does: new URL, new updated_at."""
    listing = (SITE / "scryfall" / "bulk-data-2023-04-04.json").read_text(encoding="utf-8")
    listing = listing.replace("rulings-20230404210031.json", NEW_RULINGS.rsplit("/", 1)[1])
    listing = listing.replace("2023-04-04T21:00:31.996000Z", NEW_RULINGS_UPDATED)
    site.replace(LISTING, listing.encode("utf-8"))
    site.replace(NEW_RULINGS, json.dumps(rulings).encode("utf-8"), "application/json")


def recorded_rulings() -> list[dict[str, Any]]:
    return json.loads((SITE / "scryfall-data" / "constructed" / RULINGS.rsplit("/", 1)[1]).read_text("utf-8"))


def changed_rulings() -> list[dict[str, Any]]:
    """Two Deathrite Shaman rulings removed, one Jace ruling reworded, one added."""
    rulings = [r for r in recorded_rulings() if r["oracle_id"] != DEATHRITE]
    for ruling in rulings:
        if ruling["comment"].startswith("You can control two of this permanent"):
            ruling["comment"] = REWORDED
    rulings.append({"object": "ruling", "oracle_id": JACE, "source": "wotc",
                    "published_at": "2023-04-05", "comment": ADDED})
    return rulings


# --- the scenarios ---------------------------------------------------------------------


def test_first_refresh_builds_and_a_second_changes_nothing(
    site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = tmp_path / "kb.db"
    # With nothing published yet no build can be saved: the bulk bodies are read for what they
    # keep only once the new file is live (a skip is only possible from the next run on).
    published_when_read = []
    real_kept_fingerprint = job.kept_fingerprint

    def kept_fingerprint(store: RawStore, inputs: list) -> list:
        published_when_read.append(db_path.exists())
        return real_kept_fingerprint(store, inputs)

    monkeypatch.setattr(job, "kept_fingerprint", kept_fingerprint)
    first = run(site, tmp_path)
    assert (first.exit_code, first.status, first.published) == (0, "published", True)
    assert published_when_read == [True]
    assert first.changes["new_cr_versions"] == ["en-2022-02-18"]
    assert first.changes["rulings"]["added"] == 56
    assert first.changes["inputs"] == 3
    db = sqlite_utils.Database(db_path)
    assert db["rules"].count == 2772
    assert db["rulings"].count == 56
    assert [(r["id"], r["status"], r["exit_code"]) for r in db["refresh_runs"].rows] == [(1, "published", 0)]
    before_sha, before_digest = sha(db_path), digest(db_path)
    seen = len(site.requests)

    second = run(site, tmp_path)

    assert (second.exit_code, second.status, second.published) == (0, "unchanged", False)
    requests = site.requests[seen:]
    assert [r["path"] for r in requests] == [
        "/robots.txt", RULES_PAGE, CR_TXT.replace(" ", "%20"), ARCHIVE_LISTING, LISTING,
    ]
    documents = requests[1:]
    # Only conditional requests, answered 304 with no body; the bulk files are not even asked.
    assert all("if-none-match" in r["headers"] for r in documents)
    assert [r["status"] for r in documents] == [304, 304, 304, 304]
    assert sum(r["bytes"] for r in documents) == 0
    assert {name: s["bytes"] for name, s in second.sources.items()} == {"wizards-cr": 0, "cr-archive": 0, "scryfall": 0}
    assert second.sources["scryfall"]["skipped"] == 2
    assert sha(db_path) == before_sha
    assert digest(db_path) == before_digest
    with RawStore(tmp_path / "raw") as store:
        runs = store.runs()
    assert [(r["id"], r["status"]) for r in runs] == [(1, "published"), (2, "unchanged")]
    assert runs[1]["details"]["refresh"]["exit_code"] == 0


def test_a_copy_of_the_published_file_is_the_published_file(site: TestSite, tmp_path: Path) -> None:
    """Restored from a CI cache or a backup (another inode), it was built again every run, and
    nothing said why (an operator's review)."""
    assert run(site, tmp_path).status == "published"
    served = tmp_path / "kb.db"
    copy = tmp_path / "copy.db"
    shutil.copy2(served, copy)
    copy.replace(served)
    again = run(site, tmp_path)
    assert (again.status, again.exit_code, again.published) == ("unchanged", 0, False), again.message


def test_a_file_published_by_other_code_is_built_again_with_no_document_changed(
    site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade (a fixed parser, a new column) reaches the site at the next refresh, not at the
    next change upstream: the code that built the served file is part of what "unchanged" means."""
    run(site, tmp_path)
    monkeypatch.setattr(job, "build_code_fingerprint", lambda: "another version of the code")

    upgraded = run(site, tmp_path)

    assert (upgraded.exit_code, upgraded.status, upgraded.published) == (0, "published", True)
    assert upgraded.changes["build_code_changed"] is True
    assert upgraded.message == (
        "published 3 documents; new CR versions: none; rulings +0 ~0 -0;"
        " rebuilt by this version of the code (the served file was built by another)"
    )
    # The same rows (this code's change changes none): the linking code is unchanged, so the CR
    # and the citations were carried.
    assert upgraded.changes["cr_documents_carried"] == 1 and upgraded.changes["ruling_links_carried"] == 56
    assert all((table["added"], table["changed"], table["removed"]) == (0, 0, 0)
               for table in upgraded.changes["tables"].values())
    again = run(site, tmp_path)
    assert (again.status, again.published) == ("unchanged", False)
    assert "build_code_changed" not in again.changes


def test_a_daily_card_file_with_one_card_reworded_counts_that_card_alone_as_changed(
    site: TestSite, tmp_path: Path
) -> None:
    """Scryfall publishes its card file every day under a new dated URL: the new document is the
    source of every card's Oracle text, but a card whose text, cost and numbers are those of the
    day before has not changed. The run's table counts say so, and name the one card that has."""
    run(site, tmp_path)
    cards = json.loads((SITE / "scryfall-data" / "constructed" / ORACLE_CARDS.rsplit("/", 1)[1]).read_text("utf-8"))
    for card in cards:
        if card["name"] == "Phelddagrif":
            card["oracle_text"] = card["oracle_text"].replace("gains 2 life", "gains 3 life")
    new_path = ORACLE_CARDS.replace("20230404210321", "20230405210321")
    listing = (SITE / "scryfall" / "bulk-data-2023-04-04.json").read_text(encoding="utf-8")
    listing = listing.replace(ORACLE_CARDS.rsplit("/", 1)[1], new_path.rsplit("/", 1)[1])
    listing = listing.replace("2023-04-04T21:03:21.500000Z", "2023-04-05T21:03:21.500000Z")
    site.replace(LISTING, listing.encode("utf-8"))
    site.replace(new_path, json.dumps(cards).encode("utf-8"), "application/json")

    result = run(site, tmp_path)

    assert (result.exit_code, result.status) == (0, "published"), result.message
    tables = result.changes["tables"]
    assert tables["cards"] == {"before": 7, "after": 7, "added": 0, "changed": 1, "removed": 0}
    db = sqlite_utils.Database(tmp_path / "kb.db")
    # Every card's text is now credited to the new file (the page says whose wording it shows).
    assert {row[0].rsplit("/", 1)[1] for row in db.execute(
        "select d.url from cards join documents d on d.id = cards.oracle_document_id")} == {
        new_path.rsplit("/", 1)[1]}


def test_a_newer_cr_and_changed_rulings_are_recorded_exactly(site: TestSite, tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    run(site, tmp_path)
    first_seen = {
        r["text"]: r["first_seen"]
        for r in sqlite_utils.Database(db_path).query("select text, first_seen from rulings")
    }
    site.replace(CR_TXT, SITE / "spare" / "MagicCompRules-2022-04-29.txt")
    serve_rulings(site, changed_rulings())

    result = run(site, tmp_path)

    assert (result.exit_code, result.status) == (0, "published"), result.message
    assert result.changes["new_cr_versions"] == ["en-2022-04-29"]
    assert result.changes["rulings"] == {
        "added": 1, "changed": 1, "removed": 2, "reappeared": 0, "still_removed": 0,
    }
    # The kinds of quality issues whose count the run changed (the new edition's reading notes
    # among them), as the message says them.
    assert result.changes["quality_issues"] == {
        "card-data-missing": {"before": 1, "after": 0}, "cr-format": {"before": 2, "after": 6},
    }
    assert result.message == (
        "published 4 documents; new CR versions: en-2022-04-29; rulings +1 ~1 -2;"
        " quality issues card-data-missing 1→0, cr-format 2→6"
    )
    # A new CR version: the history differs, so every ruling was linked again, and the CR
    # documents differ, so every one was read again.
    assert "ruling_links_carried" not in result.changes
    assert "cr_documents_carried" not in result.changes
    tables = result.changes["tables"]
    assert tables["cr_versions"] == {"before": 1, "after": 2, "added": 1, "changed": 0, "removed": 0}
    # As rows: the reworded ruling has a new id (added), the added one is new, and the two
    # vanished ones and the earlier wording are kept with removed_upstream flipped (changed).
    assert tables["rulings"] == {"before": 56, "after": 58, "added": 2, "changed": 3, "removed": 0}
    assert tables["cards"] == {"before": 7, "after": 7, "added": 0, "changed": 0, "removed": 0}
    db = sqlite_utils.Database(db_path)
    assert sorted(r["id"] for r in db["cr_versions"].rows) == ["en-2022-02-18", "en-2022-04-29"]
    removed = list(db.query(
        "select oracle_id, removed_upstream, first_seen, last_seen from rulings where removed_upstream = 1"
        " and reworded_as is null"
    ))
    assert [r["oracle_id"] for r in removed] == [DEATHRITE, DEATHRITE]
    deathrite_texts = {r["comment"] for r in recorded_rulings() if r["oracle_id"] == DEATHRITE}
    assert {r["text"] for r in db.query(
        "select text from rulings where removed_upstream = 1 and reworded_as is null")} == deathrite_texts
    # Their sightings and the superseded bulk file they were seen in came along.
    assert db.execute(
        "select count(*) from ruling_sightings join rulings on rulings.id = ruling_id"
        " where removed_upstream = 1 and reworded_as is null"
    ).fetchone()[0] == 2
    assert db.execute("select count(*) from documents where status = 'superseded'").fetchone()[0] == 1
    assert list(db.execute("pragma foreign_key_check")) == []
    # The reworded ruling kept the first_seen of its earlier wording; search finds removed ones.
    old_wording = "You can control two of this permanent, one front-face up and the other back-face up, at the same time."
    reworded = db.execute("select id, first_seen, removed_upstream from rulings where text = ?", [REWORDED]).fetchone()
    assert reworded[1:] == (first_seen[old_wording], 0)
    # The earlier wording keeps its id (its URL was published), pointing at the ruling it became.
    assert db.execute("select removed_upstream, reworded_as from rulings where text = ?", [old_wording]).fetchone() == (
        1, reworded[0])
    assert db.execute(
        "select count(*) from rulings_fts where rulings_fts match 'mana AND ability AND stack'"
    ).fetchone()[0] >= 1
    # Every word of the index is in its word list, those of the carried rulings included.
    db.execute("create virtual table temp.words using fts5vocab(main, rulings_fts, row)")
    assert db.execute(
        f"select term from temp.words where {LETTER_TERMS} and term not in"
        " (select term from search_terms where index_name = 'rulings_fts')"
    ).fetchall() == []
    # Inputs: every CR body ever fetched (each a version), only the newest bulk rulings file.
    with RawStore(tmp_path / "raw") as store:
        inputs, left_out = select_inputs(store)
    assert [(d.url.removeprefix(site.base), d.format, d.source_id) for d in inputs] == [
        ("/wizards-media/2024/downloads/MagicCompRules%2020240607.txt", "cr-txt", "wizards"),
        ("/scryfall-data/oracle-cards/oracle-cards-20230404210321.json", "scryfall-bulk-cards", "scryfall"),
        ("/wizards-media/2024/downloads/MagicCompRules%2020240607.txt", "cr-txt", "wizards"),
        (NEW_RULINGS, "scryfall-bulk-rulings", "scryfall"),
    ]
    assert [url.removeprefix(site.base) for url in left_out] == [ARCHIVE_LISTING, LISTING, RULES_PAGE, RULINGS]
    runs = list(db.query("select id, status, exit_code, changes from refresh_runs order by id"))
    assert [(r["id"], r["status"], r["exit_code"]) for r in runs] == [(1, "published", 0), (2, "published", 0)]
    assert json.loads(runs[1]["changes"])["rulings"]["removed"] == 2

    # Still gone next time: kept, counted as still removed, never removed twice.
    serve_rulings(site, [*changed_rulings(), {"object": "ruling", "oracle_id": JACE, "source": "wotc",
                                              "published_at": "2023-04-06", "comment": ADDED + " (2)"}])
    site.replace(LISTING, site._body(site._route(LISTING)).replace(  # type: ignore[arg-type]
        NEW_RULINGS_UPDATED.encode(), b"2023-04-06T21:00:31.996000Z"))
    third = run(site, tmp_path)
    assert third.changes["rulings"] == {
        "added": 1, "changed": 0, "removed": 0, "reappeared": 0, "still_removed": 2,
    }
    # The same CR: every ruling but the added one kept the citations the served file had.
    published = sqlite_utils.Database(db_path)
    listed = published.execute("select count(*) from rulings where removed_upstream = 0").fetchone()[0]
    assert third.changes["ruling_links_carried"] == listed - 1
    # The same two CR documents: their tables copied from the served file, not read again.
    assert third.changes["cr_documents_carried"] == 2
    # Recorded in the published file's run too.
    recorded = published.execute("select changes from refresh_runs order by id desc limit 1").fetchone()[0]
    assert json.loads(recorded)["ruling_links_carried"] == listed - 1


def test_a_ruling_whose_date_was_corrected_keeps_its_earlier_row_pointing_at_it(site: TestSite, tmp_path: Path) -> None:
    """A date is part of a ruling's id: corrected upstream, the ruling was "removed" and the same
    text "added" under a new id, with nothing joining the two."""
    db_path = tmp_path / "kb.db"
    run(site, tmp_path)
    rulings = recorded_rulings()
    moved = next(r for r in rulings if r["oracle_id"] == DEATHRITE)
    old_id = sqlite_utils.Database(db_path).execute(
        "select id from rulings where text = ? and published_at = ?", [moved["comment"], moved["published_at"]]
    ).fetchone()[0]
    moved["published_at"] = "2016-06-09"
    serve_rulings(site, rulings)

    result = run(site, tmp_path)

    assert result.changes["rulings"] == {"added": 0, "changed": 1, "removed": 0, "reappeared": 0, "still_removed": 0}
    db = sqlite_utils.Database(db_path)
    new_id = db.execute("select id from rulings where text = ? and published_at = '2016-06-09'", [moved["comment"]]).fetchone()[0]
    assert db.execute("select removed_upstream, reworded_as from rulings where id = ?", [old_id]).fetchone() == (1, new_id)
    live = db.execute("select count(*) from rulings where removed_upstream = 0 and text = ?", [moved["comment"]]).fetchone()
    assert live == (1,)


def test_rulings_of_a_card_identified_later_keep_their_earlier_ids_pointing_at_it(tmp_path: Path) -> None:
    """The German page names its card only by its German name: its rulings are keyed on that name
    until card data names the card, then on the Oracle card. The earlier rows stood beside the new
    ones as rulings removed upstream, nothing joining the two (the card data is a constructed
    fixture: see tests/fixtures/constructed/README.md)."""
    from click.testing import CliRunner

    from kb.cli import cli
    from kb.refresh.carry import carry_rulings

    fixtures = Path(__file__).parent.parent / "fixtures"
    german = fixtures / "pages" / "de-lethal-scheme-000.txt"
    card = [fixtures / "constructed" / "search-lethal-scheme.json", fixtures / "constructed" / "rulings-lethal-scheme.json"]
    served, built = tmp_path / "served.db", tmp_path / "built.db"
    for db_path, files, source in ((served, [german], "page-capture"), (built, [german], "page-capture"),
                                   (built, card, "scryfall")):
        result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", source, *map(str, files)])
        assert result.exit_code == 0, result.output
    db = sqlite_utils.Database(built)
    db.execute("attach database ? as old", [str(served)])
    changes = carry_rulings(db)
    assert (changes.changed, changes.removed) == (11, 0)
    assert db.execute(
        "select count(*) from main.rulings as earlier join main.rulings as now on now.id = earlier.reworded_as"
        " where earlier.card_name = 'Tödliches Komplott' and earlier.removed_upstream = 1"
        " and now.oracle_id = '00000000-0000-4000-8000-00000000c0de' and now.published_at = earlier.published_at"
    ).fetchone()[0] == 11


@pytest.mark.long_proof
def test_a_refresh_killed_during_the_build_leaves_the_served_database(site: TestSite, tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    run(site, tmp_path)
    served_sha = sha(db_path)
    site.replace(CR_TXT, SITE / "spare" / "MagicCompRules-2022-04-29.txt")
    marker = tmp_path / "paused"
    env = {**os.environ, "MTGKB_REFRESH_PAUSE_BEFORE_SWAP": f"60:{marker}"}
    command = [sys.executable, "-m", "kb.cli.refresh", *CLI_SOURCES, "--raw", str(tmp_path / "raw"), "--db", str(db_path),
               "--base-url", f"wizards-cr={site.url('wizards-cr')}",
               "--base-url", f"cr-archive={site.url('cr-archive')}",
               "--base-url", f"scryfall={site.url('scryfall')}", "--timeout", "5"]
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180  # a generous bound for a loaded two-core machine, not a timing
        while not marker.exists():
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the refresh never reached the swap"
            time.sleep(0.05)
        # The new file is complete and validated, one rename away: kill it there.
        assert list(tmp_path.glob(".kb.db.building-*"))
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    assert sha(db_path) == served_sha
    assert [p.name for p in tmp_path.glob(".kb.db.building-*")] == [f".kb.db.building-{child.pid}"]

    after = run(site, tmp_path)

    assert (after.exit_code, after.status) == (0, "published")
    assert after.changes["new_cr_versions"] == ["en-2022-04-29"]
    assert list(tmp_path.glob(".kb.db.building-*")) == []
    runs = list(sqlite_utils.Database(db_path).query("select id, status from refresh_runs order by id"))
    # The killed run is in the store's state as it was left: interrupted.
    assert runs == [
        {"id": 1, "status": "published"}, {"id": 2, "status": "interrupted"}, {"id": 3, "status": "published"},
    ]


def test_a_429_storm_with_retry_after_is_ridden_out(site: TestSite, tmp_path: Path) -> None:
    clock = FakeClock()
    site.fail(LISTING, "429", times=3, retry_after=5)
    site.fail(CR_TXT, "429", times=2, retry_after=3)

    result = run(site, tmp_path, clock)

    assert (result.exit_code, result.status) == (0, "published")
    assert [r["status"] for r in site.requests_to(LISTING)] == [429, 429, 429, 200]
    assert [r["status"] for r in site.requests_to(CR_TXT)] == [429, 429, 200]
    assert result.sources["scryfall"]["failed"] == 0
    assert result.sources["wizards-cr"]["failed"] == 0
    # Retry-After honoured; Scryfall's 429 is a 30-second lockout of the host.
    assert clock.sleeps.count(3.0) == 2
    assert clock.slept >= 3 * 30 + 2 * 3


@pytest.mark.usefixtures("cli_on_a_fake_clock")
def test_one_failing_source_exits_2_and_publishes_the_others(site: TestSite, tmp_path: Path) -> None:
    site.fail(RULES_PAGE, "status", times=None, status=404)
    runner = CliRunner()
    result = runner.invoke(refresh_command, [
        *CLI_SOURCES, "--raw", str(tmp_path / "raw"), "--db", str(tmp_path / "kb.db"),
        "--base-url", f"wizards-cr={site.url('wizards-cr')}", "--base-url", f"scryfall={site.url('scryfall')}",
        "--base-url", f"cr-archive={site.url('cr-archive')}",
    ])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1
    assert "wizards-cr" in result.stderr
    db = sqlite_utils.Database(tmp_path / "kb.db")
    assert (db["cr_versions"].count, db["cards"].count, db["rulings"].count) == (0, 7, 56)
    assert [(r["status"], r["exit_code"]) for r in db["refresh_runs"].rows] == [("partial", 2)]
    # A first run: the failed source has no earlier data to keep (it was said to keep it).
    (message,) = [r["message"] for r in db["refresh_runs"].rows]
    assert message.endswith("; failed sources with no data yet: wizards-cr"), message


@pytest.mark.usefixtures("cli_on_a_fake_clock")
def test_every_source_failing_exits_1_and_leaves_the_file_byte_identical(site: TestSite, tmp_path: Path) -> None:
    run(site, tmp_path)
    served_sha = sha(tmp_path / "kb.db")
    site.fail(RULES_PAGE, "status", times=None, status=404)
    site.fail(LISTING, "status", times=None, status=404)
    site.fail(ARCHIVE_LISTING, "status", times=None, status=404)
    result = CliRunner().invoke(refresh_command, [
        *CLI_SOURCES, "--raw", str(tmp_path / "raw"), "--db", str(tmp_path / "kb.db"),
        "--base-url", f"wizards-cr={site.url('wizards-cr')}", "--base-url", f"scryfall={site.url('scryfall')}",
        "--base-url", f"cr-archive={site.url('cr-archive')}",
    ])
    assert result.exit_code == 1
    # One line, each failed source with its reason.
    base = site.base
    assert result.stderr == (
        f"Error: failed sources: wizards-cr ({base}{RULES_PAGE}: HTTP 404), cr-archive ({base}{ARCHIVE_LISTING}: HTTP 404),"
        f" scryfall ({base}{LISTING}: HTTP 404); nothing could be published:"
        " every source failed: wizards-cr, cr-archive, scryfall\n"
    )
    assert sha(tmp_path / "kb.db") == served_sha
    with RawStore(tmp_path / "raw") as store:
        assert [(r["status"], r["details"]["refresh"]["exit_code"]) for r in store.runs()] == [
            ("published", 0), ("failed", 1),
        ]


@pytest.mark.parametrize("timeout", ["0", "-5"])
def test_a_timeout_no_request_can_wait_is_a_usage_error_before_any_run(tmp_path: Path, timeout: str) -> None:
    # 0 retried for 16 s and failed every source as "unreachable"; -5 "fetcher crashed": both
    # recorded as failed runs, read as an outage upstream (an operator's review).
    from scraper.cli import fetch as fetch_command

    for command in (refresh_command, fetch_command):
        result = CliRunner().invoke(command, ["--raw", str(tmp_path / "raw"), "--timeout", timeout])
        assert result.exit_code == 2 and "Invalid value for '--timeout'" in result.output, result.output
    assert not (tmp_path / "raw").exists()


def test_a_second_refresh_exits_at_once_while_one_runs(site: TestSite, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    with refresh_lock(raw):
        started = time.monotonic()
        result = CliRunner().invoke(refresh_command, [
            "--raw", str(raw), "--db", str(tmp_path / "kb.db"),
            "--base-url", f"wizards-cr={site.url('wizards-cr')}",
        ])
        elapsed = time.monotonic() - started
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: another refresh is running (pid {os.getpid()} since ")
    assert f"lock {raw / 'refresh.lock'} is held" in result.stderr
    assert elapsed < 2
    assert site.requests == []
    assert not (tmp_path / "kb.db").exists()


def test_a_refresh_exits_at_once_while_another_writer_works_on_its_database(site: TestSite, tmp_path: Path) -> None:
    """An import by hand while a refresh built was lost to the refresh's rename (an operator's
    review): the database's writer lock is taken before anything is fetched or read."""
    import fcntl

    from kb.build.writer_lock import lock_path

    run(site, tmp_path)
    served_sha = sha(tmp_path / "kb.db")
    asked = len(site.requests)
    with open(lock_path(tmp_path / "kb.db"), "a+", encoding="utf-8") as other:
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        refused = CliRunner().invoke(refresh_command, [
            "--raw", str(tmp_path / "raw"), "--db", str(tmp_path / "kb.db"),
            "--base-url", f"wizards-cr={site.url('wizards-cr')}",
        ])
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"Error: {tmp_path / 'kb.db'}: another writer is at work on it")
    assert "nothing written" in refused.stderr
    assert len(site.requests) == asked
    assert sha(tmp_path / "kb.db") == served_sha
    with RawStore(tmp_path / "raw") as store:
        assert [r["status"] for r in store.runs()] == ["published"]


def test_a_shrinking_table_is_not_published_unless_allowed(site: TestSite, tmp_path: Path) -> None:
    run(site, tmp_path)
    served_sha = sha(tmp_path / "kb.db")
    cited = sqlite_utils.Database(tmp_path / "kb.db").execute(
        "select ruling_id, rule_number, version_id, method, status from ruling_rules order by 1, 2, 3").fetchall()
    assert cited
    serve_rulings(site, recorded_rulings()[:20])

    refused = run(site, tmp_path)

    assert (refused.exit_code, refused.status, refused.published) == (1, "failed", False)
    assert refused.message.startswith("not published: ruling_records would shrink from 56 to 20 rows (-64%)")
    assert refused.message.endswith(" (use --allow-shrink if this is expected)")
    # Where it comes from: the new bulk file (the refusal named tables only: a second review).
    assert f"; documents new since the served file: {site.url('scryfall-data')}" in refused.message
    assert NEW_RULINGS.rsplit("/", 1)[1] in refused.message
    assert sha(tmp_path / "kb.db") == served_sha

    allowed = run(site, tmp_path, allow_shrink=True)

    assert (allowed.exit_code, allowed.status) == (0, "published")
    assert allowed.changes["rulings"]["removed"] == 36
    db = sqlite_utils.Database(tmp_path / "kb.db")
    assert db.execute("select count(*) from rulings where removed_upstream = 1").fetchone()[0] == 36
    # The rulings kept as removed upstream keep the rules they cite, linked as before (they were
    # kept without them: gone from rule pages and citations_to_check; an operator's review).
    assert db.execute(
        "select ruling_id, rule_number, version_id, method, status from ruling_rules order by 1, 2, 3").fetchall() == cited


def announce_rulings(site: TestSite, name: str, updated_at: str, body: bytes) -> None:
    """Announce a bulk rulings file under a dated name of its own, as Scryfall does each day."""
    listing = (SITE / "scryfall" / "bulk-data-2023-04-04.json").read_text(encoding="utf-8")
    listing = listing.replace("rulings-20230404210031.json", name).replace("2023-04-04T21:00:31.996000Z", updated_at)
    site.replace(LISTING, listing.encode("utf-8"))
    site.replace(RULINGS.rsplit("/", 1)[0] + "/" + name, body, "application/json")


def test_an_unreadable_new_bulk_file_keeps_the_rulings_of_the_file_before_it(site: TestSite, tmp_path: Path) -> None:
    """A new bulk file comes under a new dated URL: with no earlier body of that URL to fall back
    on, the first run left it out and published every ruling as removed upstream (after a shrink
    guard that advised --allow-shrink); and once a good newer file came, the bad one, still the
    newest body of its own URL, was blamed in every run (an operator's review, 2026-12-05)."""
    db_path = tmp_path / "kb.db"
    assert run(site, tmp_path).exit_code == 0
    renamed = [{**{k: v for k, v in ruling.items() if k != "comment"}, "text": ruling["comment"]}
               for ruling in recorded_rulings()]  # a renamed field: not the layout of a ruling
    announce_rulings(site, "rulings-20230405210031.json", "2023-04-05T21:00:31.996000Z", json.dumps(renamed).encode())
    published = sha(db_path)
    bad = run(site, tmp_path)
    assert (bad.exit_code, bad.status, bad.failed_sources) == (2, "partial", ["scryfall"])
    # What it fell back on is what was published: the file is left as it is, not built and
    # published again (an operator's review).
    assert (bad.published, bad.changes["rebuilt"], sha(db_path)) == (False, False, published)
    assert bad.message.startswith("nothing changed: ")
    (unreadable,) = bad.changes["unreadable"]
    assert unreadable["url"].endswith("rulings-20230405210031.json") and unreadable["replaced_by_earlier"] is True
    db = sqlite_utils.Database(db_path)
    assert (db["rulings"].count, db.execute("select count(*) from rulings where removed_upstream = 1").fetchone()[0]) == (56, 0)
    # The next run, the site unchanged, chooses what this one built: nothing to build again (it
    # rebuilt and published once more: an operator's review).
    published = sha(db_path)
    again = run(site, tmp_path)
    assert (again.exit_code, again.published, again.changes["rebuilt"]) == (2, False, False)
    assert sha(db_path) == published
    # A good newer file: read, and the bad one no longer blamed.
    announce_rulings(site, "rulings-20230407210031.json", "2023-04-07T21:00:31.996000Z",
                     json.dumps(changed_rulings()).encode())
    healed = run(site, tmp_path)
    assert (healed.exit_code, healed.status, healed.failed_sources) == (0, "published", [])
    assert healed.changes["rulings"]["added"] == 1
    assert run(site, tmp_path).exit_code == 0


@pytest.mark.long_proof
@pytest.mark.parametrize("body", [
    b"[]",
    b'{"object": "error", "code": "not_found", "status": 404, "details": "No such file."}',
    # The API's list shape: read as a rulings response, it was published as one more document
    # beside the old bulk file, and two rulings removed upstream stayed current.
    b'{"object": "list", "has_more": false, "data": []}',
])
def test_a_new_bulk_file_of_no_ruling_is_unreadable_not_a_page(site: TestSite, tmp_path: Path, body: bytes) -> None:
    """A body under a bulk file's URL that no format reads as one was taken for a page (the
    bulk-data listing, the rules page) and left out: "nothing changed", exit 0, in every run,
    while the data went stale (an operator's review). Read as the bulk file it was fetched as."""
    assert run(site, tmp_path).exit_code == 0
    announce_rulings(site, "rulings-20230405210031.json", "2023-04-05T21:00:31.996000Z", body)
    bad = run(site, tmp_path)
    assert (bad.exit_code, bad.failed_sources) == (2, ["scryfall"])
    (unreadable,) = bad.changes["unreadable"]
    assert unreadable["url"].endswith("rulings-20230405210031.json") and unreadable["replaced_by_earlier"] is True
    assert bad.failure_reasons["scryfall"].startswith(unreadable["url"] + ": ")
    assert sqlite_utils.Database(tmp_path / "kb.db")["rulings"].count == 56
    again = run(site, tmp_path)
    assert (again.exit_code, again.failed_sources) == (2, ["scryfall"])


def test_with_no_unreadable_body_no_stored_body_is_read_for_it(site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """still_unreadable sniffed every stored document in every refresh, as the inputs' choice
    had just done (a review of the day's changes)."""
    from kb.refresh import inputs

    assert run(site, tmp_path).exit_code == 0
    with RawStore(tmp_path / "raw") as store:
        monkeypatch.setattr(inputs, "format_of", lambda *_args: pytest.fail("a body was read"))
        assert inputs.still_unreadable(store) == []


@pytest.mark.long_proof
def test_rulings_back_upstream_are_counted_in_the_runs_line(site: TestSite, tmp_path: Path) -> None:
    assert run(site, tmp_path).exit_code == 0
    without = [ruling for ruling in recorded_rulings() if ruling["oracle_id"] != DEATHRITE]
    announce_rulings(site, "rulings-20230405210031.json", "2023-04-05T21:00:31.996000Z", json.dumps(without).encode())
    removed = run(site, tmp_path, allow_shrink=True)
    assert removed.changes["rulings"]["removed"] == 2, removed.message
    announce_rulings(site, "rulings-20230406210031.json", "2023-04-06T21:00:31.996000Z",
                     json.dumps(recorded_rulings()).encode())
    back = run(site, tmp_path, allow_shrink=True)  # the file that carried the removed ones goes
    # It said "rulings +0 ~0 -0" for two rulings a source published again (an operator's review).
    assert back.changes.get("rulings", {}).get("reappeared") == 2, back.message
    assert "rulings +0 ~0 -0 (back upstream: 2)" in back.message


def test_a_stored_document_that_cannot_be_read_keeps_its_last_good_data(site: TestSite, tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    assert run(site, tmp_path).exit_code == 0
    # The site now serves a CR file cut short: it downloads completely (so the fetch keeps it)
    # but is not a whole CR document.
    newer = (SITE / "spare" / "MagicCompRules-2022-04-29.txt").read_bytes()
    site.replace(CR_TXT, newer[:400_000], "text/plain")
    published = sha(db_path)
    result = run(site, tmp_path)
    # What it falls back on is what was published: the file is left as it is (it was built and
    # published again, the same content: an operator's review); the run is the raw store's.
    assert (result.exit_code, result.status, result.published) == (2, "partial", False)
    assert sha(db_path) == published
    assert result.failed_sources == ["wizards-cr"]
    (unreadable,) = result.changes["unreadable"]
    assert unreadable["url"].endswith("MagicCompRules%2020240607.txt")
    assert "truncated" in unreadable["error"] and unreadable["replaced_by_earlier"] is False
    db = sqlite_utils.Database(db_path)
    assert [row["id"] for row in db["cr_versions"].rows] == ["en-2022-02-18"]
    assert db["rulings"].count == 56
    with RawStore(tmp_path / "raw") as store:
        assert [run["status"] for run in store.runs() if run["id"] == result.run_id] == ["partial"]
    assert result.failure_reasons["wizards-cr"].startswith(unreadable["url"] + ": ")
    assert "truncated" in result.failed_with_reasons()
    # While the site still serves the cut file, its source has failed, and the body is not read again.
    again = run(site, tmp_path)
    assert (again.exit_code, again.status, again.failed_sources) == (2, "partial", ["wizards-cr"])
    assert "still the body it serves, which cannot be read" in again.failure_reasons["wizards-cr"]
    # Once it serves a good file, the cut one is history: no run reads it or blames its source
    # again (every later rebuild read it, refused it and exited 2, the site answering well).
    site.replace(CR_TXT, newer + b"\r\n", "text/plain")
    healed = run(site, tmp_path)
    assert (healed.exit_code, healed.status, healed.failed_sources) == (0, "published", [])
    assert "unreadable" not in healed.changes
    published = sqlite_utils.Database(db_path)  # the file a publish swapped in
    assert sorted(row["id"] for row in published["cr_versions"].rows) == ["en-2022-02-18", "en-2022-04-29"]
    serve_rulings(site, changed_rulings())
    rebuilt = run(site, tmp_path)
    assert (rebuilt.exit_code, rebuilt.status, rebuilt.failed_sources) == (0, "published", [])


@pytest.mark.long_proof
@pytest.mark.usefixtures("cli_on_a_fake_clock")
def test_replaced_bulk_bodies_are_removed_unless_kept(site: TestSite, tmp_path: Path) -> None:
    run(site, tmp_path)
    with RawStore(tmp_path / "raw") as store:
        old = store.latest_good(site.base + RULINGS)
    assert old is not None and old.sha256 is not None
    serve_rulings(site, changed_rulings())
    kept = CliRunner().invoke(refresh_command, [
        "scryfall", "--bulk-type", "rulings", "--raw", str(tmp_path / "raw"), "--db", str(tmp_path / "kb.db"),
        "--base-url", f"scryfall={site.url('scryfall')}", "--keep-superseded",
    ])
    assert kept.exit_code == 0, kept.output
    with RawStore(tmp_path / "raw") as store:
        assert store.path_for(old.sha256).exists()
    serve_rulings(site, [*changed_rulings(), {"object": "ruling", "oracle_id": JACE, "source": "wotc",
                                              "published_at": "2023-04-06", "comment": ADDED + " (2)"}])
    site.replace(LISTING, site._body(site._route(LISTING)).replace(  # type: ignore[arg-type]
        NEW_RULINGS_UPDATED.encode(), b"2023-04-06T21:00:31.996000Z"))
    # The served file as if linked by other code (an upgrade): no citation of it is kept.
    with RawStore(tmp_path / "raw") as store:
        published = store.get_state(job.PUBLISHED_STATE)
        assert published is not None and published["linking_code"]
        store.set_state(job.PUBLISHED_STATE, {**published, "linking_code": "code of another release"})
    second = run(site, tmp_path)
    assert (second.exit_code, second.status, second.changes["removed_superseded_bodies"]) == (0, "published", 1)
    assert "ruling_links_carried" not in second.changes
    assert "cr_documents_carried" not in second.changes
    with RawStore(tmp_path / "raw") as store:
        assert not store.path_for(old.sha256).exists() and store.body_removed(old.sha256)


def test_a_file_built_from_a_snapshot_is_refused_with_the_way_to_refresh_it(site: TestSite, tmp_path: Path) -> None:
    """The first refresh onto a file `make run` built advised --allow-shrink alone, which drops the
    snapshot's documents and publishes their rulings as removed upstream (an operator's review):
    the refusal names the documents no raw store has and --snapshot, which adds them."""
    snapshot = tmp_path / "snapshot"
    (snapshot / "gatherer").mkdir(parents=True)
    for name in ("crackleburr.html", "recall.html"):
        shutil.copy(ROOT / "data" / "snapshot" / "gatherer" / name, snapshot / "gatherer" / name)
    (snapshot / "manifest.json").write_text(json.dumps([
        {"path": f"gatherer/{name}", "url": None, "source": "gatherer", "lang": None, "fetched_at": None}
        for name in ("crackleburr.html", "recall.html")
    ]), encoding="utf-8")
    built = CliRunner().invoke(cli, ["build", "--snapshot", str(snapshot), "--db", str(tmp_path / "kb.db"), "-q"])
    assert built.exit_code == 0, built.output
    served = sha(tmp_path / "kb.db")
    refused = run(site, tmp_path)
    assert refused.exit_code == 1 and sha(tmp_path / "kb.db") == served
    assert "the served file holds 2 documents this build does not (gatherer 2)" in refused.message
    assert "is refreshed with --snapshot DIR (the folder it was built from; data/snapshot by default)" in refused.message
    # The way to keep them is the last word, not "use --allow-shrink" (a second review).
    assert refused.message.endswith("--allow-shrink publishes without them, their rulings as removed upstream")
    # Given --snapshot with the wrong folder, it is not advised again as the way (an operator's review).
    other = tmp_path / "other-snapshot"
    (other / "gatherer").mkdir(parents=True)
    shutil.copy(snapshot / "gatherer" / "crackleburr.html", other / "gatherer" / "crackleburr.html")
    (other / "manifest.json").write_text(json.dumps([json.loads((snapshot / "manifest.json").read_text())[0]]), encoding="utf-8")
    wrong_folder = run(site, tmp_path, snapshot=other)
    assert wrong_folder.exit_code == 1 and sha(tmp_path / "kb.db") == served
    assert ("the served file holds 1 document this build does not (gatherer 1), though --snapshot added its folder's"
            " files to the raw store: the file was built from another folder") in wrong_folder.message
    assert "is refreshed with --snapshot DIR" not in wrong_folder.message
    seeded = run(site, tmp_path, snapshot=snapshot)
    assert seeded.exit_code == 0, seeded.message
    assert sqlite_utils.Database(tmp_path / "kb.db").execute(
        "select count(*) from documents where source_id = 'gatherer'").fetchone()[0] == 2


def test_two_printings_rulings_lists_of_one_bodys_bytes_stay_two_documents(site: TestSite, tmp_path: Path) -> None:
    """A raw store names each body by its bytes: two printings' rulings lists of the same bytes are
    one file there. Read once as "one file given twice", a refresh dropped a printing's list, 13
    sightings lost, exit 0 (an upgrade's review)."""
    snapshot = tmp_path / "snapshot"
    (snapshot / "scryfall").mkdir(parents=True)
    entries = [entry for entry in json.loads((ROOT / "data" / "snapshot" / "manifest.json").read_text(encoding="utf-8"))
               if entry["path"].startswith("scryfall/rulings-") and "alrund" in entry["path"]
               and "b443504e" not in entry["path"]]
    for entry in entries:
        shutil.copy(ROOT / "data" / "snapshot" / entry["path"], snapshot / entry["path"])
    (snapshot / "manifest.json").write_text(json.dumps(entries), encoding="utf-8")
    seeded = run(site, tmp_path, snapshot=snapshot)
    assert seeded.published, seeded.message
    db = sqlite_utils.Database(tmp_path / "kb.db")
    urls = {url for (url,) in db.execute("select url from documents where format = 'scryfall-rulings'")}
    assert {entry["url"] for entry in entries} <= urls
    assert "read_once" not in seeded.changes


def test_a_first_refresh_whose_archive_serves_the_snapshots_editions_publishes(site: TestSite, tmp_path: Path) -> None:
    """The file `make run` built holds the snapshot's CR editions; the first refresh, seeded with
    --snapshot as the docs say, fetches the same bytes from the archive under other URLs, and
    keeps each edition once, under the URL fetched first. Counted by id, the snapshot's copies
    were "documents this build does not" hold and the refresh was refused (a code review): the
    same bytes are the same document."""
    snapshot = tmp_path / "snapshot"
    (snapshot / "cr" / "en").mkdir(parents=True)
    names = ("2003-03-15.txt", "2009-10-01.txt")
    for name in names:
        shutil.copy(ROOT / "data" / "snapshot" / "cr" / "en" / name, snapshot / "cr" / "en" / name)
    (snapshot / "manifest.json").write_text(json.dumps([
        entry for entry in json.loads((ROOT / "data" / "snapshot" / "manifest.json").read_text(encoding="utf-8"))
        if entry["path"] in {f"cr/en/{name}" for name in names}]), encoding="utf-8")
    built = CliRunner().invoke(cli, ["build", "--snapshot", str(snapshot), "--db", str(tmp_path / "kb.db"), "-q"])
    assert built.exit_code == 0, built.output
    site.replace(ARCHIVE_LISTING, SITE / "cr-archive" / "constructed" / "metadata-two-files.json")
    for name in names:
        site.replace(f"/github-raw/xremming/rulesraker/main/archive/txt/{name}", SITE / "cr-archive" / "txt" / name,
                     "text/plain; charset=utf-8")
    seeded = run(site, tmp_path, snapshot=snapshot)
    # Published; exit 2 for what the build reads in these two editions years apart (a rule of
    # 2003 missing from 2009's file and back in 2022's), not for a refusal.
    assert (seeded.exit_code, seeded.published) == (2, True), seeded.message
    assert list(seeded.failure_reasons) == ["cr-archive"] and "is missing from it" in seeded.failure_reasons["cr-archive"]
    held = {row[0] for row in sqlite_utils.Database(tmp_path / "kb.db").execute("select id from cr_versions")}
    assert {"en-2003-03-15", "en-2009-10-01"} <= held


@pytest.mark.long_proof
def test_a_stale_listing_naming_an_older_bulk_file_rolls_nothing_back(site: TestSite, tmp_path: Path) -> None:
    """A listing served from a stale cache names the rulings file before the one published. Its
    body, removed as superseded, was fetched again, and taken as the newest, being the last
    fetched: the rulings rolled back to it, "back upstream: 1" (an operator's review). The file
    named as made later stays."""
    run(site, tmp_path)
    serve_rulings(site, changed_rulings())
    assert run(site, tmp_path).status == "published"
    site.reset()  # the listing names rulings-20230404… again
    stale = run(site, tmp_path, allow_shrink=True)
    assert (stale.exit_code, stale.status) == (0, "unchanged"), stale.message
    texts = [row[0] for row in sqlite_utils.Database(tmp_path / "kb.db").execute(
        "select text from rulings where removed_upstream = 0")]
    assert ADDED in texts and REWORDED in texts


def test_an_empty_bulk_listing_is_no_document(site: TestSite, tmp_path: Path) -> None:
    """Scryfall's listing with no bulk file in it ("data": []) reads like an empty rulings file: it
    was published as a document, and the next normal run was refused for shrinking (an operator's
    review). The listing is what a refresh reads to find the files, never one of them."""
    site.replace(LISTING, b'{"object": "list", "has_more": false, "data": []}', "application/json")
    result = run(site, tmp_path)
    assert result.exit_code == 2 and "scryfall" in result.failed_sources
    urls = [row[0] for row in sqlite_utils.Database(tmp_path / "kb.db").execute("select url from documents")]
    assert not [url for url in urls if url and url.endswith(LISTING)]
    site.reset()
    assert run(site, tmp_path).exit_code == 0


def test_a_missing_served_file_is_not_built_again_without_its_history_unasked(site: TestSite, tmp_path: Path) -> None:
    """The served file is the only copy of the rulings removed upstream and of when each ruling
    was first seen. Deleted, it was built again from the raw store alone, exit 0, that history
    gone without a word (an operator's review). Now refused until --allow-shrink."""
    assert run(site, tmp_path).exit_code == 0
    db_path = tmp_path / "kb.db"
    db_path.unlink()
    refused = run(site, tmp_path)
    assert (refused.exit_code, refused.status, refused.published) == (1, "failed", False)
    assert refused.message.startswith(f"not published: {db_path}, which a refresh published, is missing. Restore it")
    assert "--allow-shrink" in refused.message and not db_path.exists()
    rebuilt = run(site, tmp_path, allow_shrink=True)
    assert (rebuilt.exit_code, rebuilt.published) == (0, True) and db_path.exists()


def test_an_emptied_served_file_is_named_as_damaged(site: TestSite, tmp_path: Path) -> None:
    """"could not write the new database: no such table: old.rulings" blamed the new file (an
    operator's review): the served file is named, and how to go on."""
    assert run(site, tmp_path).exit_code == 0
    (tmp_path / "kb.db").write_bytes(b"")
    refused = run(site, tmp_path)
    assert refused.exit_code == 1
    assert f"{tmp_path / 'kb.db'}: the database this builds on is damaged (no tables: an empty file)" in refused.message
    assert (tmp_path / "kb.db").read_bytes() == b""


def test_sigterm_during_the_build_is_recorded_as_what_it_was(
    site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped during the build, the run kept its provisional record, "refresh did not finish
    (killed or crashed)" with no exit code: a SIGTERM looked like a crash (an operator's review)."""
    from kb.cli import EXIT_TERMINATED, Terminated

    def stopped(*_args: object, **_kwargs: object) -> None:
        raise Terminated

    monkeypatch.setattr(job, "build_database", stopped)
    with pytest.raises(Terminated):
        run(site, tmp_path)
    with RawStore(tmp_path / "raw") as store:
        (record,) = store.runs()
    refresh_record = record["details"]["refresh"]
    assert (record["status"], refresh_record["exit_code"]) == ("interrupted", EXIT_TERMINATED)
    assert refresh_record["message"].startswith("refresh interrupted (Ctrl-C or SIGTERM) before it published")
    assert not (tmp_path / "kb.db").exists()


@pytest.mark.long_proof
def test_sigterm_as_the_new_file_is_checked_is_recorded_too(
    site: TestSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the build, while the new file was checked and renamed in, a SIGTERM was still recorded
    as "killed or crashed" with no exit code (a second operator's review)."""
    from kb.cli import EXIT_TERMINATED, Terminated
    from kb.refresh import before_swap

    assert run(site, tmp_path).exit_code == 0
    served = sha(tmp_path / "kb.db")
    serve_rulings(site, changed_rulings())

    def stopped() -> None:
        raise Terminated

    monkeypatch.setattr(before_swap, "_pause_for_crash_test", stopped)
    with pytest.raises(Terminated):
        run(site, tmp_path)
    with RawStore(tmp_path / "raw") as store:
        last = store.runs()[-1]
    refresh_record = last["details"]["refresh"]
    assert (last["status"], refresh_record["exit_code"], refresh_record["published"]) == ("interrupted", EXIT_TERMINATED, False)
    assert refresh_record["message"].startswith("refresh interrupted (Ctrl-C or SIGTERM) as it published")
    assert sha(tmp_path / "kb.db") == served


def test_a_bulk_file_under_a_name_of_no_date_is_read_as_the_kind_the_listing_says(site: TestSite, tmp_path: Path) -> None:
    """A mirror's "rulings.json" has no dated name to tell its kind by: "[]" there was left out as a
    page and the run said "nothing changed" (a second operator's review). The listing says it is
    the rulings file: read as one, it is unreadable, and the body before it stands in."""
    announce_rulings(site, "rulings.json", "2023-04-05T21:00:31.996000Z", json.dumps(recorded_rulings()).encode())
    assert run(site, tmp_path).exit_code == 0
    announce_rulings(site, "rulings.json", "2023-04-06T21:00:31.996000Z", b"[]")
    bad = run(site, tmp_path)
    assert (bad.exit_code, bad.failed_sources) == (2, ["scryfall"])
    (unreadable,) = bad.changes["unreadable"]
    assert unreadable["url"].endswith("/rulings.json") and unreadable["replaced_by_earlier"] is True
    assert sqlite_utils.Database(tmp_path / "kb.db")["rulings"].count == 56


@pytest.mark.usefixtures("cli_on_a_fake_clock")
def test_the_korean_chapters_a_refresh_fetches_can_be_named(site: TestSite, tmp_path: Path) -> None:
    """The test site holds the Korean CR's chapter 100 alone (the real recording): `mtgkb fetch`
    could be told so, `mtgkb refresh` could not, and every refresh against it exited 2 naming
    cr-ko (an operator's review)."""
    result = CliRunner().invoke(refresh_command, [
        "cr-ko", "--raw", str(tmp_path / "raw"), "--db", str(tmp_path / "kb.db"),
        "--base-url", f"cr-ko={site.url('cr-ko')}", "--cr-ko-chapter", "100",
    ])
    assert result.exit_code == 0, result.output
    asked = {request["path"] for request in site.requests}
    assert "/cr-ko/100" in asked and "/cr-ko/200" not in asked
    assert sqlite_utils.Database(tmp_path / "kb.db")["cr_versions"].count == 1
