"""Sections a translation lists but gives no rule, where the English rule it translates has some.

The Korean translation comes as one post per part beside an index that lists every section: a
post cut between two paragraphs still parses, and its last sections are simply absent. Each
section is compared with the English section it is linked to (its identity, through the
translation links), never with whatever English section has its number: the Korean CR of
2021-02-15 numbers Drawing a Card 121, the English of 2019-01-25 numbers Counters so.
"""
from __future__ import annotations

from collections.abc import Callable

from kb.records import CRDocument


def sections_without_rules(
    doc: CRDocument, english_holds_rules: Callable[[str], bool]
) -> list[tuple[str, list[str]]]:
    """Each part of ``doc`` that holds rules, with the sections it lists that hold none while
    ``english_holds_rules(section)`` (the English section it is linked to has rules: "600.
    General" has none in English either). A part with no rule at all is a part not translated,
    and not listed."""
    held = sections_with_rules(doc)
    parts = {section[0] for section in held}
    empty: dict[str, list[str]] = {}
    for rule in doc.rules:
        number = rule.number
        if rule.kind == "section" and number[0] in parts and number not in held and english_holds_rules(number):
            empty.setdefault(number[0], []).append(number)
    return sorted(empty.items())


def sections_with_rules(doc: CRDocument) -> set[str]:
    return {rule.section for rule in doc.rules if rule.kind in ("rule", "subrule") and rule.section}
