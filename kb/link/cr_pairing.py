"""Which rule of one CR version is which rule of the next: the pairing that rule identity rests on.

Pure functions over parsed ``CRDocument``s. Every numbered entry (part, section, rule, subrule) of
the old version is paired with at most one entry of the new version. Renumbering is common
(keyword actions are re-sorted, rules are inserted in the middle of a section), so entries are
paired by content and by what the rest of the document says about them, not only by number:

1. same number, same content once rule numbers inside the text are masked;
2. identical masked content under another number (a pure renumbering), or the same statement
   with its examples rewritten (unique on both sides);
3. cross-references that follow the move: a rule whose only change is a cited number
   ("see rule 500.6" became "see rule 603.2b") says where the cited rule went;
4. a heading whose subrules moved together moves with them ("701.47 Connive" → "701.50"),
   and so does a section whose rules went into one new section, retitled or not (716 "Ending the
   Turn" → 719 "Ending Turns and Phases" in 2022; 420 "State-Based Effects" → 704 "State-Based
   Actions" in 2009), unless they went under a rule that is closer to its own predecessor: the
   heading was folded into it (700.8 and its subrules went under 206.3 in 2021; 206.3 stays 206.3,
   700.8 is removed and merged there, and the new 700.8 is another rule), or the rule it would
   be states what another rule stated (2016's 508.2 "Second, the active player gets priority" is
   2015's 508.3, though 2015's 508.2 left its subrule 508.2a there);
5. an edited subrule of a moved rule keeps its letter under the new parent;
6. same number, similar content ("changed");
7. similar content elsewhere, same section first, then anywhere through a rare-word index
   (never all pairs: the 2009 renumbering would be 1,000 × 2,000 comparisons); a rule may
   become a subrule and back ("711.1c" → "711.2"), a heading never becomes a numbered rule;
   left-overs of a section that are each other's best match by statement (examples aside: a
   divided rule lives on where its statement went); never a subrule about one keyword with one
   about another ("Multiple instances of banding ..." is not "... of intimidate ...");
8. a rule the glossary's pointers left for other rules, still unpaired, is the one of those rules
   or their subrules clearly most like it, and no other free rule is more like that one (2013's
   "Indestructible ... See rule 700.4." is 2014's "See rule 702.12.": 700.4 is 702.12b);
9. what is left under the same number is "changed" however little is left of it, unless the
   rule's own children or parent say it is another rule now: a heading too few of whose children
   went under that number's new heading (a section: none; a rule: not most, 502.14 "Snow-Covered"
   of 2003, "Vigilance" of 2006, one of whose four subrules was alike one of Vigilance's), or a
   child whose heading went elsewhere; the rest is "removed" or "added" (``kb.link.cr_merges``
   says which of those were merged or split off);
10. two rules paired by likeness alone (steps 5–9), siblings on both sides, whose partners are each
   more like the other rule: uncrossed. A rule inserted among its siblings shifts their letters, and
   pairing by letter or number paired each with its neighbour's successor (2013's 107.11 "The
   Planeswalker symbol" with 2009's chaos symbol, 107.11, and 107.12 "The chaos symbol" with 2009's
   planeswalker symbol, 107.10; the legend and world rules of 2009, the timestamps of 2020's 613.7f–g).

A rule of the game and a note recording that such a rule is gone are never the same entry: when the
CR removes a rule it may leave a note at its number ("Previously, planeswalkers were subject to a
'planeswalker uniqueness rule' ... This rule has been removed"), and that number then holds a
different thing (see ``is_retrospective_note``).

Pure normalisation (line endings, BOM, "119.1d." printed for "119.1d", runs of spaces) is not a
change: the parser removes the first three and comparison collapses whitespace.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from itertools import combinations

from cydifflib import SequenceMatcher

from kb.link.cr_compare import Entry, containment, entries_of, shorter_held, similarity, similarity_bound
from kb.normalise.refs import english_cr_refs
from kb.records import CRDocument, Rule

# Pairing thresholds (SequenceMatcher ratio on word tokens).
CHANGED_IN_PLACE = 0.5
# An edited subrule keeps its letter under its moved rule when this alike: 0.5 left 2006's trample
# damage assignment, 502.9b, unpaired with 2009's 702.17b (0.497: "If all those blocking creatures
# are assigned lethal damage" became "Once all …"), and seven more of the 2009 renumbering.
MOVED_WITH_PARENT = 0.45
# ... or when it grew: the new text holds this much of the old one's words, in order, and more.
# 2022's Saga rule 715.3a (14 words) is the first sentence of 2024's 714.3a, which grew read
# ahead's 48 (0.37 alike, so the Saga's lore counter rule was "removed" and "added"; a judge's
# review), as 2006's cumulative upkeep 502.13a is the start of 2009's 702.21a (0.35). Not the other
# way: a rule cut in two keeps its words in both halves, and the short half ("Landwalk is an
# evasion ability.") held all of the shorter's words but was not the rule's body. Nor when another
# rule is more like the new one: 2009's phasing rule 702.23a holds all of 2006's one-line 502.15a
# (0.41 alike) and is 502.15b's body (0.63), which it follows (a review of the change).
GREW_WITH_PARENT = 0.85
# A subrule left free under a moved rule keeps its letter when this alike and no free rule is
# likelier on either side (``_pair_left_by_letter_under_moved_rules``).
LEFT_BY_LETTER = 0.3
GREW_FROM_WORDS = 10
# A free rule paired with its likest free rule anywhere holds at least this much of its words in
# it, in order (_pair_mutual_best_anywhere).
MUTUAL_CONTAINED = 0.6
MOVED_ELSEWHERE = 0.6
# A rule moved elsewhere found by its words without their marks (step 7): a near-copy only.
NEAR_COPY = 0.8
# A cross-reference that followed a move is strong evidence, but not for a rule rewritten beyond
# recognition: the cited rule must still share this much with its old text.
FOLLOWED_REFERENCE = 0.3
# Leftovers of one section that are each other's best match: a rule rewritten as it moved
# (603.6d became 603.10 when triggered-ability rules were regrouped) keeps less of its words.
MUTUAL_IN_SECTION = 0.4
# Two rules paired by likeness are uncrossed when each is at least this much more like the other's
# partner (step 10): a sure sign, not the noise of two rewrites scored against each other.
UNCROSS_GAIN = 0.05
# Short contents ("Manifest" vs "Manifest Dread") are too easily similar: demand more.
SHORT_CONTENT_WORDS = 4
MOVED_ELSEWHERE_SHORT = 0.85
# Candidates for an "anywhere" move share at least one of an entry's rarest words.
RARE_WORDS_PER_ENTRY = 4
JACCARD_PREFILTER = 0.3
# Rules and subrules may trade places; parts and sections are headings and stay what they are.
NUMBERED_KINDS = frozenset({"rule", "subrule"})
# How the CR opens a note about what the rules or cards used to say (403.5 "For many years, the
# battlefield was called ...", reworded "Previously, ..." in 2013; 306.4 "Previously, planeswalkers
# were subject to a 'planeswalker uniqueness rule' ... This rule has been removed").
RETROSPECTIVE_NOTE = re.compile(r"\s*(?:Previously|For many years),")


def is_retrospective_note(rule: Rule) -> bool:
    """True when the rule's text only records what used to be so (a rule removed, cards errata'd)."""
    return bool(RETROSPECTIVE_NOTE.match(rule.text or ""))


def _kinds_compatible(old: Rule, new: Rule) -> bool:
    # A rule replaced by a note recording its removal is removed, and the note is new: the CR says
    # so ("This rule has been removed") and the Venser's Journal editors call the XLN 306.4 note
    # added. Of the 32 versions held this parts 206.3 (2014), 306.4 (2017), 306.7 (2018), each a rule
    # that became such a note, and 2006's 403.5 (activation timing) from 2009's unrelated 403.5
    # note; notes reworded as notes ("For many years," → "Previously,") stay paired.
    if is_retrospective_note(old) != is_retrospective_note(new):
        return False
    return old.kind == new.kind or (old.kind in NUMBERED_KINDS and new.kind in NUMBERED_KINDS)


def _kind_class(rule: Rule) -> str:
    return "numbered" if rule.kind in NUMBERED_KINDS else rule.kind


@dataclass
class Pairing:
    """Old number ↔ new number, built step by step."""

    old: dict[str, Entry]
    new: dict[str, Entry]
    old_to_new: dict[str, str] = field(default_factory=dict)
    new_to_old: dict[str, str] = field(default_factory=dict)
    # Old headings folded into a rule that kept its own identity (their subrules went under it):
    # removed, and merged there (``kb.link.cr_merges``); no later step pairs them.
    folded: dict[str, str] = field(default_factory=dict)
    # Old rules paired by their number alone: the last step's pairs of a rule with no rules under
    # it (its heading stayed), the texts too unlike for any step before to pair them. Across
    # years of updates that can be two rules (2014's 107.14, the moon symbol, removed in 2015, and
    # 2019's 107.14, the energy symbol, added in 2016); what shows the pair says so.
    by_number: set[str] = field(default_factory=set)
    # Old rules paired by likeness alone (a letter kept, the same number, similar words), not by
    # identical content or the evidence of cross-references and children: step 10 may uncross them.
    alike: set[str] = field(default_factory=set)
    # Old rules printed word for word as another old rule was, where the new version prints those
    # words once and the other took them (``_pair_identical_elsewhere``): their words live on
    # there, and likeness anywhere (``_pair_similar_anywhere``, ``_pair_mutual_best_anywhere``)
    # pairs them with no rule; in their section's successor, or by evidence, they may be paired.
    twin_kept: set[str] = field(default_factory=set)

    def pair(self, old_number: str, new_number: str, alike: bool = False) -> None:
        self.old_to_new[old_number] = new_number
        self.new_to_old[new_number] = old_number
        if alike:
            self.alike.add(old_number)

    def free_old(self) -> list[Entry]:
        return [e for n, e in self.old.items() if n not in self.old_to_new and n not in self.folded]

    def free_new(self) -> list[Entry]:
        return [e for n, e in self.new.items() if n not in self.new_to_old]

    def is_free(self, old_number: str | None, new_number: str | None) -> bool:
        return (old_number is None or (old_number not in self.old_to_new and old_number not in self.folded)) and (
            new_number is None or new_number not in self.new_to_old
        )

    def mapping(self) -> dict[str, str | None]:
        """Each old number → its new number (``None``: removed)."""
        return {number: self.old_to_new.get(number) for number in self.old}


def _pair_unchanged_and_masked_equal(pairing: Pairing) -> None:
    for number, old in pairing.old.items():
        new = pairing.new.get(number)
        if new is not None and old.masked == new.masked and _kinds_compatible(old.rule, new.rule):
            pairing.pair(number, number)


def _free_by(pairing: Pairing, key: Callable[[Entry], object | None]) -> tuple[dict, dict]:
    """The free old and new entries by ``key`` (None: left out), each side in document order."""
    olds: dict[object, list[Entry]] = defaultdict(list)
    news: dict[object, list[Entry]] = defaultdict(list)
    for side, entries in ((olds, pairing.free_old()), (news, pairing.free_new())):
        for item in entries:
            found = key(item)
            if found is not None:
                side[found].append(item)
    return olds, news


def _pair_identical_elsewhere(pairing: Pairing) -> None:
    """Identical (masked) content under another number. Content that one entry holds on each side
    first; then content several hold, an entry first with the one under its own heading's
    successor, the rest in document order. 2009 printed "Vanguard cards have no subtypes." twice,
    as 204.3n (Subtypes) and 310.3 (Vanguards); 2013 prints it once, as 311.3 under Vanguards, now
    311: paired in document order, 204.3n took it and 310.3 became Phenomenon's 310.3 (a review)."""
    olds, news = _free_by(pairing, lambda item: (_kind_class(item.rule), item.masked) if item.words else None)
    shared: list[tuple[list[Entry], list[Entry]]] = []
    for key, old_entries in olds.items():
        new_entries = news.get(key, [])
        if len(old_entries) == 1 and len(new_entries) == 1:
            pairing.pair(old_entries[0].number, new_entries[0].number)
        elif new_entries:
            shared.append((old_entries, new_entries))
    # Groups in reading order: a heading paired in a later group is not known to an earlier one.
    for old_entries, new_entries in shared:
        for old in old_entries:
            went = pairing.old_to_new.get(_heading(old.rule) or "")
            if not went:
                continue
            under = [new for new in new_entries if pairing.is_free(None, new.number) and _heading(new.rule) == went]
            if len(under) == 1:
                pairing.pair(old.number, under[0].number)
        free_new = [new for new in new_entries if pairing.is_free(None, new.number)]
        left = [old for old in old_entries if pairing.is_free(old.number, None)]
        for old, new in zip(left, free_new, strict=False):
            pairing.pair(old.number, new.number)
        pairing.twin_kept.update(old.number for old in left[len(free_new):])


