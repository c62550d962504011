"""Many-to-one links between CR versions: rules merged into another rule, rules split off another.

The identity pairing of ``kb.link.cr_pairing`` is one to one, so that a lineage is a chain. The
editors also fold a removed rule into a neighbour (701.16d "a replacement moves the objects" went
into 701.16c when both became "the library is shuffled anyway") and divide a rule in two (603.6d's
text became 603.10, its example 603.10a). Those links are kept beside the identity pairing:

- **merged**: a heading the pairing folded into the rule its subrules went under (700.8 into
  206.3 in 2021), or an old rule the pairing calls removed whose words (in order) are mostly found in a
  new rule that has a predecessor of its own *and changed to take them in* (the new rule holds more
  of them than its predecessor did). A rule that kept its text word for word took nothing in, so a
  removed rule written on the same template as an untouched one ("Multiple instances of changeling
  …" beside "Multiple instances of flash …") is not merged into it.
- **split**: a new rule the pairing calls added whose words are mostly found in an old rule that
  has a successor of its own *and changed to give them away* (the successor no longer holds most
  of them: a sentence copied into a new rule while staying where it was is not a split).

Containment is the share of the smaller side's words that ``difflib`` matches in order in the
larger; a short text (under ``MIN_WORDS`` words) says too little to be traced.

**Confirmed** links (``confirmed_links``, the ones stored and shown) also stay in their section:
the partner lies in the section the rule's own section became. The look-alikes found by words
alone cross sections (205.3b → 306.3 in 2009, 800.7 → 104.3h in 2017/2019), and so does a
sentence copied into rules elsewhere (409.1f → 309.2c, 309.2d in 2003).

Measured: on the 12 Venser's Journal diffs, 2 merges (both the key's pairs) and 3 splits (rules the
key calls added). On the 12 consecutive English versions in realdata/cr/en-raw, 11 merges, of
which 2 read as look-alikes written on another rule's template (205.3b → 306.3 in 2009, 800.7 →
104.3h in 2019), and 43 splits (sentences copied into several rules count: 409.1f → 309.2c and
309.2d in 2003).
Only the confirmed ones are stored (``rule_lineage_links``): 5 of those 11 merges (left out:
the two look-alikes, and four across sections the 2009 and 2024 editions regrouped, 419.2 →
614.1 and 713.3 → 712.8 among them: likely right, not confirmed) and 35 of those 43 splits.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain

from kb.link.cr_compare import Entry, containment
from kb.link.cr_pairing import NUMBERED_KINDS, Pairing

# Share of the removed (or added) rule's words found, in order, in its partner.
CONTAINED = 0.8
MIN_WORDS = 8
# A split-off text has left the rule it came from: the successor keeps less than this of it.
STILL_IN_SUCCESSOR = 0.5
# Cheap bag-of-words share checked before the ordered comparison.
BAG_PREFILTER = 0.6
RARE_WORDS = 4


def _bag_share(part: Entry, whole: Entry) -> float:
    """Share of ``part``'s words (counted with repeats) that ``whole`` has, in any order."""
    have = whole.word_counts
    return sum(min(count, have[word]) for word, count in part.word_counts.items()) / max(1, len(part.words))


def _changed(pairing: Pairing, old_number: str, new_number: str) -> bool:
    return pairing.old[old_number].masked != pairing.new[new_number].masked


def _word_index(pool: Iterable[Entry]) -> dict[str, list[Entry]]:
    """Word → the entries of ``pool`` that use it (built once per pool, not once per item)."""
    index: dict[str, list[Entry]] = defaultdict(list)
    for other in pool:
        for word in other.word_set:
            index[word].append(other)
    return index


def _best_container(
    item: Entry, index: dict[str, list[Entry]], frequency: Counter[str], accept: Callable[[Entry, float], bool],
) -> tuple[float, str] | None:
    """The entry of the indexed pool that contains most of ``item``'s words, if any contains enough and is accepted."""
    rare = sorted(item.word_set, key=lambda word: (frequency[word], word))[:RARE_WORDS]
    seen: set[str] = set()
    best: tuple[float, str] | None = None
    for word in rare:
        for other in index.get(word, []):
            if other.number in seen:
                continue
            seen.add(other.number)
            if _bag_share(item, other) < BAG_PREFILTER:
                continue
            share = containment(item.words, other.words)
            if share >= CONTAINED and (best is None or (share, other.number) > best) and accept(other, share):
                best = (share, other.number)
    return best


