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