def _heading(rule: Rule) -> str | None:
    """The rule a subrule is under, or the section a rule is in."""
    return rule.parent or rule.section


def _pair_same_statement_elsewhere(pairing: Pairing) -> None:
    """The same statement (title and text, cited numbers masked) under another number, its examples
    rewritten: the rule moved and was given a new example (2006's 407.2 is 2009's 112.11, its
    example now Muraganda Petroglyphs). Only a statement that one free entry holds on each side."""
    olds, news = _free_by(
        pairing, lambda item: (_kind_class(item.rule), tuple(item.statement)) if item.rule.examples else None
    )
    for key, old_entries in olds.items():
        new_entries = news.get(key, [])
        if len(old_entries) == 1 and len(new_entries) == 1 and _kinds_compatible(old_entries[0].rule, new_entries[0].rule):
            pairing.pair(old_entries[0].number, new_entries[0].number)


def followed_references(pairing: Pairing) -> Counter[tuple[str, str]]:
    """Votes "old X is new Y" from paired rules that cite X before and Y after, in the same place.

    Only rules whose text is otherwise unchanged vote (the citations then line up one to one).
    """
    votes: Counter[tuple[str, str]] = Counter()
    for old_number, new_number in pairing.old_to_new.items():
        old, new = pairing.old[old_number], pairing.new[new_number]
        if old.masked != new.masked or old.parts == new.parts:
            continue
        for cited_before, cited_after in zip(old.cited(), new.cited(), strict=False):
            if cited_before != cited_after:
                votes[(cited_before, cited_after)] += 1
    return votes


