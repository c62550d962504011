"""A rule merged into another (``rule_lineage_links``, kind merge) is said to be, where a removal
shows: ``mtgkb cr-diff``, the diff page and ``citations-to-check``. Each said only "removed" (a
review against Venser's Journal, which pairs Magic Origins' 903.12 with 903.11 and 701.16d with
701.16c, as the links do)."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import sqlite_utils
from click.testing import CliRunner

from kb.cli.history import citations_to_check, cr_diff
from kb.store.ruling_links import LinkWriter
from kb.store.tables import RULING_RULES_COLUMNS


def _run(command, *args: str) -> list[str]:
    result = CliRunner().invoke(command, list(args))
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_cr_diff_names_the_rule_a_removed_rule_was_merged_into(snapshot_db: Path) -> None:
    lines = _run(cr_diff, "en-2015-03-27", "en-2015-07-17", "--db", str(snapshot_db), "--kind", "removed")
    assert [line.split(":")[0] for line in lines[1:]] == [
        "removed          107.13 -> -", "removed          107.14 -> -", "removed          601.5 -> -",
        "removed          601.5a -> -", "removed          701.16d -> - (merged into 701.16c)",
        "removed          903.12 -> - (merged into 903.11)",
    ]
    # Versions apart: the rule it went into, as numbered in the later one (the lineage followed).
    lines = _run(cr_diff, "en-2015-01-23", "en-2026-04-17", "--db", str(snapshot_db), "--kind", "removed")
    merged = [line.split(":")[0].split()[1:] for line in lines[1:] if "merged into" in line]
    assert ["701.16d", "->", "-", "(merged", "into", "701.24c)"] in merged
    assert ["903.12", "->", "-", "(merged", "into", "903.9b)"] in merged


def test_rule_trace_names_the_rule_a_rule_was_merged_into(snapshot_db: Path) -> None:
    from kb.cli.history import rule_trace

    lines = _run(rule_trace, "903.12", "--version", "en-2015-03-27", "--db", str(snapshot_db))
    assert "en-2015-07-17: (removed: merged into 903.11)" in lines
    assert "en-2015-09-26: (absent)" in lines


async def test_the_diff_page_names_the_rule_a_removed_rule_was_merged_into(snapshot_ds) -> None:
    url = "/diff?from=en-2015-03-27&to=en-2015-07-17&kind=removed"
    changes = (await snapshot_ds.client.get(url.replace("/diff", "/diff.json"))).json()["changes"]
    assert {change["old_number"]: change.get("merged_into") for change in changes} == {
        "107.13": None, "107.14": None, "601.5": None, "601.5a": None, "701.16d": "701.16c", "903.12": "903.11"}
    html = (await snapshot_ds.client.get(url)).text
    assert 'merged into <a href="/rule/903.11?version=en-2015-07-17">903.11</a>' in html


def test_a_citation_of_a_merged_rule_names_where_its_text_went(snapshot_db: Path, tmp_path: Path) -> None:
    """A ruling of May 2015 citing 903.12 (written for this test: no real ruling we hold cites a
    rule number), linked as the build links a citation."""
    db_path = tmp_path / "kb.db"
    shutil.copy(snapshot_db, db_path)
    db = sqlite3.connect(db_path)
    rule_id, lineage = db.execute(
        "select id, lineage_id from rules where version_id = 'en-2015-03-27' and number = '903.12'").fetchone()
    with db:
        db.execute("insert into rulings (id, card_name, source, published_at, text, position)"
                   " values (1, 'Constructed Test Card', 'wotc', '2015-05-01', 'See rule 903.12.', 0)")
        link = {"ruling_id": 1, "rule_number": "903.12", "version_id": "en-2015-03-27", "rule_id": rule_id,
                "method": "cited", "status": "removed", "lineage_id": lineage, "published_at": "2015-05-01"}
        LinkWriter(sqlite_utils.Database(db)).write([tuple(link.get(column) for column in RULING_RULES_COLUMNS)])
    assert db.execute("select merged_into, merged_into_current from citations_to_check where ruling_id = 1").fetchall() == [
        ("903.11 of en-2015-07-17", "903.9b")]
    assert _run(citations_to_check, "--db", str(db_path))[1:] == [
        "2015-05-01 Constructed Test Card: rule 903.12 (en-2015-03-27) removed, now -: merged into 903.11 of en-2015-07-17,"
        " today 903.9b"]
