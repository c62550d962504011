"""What a refresh refuses to publish for shrinking (``kb.refresh.checks.shrink_problems``)."""
from __future__ import annotations

from kb.refresh.checks import shrink_problems


def test_a_table_of_data_may_not_lose_a_tenth_of_its_rows() -> None:
    assert shrink_problems({"rulings": {"before": 100, "after": 90}, "rules": {"before": 100, "after": 89}}) == [
        "rules would shrink from 100 to 89 rows (-11%)"]


def test_fewer_merges_and_splits_between_editions_are_not_data_lost() -> None:
    # An edition fetched between two held ones links each to it: a merge across the two may now
    # be one lineage through it. A real edition was refused for 3 → 2 of them (an operator's review).
    assert shrink_problems({"rule_lineage_links": {"before": 3, "after": 2}}) == []
    assert shrink_problems({"quality_issues": {"before": 30, "after": 2}, "refresh_runs": {"before": 5, "after": 1}}) == []


def test_the_targets_links_share_may_be_fewer_but_not_the_links() -> None:
    # A link points to what it says beside its ruling (the rule as numbered, how it was found,
    # the rule today); many links share one. The links are guarded: a shrink of them is a loss.
    changes = {
        "ruling_rule_targets": {"before": 100, "after": 60},
        "ruling_rule_links": {"before": 1000, "after": 600},
    }
    assert shrink_problems(changes) == ["ruling_rule_links would shrink from 1000 to 600 rows (-40%)"]


def test_a_document_rebuilt_from_the_same_bytes_or_another_body_of_its_edition_is_not_dropped(tmp_path) -> None:
    """The first refresh refuses to drop a document of the file `mtgkb build` made. Not one the new
    file holds by its bytes under another URL (the archive's copy of a snapshot edition), nor the
    body of an edition it builds from another body (an edition published again): only what is
    gone (a code review of the refusal)."""
    import sqlite_utils

    from kb.refresh.before_swap import _documents_not_rebuilt

    old, new = sqlite_utils.Database(tmp_path / "old.db"), sqlite_utils.Database(tmp_path / "new.db")
    old["documents"].insert_all([
        {"id": 1, "source_id": "wizards", "url": "u1", "path": "cr/en/2003.txt", "sha256": "a"},  # same bytes, other URL
        {"id": 2, "source_id": "wizards", "url": "u2", "path": "cr/en/2009.txt", "sha256": "b"},  # its edition, another body
        {"id": 3, "source_id": "scryfall", "url": "u3", "path": "imported.json", "sha256": "c"},  # gone
    ], pk="id")
    old["cr_versions"].insert_all([{"id": "en-2003", "document_id": 1}, {"id": "en-2009", "document_id": 2}], pk="id")
    new["documents"].insert_all([
        {"id": 11, "source_id": "cr-archive", "url": "v1", "path": None, "sha256": "a"},
        {"id": 12, "source_id": "wizards", "url": "u2", "path": None, "sha256": "b2"},
    ], pk="id")
    new["cr_versions"].insert_all([{"id": "en-2003", "document_id": 11}, {"id": "en-2009", "document_id": 12}], pk="id")
    new.execute("attach database ? as old", [str(tmp_path / "old.db")])
    said = _documents_not_rebuilt(new)
    assert said.startswith("; the served file holds 1 document this build does not (scryfall 1)"), said