def _pair_by_followed_references(pairing: Pairing) -> None:
    """A cited number that changed in the citing rules says where the cited rule went."""
    votes = followed_references(pairing)
    best: dict[str, tuple[int, str]] = {}
    totals: Counter[str] = Counter()
    for (before, after), count in votes.items():
        totals[before] += count
        if count > best.get(before, (0, ""))[0]:
            best[before] = (count, after)
    for before, (count, after) in sorted(best.items()):
        if count * 2 <= totals[before] or not pairing.is_free(before, after):
            continue
        old, new = pairing.old.get(before), pairing.new.get(after)
        if old is None or new is None or not _kinds_compatible(old.rule, new.rule):
            continue
        if similarity(old.words, new.words) >= FOLLOWED_REFERENCE:
            pairing.pair(before, after)


# What each kind of heading holds: a rule its subrules, a section its rules.
CHILD_KIND = {"rule": "subrule", "section": "rule"}


def _children(entries: dict[str, Entry]) -> dict[str, list[Entry]]:
    children: dict[str, list[Entry]] = defaultdict(list)
    for item in entries.values():
        if item.rule.kind in CHILD_KIND.values() and item.rule.parent:
            children[item.rule.parent].append(item)
    return children


def _pair_headings_by_children(pairing: Pairing, kinds: Collection[str] = tuple(CHILD_KIND)) -> None:
    """A rule whose subrules went (mostly) under one new rule went there itself; so did a section
    whose rules went under one new section (716 "Ending the Turn" of 2019 is 719 "Ending Turns and
    Phases" of 2022: 716 then held Adventurer Cards). ``kinds``: the headings so paired."""
    old_children = _children(pairing.old)
    for old in pairing.free_old():
        if old.rule.kind not in kinds or not old_children.get(old.number):
            continue
        votes = _where_children_went(pairing, old, old_children[old.number])
        if not votes:
            continue
        target, count = votes.most_common(1)[0]
        majority = count * 2 > len(old_children[old.number])
        if majority and target in pairing.new and pairing.is_free(None, target) and pairing.new[target].rule.kind == old.rule.kind:
            if _own_number_is_closer(pairing, old, pairing.new[target]):
                pairing.folded[old.number] = target
            elif not _statement_is_anothers(pairing, old, pairing.new[target]):
                pairing.pair(old.number, target)


def _where_children_went(pairing: Pairing, heading: Entry, children: list[Entry]) -> Counter[str | None]:
    """How many of ``heading``'s paired children went under each new heading: under which rule,
    or (for a section: a rule may become a subrule, 716.2 → 719.1f) into which section."""
    return Counter(
        _heading_of(pairing.new[pairing.old_to_new[child.number]].rule, heading.rule.kind)
        for child in children
        if child.number in pairing.old_to_new
    )


def _heading_of(rule: Rule, heading_kind: str) -> str | None:
    return rule.section if heading_kind == "section" else rule.parent


def _own_number_is_closer(pairing: Pairing, old: Entry, new: Entry) -> bool:
    """True when ``new``'s own number in the old version is free and more like it than ``old`` is:
    ``old`` was folded into that rule (700.8 and its subrules went under 206.3 in 2021), a merge."""
    own = pairing.old.get(new.number)
    return (
        own is not None
        and own.number != old.number
        and pairing.is_free(own.number, None)
        and _kinds_compatible(own.rule, new.rule)
        and similarity(own.words, new.words) > similarity(old.words, new.words)
    )


