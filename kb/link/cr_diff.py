"""How the Comprehensive Rules changed between versions: the diff of two versions, word by word.

Pure functions over parsed ``CRDocument``s; nothing here reads files or a database. Which old rule
is which new rule is decided in ``kb.link.cr_pairing`` (the identity every other stage relies on);
this module turns a pairing into changes: ``changed`` (same number), ``moved`` (renumbered,
same content once cited numbers are masked), ``moved-changed``, ``added``, ``removed``, and the
glossary's ``glossary-*`` kinds (entries paired as their lineages pair them: a renamed term is
``glossary-renamed`` or ``glossary-renamed-changed``, as a renumbered rule is moved), each shown
word by word (``kb.link.word_diff``). Traces through many versions are in ``kb.link.cr_trace``.

Pure normalisation (line endings, BOM, "119.1d." printed for "119.1d", runs of spaces) is not a
change: the parser removes the first three and comparison collapses whitespace.
"""
from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from kb.link.cr_compare import (
    DIGEST_PART,
    Entry,
    aspects,
    collapse,
    comparison_digest,
    digest_aspects,
    entries_of,
    masked,
    rule_display_text,
    same_content,
    similarity,
)
from kb.link.cr_pairing import Pairing, pair_rules, pairing_of
from kb.link.cr_trace import TraceEntry, number_maps, trace_rule, version_id_of, version_in_force
from kb.link.glossary_lineage import pair_glossary
from kb.link.word_diff import ELIDE_EQUAL_WORDS, WordOp, ratio_of, render_word_diff, word_ops
from kb.records import CRDocument, GlossaryEntry, Rule

__all__ = [
    "CHANGE_KINDS", "Change", "Compared", "ComparedTerm", "TraceEntry", "WordOp", "changes_by_lineage", "compared_rules", "count_changes",
    "diff_and_map", "diff_and_pairing", "diff_by_lineage", "diff_glossary", "diff_versions", "glossary_changes_by_digest",
    "number_maps", "pair_rules",
    "render_word_diff", "rule_display_text", "same_content", "similarity", "trace_rule", "version_id_of", "version_in_force",
    "with_texts", "word_ops",
]

RULE_KINDS = ("added", "removed", "changed", "moved", "moved-changed")
GLOSSARY_KINDS = ("glossary-added", "glossary-removed", "glossary-changed", "glossary-renamed", "glossary-renamed-changed")
CHANGE_KINDS = RULE_KINDS + GLOSSARY_KINDS


@dataclass
class Change:
    """One difference between two versions.

    For rules, ``old_number``/``new_number`` are rule numbers (``None`` on the side where the
    rule does not exist). For glossary kinds they hold the glossary term. ``aspects`` says what
    differs: ``title``, ``text``, ``examples`` (an example change is a change of the rule) and
    ``numbers-only`` when the only differences are rule numbers inside the text.
    """

    kind: str
    old_number: str | None
    new_number: str | None
    old_text: str | None
    new_text: str | None
    similarity: float
    word_diff: str
    aspects: list[str] = field(default_factory=list)
    ops: list[WordOp] = field(default_factory=list)
    entry_kind: str | None = None  # part / section / rule / subrule, or "glossary"
    # Paired with the rule left at its number by that number alone (``Pairing.by_number``).
    paired_by_number: bool = False

    @property
    def aspects_text(self) -> str | None:
        """``aspects`` as ``cr_changes.aspects`` stores them and the diff page gives them:
        "text,numbers-only", or None."""
        return ",".join(self.aspects) or None

    def compact_diff(self, elide: int = ELIDE_EQUAL_WORDS) -> str:
        """The word diff on one line, long unchanged runs shortened to "…"."""
        return render_word_diff(self.ops, elide=elide).replace("\n", " ⏎ ")


# --------------------------------------------------------------------------------------------
# Diffs


def diff_versions(old: CRDocument, new: CRDocument) -> list[Change]:
    """Every rule and glossary difference from ``old`` to ``new``, in the new version's order
    (removed rules and glossary changes after the rest)."""
    return diff_and_map(old, new)[0]


def diff_and_map(old: CRDocument, new: CRDocument) -> tuple[list[Change], dict[str, str | None]]:
    """``diff_versions`` and ``pair_rules`` from one pairing."""
    changes, pairing = diff_and_pairing(old, new)
    return changes, pairing.mapping()


