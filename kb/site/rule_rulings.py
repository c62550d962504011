"""The rulings a rule page lists: those relying on the rule under any number it had, newest first,
each marked where the rule it cited was joined to this one by a number alone."""
from __future__ import annotations

import json
import sqlite3
from typing import Any

from kb.site.search import bounded_count, rows, table_exists
from kb.site.search_db import newest_ruling_ids
from kb.site.search_fulltext import symbols_lost
from kb.store import derive_lineage
from kb.store.schema import ruling_card_name

# More rulings than this relying on one rule: read rulings newest first instead of sorting them.
BUSY_RULE_RULINGS = 2000


def marked_by_number(conn: sqlite3.Connection, rule: dict[str, Any], rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each ruling with ``paired_by_number``: the rule it cited (in the version its own date
    relied on) was joined to this one by a number alone on the way (``derive_lineage.crossed_by_number``)."""
    crossed = derive_lineage.crossed_by_number(conn, [rule.get("lineage_id")] if rulings else [])
    for ruling in rulings:
        ruling["paired_by_number"] = crossed(rule.get("lineage_id"), ruling.get("version_id"), rule.get("version_id"))
    return rulings


# A subrule's rulings are listed on its rule's page, up to this many in all.
SUBRULE_RULINGS = 100


def rulings_on_subrules(conn: sqlite3.Connection, rule: dict[str, Any], children: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rulings relying on each subrule the page of ``rule`` shows (702.12b of 702.12: not a
    section's rules, each a page of its own), by subrule: ``number``, ``title``, ``rulings``. A
    ruling of 2011 relies on 2009's 700.4, which is 702.12b today: Indestructible's page did not
    list it (a review of the rulings' citations)."""
    subrules = [child for child in children if child.get("lineage_id") and _is_subrule_of(child["number"], rule["number"])]
    if not subrules or not table_exists(conn, "ruling_rules"):
        return []
    # One statement finds the few subrules any ruling relies on: the first row of each in the
    # index by lineage (a subrule a thousand rulings name is not read through).
    cited = {row[0] for row in conn.execute(
        """select value from json_each(?)
        where exists (select 1 from ruling_rules where ruling_rules.lineage_id = json_each.value)""",
        (json.dumps([child["lineage_id"] for child in subrules]),),
    )}
    found: list[dict[str, Any]] = []
    left = SUBRULE_RULINGS
    for child in subrules:
        if child["lineage_id"] not in cited or left <= 0:
            continue
        rulings = marked_by_number(conn, child, rulings_relying_on(conn, child))[:left]
        left -= len(rulings)
        found.append({"number": child["number"], "title": child.get("title"), "rulings": rulings})
    return found


def _is_subrule_of(number: str, head: str) -> bool:
    """"702.12b" of "702.12"; not "702.12" of the section "702", whose rules are pages of their own."""
    return "." in head and number.startswith(head) and number[len(head):].isalpha()


# Rulings a rule page lists at once; its older ones are pages of their own (``?rulings=100``).
RULINGS_PER_PAGE = 100
# A ruling's links to one rule read at most (a citation and its keyword: ``_once_each``); the
# rows were capped at a page's rulings, and a ruling with two pushed others off every page.
LINKS_OF_A_RULING = 4
# Rulings relying on a rule counted at most: a busy keyword's are tens of thousands.
RULINGS_COUNTED = 10_000


def rulings_relying_count(conn: sqlite3.Connection, rule: dict[str, Any]) -> tuple[int, bool]:
    """How many rulings rely on the rule's lineage, and whether there are more than counted."""
    if not rule.get("lineage_id") or not table_exists(conn, "ruling_rules"):
        return 0, False
    read, distinct = conn.execute(
        "select count(*), count(distinct ruling_id) from (select ruling_id from ruling_rules where lineage_id = ? limit ?)",
        (rule["lineage_id"], RULINGS_COUNTED)).fetchone()
    return distinct, read >= RULINGS_COUNTED


def rulings_relying_on(conn: sqlite3.Connection, rule: dict[str, Any], offset: int = 0) -> list[dict[str, Any]]:
    """Rulings whose text cites this rule or names its keyword (``ruling_rules``), under any
    number the rule had (its lineage) in the version in force on their date: the newest hundred
    after the ``offset`` newest (/rule/708 of the snapshot listed a hundred of 151, and no way to
    the others: a judge's review)."""
    if not table_exists(conn, "ruling_rules"):
        return []
    columns = {column[1] for column in conn.execute("pragma table_info(ruling_rules)")}
    by_lineage = bool(rule.get("lineage_id")) and "lineage_id" in columns
    where = (
        "ruling_rules.lineage_id = :lineage" if by_lineage
        else "ruling_rules.rule_id = :rule or ruling_rules.current_rule_id = :rule"
    )
    params: dict[str, Any] = {"rule": rule["id"], "lineage": rule.get("lineage_id")}
    newest = ""
    if by_lineage and "published_at" in columns:
        # A keyword's rule can have tens of thousands of rulings (a million-ruling database):
        # the newest hundred come from the (lineage, date) index, never from sorting them all.
        ids = newest_ruling_ids(conn, rule["lineage_id"], RULINGS_PER_PAGE, offset)
        params.update({f"id{index}": ruling_id for index, ruling_id in enumerate(ids)})
        newest = "and rulings.id in ({})".format(",".join(f":id{index}" for index in range(len(ids))) or "null")
        # Each chosen ruling's links by its id, not the rule's (huge) list of links.
        where = where.replace("ruling_rules.", "+ruling_rules.")
    elif bounded_count(conn, f"select 1 from ruling_rules where {where}", params, BUSY_RULE_RULINGS) > BUSY_RULE_RULINGS:
        # A database built before ruling_rules kept the date: read rulings newest first (the
        # published_at index) until a hundred rely on the rule. The ``+`` keeps SQLite from
        # looking each ruling up through the rule's (huge) list instead of by its id.
        unindexed = where.replace("ruling_rules.", "+ruling_rules.")
        ids = [row[0] for row in conn.execute(
            f"""select rulings.id from rulings where exists (
                select 1 from ruling_rules where ruling_rules.ruling_id = rulings.id and ({unindexed}))
            order by rulings.published_at desc, rulings.id desc limit 100""",
            params,
        )]
        params.update({f"id{index}": ruling_id for index, ruling_id in enumerate(ids)})
        newest = "and rulings.id in ({})".format(",".join(f":id{index}" for index in range(len(ids))) or "null")
        where = unindexed
    found = _once_each(rows(
        conn,
        f"""select distinct rulings.id, rulings.oracle_id, {ruling_card_name()} as card,
            rulings.published_at, rulings.text, ruling_rules.method, ruling_rules.rule_number,
            ruling_rules.version_id, ruling_rules.confidence, ruling_rules.status, ruling_rules.number_uncertain,
            ruling_rules.in_force_version_id, ruling_rules.matched_text,
            case when {ruling_card_name()} = rulings.card_name then rulings.card_name_lang end as card_lang
        from ruling_rules join rulings on rulings.id = ruling_rules.ruling_id
        left join cards on cards.oracle_id = rulings.oracle_id
        where ({where}) {newest}
        order by rulings.published_at desc, rulings.id desc limit {RULINGS_PER_PAGE * LINKS_OF_A_RULING}""",
        params,
    ))
    lost = symbols_lost(conn, [row["id"] for row in found])
    for row in found:
        row["symbols_lost"] = row["id"] in lost
    return found


def _once_each(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per ruling, its citation of the rule's number before its naming of the keyword: a
    ruling that does both ("connives (see rule 701.47)") was listed twice."""
    chosen: dict[int, dict[str, Any]] = {}
    for row in found:
        if row["id"] not in chosen or (row["method"] == "cited" and chosen[row["id"]]["method"] != "cited"):
            chosen[row["id"]] = row
    return [row for row in found if chosen[row["id"]] is row]