def _statement_is_anothers(pairing: Pairing, old: Entry, new: Entry) -> bool:
    """True when the rule ``new`` now heads states what another free rule of its section stated,
    more like it than ``old`` is: ``new`` is that rule, and ``old``'s subrules only stayed where
    they were. In 2016 "Second, the active player gets priority" (508.2) is 2015's 508.3 ("Third,
    the active player gets priority"), not 2015's 508.2 ("Second, any abilities that triggered on
    attackers being declared go on the stack"), whose 508.2a is still 508.2a and whose statement
    is now 508.2b. Sections are their titles and their rules, and keep to those."""
    if old.rule.kind != "rule":
        return False
    own = similarity(old.statement, new.statement)
    for other in pairing.free_old():
        if other is old or other.rule.kind not in NUMBERED_KINDS or _section_of(other) != _section_of(new):
            continue
        if not _kinds_compatible(other.rule, new.rule):
            continue
        bar = max(own, MUTUAL_IN_SECTION)
        if similarity_bound(other.statement_counts, new.statement_counts) <= bar:
            continue
        if similarity(other.statement, new.statement) > bar:
            return True
    return False


def _pair_children_of_moved_parents(pairing: Pairing) -> None:
    """An edited subrule keeps its letter when its rule moved: 701.47d → 701.50d; so does a rule its
    number when its section moved (2018's 718 "Subgames" became 719: its 718.3 is 719.3, not the
    718.3 of "Restarting the Game", a rule that says nearly the same of another game)."""
    for old in pairing.free_old():
        rule = old.rule
        if rule.kind not in CHILD_KIND.values() or not rule.parent or rule.parent not in pairing.old_to_new:
            continue
        new_parent = pairing.old_to_new[rule.parent]
        if new_parent == rule.parent:
            continue
        target = new_parent + rule.number[len(rule.parent):]
        new = pairing.new.get(target)
        if (
            new is not None
            and pairing.is_free(None, target)
            and _kinds_compatible(rule, new.rule)
            and (
                similarity(old.words, new.words) >= MOVED_WITH_PARENT
                or (_grew(old, new) and not _more_like_another_free_rule(pairing, old, new, similarity(old.words, new.words)))
            )
        ):
            pairing.pair(old.number, target, alike=True)


def _grew(old: Entry, new: Entry) -> bool:
    return (
        GREW_FROM_WORDS <= len(old.words) < len(new.words)
        and shorter_held(old.words, new.words) >= GREW_WITH_PARENT
    )


def _same_number(pairing: Pairing, old: Entry) -> Entry | None:
    """The free entry of the new version under ``old``'s number, if it may be ``old``'s kind."""
    new = pairing.new.get(old.number)
    if new is not None and pairing.is_free(None, old.number) and _kinds_compatible(old.rule, new.rule):
        return new
    return None


def _pair_in_place(pairing: Pairing, threshold: float) -> None:
    for old in pairing.free_old():
        new = _same_number(pairing, old)
        if new is not None and _may_be_one(pairing, old, new) and similarity(old.words, new.words) >= threshold:
            pairing.pair(old.number, old.number, alike=True)


def moved_glossary_pointers(old_doc: CRDocument, new_doc: CRDocument) -> list[tuple[str, str]]:
    """(old number, new number) where a glossary term of both versions points at one rule in the
    old and at another in the new, and at nothing else that changed: the glossary followed the
    rule (2013's "Indestructible ... See rule 700.4." is 2014's "... See rule 702.12."). Read from
    the entries' texts: a version read back from a database has no ``refs``."""
    new_refs = {entry.term.casefold(): english_cr_refs(entry.text) for entry in new_doc.glossary}
    moved = []
    for entry in old_doc.glossary:
        after = new_refs.get(entry.term.casefold())
        if after is None:
            continue
        before = english_cr_refs(entry.text)
        gone = [number for number in before if number not in after]
        came = [number for number in after if number not in before]
        if len(gone) == 1 and len(came) == 1:
            moved.append((gone[0], came[0]))
    return moved


def _pair_by_glossary_pointers(pairing: Pairing, moved: list[tuple[str, str]]) -> None:
    """A rule the glossary's pointers left, still unpaired, is the rule one of them now names or a
    subrule of it: the one most like it. Indestructible was a rule (700.4) until 2014 made it a
    keyword, whose 702.12b says the same ("… can't destroy it. … not destroyed by lethal damage"
    is "… can't be destroyed. Such permanents aren't destroyed by lethal damage", 0.44 alike).
    Every pointer that left one rule is weighed together (2009's 806.6d, the Two-Headed Giant's
    APNAP order, is pointed at by "Active Player, Nonactive Player Order", now 805.6, 0.52 alike,
    and by "Active Team", now 805.4a, 0.36: 805.6, whichever entry comes first). Only as alike as a
    cited rule that followed a move must be (``FOLLOWED_REFERENCE``), clearly more alike than any
    other of those rules (2006's 418.5e, an object's timestamp "with three exceptions", was divided
    among 2009's 613.6c, d and g, and is as like 613.6c as 613.6g), more alike than what its own
    number holds now (which the last step would pair it with), and no other free rule of the old
    version more like the one it would be."""
    new_children = _children(pairing.new)
    pointed_at: dict[str, set[str]] = defaultdict(set)
    for before, after in moved:
        pointed_at[before].add(after)
    for before, afters in sorted(pointed_at.items()):
        old = pairing.old.get(before)
        if old is None or not pairing.is_free(before, None):
            continue
        candidates: dict[str, Entry] = {}
        for after in afters:
            pointed = pairing.new.get(after)
            if pointed is not None:
                family = [pointed, *new_children.get(after, [])] if old.rule.kind in NUMBERED_KINDS else [pointed]
                candidates.update((new.number, new) for new in family)
        scored = sorted(
            ((similarity(old.words, new.words), new.number) for new in candidates.values()
             if pairing.is_free(None, new.number) and _may_be_one(pairing, old, new)),
            reverse=True,
        )
        if not scored:
            continue
        (score, target), *others = scored
        own = _same_number(pairing, old)
        if (
            score >= FOLLOWED_REFERENCE
            and all(score >= other + UNCROSS_GAIN for other, _number in others)
            and (own is None or score > similarity(old.words, own.words))
            and not _more_like_another_free_rule(pairing, old, pairing.new[target], score)
        ):
            pairing.pair(before, target, alike=True)


def _more_like_another_free_rule(pairing: Pairing, old: Entry, new: Entry, score: float) -> bool:
    """Whether some free rule of the old version other than ``old`` is more like ``new``."""
    for other in pairing.free_old():
        if other is old or not _kinds_compatible(other.rule, new.rule):
            continue
        if similarity_bound(other.word_counts, new.word_counts) > score and similarity(other.words, new.words) > score:
            return True
    return False


