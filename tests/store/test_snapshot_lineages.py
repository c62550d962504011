"""The bundled snapshot holds the real updates between its editions of 2014, 2019 and 2022, so a
rule's lineage follows them one update at a time instead of guessing across years.

The expected members are those of the chain of real updates (`python -m bench.cr_gap_pairing`, which
pairs each update of Venser's Journal's files in turn); with only the editions of 2014, 2019 and 2022,
the snapshot's lineages joined each of these rules to another one."""
from __future__ import annotations

import sqlite3

import pytest


def member(conn: sqlite3.Connection, version: str, number: str, later_version: str) -> str | None:
    """The number, in ``later_version``, of the rule whose lineage holds ``number`` of ``version``."""
    row = conn.execute(
        """select later.number from rules earlier join rules later on later.lineage_id = earlier.lineage_id
        where earlier.version_id = ? and earlier.number = ? and later.version_id = ?""",
        [version, number, later_version],
    ).fetchone()
    return row[0] if row else None


@pytest.mark.parametrize(
    ("number", "later", "why"),
    [
        # Commander 2017's update added the shared team turns option (805.10) with copies of the
        # Two-Headed Giant combat rules; 810.7 kept its own, and lost its subrules later.
        ("810.7", "810.7", "Two-Headed Giant's combat rule stays itself"),
        ("810.7a", None, "805.10a is a new copy, not 810.7a moved"),
        ("810.7d", None, "805.10d is a new copy"),
        ("810.7e", None, "805.10f is a new copy"),
        ("810.7f", None, "805.10g is a new copy"),
        # Kaladesh's update (2016-09-30) stopped putting triggered abilities on the stack as a
        # step: "Fourth, … go on the stack" became 509.5 on their trigger conditions, the main
        # phase's step that did so was removed and the declare attackers' one became 508.2b; each
        # step's "the active player gets priority" moved up one number.
        ("509.4", "509.5", "rewritten as 509.5 by Kaladesh's update"),
        ("505.4", None, "removed by Kaladesh's update; 2019's 505.4 (Sagas) is another rule"),
        ("508.2", "508.2b", "the declare attackers' triggers, a subrule since Kaladesh's update"),
        ("508.3", "508.2", "the active player gets priority, 508.2 since Kaladesh's update (as 509.5 → 509.4)"),
        ("509.5", "509.4", "the active player gets priority, one number up"),
        ("107.14", None, "the moon symbol, removed by Magic Origins' update; the energy symbol is another rule"),
        ("702.72b", None, "removed by Battle for Zendikar's update; 2019's 702.110c is another rule"),
    ],
)
def test_2014_rules_follow_the_updates_to_2019(snapshot_conn: sqlite3.Connection, number: str, later: str | None, why: str) -> None:
    assert member(snapshot_conn, "en-2014-09-25", number, "en-2019-01-25") == later, why


@pytest.mark.parametrize(
    ("number", "later"),
    [
        ("711.8", "712.10a"),  # a heading that became a subrule of the double-faced cards' rule
        ("800.5", "800.6"),  # the multiplayer mulligan, moved down by 2019-08-23's new 800.5
    ],
)
def test_2019_rules_follow_the_updates_to_2022(snapshot_conn: sqlite3.Connection, number: str, later: str) -> None:
    assert member(snapshot_conn, "en-2019-01-25", number, "en-2022-02-18") == later


def test_the_snapshot_holds_thirty_one_english_editions(snapshot_conn: sqlite3.Connection) -> None:
    versions = [row[0] for row in snapshot_conn.execute(
        "select id from cr_versions where lang = 'en' order by effective_date")]
    assert len(versions) == 31
    between_2014_and_2019 = [v for v in versions if "en-2014-09-25" < v < "en-2019-01-25"]
    assert len(between_2014_and_2019) == 13