def diff_and_pairing(
    old: CRDocument, new: CRDocument, entries: Callable[[CRDocument], dict[str, Entry]] = entries_of
) -> tuple[list[Change], Pairing]:
    """``diff_versions`` and the pairing it rests on (a build also derives merges and splits from it);
    ``entries``: the documents' rules in comparison form (``kb.link.cr_compare.HeldEntries``).

    The pairing is shared with later calls for the same two documents: read it, never change it."""
    if not RECENT_DIFFS_KEPT:  # a build: the key alone is a copy of both documents
        pairing = pairing_of(old, new, entries)
        return _changes(old, new, pairing), pairing
    key = (content_key(old), content_key(new))
    found = _RECENT_DIFFS.get(key)
    if found is None:
        pairing = pairing_of(old, new, entries)
        found = (_changes(old, new, pairing), pairing)
        _RECENT_DIFFS[key] = found
        while len(_RECENT_DIFFS) > RECENT_DIFFS_KEPT:
            _RECENT_DIFFS.popitem(last=False)
    else:
        _RECENT_DIFFS.move_to_end(key)
    changes, pairing = found
    return list(changes), pairing


# A process that builds more than once (the test suite) compares the same pairs of versions again;
# the comparison takes seconds, the key milliseconds. The key is the whole content, so only an
# identical pair of documents is answered from here. Each pair kept holds both documents in
# comparison form (a build of the snapshot's 14 versions peaked at 520 MB keeping them all, 311 MB
# keeping none), so a build keeps none; the test suite sets how many (tests/conftest.py).
RECENT_DIFFS_KEPT = 0
_RECENT_DIFFS: OrderedDict[tuple[tuple, tuple], tuple[list[Change], Pairing]] = OrderedDict()


class Compared(NamedTuple):
    """A rule as a diff along lineages compares it: its number, kind, lineage and comparison
    digest (``kb.link.cr_compare.comparison_digest``), not its text (stored with each English
    rule: ``rule_comparisons``)."""

    number: str
    kind: str
    lineage: str | None
    digest: bytes


def compared_rules(document: CRDocument, lineages: Mapping[str, str]) -> dict[str, Compared]:
    """Each rule of ``document`` by number (a number printed twice: the last), as compared along
    ``lineages`` (rule number → lineage id)."""
    return {
        number: Compared(number, entry.rule.kind, lineages.get(number), comparison_digest(entry))
        for number, entry in entries_of(document).items()
    }


def diff_by_lineage(
    old: CRDocument,
    new: CRDocument,
    old_lineages: Mapping[str, str],
    new_lineages: Mapping[str, str],
    by_number: Collection[str] = (),
    glossary_pairs: Mapping[str, str] | None = None,
) -> list[Change]:
    """``diff_versions`` with each rule paired with the rule of its lineage (``kb.link.cr_lineage``):
    its identity through every version between the two, not a likeness found afresh.

    Two versions years apart hold thousands of rules that look alike: compared directly, 702.18e of
    2013 ("Multiple instances of trample … are redundant") paired with menace's 702.111c of 2026, and
    the main phase's "Third, the active player gets priority" of 2022 with the beginning phase's
    "Second, …" of 2025, while their lineages lead to 702.19g and 505.6. ``old_lineages`` and
    ``new_lineages``: rule number → lineage id in each version; ``by_number``: old numbers whose
    lineage was paired by a number alone on the way (``Pairing.by_number``), marked so in the diff;
    ``glossary_pairs``: old term → new term of the glossary entries of one lineage (None: paired
    afresh). For consecutive versions this gives what ``diff_versions`` does."""
    changes = changes_by_lineage(compared_rules(old, old_lineages), compared_rules(new, new_lineages), by_number)
    old_rules, new_rules = ({rule.number: rule for rule in document.rules} for document in (old, new))
    for change in changes:
        before, after = old_rules.get(change.old_number or ""), new_rules.get(change.new_number or "")
        with_texts(change, rule_display_text(before) if before else None, rule_display_text(after) if after else None)
    return changes + diff_glossary(old.glossary, new.glossary, glossary_pairs)