def _pair_mutual_best_anywhere(pairing: Pairing) -> None:
    """A rule still free in both versions that is the other's likest free rule anywhere (at least
    ``MOVED_WITH_PARENT`` alike by their statements, clearly ahead of the next, and holding
    ``MUTUAL_CONTAINED`` of the old words in order), in a section where its heading or a sibling
    went; or the free old rule the new one begins with, where it holds that one clearly more.

    The 2009 renumbering moved whole sections and reworded them ("play" became "cast", "in play"
    "the battlefield"): the layers' 418.5b is 613.5 (0.70 alike), instants' 212.5a is 304.1, the
    activated ability's 403.1 is 602.1, and 30-odd more were "removed" and "added", their rare
    words changed and their headings gone (an audit of identity across the 31 editions: 29 of the
    32 pairs found here are its, 2 more read right; 217.1c → 400.7d was wrong, 400.7 is it: a rule
    split into a rule and its subrules follows the one it begins with)."""
    free_old = [old for old in pairing.free_old()
                if old.rule.kind in NUMBERED_KINDS and len(old.words) >= GREW_FROM_WORDS and old.number not in pairing.twin_kept]
    free_new = [new for new in pairing.free_new() if new.rule.kind in NUMBERED_KINDS and len(new.words) >= GREW_FROM_WORDS]
    # Among every free rule, and among those where each old rule's family went.
    anywhere, in_family = _Likest(), _Likest()
    for old in free_old:
        for new in free_new:
            shared = len(old.word_set & new.word_set)
            if shared / (len(old.word_set) + len(new.word_set) - shared) < JACCARD_PREFILTER:
                continue
            if similarity_bound(old.statement_counts, new.statement_counts) < MOVED_WITH_PARENT:
                continue
            if not _may_be_one(pairing, old, new):
                continue
            # The rules' statements, not their examples: 2006's 505.6 followed its example to
            # 2009's 708.6c, while its statement is 708.6a's (a review of the change).
            score = similarity(old.statement, new.statement)
            if score < MOVED_WITH_PARENT:
                continue
            anywhere.note(old.number, new.number, score)
            if _where_its_family_went(pairing, old, new.number):
                in_family.note(old.number, new.number, score)
    for old_number, score, new_number in in_family.mutual():
        held = shorter_held(pairing.old[old_number].statement, pairing.new[new_number].statement)
        if held < MUTUAL_CONTAINED:
            continue
        if score < anywhere.next_best(old_number, new_number) + UNCROSS_GAIN and not (
            # A look-alike where the rule's family did not go is no rival of a rule that holds all
            # of it: 2006's 205.3b ("Subtypes are always single words …") is the start of 2009's
            # 204.3b, where 205.3 went, and was refused for 306.3, the planeswalker's subtypes,
            # 0.01 less alike. Not a part of it (2006's 309.1, declaring blockers, then the
            # triggers, then priority, is not 2009's 509.4, the triggers alone), nor a sibling in
            # the section (2009's 117.1c, EDH's life total, is not 2026's Archenemy 119.1e).
            score >= in_family.next_best(old_number, new_number) + UNCROSS_GAIN
            and containment(pairing.old[old_number].statement, pairing.new[new_number].statement) >= GREW_WITH_PARENT
        ):
            continue
        # The rule the new one begins with, where another is: 2009's 204.3b begins with all of
        # 2006's 205.3b and took a sentence of 205.3c, which is likelier by its length.
        head = _head_held_more(free_old, old_number, pairing.new[new_number], held)
        chosen = head or pairing.old[old_number]
        split = None if head else _parent_it_begins_with(pairing, chosen, pairing.new[new_number])
        target = split.number if split else new_number
        if not _where_its_family_went(pairing, chosen, target):
            continue
        if pairing.is_free(chosen.number, target):
            pairing.pair(chosen.number, target, alike=True)


@dataclass
class _Likest:
    """Each old and new rule's likest partner, and the score of its next best."""

    best_of_old: dict[str, tuple[float, str]] = field(default_factory=dict)
    best_of_new: dict[str, tuple[float, str]] = field(default_factory=dict)
    second_of_old: dict[str, float] = field(default_factory=dict)
    second_of_new: dict[str, float] = field(default_factory=dict)

    def note(self, old_number: str, new_number: str, score: float) -> None:
        _note_score(self.best_of_old, self.second_of_old, old_number, new_number, score)
        _note_score(self.best_of_new, self.second_of_new, new_number, old_number, score)

    def mutual(self) -> list[tuple[str, float, str]]:
        """(old, score, new) where each is the other's likest, the likest pairs first."""
        return [(old_number, score, new_number)
                for old_number, (score, new_number) in sorted(self.best_of_old.items(), key=lambda item: -item[1][0])
                if self.best_of_new.get(new_number, (0, None))[1] == old_number]

    def next_best(self, old_number: str, new_number: str) -> float:
        """The likeness of either rule's next likest partner."""
        return max(self.second_of_old.get(old_number, 0.0), self.second_of_new.get(new_number, 0.0))


def _note_score(best: dict[str, tuple[float, str]], second: dict[str, float], mine: str, other: str, score: float) -> None:
    """Keep ``mine``'s best-scored partner and the score of its next best."""
    if mine not in best or score > best[mine][0]:
        if mine in best:
            second[mine] = max(second.get(mine, 0.0), best[mine][0])
        best[mine] = (score, other)
    else:
        second[mine] = max(second.get(mine, 0.0), score)


def _head_held_more(free_old: list[Entry], old_number: str, new: Entry, held: float) -> Entry | None:
    """Another free old rule that ``new`` begins with and holds, in order, clearly more than it
    holds ``old_number``: the rule it continues. (One found whole at its end is a sentence it took
    in: 2009's banding 702.19c is 2006's 502.10b with 502.10c's sentence after it.)"""
    for other in free_old:
        if other.number == old_number or len(other.statement) < GREW_FROM_WORDS or not (other.word_set & new.word_set):
            continue
        if len(other.word_set & new.word_set) / len(other.word_set) <= held:
            continue
        if shorter_held(other.statement, new.statement) > held + UNCROSS_GAIN * 2 and _begins_with(new.statement, other.statement):
            return other
    return None


