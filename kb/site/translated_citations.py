"""Where the rule numbers a translated text cites lead, weighed against its English text.

A translation numbers rules as the edition it translates; the English text it is shown beside may
number them otherwise, or the two texts may cite different rules in one place, either by a slip.
Each number's link is worked out here for rule pages (``kb.site.rule_translations``) and
translated glossary entries (``kb.site.glossary_page``), by the rules' identities (lineages), not
their numbers.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Collection
from typing import Any

from kb.link.cr_translations import counterpart_citations
from kb.site.markup import cited_in_order
from kb.site.search_db import rows


def translated_citations(
    row: dict[str, Any], held: set[tuple[str, str]], follow_translation: Collection[str] = (),
    counterparts: dict[str, str] | None = None,
) -> dict[str, tuple[str, str | None]]:
    """Where each number a translated rule cites leads: the English rule its English text cites in
    that place (``counterpart_citations``), else the number in the translation's own version, whose
    page leads to the English rule that number translates; a number a partial translation does not
    hold, in the English edition it translates where that edition holds it (``held``: the (version,
    number) pairs of both), else where the translation's page offers the nearest ones.

    The numbers of ``follow_translation`` (``cited_as_translated``: where the two texts cite
    different rules and an English wording of the rule cites the translation's) lead to the
    translation's own rule instead."""
    cited = cited_in_order(row["text"])
    counterparts = dict(counterparts if counterparts is not None else paired_citations(row))
    own, edition = row["version_id"], _edition(row)
    for number in follow_translation:
        counterparts.pop(number, None)

    def leads_to(number: str) -> tuple[str, str | None]:
        if number in counterparts:
            return counterparts[number], row["english_version"]
        return number, edition if (own, number) not in held and (edition, number) in held else own

    return {number: leads_to(number) for number in cited}


def _edition(row: dict[str, Any]) -> str:
    return row["translates_version_id"] or row["english_version"]


def translated_text_citations(conn: sqlite3.Connection, row: dict[str, Any], table: str = "glossary") -> dict[str, Any]:
    """``weighed_citations`` of one translated text beside its English text (a glossary entry's): ``row``
    holds version_id, text, english_version, english_text, english_lineage."""
    return weighed_citations(conn, row, held_numbers(conn, [row]), citation_lineages(conn, [row]), table)


def weighed_citations(
    conn: sqlite3.Connection, row: dict[str, Any], held: set[tuple[str, str]], lineages: dict[tuple[str, str], str],
    table: str = "rules",
) -> dict[str, Any]:
    """A translated rule's ``citations`` (``translated_citations``) and ``english_cites``: where it
    and its English text cite different rules, number -> [the English text's number, its version,
    what the link on the number follows: "translation" or "english"]."""
    counterparts = paired_citations(row)
    differ = citations_that_differ(row, lineages, counterparts)
    followed = cited_as_translated(conn, row, differ, lineages, table)
    return {
        "citations": translated_citations(row, held, followed, counterparts),
        "english_cites": {number: (english, version, "translation" if number in followed else "english")
                          for number, (english, version) in differ.items()},
    }


def paired_citations(row: dict[str, Any]) -> dict[str, str]:
    """``counterpart_citations`` of a translated rule's text and its English text."""
    return counterpart_citations(cited_in_order(row["text"]), cited_in_order(row["english_text"] or ""))


def citations_that_differ(
    row: dict[str, Any], lineages: dict[tuple[str, str], str], counterparts: dict[str, str]
) -> dict[str, tuple[str, str]]:
    """The numbers a translated rule cites where its English text cites another rule in that place
    (``counterparts``: ``paired_citations``) and the translation holds its own number as a rule linked to
    another English rule (``lineages``: ``citation_lineages``): number -> (the English text's
    number, its version). A number the translation does not hold (a partial one) is none: the
    English text's place is then all that says what it means."""
    differ = {}
    for number, counterpart in counterparts.items():
        mine, theirs = lineages.get((row["version_id"], number)), lineages.get((row["english_version"], counterpart))
        if number != counterpart and mine and theirs and mine != theirs:
            differ[number] = (counterpart, row["english_version"])
    return differ


def cited_as_translated(
    conn: sqlite3.Connection, row: dict[str, Any], differ: dict[str, tuple[str, str]], lineages: dict[tuple[str, str], str],
    table: str = "rules",
) -> set[str]:
    """Of the numbers where a translated rule and its English text cite different rules
    (``citations_that_differ``), those an English wording of the same rule cites as the translation
    does (the same rule, under the number of that wording's version): the translation follows
    another wording, and its number is right. The English 801.17 of 2025 cites 723 (The
    Initiative) where the Chinese cites 724 (Restarting the Game), as 2026's does under its number
    726; the Chinese "724" led to 723. Otherwise the
    translation slipped (the Chinese 115.3 cites 115.6, zero targets, for changing targets, 115.7,
    which every English wording cites) and its number leads where the English text's does.
    ``table``: "glossary" for a translated glossary entry (its English wordings are the entry's)."""
    if not differ or not row.get("english_lineage"):
        return set()
    wordings = rows(
        conn,
        f"select version_id, text from {'glossary' if table == 'glossary' else 'rules'} where lineage_id = ?"
        " and version_id in (select id from cr_versions where lang = 'en') limit 200",
        (row["english_lineage"],),
    )
    cited = {(wording["version_id"], number) for wording in wordings for number in cited_in_order(wording["text"] or "")}
    if not cited:
        return set()
    versions = sorted({version for version, _ in cited})
    numbers = sorted({number for _, number in cited})
    english_lineages = {
        found["lineage_id"]
        for found in rows(
            conn,
            f"""select version_id, number, lineage_id from rules where version_id in ({",".join("?" * len(versions))})
            and number in ({",".join("?" * len(numbers))}) and lineage_id is not null""",
            [*versions, *numbers],
        )
        if (found["version_id"], found["number"]) in cited
    }
    return {number for number in differ if lineages.get((row["version_id"], number)) in english_lineages}


def citation_lineages(conn: sqlite3.Connection, linked: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(version, number) -> English lineage, for the numbers the translated rules of ``linked``
    cite: in the translations' own versions, the lineage of the English rule each is linked to;
    in the English versions they are linked to, the rule's own (what ``translated_citations``
    weighs a place's counterpart against)."""
    translations = sorted({row["version_id"] for row in linked})
    english = sorted({row["english_version"] for row in linked})
    cited = sorted({number for row in linked for number in cited_in_order(row["text"])})
    counterparts = sorted({number for row in linked for number in cited_in_order(row["english_text"] or "")})
    found: dict[tuple[str, str], str] = {}
    if translations and cited:
        for row in rows(
            conn,
            f"""select translated.version_id, translated.number, en.lineage_id from rules as translated
            join rule_links on rule_links.rule_id = translated.id join rules as en on en.id = rule_links.en_rule_id
            where translated.version_id in ({",".join("?" * len(translations))})
            and translated.number in ({",".join("?" * len(cited))}) and en.lineage_id is not null""",
            [*translations, *cited],
        ):
            found[(row["version_id"], row["number"])] = row["lineage_id"]
    if english and counterparts:
        for row in rows(
            conn,
            f"""select version_id, number, lineage_id from rules where version_id in ({",".join("?" * len(english))})
            and number in ({",".join("?" * len(counterparts))}) and lineage_id is not null""",
            [*english, *counterparts],
        ):
            found[(row["version_id"], row["number"])] = row["lineage_id"]
    return found


def held_numbers(conn: sqlite3.Connection, linked: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """The (version, number) pairs the translated versions of ``linked`` and the English editions
    they translate hold, of the numbers their texts cite."""
    versions = sorted({row["version_id"] for row in linked} | {_edition(row) for row in linked})
    numbers = sorted({number for row in linked for number in cited_in_order(row["text"])})
    if not versions or not numbers:
        return set()
    return {
        (row["version_id"], row["number"])
        for row in rows(
            conn,
            f"""select version_id, number from rules where version_id in ({",".join("?" * len(versions))})
            and number in ({",".join("?" * len(numbers))})""",
            [*versions, *numbers],
        )
    }
