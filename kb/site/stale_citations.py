"""The numbers a rule's text cites that went to another rule after the text was written.

An edition may give a cited number to a new rule and leave the text citing it as it was: 607.2m
says "See rule 614.12b" in 2026-01-16 as in 2015, where 614.12b was the anchor-word rule, while
2026-01-16's 614.12b is a new rule of replacement effects' costs (the anchor-word rule is 614.12c
there): the page linked the new rule, with no word (a judge's review). Such a text is compared
with the edition it was written in, the first of the run of editions holding it word for word:
where the number stood for another rule then, the page says which, and what that rule is numbered
now. It may be the Comprehensive Rules' own slip or mean a step now numbered so ("proceed to rule
616.1c"): said as what it is, not corrected.
"""
from __future__ import annotations

import sqlite3
from typing import Any

from kb.normalise.refs import SUBRULE_LETTERS
from kb.site.search_db import rows

# A section's page shows hundreds of rules: the texts of the first so many are compared.
ENTRIES_COMPARED = 60
# Where each kind of text and its citations are: its table, its citations' table and key.
TABLES = {"rule": ("rules", "rule_refs", "rule_id"), "glossary": ("glossary", "glossary_refs", "glossary_id")}


def renumbered_citations(
    conn: sqlite3.Connection, entries: list[dict[str, Any]], kind: str = "rule"
) -> dict[str, dict[str, Any]]:
    """By cited number: {"citing", "written_in" (the edition the citing text was written in),
    "now" (the number in the page's edition of the rule it cited then, None if gone)}, for the
    page's ``entries``: the rule and its subrules, or (``kind`` "glossary") a glossary entry, whose
    "Anchor Word … See rule 614.12b" is 2015's too. English only."""
    table, refs, key = TABLES[kind]
    compared = [entry for entry in entries[:ENTRIES_COMPARED] if entry.get("lineage_id")]
    # Most rules cite none: those are not read back through their history.
    cited_now = _cited(conn, refs, key, [entry["id"] for entry in compared])
    written = {entry["id"]: row for entry in compared if entry["id"] in cited_now
               and (row := _written_in(conn, table, entry)) is not None and row["id"] != entry["id"]}
    cited_then = _cited(conn, refs, key, [row["id"] for row in written.values()])
    found: dict[str, dict[str, Any]] = {}
    for entry in compared:
        if entry["id"] not in written:
            continue
        then = cited_then.get(written[entry["id"]]["id"], {})
        for number, lineage in cited_now[entry["id"]].items():
            before = then.get(number)
            if before is None or before == lineage or number in found:
                continue
            # "If not, proceed to rule 616.1c": the next step, then and now, whatever its rule.
            if kind == "rule" and _next_step(written[entry["id"]]["number"], number) and _next_step(entry["number"], number):
                continue
            now_row = rows(conn, "select number from rules where version_id = ? and lineage_id = ? limit 1",
                           (entry["version_id"], before))
            now = now_row[0]["number"] if now_row else None
            # The rule it stood for is under it now (903.11 of "903.6–903.11" is 903.11a): still cited.
            if now is not None and now[:-1] == number and now[-1].isalpha():
                continue
            found[number] = {"citing": entry.get("number") or entry.get("term"),
                             "written_in": written[entry["id"]]["version_id"], "now": now}
    return found


def _next_step(citing: str | None, cited: str) -> bool:
    """Whether ``cited`` is the subrule after ``citing`` (616.1c after 616.1b; no l or o)."""
    if not citing or citing[:-1] != cited[:-1] or not (citing[-1].isalpha() and cited[-1].isalpha()):
        return False
    at = SUBRULE_LETTERS.find(citing[-1])
    return 0 <= at < len(SUBRULE_LETTERS) - 1 and SUBRULE_LETTERS[at + 1] == cited[-1]


def _written_in(conn: sqlite3.Connection, table: str, entry: dict[str, Any]) -> dict[str, Any] | None:
    """The entry in the first English edition of the run, back from the entry's own, that holds
    its text word for word."""
    number = "rules.number" if table == "rules" else "null as number"
    earlier = rows(conn, f"""select {table}.id, {table}.version_id, {number}, {table}.text = ? as same from {table}
        join cr_versions on cr_versions.id = {table}.version_id
        where {table}.lineage_id = ? and cr_versions.lang = 'en' and coalesce(cr_versions.status, '') not like 'conflicting%'
          and cr_versions.effective_date <= (select effective_date from cr_versions where id = ?)
        order by cr_versions.effective_date desc limit 200""", (entry["text"], entry["lineage_id"], entry["version_id"]))
    written = None
    for row in earlier:
        if not row["same"]:
            break
        written = row
    return written


def _cited(conn: sqlite3.Connection, refs: str, key: str, ids: list[int]) -> dict[int, dict[str, str | None]]:
    """By id, the numbers each text cites with the lineage of the rule each stands for there."""
    if not ids:
        return {}
    found: dict[int, dict[str, str | None]] = {}
    for row in rows(conn, f"""select {refs}.{key} as id, {refs}.target_number, target.lineage_id
            from {refs} left join rules as target on target.id = {refs}.target_rule_id
            where {refs}.{key} in ({', '.join('?' * len(ids))})""", tuple(ids)):
        found.setdefault(row["id"], {})[row["target_number"]] = row["lineage_id"]
    return found