def _parent_it_begins_with(pairing: Pairing, old: Entry, new: Entry) -> Entry | None:
    """``new``'s free parent rule, where ``old`` begins with it and holds most of it: a rule split
    into a rule and its subrules is the rule it begins with. 2006's 217.1c ("An object that moves
    from one zone to another is treated as a new object … There are two exceptions") is 2009's
    400.7, its exceptions 400.7a and 400.7d; it went to 400.7d, the likest by length."""
    parent = pairing.new.get(new.rule.parent) if new.rule.parent else None
    if parent is None or not pairing.is_free(None, parent.number) or len(parent.statement) < GREW_FROM_WORDS:
        return None
    if not _may_be_one(pairing, old, parent):
        return None
    if _begins_with(old.statement, parent.statement) and shorter_held(parent.statement, old.statement) >= MUTUAL_CONTAINED:
        return parent
    return None


def _begins_with(text: list[str], start: list[str]) -> bool:
    """Whether ``text`` begins with the first words of ``start`` (at least three, in order)."""
    first = SequenceMatcher(None, start, text, autojunk=False).get_matching_blocks()[0]
    return first.a == 0 and first.b == 0 and first.size >= 3


def _where_its_family_went(pairing: Pairing, old: Entry, new_number: str) -> bool:
    """Whether ``new_number`` lies in a section where ``old``'s heading or a sibling went (or
    none of them went anywhere: no evidence either way). 2006's 403.2 ("only an object's
    controller can play its activated ability") is word for word in 2009's keyword action
    701.2a, but its siblings went to 602 "Activating Activated Abilities"."""
    parent = old.rule.parent
    family = [number for number, entry in pairing.old.items()
              if number != old.number and (number == parent or (parent and entry.rule.parent == parent))]
    went = {pairing.old_to_new[number].split(".")[0] for number in family if pairing.old_to_new.get(number)}
    return not went or new_number.split(".")[0] in went


def _move_alike_sections_after_their_rules(pairing: Pairing) -> None:
    """A section paired with another that reads the same, none of its rules with it, is the one
    that reads the same where most of its rules went: 2009 gave a "General" section to every
    chapter, and 2006's 300 "General" of Turn Structure is 2009's 500 "General" of Turn Structure,
    where eight of its nine rules went, not 300 "General" of Card Types (a review)."""
    old_children = _children(pairing.old)
    for number, paired in list(pairing.old_to_new.items()):
        old = pairing.old[number]
        children = old_children.get(number)
        if old.rule.kind != "section" or not children:
            continue
        votes = _where_children_went(pairing, old, children)
        if votes[paired] or not votes:
            continue
        target, count = votes.most_common(1)[0]
        moved_to = pairing.new.get(target) if target is not None else None
        if (
            target is not None and moved_to is not None and count * 2 > len(children) and pairing.is_free(None, target)
            and moved_to.rule.kind == "section" and moved_to.masked == pairing.new[paired].masked
        ):
            del pairing.new_to_old[paired]
            pairing.pair(number, target)


def _pair_left_by_letter_under_moved_rules(pairing: Pairing) -> None:
    """A subrule still free under a rule that moved with most of its paired subrules, and the new
    subrule of its letter under the rule it went to, still free too, are one rule reworded where
    they are ``LEFT_BY_LETTER`` alike, no free old rule is more like the new one, and no free
    subrule of the rule it went to is more like the old one: 2006's first strike 502.2b and 502.2c
    are 2009's 702.7b and 702.7c (0.44 and 0.38 alike), each "removed" and "added" before. Not
    where the rule went without its subrules: compared straight with 2026, 2006's 409.1 paired
    with 602.2 while its subrules went to 601.2, and 409.1a is 601.2a, not 602.2a (a review)."""
    old_children = _children(pairing.old)
    for old in pairing.free_old():
        rule = old.rule
        if rule.kind != "subrule" or not rule.parent or rule.parent not in pairing.old_to_new:
            continue
        new_parent = pairing.old_to_new[rule.parent]
        if new_parent == rule.parent:
            continue
        went = _where_children_went(pairing, pairing.old[rule.parent], old_children.get(rule.parent, []))
        if went[new_parent] * 2 <= sum(went.values()):
            continue
        target = new_parent + rule.number[len(rule.parent):]
        new = pairing.new.get(target)
        if new is None or not pairing.is_free(None, target) or not _may_be_one(pairing, old, new):
            continue
        score = similarity(old.words, new.words)
        siblings = [other for other in pairing.free_new() if other.rule.parent == new_parent and other is not new]
        if (
            score >= LEFT_BY_LETTER
            and not _more_like_another_free_rule(pairing, old, new, score)
            and not any(similarity(old.words, other.words) > score for other in siblings)
        ):
            pairing.pair(old.number, target, alike=True)


def _pair_left_in_place(pairing: Pairing) -> None:
    """What is left under the same number is "changed", however little is left of it, unless
    the number itself says otherwise: a heading none of whose children went under its number's new
    heading was replaced there (2003's 502.14 "Snow-Covered" and 2006's 502.14 "Vigilance": no
    subrule of one is a subrule of the other), and a child whose heading went elsewhere or was
    removed is not the child that now sits under another heading at its number."""
    old_children = _children(pairing.old)
    for old in pairing.free_old():
        if _same_number(pairing, old) is None:
            continue
        children = old_children.get(old.number)
        if children and not _children_stayed(pairing, old, children):
            continue
        parent = old.rule.parent
        if parent and parent in pairing.old and pairing.old_to_new.get(parent) != parent:
            continue
        pairing.pair(old.number, old.number, alike=True)
        if not children:
            pairing.by_number.add(old.number)


