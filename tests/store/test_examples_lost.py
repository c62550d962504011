"""A CR file whose "Example:" paragraphs were not read (kb.store.version_losses.report_examples_lost):
every rule and its text are still there, so no check of the file itself notices."""
from __future__ import annotations

from pathlib import Path

import sqlite_utils
from click.testing import CliRunner

from kb.cli import cli

SNAPSHOT_CR = Path(__file__).parent.parent.parent / "data" / "snapshot" / "cr" / "en"
PRE_2003 = Path(__file__).parent.parent / "fixtures" / "cr" / "pre-2003"

EXAMPLES_LOST_FROM = """
    select changes.new_version_id, count(*) from cr_changes as changes
    where changes.kind in ('changed', 'moved-changed')
        and exists (select 1 from rule_examples where rule_id = changes.old_rule_id)
        and not exists (select 1 from rule_examples where rule_id = changes.new_rule_id)
    group by 1 order by 1"""


def issues(db_path: Path) -> list[str]:
    db = sqlite_utils.Database(db_path)
    return [row[0] for row in db.execute("select detail from quality_issues where kind = 'examples-lost'")]


def test_a_file_without_its_examples_is_named(tmp_path: Path) -> None:
    lines = (SNAPSHOT_CR / "2026-04-17.txt").read_bytes().split(b"\n")
    without = tmp_path / "2026-04-17.txt"
    without.write_bytes(b"\n".join(line for line in lines if not line.startswith(b"Example")))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(SNAPSHOT_CR / "2026-01-16.txt"), str(without)])
    assert result.exit_code == 0, result.output
    db = sqlite_utils.Database(db_path)
    # Every rule of the real file is read, as from the file with its examples.
    assert db.execute("select count(*) from rules where version_id = 'en-2026-04-17'").fetchone() == (3294,)
    assert db.execute(
        "select count(*) from rule_examples join rules on rules.id = rule_id where version_id = 'en-2026-04-17'"
    ).fetchone() == (0,)
    # All 214 (213 before edited subrules kept their letter under a moved rule at 0.45 alike: the
    # last one, its examples cut, was no longer paired with its rule of 2026-01-16).
    expected = [
        "en-2026-04-17: 214 of the 214 rules that print examples in en-2026-01-16 print none in it"
        " (101.2, 101.4, 106.5, 106.6, 106.7, 107.1b, 107.4e, 107.4f, …): its file may have lost its \"Example:\" paragraphs"
    ]
    assert issues(db_path) == expected
    # Read again with the edition before it: said once, as before.
    again = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(SNAPSHOT_CR / "2026-01-16.txt"), str(without)])
    assert again.exit_code == 0, again.output
    assert issues(db_path) == expected


def test_real_updates_take_every_example_from_three_rules_at_most(snapshot_db: Path, tmp_path: Path) -> None:
    """The figure the check's share stands on (kb.store.version_losses.EXAMPLES_LOST_SHARE): the
    snapshot's 31 English editions of 2003–2026, and the two real files before them."""
    db = sqlite_utils.Database(snapshot_db)
    losses = dict(db.execute(EXAMPLES_LOST_FROM).fetchall())
    # 2009's three: 616.1 among them, 2006's 419.9a (two replacement effects, the affected player
    # chooses) with its example, followed since its pairing by likeness anywhere.
    assert losses == {
        "en-2003-10-01": 1, "en-2006-02-01": 2, "en-2009-10-01": 3, "en-2016-09-30": 1, "en-2016-11-11": 1,
        "en-2017-08-25": 1, "en-2025-02-07": 3,
    }
    assert issues(snapshot_db) == []

    early = tmp_path / "early.db"
    files = [*sorted(PRE_2003.glob("*.txt")), SNAPSHOT_CR / "2003-03-15.txt"]
    result = CliRunner().invoke(cli, ["import", "--db", str(early), *map(str, files)])
    assert result.exit_code == 0, result.output
    assert dict(sqlite_utils.Database(early).execute(EXAMPLES_LOST_FROM).fetchall()) == {"en-2001-09-24": 1, "en-2003-03-15": 2}
    assert issues(early) == []
