"""What the rule pages' statements read, on the bundled snapshot: their plans, never timings.

A section page (702 Keyword Abilities: 190 subrules, each with its translations) is the largest
page the site draws; a whole-table scan or a walk of a version's rules there costs milliseconds
on every visit."""
from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from kb.site import rule_page, rule_translations
from kb.site.search_db import one_request


def statements_of(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[tuple[str, Any]]:
    """The statements ``module`` runs through ``rows`` from now on, with their parameters."""
    seen: list[tuple[str, Any]] = []
    read = module.rows

    def noting(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        seen.append((sql, params))
        return read(conn, sql, params)

    monkeypatch.setattr(module, "rows", noting)
    return seen


def plan(conn: sqlite3.Connection, sql: str, params: Any) -> list[str]:
    return [row[3] for row in conn.execute("explain query plan " + sql, params)]


def test_a_sections_translations_are_reached_through_the_lineage_index(
    snapshot_conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read from the English rules' side, every English member of the section's 193 lineages was
    read whole (3,800 rules) and the rule links scanned whole to reach their links."""
    seen = statements_of(monkeypatch, rule_translations)
    with one_request(snapshot_conn):
        page = rule_page.rule_page(snapshot_conn, "702")
    assert page is not None and len(page["children"]) > 150
    [(sql, params)] = [(sql, params) for sql, params in seen if "join rules as tr" in sql]
    steps = plan(snapshot_conn, sql, params)
    assert steps[0] == "SEARCH rule_links USING INDEX idx_rule_links_en_rule_id (en_rule_id=?)", steps
    assert any("idx_rules_lineage_id" in step for step in steps) and not any(step.startswith("SCAN") for step in steps)


@pytest.mark.parametrize("number", ["702", "7", "702.19b"])
def test_the_previous_and_next_rules_are_found_through_the_parent_index(
    snapshot_conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch, number: str
) -> None:
    """Compared through coalesce(), the parent's index was not used: 702's next walked the
    version's rules in order from 702 on. A part (7) has no parent."""
    seen = statements_of(monkeypatch, rule_page)
    with one_request(snapshot_conn):
        page = rule_page.rule_page(snapshot_conn, number)
    assert page is not None
    found = [(sql, params) for sql, params in seen if "position <" in sql or "position >" in sql]
    assert len(found) == 2
    for sql, params in found:
        steps = plan(snapshot_conn, sql, params)
        assert "idx_rules_version_id_parent_number" in steps[0] or "MULTI-INDEX OR" in steps[0], steps
        assert not any("idx_rules_version_id_position" in step for step in steps), steps
    expected = {"702": ("701", "703"), "7": ("6", "8"), "702.19b": ("702.19a", "702.19c")}[number]
    assert (page["siblings"]["previous"]["number"], page["siblings"]["next"]["number"]) == expected


@pytest.mark.parametrize(("kind", "offset"), [(None, 0), (None, 100), ("added", 0), ("moved", 100), (None, 99999)])
def test_a_version_pages_html_reads_its_page_of_changes_alone(
    snapshot_conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch, kind: str | None, offset: int
) -> None:
    """The 2009 edition renumbered the rules: 2,398 changes, read and sorted whole (709 KB of word
    diffs) to show 100. Its JSON still holds every change."""
    from kb.site import version_page

    every = version_page.version_page(snapshot_conn, "en-2009-10-01", kind)
    assert every is not None and len(every["changes"]) > 300 and "total" not in every
    seen = statements_of(monkeypatch, version_page)
    page = version_page.version_page(snapshot_conn, "en-2009-10-01", kind, offset)
    assert page is not None
    assert page["changes"] == every["changes"][offset:offset + version_page.PAGE_SIZE]
    assert (page["total"], page["offset"]) == (len(every["changes"]), offset)
    [(sql, params)] = [(sql, params) for sql, params in seen if "limit ? offset ?" in sql]
    steps = plan(snapshot_conn, sql, params)
    assert steps == ["SEARCH cr_changes USING INDEX idx_cr_changes_old_version_id_new_version_id_position "
                     "(old_version_id=? AND new_version_id=?)"], steps
