"""Sections a translation lists but gives no rule, where the English rule it translates has some.

The Korean translation comes as one post per part beside an index that lists every section: a
post cut between two paragraphs still parses, and its last sections are simply absent. Each
section is compared with the English section it is linked to (its identity, through the
translation links), never with whatever English section has its number: the Korean CR of
2021-02-15 numbers Drawing a Card 121, the English of 2019-01-25 numbers Counters so.
"""
from __future__ import annotations

from collections.abc import Callable

from kb.records import CRDocument, Rule


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


def rules_after_last_translated(
    doc: CRDocument, targets: dict[str, str], english: CRDocument
) -> list[tuple[str, str, list[str]]]:
    """Each part of ``doc`` whose last rule translates a rule of ``english`` (``targets``:
    translated number → the number in ``english`` of the rule it translates) that its section
    follows with rules nothing in ``doc`` translates: (part, the last rule's English number, those
    numbers). A post cut between two paragraphs of its last section still parses, and the check
    above sees rules in every section. Only sections ``doc`` lists are read: a page of one rule
    lists none. ``english`` must be the edition translated or one before it: a later one may have
    added rules at a section's end since."""
    listed = {rule.number for rule in doc.rules if rule.kind == "section"}
    translated = set(targets.values())
    last_of_part: dict[str, Rule] = {}
    for rule in doc.rules:
        if rule.kind in ("rule", "subrule") and rule.number in targets:
            last_of_part[rule.number[0]] = rule
    position = {rule.number: index for index, rule in enumerate(english.rules)}
    cut = []
    for part, rule in sorted(last_of_part.items()):
        en_number = targets[rule.number]
        if rule.section not in listed or en_number not in position:
            continue
        section = english.rules[position[en_number]].section
        after = []
        for en_rule in english.rules[position[en_number] + 1:]:
            if en_rule.section != section or en_rule.kind not in ("rule", "subrule"):
                break
            if en_rule.number not in translated:
                after.append(en_rule.number)
        if after:
            cut.append((part, en_number, after))
    return cut


def examples_not_translated(
    doc: CRDocument, targets: dict[str, tuple[str, str]], english: dict[str, CRDocument]
) -> tuple[list[str], int]:
    """The rules of ``doc`` that print no example while the English rule each translates
    (``targets``: translated number → (English version, number)) prints some, and how many of
    its rules translate one that does. The real translations print every example their English
    rules print (0 of 211 Chinese, 0 of 21 Korean rules lack them)."""
    versions = {version_id for version_id, _ in targets.values()}
    with_examples = {
        (version_id, rule.number) for version_id in versions for rule in english[version_id].rules if rule.examples
    }
    lacking, translating = [], 0
    for rule in doc.rules:
        if rule.kind in ("rule", "subrule") and targets.get(rule.number) in with_examples:
            translating += 1
            if not rule.examples:
                lacking.append(rule.number)
    return lacking, translating


def rules_not_translated(targets: set[str], english: CRDocument) -> list[str]:
    """The rules and subrules of ``english`` that no rule of a translation translates (``targets``:
    the English numbers its rules are linked to) while their rule or section is translated: a
    subrule cut from the end of a rule skips no number the translation's own checks could see."""
    return [
        rule.number for rule in english.rules
        if rule.kind in ("rule", "subrule") and rule.number not in targets and rule.parent in targets
    ]


def glossary_not_translated(doc: CRDocument, linked_terms: set[str], english: CRDocument) -> list[str]:
    """The terms of ``english``'s glossary that no entry of ``doc``'s translates (``linked_terms``:
    the English terms its entries are linked to), when ``doc`` has a glossary at all. The
    glossary keeps the English order in translation and is aligned entry by entry, so an entry
    cut from it leaves exactly its English twin unlinked; the real Chinese glossary translates all
    703 of its edition's."""
    if not doc.glossary:
        return []
    return [entry.term for entry in english.glossary if entry.term not in linked_terms]
