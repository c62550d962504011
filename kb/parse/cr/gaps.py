"""Numbers a CR file skips: rules lost from its middle, or a skip in the official text itself.

The CR numbers its sections, rules and subrules one after the other: 702.1, 702.2, …; 702.19a,
702.19b, … (no l or o). A block lost from the middle of a file that keeps its section headings
passes every other check (the contents list still finds each section), and hundreds of rules were
gone without a word. The official files skip a number too, rarely (113.8 of 2009-10-01, 214.8j of
2003-03-15): each skip is reported, never refused, and the report says which numbers are absent.
"""
from __future__ import annotations

from kb.normalise.refs import SUBRULE_LETTERS
from kb.records import GlossaryEntry, ParseError, Rule


def numbering_gaps(rules: list[Rule], name: str) -> list[str]:
    """One warning per skip, in the order of the file: "rule 113.9 follows 113.7: 113.8 is not
    in the file". Numbers printed out of order or twice are left to the parsers' own checks."""
    warnings: list[str] = []
    for rule, previous, missing in _skips(rules):
        shown = _span(missing)
        owner = f"part {_parent(rule)}" if rule.kind == "section" else _parent(rule)
        after = f"follows {previous}" if previous else f"is the first of {owner}"
        warnings.append(
            f"{name}: {rule.kind} {rule.number} {after}: {shown} {'is' if len(missing) == 1 else 'are'} not in the file"
        )
    return warnings


# How an English rule's text ends: a full stop, a colon before a list, a closing quote or
# bracket. Of the 31 editions from 2003 to 2026, two rules end otherwise, both misprints the next
# edition mended (702.25m of 2018-04-27, "would have begun"; 706.2b of 2018-10-05, "to change,").
# A titled rule (a keyword's "702.19 Trample") has no text.
RULE_ENDINGS = (".", ":", ")", "]", "”", '"', "’", "'", "!", "?")
# How much of an unfinished text the warning quotes.
QUOTED_TAIL = 40


def unfinished_rules(rules: list[Rule], name: str) -> list[str]:
    """One warning per untitled rule or subrule whose text is empty or ends mid-sentence: "120.1a Damage
    can’t be dealt to an objec" published with no word where a file's lines were cut (a review of
    damaged input)."""
    warnings: list[str] = []
    for rule in rules:
        if rule.kind not in ("rule", "subrule") or rule.title:
            continue
        text = rule.text.rstrip()
        if not text:
            warnings.append(f"{name}: rule {rule.number} has no text: the file may be cut there")
        elif not text.endswith(RULE_ENDINGS):
            tail = text[-QUOTED_TAIL:]
            warnings.append(f"{name}: rule {rule.number} ends mid-sentence (“…{tail}”): a misprint, or the file cut there")
    return warnings


def skipped_numbers_cited(rules: list[Rule], cited: set[str]) -> list[list[str]]:
    """The skips (each a run of absent numbers) of which the file itself cites a number, or a
    rule or subrule under one: rules lost from its middle, not the official text's own skip (a
    refresh review: 2022-04-29 with 702.20–702.29 cut out, Vigilance among them, though its
    glossary still says "See rule 702.20", was published as the current rules, exit 0). The
    official files' two skips (113.8 of 2009, 214.8j of 2003) are cited by nothing. A number whose
    rules or subrules are in the file is no loss: a section heading printed wrong loses no rule."""
    held = {rule.number for rule in rules}
    found = []
    for _rule, _previous, missing in _skips(rules):
        lost = [absent for absent in missing if not any(_under(number, absent) for number in held)]
        if any(number == absent or _under(number, absent) for absent in lost for number in cited):
            found.append(lost)
    return found


def _under(number: str, parent: str) -> bool:
    """A rule of section ``parent`` or a subrule of rule ``parent``."""
    return number.startswith(parent + ".") or (number[:-1] == parent and number[-1].isalpha())


def cited_runs_after_the_last(rules: list[Rule], cited: set[str]) -> list[list[str]]:
    """Runs of two or more numbers that would follow the last rule or subrule of a rule or
    section, all cited by the file and none in it: rules cut from the end of a section, which
    skip no number (a refresh review: 2022-04-29 with 702.140 to the end of 702 cut out, its
    glossary citing them, was published as the current rules). One such number is what the
    official text's own slips look like (2006's 405.1 cites 402.9, which 402 never reached), and
    the 36 official English files hold no run of two."""
    held = {rule.number for rule in rules}
    last: dict[tuple[str, str | None], int] = {}
    for rule in rules:
        place = _place(rule)
        if place is not None:
            key = (rule.kind, place[0])
            last[key] = max(last.get(key, -1), place[1])
    runs = []
    for (kind, parent), position in last.items():
        run = []
        while kind != "subrule" or position + 1 < len(SUBRULE_LETTERS):
            number = _number(kind, parent, position + 1)
            if number in held or number not in cited:
                break
            run.append(number)
            position += 1
        if len(run) >= 2:
            runs.append(run)
    return runs


def refuse_rules_lost(rules: list[Rule], glossary: list[GlossaryEntry], name: str) -> None:
    """ParseError where a whole English file skips numbers its own rules or glossary cite
    (``skipped_numbers_cited``), or lacks a run of them after a section's last rule
    (``cited_runs_after_the_last``), as a file cut short is refused: kept, it would be the
    current rules without them (a refresh keeps the last good file and fails its source)."""
    cited = {number for rule in rules for number in rule.refs} | {number for entry in glossary for number in entry.refs}
    for lost, where in ((skipped_numbers_cited(rules, cited), "the middle of the file"),
                        (cited_runs_after_the_last(rules, cited), "the end of a section")):
        if lost:
            shown = ", ".join(_span(missing) for missing in lost[:5])
            raise ParseError(
                f"{name}: rules lost from {where}: {shown} {'is' if sum(map(len, lost)) == 1 else 'are'}"
                " not in it, though its own rules or glossary cite them; refused")


def _span(missing: list[str]) -> str:
    return missing[0] if len(missing) == 1 else f"{missing[0]}–{missing[-1]}"


def _parent(rule: Rule) -> str | None:
    place = _place(rule)
    return place[0] if place else None


def _skips(rules: list[Rule]) -> list[tuple[Rule, str | None, list[str]]]:
    """(the rule after a skip, the number before it or None, the numbers absent), in file order."""
    skips = []
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
        skips.append((rule, _number(rule.kind, parent, previous) if previous >= 0 else None, missing))
    return skips


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
