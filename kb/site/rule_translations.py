"""A rule's translations beside it, and where a translated rule leads.

A translation numbers rules as the English edition it translates: its rules are shown beside the
English rules they translate (by lineage), and its page leads to that English rule. Where the
numbers its texts cite lead is ``kb.site.translated_citations``'s.
"""
from __future__ import annotations

import sqlite3
from typing import Any

from kb.site.search import newest_english_version, rows
from kb.site.search_db import rule_examples
from kb.site.translated_citations import citation_lineages, held_numbers, weighed_citations
from kb.store import derive_lineage


def normalise_space(text: str | None) -> str:
    return " ".join((text or "").replace("’", "'").split())


# Statuses the linking step gives a link against the newest English version (kb.link.cr_translation_targets.relabel).
RELATIVE_TO_NEWEST = ("stale", "renumbered")
# Stale whatever the version shown: which of two English wordings it translates cannot be told.
UNCERTAIN = ("English text differs between", "the same rule with subrules added over time")


def translations(conn: sqlite3.Connection, entries: list[dict[str, Any]], version: str) -> dict[str, Any]:
    """Translations of these rules, beside the English rule they translate, for side-by-side display.

    Translations link to the English version they translate (often older than the one shown), so
    they are found through every English member of the rule's lineage: under another number there
    they are "renumbered"; another rule that had this number is not this rule's translation.
    Without lineages (an older database) they are found by number.
    """
    numbers = [entry["number"] for entry in entries]
    by_lineage = all(entry.get("lineage_id") for entry in entries)
    keys = [entry["lineage_id"] for entry in entries] if by_lineage else numbers
    marks = ",".join("?" * len(keys))
    # By lineage: the links of the lineages' rules, found through the lineage index, each English
    # rule then read by its key. Read from the rules' side, every English member of the lineages
    # was read whole to reach its links (a section page's 193 lineages: 3,800 rules, 10 ms; 5 so).
    english, held_by_keys = (
        ("rule_links cross join rules as en on en.id = rule_links.en_rule_id",
         f"rule_links.en_rule_id in (select id from rules where lineage_id in ({marks}))")
        if by_lineage else
        ("rules as en join rule_links on rule_links.en_rule_id = en.id", f"en.number in ({marks})")
    )
    linked = rows(
        conn,
        f"""select tr.id, tr.version_id, tr.number, tr.title, tr.text, tr.english_title,
            rule_links.status, rule_links.confidence, rule_links.reasons,
            en.version_id as english_version, en.text as english_text, en.number as english_number,
            en.title as english_rule_title,
            en.lineage_id as english_lineage,
            cr_versions.lang, cr_versions.method, cr_versions.effective_date,
            cr_versions.translation_match, cr_versions.translation_note,
            cr_versions.translates_version_id
        from {english}
        join rules as tr on tr.id = rule_links.rule_id
        join cr_versions on cr_versions.id = tr.version_id
        where {held_by_keys}
          and en.version_id in (select id from cr_versions where lang = 'en')
        order by cr_versions.lang, cr_versions.effective_date desc, tr.position
        limit 2000""",
        keys,
    )
    shown_number = {entry["lineage_id"]: entry["number"] for entry in entries} if by_lineage else {}
    shown = {entry["number"]: entry for entry in entries}
    columns: dict[str, dict[str, Any]] = {}
    crossed = derive_lineage.crossed_by_number(conn, keys if by_lineage and linked else [])
    newest = newest_english_version(conn) if linked else None
    held = held_numbers(conn, linked)
    lineages = citation_lineages(conn, linked)
    examples = rule_examples(conn, [row["id"] for row in linked])
    for row in linked:
        column = columns.setdefault(row["version_id"], {
            "version_id": row["version_id"], "lang": row["lang"], "method": row["method"],
            "effective_date": row["effective_date"],
            "english_version": row["translates_version_id"] or row["english_version"],
            "translation_match": row["translation_match"], "translation_note": row["translation_note"],
            "rules": {},
        })
        number = shown_number.get(row["english_lineage"], row["english_number"]) if by_lineage else row["number"]
        english_now = shown.get(number)
        # The English text changed since the version this translation follows: mark it stale,
        # whether or not the linking step could already tell.
        changed_since = bool(
            english_now and row["english_version"] != version
            and (normalise_space(english_now["text"]) != normalise_space(row["english_text"])
                 or normalise_space(english_now["title"]) != normalise_space(row["english_rule_title"]))
        )
        status = row["status"]
        # The linking step judged the link against the newest English version; the page may show
        # another: stale when the text shown differs, renumbered when only the number does, and
        # neither when the page shows the very wording and number translated (a 2022 page of
        # 701.47 Connive beside the Chinese 701.47 of 2025: "renumbered" and "stale" were 2026's).
        if status == "same" or (status in RELATIVE_TO_NEWEST and version != newest):
            if changed_since:
                status = "stale"
            elif by_lineage and row["english_number"] != number:
                status = "renumbered"
            elif status in RELATIVE_TO_NEWEST and not (row["reasons"] or "").startswith(UNCERTAIN):
                status = "same"
        # The English rule it translates was joined to the one shown by its number alone.
        by_number = by_lineage and crossed(row["english_lineage"], row["english_version"], version)
        # Older or later than the version shown: a translation of 2025 beside the rules of 2022
        # translates a later wording, under a later number (version ids sort by their dates).
        later = row["english_version"] > version
        column["rules"].setdefault(number, {**row, "status": status, "paired_by_number": by_number, "later": later,
                                            **weighed_citations(conn, row, held, lineages),
                                            "examples": examples.get(row["id"], [])})
    return {
        "numbers": numbers,
        "columns": sorted(columns.values(), key=lambda c: (c["lang"], c["version_id"])),
    }


def english_rule_translated(conn: sqlite3.Connection, number: str, version: str) -> tuple[str, str | None] | None:
    """For rule ``number`` of a translation ``version``: the English rule it translates, (number,
    version; None for the newest), the page that shows it beside its English text, marked there
    when the link is uncertain ("may not match"). None for an English version, a number the
    translation lacks, or a rule linked to no English rule."""
    found = rows(
        conn,
        """select en.number, en.version_id from rules as tr
        join cr_versions on cr_versions.id = tr.version_id and cr_versions.lang != 'en'
        join rule_links on rule_links.rule_id = tr.id
        join rules as en on en.id = rule_links.en_rule_id
        where tr.version_id = ? and tr.number = ?""",
        (version, number.strip().rstrip(".").lower()),
    )
    if not found:
        return None
    english_version = found[0]["version_id"]
    return found[0]["number"], None if english_version == newest_english_version(conn) else english_version