def _word_frequency(entries: dict[str, Entry]) -> Counter[str]:
    """In how many of a version's entries each word occurs (rare words find a rule's partner)."""
    return Counter(chain.from_iterable(item.word_set for item in entries.values()))


def _traceable(items: Iterable[Entry]) -> list[Entry]:
    return [item for item in items if item.rule.kind in NUMBERED_KINDS and len(item.words) >= MIN_WORDS]


def merged_into(pairing: Pairing) -> dict[str, str]:
    """Removed old number → the new number its text went into (a rule that changed to take it)."""
    merged: dict[str, str] = dict(pairing.folded)
    removed_rules = _traceable(pairing.free_old())
    if not removed_rules:
        return merged
    targets = [
        pairing.new[new_number]
        for new_number, old_number in pairing.new_to_old.items()
        if _changed(pairing, old_number, new_number)
    ]
    frequency = _word_frequency(pairing.new)
    index = _word_index(_traceable(targets))
    for removed in removed_rules:

        def took_it_in(target: Entry, share: float, removed: Entry = removed) -> bool:
            predecessor = pairing.old[pairing.new_to_old[target.number]]
            return containment(removed.words, predecessor.words) < share

        found = _best_container(removed, index, frequency, took_it_in)
        if found is not None:
            merged[removed.number] = found[1]
    return merged


def split_from(pairing: Pairing) -> dict[str, str]:
    """Added new number → the old number whose text it took (a rule that changed to give it)."""
    split: dict[str, str] = {}
    added_rules = _traceable(pairing.free_new())
    if not added_rules:
        return split
    sources = [
        pairing.old[old_number]
        for old_number, new_number in pairing.old_to_new.items()
        if _changed(pairing, old_number, new_number)
    ]
    frequency = _word_frequency(pairing.old)
    index = _word_index(_traceable(sources))
    for added in added_rules:
        parent = added.rule.parent
        # A subrule of a new rule belongs to that rule even where it reuses another rule's words
        # (improvise's 702.125b written on delve's 702.65a), unless its source went there too.
        in_new_family = bool(parent) and parent in pairing.new and parent not in pairing.new_to_old

        def gave_it_away(
            source: Entry, _share: float, added: Entry = added, in_new_family: bool = in_new_family,
        ) -> bool:
            successor = pairing.new[pairing.old_to_new[source.number]]
            if in_new_family and successor.rule.parent != added.rule.parent:
                return False
            return containment(added.words, successor.words) < STILL_IN_SUCCESSOR

        found = _best_container(added, index, frequency, gave_it_away)
        if found is not None:
            split[added.number] = found[1]
    return split


@dataclass(frozen=True)
class LineageLink:
    """A many-to-one link between two versions: ``merge`` (old rule went into the new one) or
    ``split`` (new rule came out of the old one); ``share``: containment of the moved words."""

    kind: str
    old_number: str
    new_number: str
    share: float


def _section(item: Entry) -> str:
    return item.rule.section or item.number.split(".")[0]


def _stays_in_section(pairing: Pairing, old: Entry, new: Entry) -> bool:
    """The new entry is in the section the old entry's section became."""
    return pairing.old_to_new.get(_section(old)) == _section(new)


def confirmed_links(pairing: Pairing) -> list[LineageLink]:
    """Merges and splits whose partner lies in the section the rule's own section became, and
    headings folded into the rule their subrules went under."""
    links = []
    for removed, target in merged_into(pairing).items():
        old, new = pairing.old[removed], pairing.new[target]
        if removed in pairing.folded or _stays_in_section(pairing, old, new):
            links.append(LineageLink("merge", removed, target, round(containment(old.words, new.words), 3)))
    for added, source in split_from(pairing).items():
        old, new = pairing.old[source], pairing.new[added]
        if _stays_in_section(pairing, old, new):
            links.append(LineageLink("split", source, added, round(containment(new.words, old.words), 3)))
    return sorted(links, key=lambda link: (link.kind, link.old_number, link.new_number))
