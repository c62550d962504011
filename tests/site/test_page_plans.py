"""What the pages' statements read, on the bundled snapshot: their plans, never timings; and the
page parameters those statements are given.

A section page (702 Keyword Abilities: 190 subrules, each with its translations) is the largest
page the site draws; a whole-table scan or a walk of a version's rules there costs milliseconds
on every visit."""
from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from kb.site import rule_page, rule_translations, search_names
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
    # Past the end: the last page (tests/site/test_odd_requests.py).
    shown = min(offset, (len(every["changes"]) - 1) // version_page.PAGE_SIZE * version_page.PAGE_SIZE)
    assert page["changes"] == every["changes"][shown:shown + version_page.PAGE_SIZE]
    assert (page["total"], page["offset"]) == (len(every["changes"]), shown)
    [(sql, params)] = [(sql, params) for sql, params in seen if "limit ? offset ?" in sql]
    steps = plan(snapshot_conn, sql, params)
    assert steps == ["SEARCH cr_changes USING INDEX idx_cr_changes_old_version_id_new_version_id_position "
                     "(old_version_id=? AND new_version_id=?)"], steps


def test_the_steps_paired_by_number_alone_are_read_through_their_own_index(snapshot_conn: sqlite3.Connection) -> None:
    """A section page asks for its 193 lineages' steps paired by a number alone: read by lineage,
    3,800 rules were each looked up among the changes, for the few dozen such steps there are."""
    from kb.store.derive_lineage import by_number_steps

    every = by_number_steps(snapshot_conn)
    assert every
    section = [row[0] for row in snapshot_conn.execute(
        "select lineage_id from rules where version_id = 'en-2026-04-17' and (number = '702' or parent_number = '702')")]
    asked = [*section, *list(every)[:5]]
    seen: list[str] = []
    snapshot_conn.set_trace_callback(seen.append)
    try:
        steps = by_number_steps(snapshot_conn, asked)
    finally:
        snapshot_conn.set_trace_callback(None)
    assert {lineage: sorted(versions) for lineage, versions in steps.items()} == {
        lineage: sorted(versions) for lineage, versions in every.items() if lineage in set(asked)}
    [sql] = [sql for sql in seen if "paired_by_number = 1" in sql]
    steps_of_plan = plan(snapshot_conn, sql, ())
    assert steps_of_plan[0] == "SCAN cr_changes USING INDEX idx_cr_changes_paired_by_number", steps_of_plan


@pytest.mark.parametrize(("text", "used"), [
    ("It deals damage in a counterattack, then attacks.", True),  # first met inside a longer word
    ("It deals damage in a counterattack.", False),
    ("İİİİ: it attacks.", True),  # lower-casing "İ" makes two characters: every place after it moves
])
def test_a_glossary_term_is_found_from_its_first_occurrence(snapshot_conn: sqlite3.Connection, text: str, used: bool) -> None:
    terms = rule_page.glossary_terms_used(snapshot_conn, "en-2026-04-17", [{"title": None, "text": text}])
    assert ("Attack" in [entry["term"] for entry in terms]) is used


def test_a_rulings_search_looks_up_the_cards_of_its_page_alone(snapshot_conn: sqlite3.Connection) -> None:
    """Joined in the window, each of a deep page's 1,051 rulings looked its card up to show 25."""
    from kb.site.search_fulltext import rulings_by_text

    seen: list[str] = []
    snapshot_conn.set_trace_callback(seen.append)
    try:
        hits, _count, _capped = rulings_by_text(snapshot_conn, "creature", '"creature"', 0, 3)
    finally:
        snapshot_conn.set_trace_callback(None)
    assert len(hits) == 3 and all(hit.title for hit in hits)
    window = [sql for sql in seen if "rulings_fts match" in sql]
    assert window and not any("cards" in sql for sql in window), window
    [names] = [sql for sql in seen if "from cards where oracle_id in" in sql]
    assert names.split(" in (")[1].count(",") <= 2  # the page's three rulings' cards at most


def test_a_rule_without_a_parent_finds_its_neighbours_whether_its_parent_is_null_or_empty() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("create table rules (version_id, number, title, kind, parent_number, position)")
    conn.executemany("insert into rules values ('v', ?, ?, 'part', ?, ?)",
                     [("4", "Four", None, 4), ("5", "Five", "", 5), ("6", "Six", None, 6)])
    for number, parent in (("5", ""), ("5", None)):
        found = rule_page.siblings(conn, {"version_id": "v", "kind": "part", "parent_number": parent,
                                          "position": int(number), "number": number})
        assert (found["previous"]["number"], found["next"]["number"]) == ("4", "6"), parent


@pytest.mark.parametrize("path", [
    "/version/en-2009-10-01?offset=%C2%B2", "/version/en-2009-10-01?offset=99999999999999999999999",
    "/search?q=flying&kind=rules&offset=%C2%B2", "/diff?from=en-2026-01-16&to=en-2026-04-17&offset=%C2%B2",
])
def test_an_offset_no_page_can_read_is_the_first_page_or_past_the_end(snapshot_ds, path: str) -> None:
    """"²" is a digit that int() does not read, and SQLite's integers end at 2**63 - 1: both answered 500."""
    import asyncio

    assert asyncio.run(snapshot_ds.client.get(path)).status_code == 200


def test_every_slipped_beginning_is_read_from_the_index(snapshot_conn: sqlite3.Connection, monkeypatch) -> None:
    """The planner joined the snapshot's 541 names to the ~800 beginnings of "zerstören" the other
    way round: every name, then every beginning, a lookup of the index for each pair (228 ms)."""
    statements = statements_of(monkeypatch, search_names)
    search_names.slipped_prefix_candidates(snapshot_conn, "zerstören")
    [(sql, params)] = statements
    steps = " | ".join(plan(snapshot_conn, sql, params))
    assert "SCAN named" not in steps and "SCAN prefix VIRTUAL TABLE" in steps, steps