def changes_by_lineage(
    old: Mapping[str, Compared], new: Mapping[str, Compared], by_number: Collection[str] = ()
) -> list[Change]:
    """The rule changes of ``diff_by_lineage``, in its order, from the rules' digests alone: their
    texts and word diffs are left to ``with_texts`` (a page shows a hundred of thousands).

    A rule of a lineage both versions hold is paired with its partner (added: a new rule whose
    lineage the old version lacks; removed: an old rule whose lineage the new one lacks, or one
    folded into another rule, where the merge's link names the rule that took it in)."""
    partner_of = {rule.lineage: number for number, rule in new.items() if rule.lineage is not None}
    old_to_new: dict[str, str] = {}
    new_to_old: dict[str, str] = {}
    for number, rule in old.items():
        partner = partner_of.get(rule.lineage) if rule.lineage is not None else None
        if partner is not None:
            old_to_new[number] = partner
            new_to_old[partner] = number
    changes: list[Change] = []
    for number, rule in new.items():
        old_number = new_to_old.get(number)
        if old_number is None:
            changes.append(Change("added", None, number, None, None, 0.0, "", entry_kind=rule.kind))
            continue
        before = old[old_number]
        found = digest_aspects(before.digest, rule.digest) if before.digest != rule.digest else []
        kind = _paired_kind(old_number != number, found)
        if kind is not None:
            changes.append(Change(
                kind, old_number, number, None, None, 0.0, "", aspects=found,
                entry_kind=before.kind if before.kind == rule.kind else f"{before.kind}->{rule.kind}",
                paired_by_number=old_number in by_number,
            ))
    changes.extend(
        Change("removed", number, None, None, None, 0.0, "", entry_kind=rule.kind)
        for number, rule in old.items() if number not in old_to_new
    )
    return changes


def with_texts(change: Change, old_text: str | None, new_text: str | None) -> Change:
    """``change`` with the texts it compares (None: the side it lacks) and their word diff.

    The texts are set last: a change the diff page keeps is given them by whichever request
    shows it first, and another request reads a change whose texts are set as done (one that
    read it half done showed an empty word diff and a similarity of 0: a review)."""
    ops = word_ops(old_text or "", new_text or "")
    change.ops, change.word_diff = ops, render_word_diff(ops)
    change.similarity = ratio_of(ops) if old_text is not None and new_text is not None else 0.0
    change.old_text, change.new_text = old_text, new_text
    return change


def content_key(document: CRDocument) -> tuple:
    """Everything a comparison reads of a document's rules and glossary, as one hashable value."""
    return (
        tuple(
            (rule.number, rule.kind, rule.title, rule.text, tuple(rule.examples), rule.parent, rule.section)
            for rule in document.rules
        ),
        tuple((entry.term, entry.text) for entry in document.glossary),
    )


def _changes(
    old: CRDocument, new: CRDocument, pairing: Pairing, glossary_pairs: Mapping[str, str] | None = None
) -> list[Change]:
    changes: list[Change] = []
    for new_entry in pairing.new.values():
        old_number = pairing.new_to_old.get(new_entry.number)
        if old_number is None:
            changes.append(_one_sided("added", None, new_entry.rule))
            continue
        change = _paired_change(pairing.old[old_number], new_entry)
        if change is not None:
            change.paired_by_number = old_number in pairing.by_number
            changes.append(change)
    # A heading folded into another rule (700.8 under 206.3 in 2020) is gone too: listed as
    # removed, where the merge's link names the rule that took it in (it was in no diff at all).
    for number, old_entry in pairing.old.items():
        if number not in pairing.old_to_new:
            changes.append(_one_sided("removed", old_entry.rule, None))
    changes.extend(diff_glossary(old.glossary, new.glossary, glossary_pairs))
    return changes


def _one_sided(kind: str, old: Rule | None, new: Rule | None) -> Change:
    rule = old or new
    assert rule is not None
    change = Change(kind, old.number if old else None, new.number if new else None, None, None, 0.0, "", entry_kind=rule.kind)
    return with_texts(change, rule_display_text(old) if old else None, rule_display_text(new) if new else None)


def _paired_change(old_entry: Entry, new_entry: Entry) -> Change | None:
    old, new = old_entry.rule, new_entry.rule
    found = aspects(old_entry, new_entry)
    kind = _paired_kind(old.number != new.number, found)
    if kind is None:
        return None
    change = Change(
        kind, old.number, new.number, None, None, 0.0, "", aspects=found,
        entry_kind=old.kind if old.kind == new.kind else f"{old.kind}->{new.kind}",
    )
    return with_texts(change, rule_display_text(old), rule_display_text(new))


def _paired_kind(moved: bool, found: list[str]) -> str | None:
    """A paired rule's change from whether it moved and what differs (None: no change)."""
    if not moved:
        return "changed" if found else None
    return "moved" if not found or "numbers-only" in found else "moved-changed"


