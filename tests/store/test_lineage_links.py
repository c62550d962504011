"""Merged and split rules stored beside the lineages (rule_lineage_links), on the bundled snapshot."""
from __future__ import annotations

import sqlite3

from kb.store.derive_lineage import lineage_links


def test_links_of_magic_origins_with_the_lineages_on_both_sides(snapshot_conn: sqlite3.Connection) -> None:
    rows = snapshot_conn.execute(
        "select kind, old_number, new_number, old_lineage_id, new_lineage_id from rule_lineage_links"
        " where old_version_id = 'en-2015-03-27' and new_version_id = 'en-2015-07-17' and kind = 'merge'"
        " order by old_number"
    ).fetchall()
    # Magic Origins' update: "shuffle anyway" (701.16d) went into Shuffle's 701.16c; the
    # commander-in-exile rule 903.12 into 903.11 (each as Venser's Journal pairs them). 800.7 →
    # 104.3h (a look-alike in another section) is not stored. The exile rule was 2009's 903.11 (a
    # general "put into the exile zone") and 903.11 its graveyard rule, 903.10: the 2013 edition
    # inserted a rule before them (kb.link.cr_pairing, step 9).
    assert rows == [
        ("merge", "701.16d", "701.16c", "en-2013-05-01/701.16d", "en-2013-05-01/701.16c"),
        ("merge", "903.12", "903.11", "en-2009-10-01/903.11", "en-2009-10-01/903.10"),
    ]
    assert snapshot_conn.execute(
        "select count(*) from rule_lineage_links where old_number = '800.7' and new_number = '104.3h'"
    ).fetchone() == (0,)


def test_every_link_joins_rules_of_its_versions(snapshot_conn: sqlite3.Connection) -> None:
    orphans = snapshot_conn.execute(
        """select links.id from rule_lineage_links links
        left join rules old on old.version_id = links.old_version_id and old.number = links.old_number
            and old.lineage_id = links.old_lineage_id
        left join rules new on new.version_id = links.new_version_id and new.number = links.new_number
            and new.lineage_id = links.new_lineage_id
        where old.id is null or new.id is null"""
    ).fetchall()
    assert orphans == []


def test_links_read_from_either_side(snapshot_conn: sqlite3.Connection) -> None:
    (removed,) = lineage_links(snapshot_conn, "en-2013-05-01/701.16d")
    assert (removed["label"], removed["number"], removed["version"], removed["new_version_id"]) == (
        "merged into", "701.16c", "en-2015-07-17", "en-2015-07-17",
    )
    took_in = [link for link in lineage_links(snapshot_conn, "en-2013-05-01/701.16c") if link["kind"] == "merge"]
    assert [(link["label"], link["number"], link["version"]) for link in took_in] == [
        ("took in", "701.16d", "en-2015-03-27"),
    ]
