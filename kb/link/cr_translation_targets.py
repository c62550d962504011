"""Which English rule a translated rule translates, by rule identity, when versions differ.

Pure. A translation follows one English version. When that version is held, a translated rule
translates the English rule of the same number there. When it is not, its numbering lies
between the English versions held before and after it, and a number may denote different rules
in those two (Korean CR 2021-02-15: Mill was inserted as 701.13 in between, so every keyword
action 701.13–701.43 of the 2019 version is one number lower). So each number gets a candidate
in both neighbouring versions; when the two are members of one lineage the rule is known, and
only its wording is to decide (the one whose citations and examples the translation prints, else
the nearer, said to be uncertain where the two differ); otherwise the content decides:

1. the English title or keyword name the translation prints ("집요 Persist"), a glossary pair,
   the subrule letters under it and the rule numbers it cites (``cr_translations`` checks);
2. a rule with no such evidence follows its parent, a section its part: a section whose printed
   title says it is the newer version's 111 "Tokens" carries its rules with it;
3. then the nearer version by date.

4. a rule that prints an English title ("Substitute Cards") which neither candidate has is looked
   up by that title among the candidate versions' rules of its kind (sections 713–721 moved).

A translated rule whose candidates all fail the checks is a ``mismatch`` (no counterpart found).

``relabel`` then says how each link's English rule stands today: ``same`` (the newest English
version has the same rule with the same text and number), ``renumbered`` (same text, another
number), ``stale`` (the English text changed since, or the rule was removed), or ``mismatch``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise

from kb.link.cr_compare import same_content
from kb.link.cr_translations import RuleLink, _RuleChecker, cited_numbers
from kb.records import CRDocument, Rule

LineageOf = Callable[[str, str], str | None]


@dataclass
class TargetLink:
    """A translated rule and the English rule (version, number) it translates."""

    number: str
    en_version: str | None
    en_number: str | None
    status: str
    confidence: float
    reasons: list[str] = field(default_factory=list)


@dataclass
class Candidate:
    version_id: str
    link: RuleLink
    lineage: str | None


def link_across_versions(
    translated: CRDocument,
    versions: list[tuple[str, CRDocument]],
    lineage_of: LineageOf,
    glossary_pairs: dict[str, str],
    titles_before: frozenset[str] = frozenset(),
) -> list[TargetLink]:
    """One TargetLink per translated rule; ``versions`` are the candidate English versions,
    nearest by date first (one when the translation's own version is held, else two).
    ``titles_before``: the rule titles of the English editions before them (``earlier_titles``)."""
    checkers = [
        (version_id, _RuleChecker(translated, doc, version_id, glossary_pairs, later=[], earlier_titles=titles_before))
        for version_id, doc in versions
    ]
    chosen_version: dict[str, str] = {}
    by_number = {rule.number: rule for rule in translated.rules}
    english_titles: dict[str, str] = translated.extra.get("english_titles", {})
    chosen_target: dict[str, tuple[str, str]] = {}
    rules_of = {version_id: _rules_by_number(doc) for version_id, doc in versions}
    links = []
    for rule in translated.rules:
        candidates = []
        for version_id, checker in checkers:
            link = checker.link(rule)
            if link.en_number is not None:
                candidates.append(Candidate(version_id, link, lineage_of(version_id, link.en_number)))
        choice = _with_moved_parent(rule, chosen_target, versions, lineage_of)
        if choice is None:
            choice = _choose(rule, candidates, _inherited(rule, by_number, chosen_version))
        if choice is None or choice.link.status == "mismatch":
            by_title = _by_printed_title(rule, english_titles.get(rule.number), versions, lineage_of)
            choice = by_title or choice
        if choice is None:
            links.append(TargetLink(rule.number, None, None, "mismatch", 0.0, [_missing(rule, versions)]))
            continue
        _mark_uncertain_text(choice, candidates, rules_of)
        _mark_grown_subrules(rule, translated, choice, versions, lineage_of)
        chosen_version[rule.number] = choice.version_id
        chosen_target[rule.number] = (choice.version_id, choice.link.en_number or rule.number)
        links.append(
            TargetLink(
                rule.number, choice.version_id, choice.link.en_number, choice.link.status,
                choice.link.confidence, _reasons(choice, candidates),
            )
        )
    if len(versions) > 1:
        _align_shifted_subrules(translated, links, dict(versions), lineage_of)
    return links


TITLE_FOUND_CONFIDENCE = 0.8


def _align_shifted_subrules(
    translated: CRDocument, links: list[TargetLink], versions: dict[str, CRDocument], lineage_of: LineageOf
) -> None:
    """Subrules linked by their letters where the citations show the letters shifted.

    Where the translation's own English version is not held, a subrule is linked to the subrule of
    the same number; but a subrule inserted in between shifts the letters after it. The Korean CR
    of 2021 numbers "controlled by" for Planechase, Vanguard, Archenemy and Conspiracy 109.4c–f
    (citing 901.6, 902.6, 904.7, 905.5); 2022 inserted a new 109.4b, so there they are 109.4d–g.
    A subrule that cites exactly what one English subrule under the same rule cites, and no other
    does, is an anchor; between two anchors (or an anchor and either end) as many subrules on
    each side are the same subrules in order. Where the English side has more, the subrules it added
    after the English version before the translation's date (no member of their lineage there) are
    left out when that evens the counts (2022's 113.6c, new since 2019: the Korean 113.6c–f are
    2022's 113.6d–g). Otherwise no subrule there can be placed: each is a mismatch, said so, rather
    than shown beside a rule it may not translate. Under rules whose anchors keep their letters,
    nothing changes.
    """
    by_number = {link.number: link for link in links}
    children: dict[str, list[Rule]] = {}
    for rule in translated.rules:
        if rule.kind == "subrule" and rule.parent and by_number.get(rule.number):
            children.setdefault(rule.parent, []).append(rule)
    for parent, mine in children.items():
        parent_link = by_number.get(parent)
        if parent_link is None or parent_link.en_version is None or parent_link.en_number is None:
            continue
        version_id, en_parent = parent_link.en_version, parent_link.en_number
        theirs = [r for r in versions[version_id].rules if r.kind == "subrule" and r.parent == en_parent]
        anchors = _citation_anchors(mine, theirs)
        if anchors is None or all(mine[i].number[len(parent):] == theirs[j].number[len(en_parent):] for i, j in anchors):
            continue
        bounds = [(-1, -1), *anchors, (len(mine), len(theirs))]
        for (i0, j0), (i1, j1) in pairwise(bounds):
            if 0 <= i0 < len(mine):
                _relink(mine[i0], by_number[mine[i0].number], version_id, theirs[j0],
                        f"cites what {theirs[j0].number} of {version_id} cites, and no other rule under {en_parent} does")
            gap_mine, gap_theirs = mine[i0 + 1 : i1], theirs[j0 + 1 : j1]
            how = f"in order among the subrules of {en_parent} of {version_id} between those placed by their citations"
            if len(gap_theirs) > len(gap_mine):
                older = _older_version(translated, version_id, versions)
                if older is not None:
                    known = {lineage_of(older, r.number) for r in versions[older].rules} - {None}
                    kept = [r for r in gap_theirs if lineage_of(version_id, r.number) in known]
                    if len(kept) == len(gap_mine):
                        added = ", ".join(r.number for r in gap_theirs if r not in kept)
                        how += f", leaving out {added}, added after {older}"
                        gap_theirs = kept
            if len(gap_mine) == len(gap_theirs):
                for rule, english in zip(gap_mine, gap_theirs, strict=True):
                    _relink(rule, by_number[rule.number], version_id, english, how)
                continue
            for rule in gap_mine:
                link = by_number[rule.number]
                link.status, link.confidence = "mismatch", 0.0
                link.reasons.insert(0, (
                    f"the letters under {en_parent} of {version_id} are shifted from this translation's"
                    f" ({len(gap_mine)} subrules here where it has {len(gap_theirs)}): which one this translates is not known"))


def _older_version(translated: CRDocument, version_id: str, versions: dict[str, CRDocument]) -> str | None:
    """The candidate version other than ``version_id`` in force before the translation's date."""
    date = translated.effective_date
    before = [v for v, doc in versions.items()
              if v != version_id and date and doc.effective_date and doc.effective_date <= date]
    return before[0] if len(before) == 1 else None


def _citation_anchors(mine: list[Rule], theirs: list[Rule]) -> list[tuple[int, int]] | None:
    """(i, j) of subrules citing exactly the same rules, a set no other subrule on either side
    cites, in increasing order on both sides; None when there are none or they cross."""
    def unique_sets(rules: list[Rule]) -> dict[frozenset[str], int]:
        seen: dict[frozenset[str], list[int]] = {}
        for index, rule in enumerate(rules):
            cited = frozenset(cited_numbers(rule))
            if cited:
                seen.setdefault(cited, []).append(index)
        return {cited: found[0] for cited, found in seen.items() if len(found) == 1}

    ours, others = unique_sets(mine), unique_sets(theirs)
    anchors = sorted((i, others[cited]) for cited, i in ours.items() if cited in others)
    if not anchors or any(j1 <= j0 for (_i0, j0), (_i1, j1) in pairwise(anchors)):
        return None
    return anchors


def _relink(rule: Rule, link: TargetLink, version_id: str, english: Rule, reason: str) -> None:
    """Link ``rule`` to ``english`` instead; the reasons of the old link judged another rule."""
    if link.en_version == version_id and link.en_number == english.number:
        return
    reasons = [f"{reason} (its own number there is {link.en_number} of {link.en_version}, another rule)"]
    mine, theirs = cited_numbers(rule), cited_numbers(english)
    if mine != theirs:
        reasons.append(f"cites {', '.join(sorted(mine - theirs)) or 'nothing more'}"
                       f" where English cites {', '.join(sorted(theirs - mine)) or 'nothing more'}")
    link.en_version, link.en_number, link.reasons = version_id, english.number, reasons
    link.status, link.confidence = "same", TITLE_FOUND_CONFIDENCE


def _with_moved_parent(
    rule: Rule, chosen: dict[str, tuple[str, str]], versions: list[tuple[str, CRDocument]], lineage_of: LineageOf
) -> Candidate | None:
    """A subrule of a rule linked under another number keeps its letter there (702.85a of 2021,
    under Annihilator, is 702.86a of 2022 because Annihilator is 702.86 there)."""
    if rule.kind != "subrule" or not rule.parent or rule.parent not in chosen:
        return None
    version_id, parent_number = chosen[rule.parent]
    if parent_number == rule.parent:
        return None
    target = parent_number + rule.number[len(rule.parent):]
    doc = dict(versions)[version_id]
    if not any(r.number == target for r in doc.rules):
        return None
    reason = f"under {rule.parent}, linked as {parent_number} of {version_id}"
    link = RuleLink(rule.number, target, "same", TITLE_FOUND_CONFIDENCE, [reason])
    return Candidate(version_id, link, lineage_of(version_id, target))


def _by_printed_title(
    rule: Rule, printed: str | None, versions: list[tuple[str, CRDocument]], lineage_of: LineageOf
) -> Candidate | None:
    """The one rule of the same kind titled as the translation prints it, in the nearest version."""
    if not printed:
        return None
    wanted = " ".join(printed.casefold().split())
    for version_id, doc in versions:
        found = [r for r in doc.rules if r.kind == rule.kind and r.title and " ".join(r.title.casefold().split()) == wanted]
        if len(found) == 1:
            reason = f"found by the English title it prints ({printed!r}) as {found[0].number} in {version_id}"
            link = RuleLink(rule.number, found[0].number, "same", TITLE_FOUND_CONFIDENCE, [reason])
            return Candidate(version_id, link, lineage_of(version_id, found[0].number))
    return None


def _mark_uncertain_text(choice: Candidate, candidates: list[Candidate], rules_of: dict[str, dict[str, Rule]]) -> None:
    """The same rule with different English texts before and after the translation's date: where
    the translation's citations and examples fit one text better it follows that one (said so);
    otherwise which one it translates cannot be told, so it may be out of date ("stale"), never
    silently current."""
    if choice.link.status == "mismatch" or choice.lineage is None or choice.link.en_number is None:
        return
    chosen_rule = rules_of[choice.version_id].get(choice.link.en_number)
    for other in candidates:
        if other is choice or other.lineage != choice.lineage or other.link.en_number is None:
            continue
        other_rule = rules_of[other.version_id].get(other.link.en_number)
        if chosen_rule and other_rule and not same_content(chosen_rule, other_rule):
            if choice.link.confidence > other.link.confidence:
                choice.link.reasons.insert(0, (
                    f"English text differs between {other.version_id} and {choice.version_id}; the translation"
                    f" follows {choice.version_id}'s (against {other.version_id}'s: {'; '.join(other.link.reasons)})"))
                continue
            choice.link.status = "stale"
            choice.link.reasons.insert(0, f"English text differs between {other.version_id} and {choice.version_id}; the translation may follow either")


def _mark_grown_subrules(
    rule: Rule, translated: CRDocument, choice: Candidate, versions: list[tuple[str, CRDocument]], lineage_of: LineageOf
) -> None:
    """A rule whose only contradiction is its subrules, lying between the subrules of its lineage's
    members before and after the translation's date, is the same rule, changed since: stale, not
    mismatch (109.4 has a–e in 2019, a–f in the 2021 Korean CR, a–g in 2022: 109.4g was added).

    Without a member on both sides (the translation's own version held, or the rule new since)
    nothing confirms it, and it stays a mismatch."""
    if choice.link.status != "mismatch" or choice.link.contradicted != ("subrules",) or choice.lineage is None:
        return
    date = translated.effective_date
    if not date:
        return
    letters = _subrule_letters(translated, rule.number)
    sides: dict[bool, tuple[str, set[str]]] = {}  # after the translation's date? → (version, letters)
    for version_id, doc in versions:
        member = next((r.number for r in doc.rules if lineage_of(version_id, r.number) == choice.lineage), None)
        if member is not None and doc.effective_date:
            sides[doc.effective_date > date] = (f"{member} of {version_id}", _subrule_letters(doc, member))
    if len(sides) < 2:
        return
    (before_name, before), (after_name, after) = sides[False], sides[True]
    if before <= letters <= after and before != after:
        choice.link.status = "stale"
        choice.link.reasons.insert(0, (
            f"the same rule with subrules added over time: {_letters(before)} under {before_name},"
            f" {_letters(letters)} here, {_letters(after)} under {after_name}"
        ))


def _letters(letters: set[str]) -> str:
    return ",".join(sorted(letters, key=lambda letter: (len(letter), letter))) or "none"


def _subrule_letters(doc: CRDocument, number: str) -> set[str]:
    return {r.number[len(number):] for r in doc.rules if r.kind == "subrule" and r.parent == number}


def _rules_by_number(doc: CRDocument) -> dict[str, Rule]:
    """The document's rules by number, the first of a repeated number (as a scan would find)."""
    rules: dict[str, Rule] = {}
    for rule in doc.rules:
        rules.setdefault(rule.number, rule)
    return rules


def _inherited(rule: Rule, by_number: dict[str, Rule], chosen: dict[str, str]) -> str | None:
    """The version chosen for the rule's parent (or its section, or its part)."""
    for number in (rule.parent, rule.section, rule.number[:1] if rule.number[:1].isdigit() else None):
        if number and number != rule.number and number in chosen and number in by_number:
            return chosen[number]
    return None


def _choose(rule: Rule, candidates: list[Candidate], inherited: str | None) -> Candidate | None:
    if not candidates:
        return None
    passing = [c for c in candidates if c.link.status != "mismatch"]
    if len({c.lineage for c in candidates}) == 1:
        # One rule identity under this number in every candidate version: the wording whose
        # citations and examples the translation prints (Korean 120.4a cites 120.6 and 702.2, as
        # English does from 2021-06-18 on, not before), else the nearest version.
        return max(passing, key=lambda c: c.link.confidence) if passing else candidates[0]
    if not passing:
        return candidates[0]  # every candidate contradicted: reported as a mismatch
    if len(passing) == 1:
        return passing[0]
    for candidate in passing:
        if candidate.version_id == inherited:
            return candidate
    return max(passing, key=lambda c: c.link.confidence)  # stable: the nearest first on ties


def _reasons(choice: Candidate, candidates: list[Candidate]) -> list[str]:
    reasons = list(choice.link.reasons)
    others = [c for c in candidates if c is not choice and c.lineage != choice.lineage]
    for other in others:
        reasons.append(f"chose {choice.version_id}; {other.link.en_number} of {other.version_id} is another rule{_verdict(other)}")
    return reasons


def _verdict(other: Candidate) -> str:
    """What the checks said of a rule not chosen. Passing them is no evidence it fits: the Korean
    116.2h (foretell, citing 702.142) was said to "also fit" 2020-11-20's 116.2h, the Planechase
    die roll citing 901, because a differing citation only lowers confidence (a review)."""
    if other.link.status == "mismatch":
        return " and fails the checks"
    if other.link.reasons:
        return ", and against it: " + " and ".join(other.link.reasons)
    return " and also passes the checks"


def _missing(rule: Rule, versions: list[tuple[str, CRDocument]]) -> str:
    return f"no rule {rule.number} in " + " or ".join(version_id for version_id, _ in versions)


def relabel(
    status: str,
    en_rule: Rule,
    newest: Rule | None,
    newest_version: str,
    same_content: Callable[[Rule, Rule], bool],
    translated_number: str | None = None,
) -> tuple[str, str | None]:
    """(status, reason) of a link whose English rule is ``en_rule``, given its lineage's member
    in the newest English version (``None``: removed since). A translated rule numbered otherwise
    than that member (``translated_number``: the Korean 109.4b is 109.4c today) is renumbered."""
    if status == "mismatch":
        return status, None
    if status == "stale":  # already uncertain (see _mark_uncertain_text)
        return status, None
    if newest is None:
        return "stale", f"English rule {en_rule.number} was removed by {newest_version}"
    if not same_content(en_rule, newest):
        return "stale", f"English text changed since: {newest.number} in {newest_version}"
    if newest.number != en_rule.number:
        return "renumbered", f"English {en_rule.number} is {newest.number} in {newest_version}"
    if translated_number and translated_number != newest.number:
        return "renumbered", f"{translated_number} here is {newest.number} in {newest_version}"
    return "same", None