def _children_stayed(pairing: Pairing, heading: Entry, children: list[Entry]) -> bool:
    """Whether enough of a heading's children went under its number's new heading for the number
    alone to keep it: most of a rule's subrules (one alike subrule is not enough: "Multiple
    instances of snow-covered on the same land are redundant" is 0.8 alike "Multiple instances of
    vigilance on the same creature are redundant", every keyword's last subrule), any of a
    section's rules (a section is retitled while its rules are renumbered: 2003's 504 "Face-Down
    Spells and Permanents", before it "Face-Down Creatures")."""
    stayed = _where_children_went(pairing, heading, children)[heading.number]
    return stayed * 2 > len(children) if heading.rule.kind == "rule" else stayed > 0


def _may_be_one(pairing: Pairing, old: Entry, new: Entry) -> bool:
    """Whether the steps that pair by likeness may pair these two at all."""
    return _kinds_compatible(old.rule, new.rule) and not _about_other_keywords(pairing, old, new)


def _about_other_keywords(pairing: Pairing, old: Entry, new: Entry) -> bool:
    """Whether two subrules are about two keywords, however alike their words: every keyword has
    its "Multiple instances of [it] are redundant" (2003's 502.14d of Snow-Covered and 2006's
    502.14c of Vigilance, 0.8 alike; 2009's 702.2d of Deathtouch and 2013's 702.88d of Infect, 0.96).
    So are two subrules of rules with different titles, not paired, when each names its own
    rule's title only."""
    if old.rule.kind != "subrule" or new.rule.kind != "subrule":
        return False
    if pairing.old_to_new.get(old.rule.parent or "") == new.rule.parent:
        return False  # one keyword renamed: 2025's Umbra Armor, before it Totem Armor
    old_title = _title_of(pairing.old.get(old.rule.parent or ""))
    new_title = _title_of(pairing.new.get(new.rule.parent or ""))
    if not old_title or not new_title or old_title == new_title:
        return False
    old_text, new_text = (old.rule.text or "").casefold(), (new.rule.text or "").casefold()
    return old_title in old_text and new_title in new_text and old_title not in new_text and new_title not in old_text


def _title_of(heading: Entry | None) -> str:
    return (heading.rule.title or "").casefold() if heading is not None else ""


def _threshold(old: Entry, new: Entry) -> float:
    short = min(len(old.words), len(new.words)) < SHORT_CONTENT_WORDS
    return MOVED_ELSEWHERE_SHORT if short else MOVED_ELSEWHERE


def _assign_best(pairing: Pairing, candidates: Iterable[tuple[Entry, Entry]], at_least: float = 0.0) -> None:
    """Greedy best-first assignment of scored candidate pairs above their threshold (and
    ``at_least``)."""
    scored = []
    for old, new in candidates:
        if not _may_be_one(pairing, old, new):
            continue
        shared = len(old.word_set & new.word_set)
        union = len(old.word_set) + len(new.word_set) - shared
        if not union or shared / union < JACCARD_PREFILTER:
            continue
        threshold = max(_threshold(old, new), at_least)
        if similarity_bound(old.word_counts, new.word_counts) < threshold:
            continue
        score = similarity(old.words, new.words)
        if score >= threshold:
            scored.append((score, -abs(old.index - new.index), old.number, new.number))
    for _score, _distance, old_number, new_number in sorted(scored, reverse=True):
        if pairing.is_free(old_number, new_number):
            pairing.pair(old_number, new_number, alike=True)


def _section_of(item: Entry) -> str:
    return item.rule.section or item.number.split(".")[0]


def _pair_similar_in_section(pairing: Pairing) -> None:
    new_by_section: dict[str, list[Entry]] = defaultdict(list)
    for new in pairing.free_new():
        new_by_section[_section_of(new)].append(new)
    _assign_best(
        pairing,
        ((old, new) for old in pairing.free_old() for section in _sections_now(pairing, old)
         for new in new_by_section.get(section, [])),
    )


def _sections_now(pairing: Pairing, old: Entry) -> list[str]:
    """The section of ``old``'s number in the new version, and the one its section became where
    that moved: 2006's 413 "Resolving Spells and Abilities" is 2009's 608, and 413.2 ("Resolution
    of a spell or ability may involve several steps") is 608.2, found there (a review's case)."""
    section = _section_of(old)
    went = pairing.old_to_new.get(section)
    return [section, went] if went and went != section else [section]


def _core_words(entry: Entry) -> set[str]:
    """An entry's words without the marks around them ('"remember"' is "remember")."""
    return {core for core in (word.strip(WORD_MARKS) for word in entry.word_set) if core}


WORD_MARKS = "\"“”'‘’[](){}.,;:!?—–-"


def _pair_similar_anywhere(pairing: Pairing, bare_words: bool = False, at_least: float = 0.0) -> None:
    """``bare_words``: candidates found by their words without quotation marks and brackets, and
    paired only when ``at_least`` alike: an entry's rarest words are often a word and its mark
    ('"remember"'), which the rule it moved to quotes otherwise (2019's 706.7a is 2020's 607.5a,
    0.86 alike, never a candidate). Found so for every entry, such candidates paired six rules
    rightly and four wrongly between 0.60 and 0.71 alike: only near-copies are taken. Not a rule
    whose twin took their words (``Pairing.twin_kept``): 2009's 204.3n "Vanguard cards have no
    subtypes." was paired so with Phenomenon's 310.3 of 2013 once its twin 310.3 was 311.3."""
    free_new = pairing.free_new()
    free_old = [old for old in pairing.free_old() if old.number not in pairing.twin_kept]
    words_of = {id(item): (_core_words(item) if bare_words else item.word_set) for item in [*free_old, *free_new]}
    frequency = Counter(word for item in [*free_old, *free_new] for word in words_of[id(item)])
    index: dict[str, list[Entry]] = defaultdict(list)
    for new in free_new:
        for word in words_of[id(new)]:
            index[word].append(new)

    def candidates() -> Iterable[tuple[Entry, Entry]]:
        for old in free_old:
            rare = sorted(words_of[id(old)], key=lambda word: (frequency[word], word))[:RARE_WORDS_PER_ENTRY]
            seen: set[str] = set()
            for word in rare:
                for new in index.get(word, []):
                    if new.number not in seen:
                        seen.add(new.number)
                        yield old, new

    _assign_best(pairing, candidates(), at_least)


