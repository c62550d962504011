"""Numbers a CR file skips: rules lost from its middle, or a skip in the official text itself.

The CR numbers its sections, rules and subrules one after the other: 702.1, 702.2, …; 702.19a,
702.19b, … (no l or o). A block lost from the middle of a file that keeps its section headings
passes every other check (the contents list still finds each section), and hundreds of rules were
gone without a word. The official files skip a number too, rarely (113.8 of 2009-10-01, 214.8j of
2003-03-15): each skip is reported, never refused, and the report says which numbers are absent.
"""
from __future__ import annotations

from kb.normalise.refs import SUBRULE_LETTERS
from kb.records import Rule


def numbering_gaps(rules: list[Rule], name: str) -> list[str]:
    """One warning per skip, in the order of the file: "rule 113.9 follows 113.7: 113.8 is not
    in the file". Numbers printed out of order or twice are left to the parsers' own checks."""
    warnings: list[str] = []
    last: dict[tuple[str, str | None], int] = {}
    for rule in rules:
        place = _place(rule)
        if place is None:
            continue
        parent, position = place
        key = (rule.kind, parent)
        previous = last.get(key, -1)
        if position <= previous:
            continue
        last[key] = position
        if position == previous + 1:
            continue
        missing = [_number(rule.kind, parent, index) for index in range(previous + 1, position)]
        shown = missing[0] if len(missing) == 1 else f"{missing[0]}–{missing[-1]}"
        owner = f"part {parent}" if rule.kind == "section" else parent
        after = f"follows {_number(rule.kind, parent, previous)}" if previous >= 0 else f"is the first of {owner}"
        warnings.append(
            f"{name}: {rule.kind} {rule.number} {after}: {shown} {'is' if len(missing) == 1 else 'are'} not in the file"
        )
    return warnings


def _place(rule: Rule) -> tuple[str | None, int] | None:
    """The rule's parent and its position among the parent's children (0 for the first)."""
    number = rule.number
    if rule.kind == "section" and number.isdigit() and len(number) == 3:
        return number[0], int(number[1:])
    if rule.kind == "rule":
        section, _, index = number.partition(".")
        return (section, int(index) - 1) if index.isdigit() else None
    if rule.kind == "subrule" and number[-1] in SUBRULE_LETTERS:
        return number[:-1], SUBRULE_LETTERS.index(number[-1])
    return None


def _number(kind: str, parent: str | None, position: int) -> str:
    if kind == "section":
        return f"{parent}{position:02d}"
    if kind == "rule":
        return f"{parent}.{position + 1}"
    return f"{parent}{SUBRULE_LETTERS[position]}"
