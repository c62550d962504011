"""The diff of two English CR versions along rule lineages (kb.store.identity_diff.diff_by_identity),
on the bundled snapshot's real English editions."""
from __future__ import annotations

import itertools
import sqlite3

import pytest
import sqlite_utils

from kb.link.cr_diff import diff_versions
from kb.store.derive_cr_links import load_cr_document
from kb.store.derive_lineage import english_versions, merges_between
from kb.store.identity_diff import diff_by_identity


def _rows(changes) -> list[tuple]:
    return [(c.kind, c.entry_kind, c.old_number, c.new_number, c.aspects_text, c.word_diff, int(c.paired_by_number))
            for c in changes]


def _stored(conn: sqlite3.Connection, old: str, new: str) -> list[tuple]:
    return conn.execute(
        "select kind, entry_kind, old_number, new_number, aspects, word_diff, paired_by_number from cr_changes"
        " where old_version_id = ? and new_version_id = ? order by position",
        [old, new],
    ).fetchall()


@pytest.mark.long_proof
def test_consecutive_versions_give_what_the_build_stored(snapshot_conn: sqlite3.Connection) -> None:
    db = sqlite_utils.Database(snapshot_conn)
    versions = [version for version, _date in english_versions(db)]
    assert len(versions) == 31
    for old, new in itertools.pairwise(versions):
        stored = _stored(snapshot_conn, old, new)
        assert stored, (old, new)
        assert _rows(diff_by_identity(db, old, new) or []) == stored, (old, new)


def test_versions_years_apart_follow_each_rule_through_the_versions_between(snapshot_conn: sqlite3.Connection) -> None:
    db = sqlite_utils.Database(snapshot_conn)
    far = {change.old_number: change for change in diff_by_identity(db, "en-2013-05-01", "en-2026-04-17") or []}
    # Trample's "Multiple instances … are redundant" is trample's 702.19g today. Compared afresh across
    # thirteen years it paired with menace's 702.111c, which says the same of menace, until a subrule
    # about one keyword could no longer pair with one about another.
    assert (far["702.18e"].kind, far["702.18e"].new_number) == ("moved-changed", "702.19g")
    direct = {c.old_number: c.new_number for c in diff_versions(load_cr_document(db, "en-2013-05-01"),
                                                                load_cr_document(db, "en-2026-04-17"))}
    assert direct["702.18e"] == "702.19g"
    # The main phase's "Third, the active player gets priority" became its "Fourth, …" (505.6), not the
    # beginning phase's "Second, …" (509.2).
    three_years = {c.old_number: c for c in diff_by_identity(db, "en-2022-02-18", "en-2025-02-07") or []}
    assert (three_years["505.5"].new_number, three_years["505.5"].word_diff) == (
        "505.6", "[-Third,-] {+Fourth,+} the active player gets priority. (See rule 117, “Timing and Priority.”)"
    )


def test_a_heading_folded_into_another_rule_is_removed_and_merged_there(snapshot_conn: sqlite3.Connection) -> None:
    db = sqlite_utils.Database(snapshot_conn)
    # 700.6 of 2014 (700.8 by 2019: cards that refer to names of a set) went into 206.3 in 2020: a
    # merge (rule_lineage_links). It was in no diff at all (a review against Venser's Journal): it
    # is removed, and the merge names the rule that took it in.
    assert snapshot_conn.execute(
        "select kind, old_number, new_number from rule_lineage_links where old_lineage_id = 'en-2014-09-25/700.6'"
    ).fetchall() == [("merge", "700.8", "206.3")]
    changes = diff_by_identity(db, "en-2014-09-25", "en-2022-02-18") or []
    assert [(c.kind, c.new_number) for c in changes if c.old_number == "700.6"] == [("removed", None)]
    assert merges_between(snapshot_conn, "en-2014-09-25", "en-2022-02-18")["700.6"] == "206.3"
    assert [c.new_number for c in changes if c.old_number == "700.6a"] == ["206.3a"]  # its subrules went there


def test_versions_without_lineages_are_not_compared_by_them(snapshot_conn: sqlite3.Connection) -> None:
    db = sqlite_utils.Database(snapshot_conn)
    translated = snapshot_conn.execute("select id from cr_versions where lang != 'en' order by id limit 2").fetchall()
    assert len(translated) == 2
    assert diff_by_identity(db, translated[0][0], translated[1][0]) is None


def _full_rows(changes) -> list[tuple]:
    return [(c.kind, c.entry_kind, c.old_number, c.new_number, c.aspects_text, c.word_diff, c.similarity,
             c.paired_by_number, c.old_text, c.new_text) for c in changes]


# Years apart either way round, across the 2006 → 2009 renumbering and the 2014 typography, a
# pair with a rule paired by its number alone on the way, and the newest two not stored as one step.
COMPARED_PAIRS = [
    ("en-2003-03-15", "en-2026-04-17"), ("en-2026-04-17", "en-2009-10-01"), ("en-2006-02-01", "en-2013-05-01"),
    ("en-2013-05-01", "en-2019-01-25"), ("en-2014-09-25", "en-2022-02-18"), ("en-2025-02-07", "en-2026-04-17"),
]