class ComparedTerm(NamedTuple):
    """A glossary entry as a diff along lineages compares it: its term, lineage and
    ``kb.link.cr_compare.glossary_digest``, not its text (stored with each English entry:
    ``glossary_comparisons``)."""

    term: str
    lineage: str | None
    digest: bytes


def diff_glossary(
    old: Sequence[GlossaryEntry], new: Sequence[GlossaryEntry], paired: Mapping[str, str] | None = None,
    texts: bool = True,
) -> list[Change]:
    """Glossary entries added, removed, redefined or renamed, paired as their lineages pair them
    (``kb.link.glossary_lineage.pair_glossary``): "Converted Mana Cost" → "Mana Value" is one
    entry renamed, not one removed and one added. ``texts`` False: the word diffs are left to
    ``with_texts``."""
    pairs = pair_glossary(old, new) if paired is None else paired  # given: the stored lineages'
    changes = _glossary_changes(old, new, pairs, _texts_differ)
    if texts:
        old_texts = {entry.term: entry.text for entry in old}
        new_texts = {entry.term: entry.text for entry in new}
        for change in changes:
            with_texts(
                change, None if change.old_number is None else old_texts[change.old_number],
                None if change.new_number is None else new_texts[change.new_number],
            )
    return changes


def glossary_changes_by_digest(
    old: Sequence[ComparedTerm], new: Sequence[ComparedTerm], paired: Mapping[str, str]
) -> list[Change]:
    """The changes of ``diff_glossary`` (``texts`` False) from the entries' digests alone, paired
    as ``paired`` (old term → new term: the stored lineages')."""
    return _glossary_changes(old, new, paired, _digests_differ)


def _texts_differ(old: GlossaryEntry, new: GlossaryEntry) -> tuple[bool, bool]:
    """Whether two entries' texts differ once folded, and whether they say the same but for the
    rule numbers they cite (two texts printed alike: not folded, as most of two versions')."""
    if old.text == new.text:
        return False, True
    folded = collapse(old.text), collapse(new.text)
    if folded[0] == folded[1]:
        return False, True
    return True, masked(folded[0]) == masked(folded[1])


def _digests_differ(old: ComparedTerm, new: ComparedTerm) -> tuple[bool, bool]:
    """``_texts_differ`` from two ``glossary_digest``s."""
    if old.digest[:DIGEST_PART] == new.digest[:DIGEST_PART]:
        return False, True
    return True, old.digest[DIGEST_PART:] == new.digest[DIGEST_PART:]


GlossaryItem = TypeVar("GlossaryItem", GlossaryEntry, ComparedTerm)


def _glossary_changes(
    old: Sequence[GlossaryItem], new: Sequence[GlossaryItem], pairs: Mapping[str, str],
    differ: Callable[[GlossaryItem, GlossaryItem], tuple[bool, bool]],
) -> list[Change]:
    old_by_term = {entry.term: entry for entry in old}
    new_by_term = {entry.term: entry for entry in new}
    old_of = {new_term: old_term for old_term, new_term in pairs.items()}
    changes = []
    for term, entry in new_by_term.items():
        before = old_by_term.get(old_of.get(term, ""))
        if before is None:
            changes.append(_glossary_change("glossary-added", None, term))
            continue
        redefined, numbers_only = differ(before, entry)
        # Not "Player’s" for "Player's", "(obsolete)" for "(Obsolete)".
        if before.term != term and collapse(before.term).casefold() != collapse(term).casefold():
            kind = "glossary-renamed-changed" if redefined else "glossary-renamed"
            changes.append(_glossary_change(kind, before.term, term, numbers_only))
        elif redefined:
            changes.append(_glossary_change("glossary-changed", before.term, term, numbers_only))
    paired_old = set(old_of.values())
    changes.extend(_glossary_change("glossary-removed", term, None) for term in old_by_term if term not in paired_old)
    return changes


def _glossary_change(kind: str, old_term: str | None, new_term: str | None, numbers_only: bool = False) -> Change:
    found = ["text", *(["numbers-only"] if numbers_only else [])] if old_term is not None and new_term is not None else []
    return Change(kind, old_term, new_term, None, None, 0.0, "", aspects=found, entry_kind="glossary")


def count_changes(changes: Iterable[Change]) -> dict[str, int]:
    """Number of changes per kind, every kind listed (zeros included), in CHANGE_KINDS order."""
    counts = Counter(change.kind for change in changes)
    return {kind: counts.get(kind, 0) for kind in CHANGE_KINDS}