def _pair_mutual_best_in_section(pairing: Pairing) -> None:
    """Left-over old and new entries of one section whose statements are each other's closest match.

    Examples are left out: when a rule is divided, it lives on where its statement went, not
    where its example went (603.6d → 603.10, its example now under 603.10a).
    """
    new_by_section: dict[str, list[Entry]] = defaultdict(list)
    for new in pairing.free_new():
        if new.rule.kind in NUMBERED_KINDS and len(new.words) >= SHORT_CONTENT_WORDS:
            new_by_section[_section_of(new)].append(new)
    best_new: dict[str, tuple[float, str]] = {}
    best_old: dict[str, tuple[float, str]] = {}
    for old in pairing.free_old():
        if old.rule.kind not in NUMBERED_KINDS or len(old.words) < SHORT_CONTENT_WORDS:
            continue
        for new in new_by_section.get(_section_of(old), []):
            if not _may_be_one(pairing, old, new):
                continue
            # A score below the bar, or not above either side's best so far, changes nothing.
            bound = similarity_bound(old.statement_counts, new.statement_counts)
            if bound < MUTUAL_IN_SECTION or (
                bound <= best_new.get(old.number, (0.0, ""))[0] and bound <= best_old.get(new.number, (0.0, ""))[0]
            ):
                continue
            score = similarity(old.statement, new.statement)
            if score > best_new.get(old.number, (0.0, ""))[0]:
                best_new[old.number] = (score, new.number)
            if score > best_old.get(new.number, (0.0, ""))[0]:
                best_old[new.number] = (score, old.number)
    for old_number, (score, new_number) in best_new.items():
        if score >= MUTUAL_IN_SECTION and best_old[new_number][1] == old_number:
            pairing.pair(old_number, new_number, alike=True)


def _uncross_alike_pairs(pairing: Pairing) -> None:
    """Step 10: two rules paired by likeness whose partners are each more like the other rule are
    paired the other way round. Only rules without rules under them, siblings in both versions (a
    shift among one rule's subrules or one section's rules), and only when both rules gain and each
    new pair is as alike as a rule changed in place must be (2003's 409.1c was divided into 409.1c
    and 409.1d: its second paragraph, the longer, is not what makes it 409.1c)."""
    old_children, new_children = _children(pairing.old), _children(pairing.new)
    siblings: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    for old_number in sorted(pairing.alike, key=lambda number: pairing.old[number].index):
        new_number = pairing.old_to_new.get(old_number)
        if new_number is None or old_children.get(old_number) or new_children.get(new_number):
            continue
        siblings[(pairing.old[old_number].rule.parent, pairing.new[new_number].rule.parent)].append(old_number)
    scores: dict[tuple[str, str], float] = {}

    def score(old_number: str, new_number: str) -> float:
        if (old_number, new_number) not in scores:
            scores[(old_number, new_number)] = similarity(pairing.old[old_number].words, pairing.new[new_number].words)
        return scores[(old_number, new_number)]

    for members in siblings.values():
        for _round in range(len(members)):
            uncrossed = False
            for first, second in combinations(members, 2):
                first_new, second_new = pairing.old_to_new[first], pairing.old_to_new[second]
                if (
                    score(first, second_new) >= max(score(first, first_new) + UNCROSS_GAIN, CHANGED_IN_PLACE)
                    and score(second, first_new) >= max(score(second, second_new) + UNCROSS_GAIN, CHANGED_IN_PLACE)
                    and _may_be_one(pairing, pairing.old[first], pairing.new[second_new])
                    and _may_be_one(pairing, pairing.old[second], pairing.new[first_new])
                ):
                    pairing.pair(first, second_new, alike=True)
                    pairing.pair(second, first_new, alike=True)
                    # Paired by likeness now, not by a number.
                    pairing.by_number.difference_update((first, second))
                    uncrossed = True
            if not uncrossed:
                break


def pairing_of(
    old_doc: CRDocument, new_doc: CRDocument, entries: Callable[[CRDocument], dict[str, Entry]] = entries_of
) -> Pairing:
    """The full pairing of two versions (every step above, in order)."""
    pairing = Pairing(old=entries(old_doc), new=entries(new_doc))
    _pair_unchanged_and_masked_equal(pairing)
    _pair_identical_elsewhere(pairing)
    _pair_same_statement_elsewhere(pairing)
    _pair_by_followed_references(pairing)
    _pair_headings_by_children(pairing)
    _pair_children_of_moved_parents(pairing)
    _pair_in_place(pairing, CHANGED_IN_PLACE)
    # A section whose rules were only now paired, in place, follows them before likeness anywhere
    # pairs it by its few words of title: 2003-03's 503 "Copying Spells and Abilities" is 2003-10's
    # 503 "Copying Objects", where its eleven rules went, not 415 "Targeted Spells and Abilities" (a
    # review: Targets' history began with it). Not yet a rule: its statement says more than its
    # subrules do (2022's 103.2, "each player shuffles", is 2024's 103.3 though its subrules
    # went under the new 103.2).
    _pair_headings_by_children(pairing, kinds=("section",))
    _pair_similar_in_section(pairing)
    _pair_similar_anywhere(pairing)
    _pair_similar_anywhere(pairing, bare_words=True, at_least=NEAR_COPY)
    _pair_mutual_best_in_section(pairing)
    # A heading may only now have its subrules placed.
    _pair_headings_by_children(pairing)
    # And a rule paired only now by likeness (2006's 420.5 "The state-based effects are", 2009's
    # 704.5) takes its edited subrules along (420.5a "A player with 0 or less life loses the
    # game" is 704.5a "If a player has 0 or less life, he or she loses the game").
    _pair_children_of_moved_parents(pairing)
    _pair_by_glossary_pointers(pairing, moved_glossary_pointers(old_doc, new_doc))
    _pair_mutual_best_anywhere(pairing)
    _move_alike_sections_after_their_rules(pairing)
    _pair_left_by_letter_under_moved_rules(pairing)
    _pair_left_in_place(pairing)
    _uncross_alike_pairs(pairing)
    return pairing


def pair_rules(old_doc: CRDocument, new_doc: CRDocument) -> dict[str, str | None]:
    """Each old rule number → its number in the new version (``None`` if removed)."""
    return pairing_of(old_doc, new_doc).mapping()