def _altered_copy(snapshot_db, path, *statements: str):
    """A copy of the snapshot at ``path`` with ``statements`` run on it, each changing something."""
    import shutil

    shutil.copy(snapshot_db, path)
    with sqlite3.connect(path) as writing:
        for statement in statements:
            assert writing.execute(statement).rowcount != 0, statement
    writing.close()
    return path


@pytest.mark.long_proof  # every version pair compared three ways (4 s)
def test_stored_comparisons_give_what_comparing_the_texts_gives(snapshot_db, tmp_path) -> None:
    """Two versions are compared by their rules' and glossary entries' stored digests
    (rule_comparisons, glossary_comparisons), not by folding every text of both again; a file
    built before them is compared from its texts: the same changes, texts, word diffs and
    similarities, in the same order."""
    from kb.store.identity_diff import stored_version

    older = _altered_copy(snapshot_db, tmp_path / "older.db", "drop table rule_comparisons", "drop table glossary_comparisons")
    # A file built when only the rules' digests were stored (m026 leaves the new table empty).
    rules_only = _altered_copy(snapshot_db, tmp_path / "rules-only.db", "delete from glossary_comparisons")
    stored = sqlite3.connect(f"file:{snapshot_db}?immutable=1", uri=True)
    from_texts = sqlite3.connect(f"file:{older}?immutable=1", uri=True)
    glossary_from_texts = sqlite3.connect(f"file:{rules_only}?immutable=1", uri=True)
    assert stored.execute("select count(*) from rule_comparisons where version_id = 'en-2026-04-17'").fetchone() == (3294,)
    newest = stored_version(stored, "en-2026-04-17")
    assert newest is not None and newest.glossary is None  # no glossary text read
    assert len(newest.compared_glossary or []) == stored.execute(
        "select count(*) from glossary where version_id = 'en-2026-04-17'"
    ).fetchone()[0] > 700
    for old, new in COMPARED_PAIRS:
        by_digest = diff_by_identity(stored, old, new)
        assert by_digest, (old, new)
        assert any(c.entry_kind == "glossary" for c in by_digest), (old, new)
        assert _full_rows(by_digest) == _full_rows(diff_by_identity(from_texts, old, new) or []), (old, new)
        assert _full_rows(by_digest) == _full_rows(diff_by_identity(glossary_from_texts, old, new) or []), (old, new)
    # Not only the same as each other: what the build's own comparison of consecutive versions
    # stored (by folding both texts), across the 2014 typography and the newest steps…
    for old, new in [("en-2013-05-01", "en-2014-09-25"), ("en-2025-02-07", "en-2026-01-16"),
                     ("en-2026-01-16", "en-2026-04-17")]:
        assert _rows(diff_by_identity(stored, old, new) or []) == _stored(stored, old, new), (old, new)
    # … and what the texts say (renumbered, its words the same).
    far = {c.old_number: c for c in diff_by_identity(stored, "en-2013-05-01", "en-2019-01-25") or []}
    assert (far["702.18e"].kind, far["702.18e"].new_number, far["702.18e"].aspects) == ("moved", "702.19e", [])
    stored.close()
    from_texts.close()
    glossary_from_texts.close()


def test_a_glossary_entry_is_compared_by_its_stored_digest(snapshot_db, tmp_path) -> None:
    """The glossaries of two versions are compared by their entries' digests: an entry whose
    stored digest differs is redefined, its texts read for it alone."""

    path = _altered_copy(
        snapshot_db, tmp_path / "kb.db",
        "update glossary_comparisons set digest = zeroblob(16) where version_id = 'en-2026-04-17' and term = 'Trample'",
    )
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    assert conn.execute("select count(*) from glossary_comparisons where digest = zeroblob(16)").fetchone() == (1,)
    changes = {c.new_number: c for c in diff_by_identity(conn, "en-2026-01-16", "en-2026-04-17") or [] if c.entry_kind == "glossary"}
    conn.close()
    assert (changes["Trample"].kind, changes["Trample"].aspects) == ("glossary-changed", ["text"])
    assert changes["Trample"].old_text == changes["Trample"].new_text  # the texts say the same: only the digest was changed


def test_a_diff_counted_without_its_texts_reads_them_for_the_changes_asked(snapshot_conn: sqlite3.Connection) -> None:
    from kb.store.identity_diff import read_texts

    changes = diff_by_identity(snapshot_conn, "en-2009-10-01", "en-2026-04-17", texts=False) or []
    assert len(changes) > 3000 and all(c.old_text is None and c.new_text is None and not c.word_diff for c in changes)
    page = changes[:100]
    read_texts(snapshot_conn, "en-2009-10-01", "en-2026-04-17", page)
    whole = diff_by_identity(snapshot_conn, "en-2009-10-01", "en-2026-04-17") or []
    assert _full_rows(page) == _full_rows(whole[:100])
    assert all(c.old_text is None and c.new_text is None for c in changes[100:])
