"""kb.link.cr_pairing against 12 hand-checked diffs of Venser's Journal: recall and precision.

The answer key (tests/fixtures/cr/venser, real data) lists every rule whose text changed, with the
editors' judgement of which old rule became which new one. Each entry is a pair (old number or
None, new number or None). Our pairing answers the same question for every number the key names:
for an old number, the new number we pair it with (None: removed); for a new number, the old one
(None: added). Recall = agreed / key entries; precision = agreed / our answers.

The key is scored twice: as printed, and as read (``read_key``, documented in the fixture README).
Reading takes the key at its own word and its program's public code (multimeric/VensersJournal,
difftool/): it lists only text changes, its program reads a rule only from a line that ends in
``. : )`` or a quote, and it pairs list slots one to one, so it never gives a new rule two old ones.

Every remaining disagreement is listed below with its class; a new disagreement or a fixed one
fails the test, so the list stays the honest account of where we and the editors differ.
"""
from __future__ import annotations

import gzip
import json
import re
from functools import cache
from pathlib import Path

import pytest

from kb.link.cr_compare import entry
from kb.link.cr_merges import merged_into, split_from
from kb.link.cr_pairing import Pairing, pairing_of
from kb.parse.cr import txt as cr_txt
from kb.records import CRDocument

VENSER = Path(__file__).parent.parent / "fixtures" / "cr" / "venser"
DIFFS = sorted(path.name for path in VENSER.glob("*.json"))

Pair = tuple[str | None, str | None]

# The key's program (difftool/rules_manip.py, extract_rules) takes a rule only from a line whose
# last character is one of these; any other rule line is invisible to it.
KEY_PROGRAM_LINE_ENDS = ".:)\u201c\u201d\""

# Entries the reading leaves out or narrows, and why (each is listed in READ_OFF below):
UNCHANGED_SIDE = (
    "names a rule whose text is the same in both files under its own number: the key lists only text"
    " changes, so that side is not a judgement (its program aligned a neighbouring look-alike)"
)
BLIND_SPOT = "the rule is in the other file on a line the key's program cannot read (no final period)"

# Classes of disagreement with the key as read (see the module docstring of kb.link.cr_pairing):
# the key gives a rule rewritten under its number as removed and added. What each signal looked at
# gives, on the 4 left (613.6d, 702.102c, 701.25c, 805.3a), on the 128 same-number rewrites the key
# accepts, and on the 2,070 same-number rewrites of the 31 consecutive pairs of versions held
# (realdata en-raw and these files; counted before the note signal below, 2,066 after it):
# - an unchanged rule elsewhere says the old statement better than its successor does: all 4 (and
#   306.4); 2 accepted (613.6c, 711.1b); 115 rewrites.
# - ... an unchanged sibling: 702.102c, 701.25c (and 306.4); 1 accepted (613.6c); 30 rewrites. Better
#   on all three measures (word order, shared content words, containment): 702.102c, 701.25c; 613.6c;
#   13. And at the pairing's own same-rule bar (0.5, successor below it): 701.25c only, and 2 of the
#   31 pairs' rewrites: 701.25c and 613.1a in 2020 ("Layer 1: Copy effects are applied" became "Layer
#   1: Rules and effects that modify copiable values are applied", the same layer rule; "Layer 3:
#   Text-changing effects are applied" is its look-alike on the same template): wrong on reading.
# - the new text came from another old rule that lost it: none of the 4; 1 accepted (613.6c); 82.
# - the subject changed: quoted terms differ for 702.102c (its new example quotes a card; and 306.4)
#   and 9 accepted, none disjoint among the 4; cited numbers differ for 702.102c (and 306.4) and 14
#   accepted; the
#   parent's title changed for none of the 4 and none accepted (94 rewrites, the renumberings);
#   the text no longer names its parent's title: 701.25c ("chosen this way"), none accepted, 35.
# - the new text is a note recording that the rule was removed ("Previously, …"): 306.4 only, now
#   followed by the pairing (kb.link.cr_pairing.is_retrospective_note; 4 pairings changed across the 31 pairs).
# Case by case, as read: 613.6d says the same with its words reordered (the same content words:
# "If an Aura, Equipment, or Fortification becomes attached ..., [it] receives a new timestamp at
# that time" → "An Aura, Equipment, or Fortification receives a new timestamp at the time it becomes
# attached ..."), and 805.3a keeps its old text word for word and adds a paragraph; the key's program
# aligned each with an unchanged look-alike (701.3c, 103.4d), so we keep their identity. 702.102c
# (a legal target was a condition of choosing bestow; now the cast's legality is checked after that
# choice) and 701.25c ("To proliferate in a Two-Headed Giant game means ... teams" → "In a Two-Headed
# Giant game, poison counters are shared by the team ... chosen this way") answer the same question
# differently: each keeps what set it apart from its unchanged sibling (bestow's legality; Two-Headed
# Giant, team, "See rule 810"), so reading supports a rewrite as well as a replacement, and no signal
# above separates them from accepted rewrites without breaking one that is right.
IN_PLACE = "rewritten under its number: the key calls it removed and added, we keep the identity"

# (diff, side, old, new): "key" = an entry of the key as read that we do not answer; "ours" = our
# answer the key does not give.
DISAGREEMENTS: dict[tuple[str, str, str | None, str | None], str] = {
    ("DTK-ORI.json", "key", "613.6d", None): IN_PLACE,
    ("DTK-ORI.json", "key", None, "613.6d"): IN_PLACE,
    ("DTK-ORI.json", "ours", "613.6d", "613.6d"): IN_PLACE,
    ("DTK-ORI.json", "key", "702.102c", None): IN_PLACE,
    ("DTK-ORI.json", "key", None, "702.102c"): IN_PLACE,
    ("DTK-ORI.json", "ours", "702.102c", "702.102c"): IN_PLACE,
    ("KLD-C16.json", "key", "701.25c", None): IN_PLACE,
    ("KLD-C16.json", "key", None, "701.25c"): IN_PLACE,
    ("KLD-C16.json", "ours", "701.25c", "701.25c"): IN_PLACE,
    ("ORI-BFZ.json", "key", "805.3a", None): IN_PLACE,
    ("ORI-BFZ.json", "key", None, "805.3a"): IN_PLACE,
    ("ORI-BFZ.json", "ours", "805.3a", "805.3a"): IN_PLACE,
}

# What the reading changed: (diff, entry as printed) → (entry as read or None, reason).
READ_OFF: dict[tuple[str, Pair], tuple[Pair | None, str]] = {
    # Both rules are unchanged under their own numbers in both pairs of files.
    ("C17-XLN.json", ("508.4b", "509.7b")): (None, UNCHANGED_SIDE),
    ("C17-XLN.json", ("509.7b", "508.4b")): (None, UNCHANGED_SIDE),
    ("KLD-C16.json", ("508.3b", "509.7b")): (None, UNCHANGED_SIDE),
    ("KLD-C16.json", ("509.7b", "508.3b")): (None, UNCHANGED_SIDE),
    # "can't begin to cast a spell" removed; 602.5 "can't begin to activate" is unchanged.
    ("DTK-ORI.json", ("601.5", "602.5")): (("601.5", None), UNCHANGED_SIDE),
    ("DTK-ORI.json", ("613.6d", "701.3c")): (("613.6d", None), UNCHANGED_SIDE),
    ("DTK-ORI.json", ("702.102c", "702.102b")): (("702.102c", None), UNCHANGED_SIDE),
    ("KLD-C16.json", ("701.25c", "701.25a")): (("701.25c", None), UNCHANGED_SIDE),
    # "Multiple instances of changeling … are redundant" → the unchanged flash rule.
    ("ORI-BFZ.json", ("702.72b", "702.8b")): (("702.72b", None), UNCHANGED_SIDE),
    ("ORI-BFZ.json", ("805.3a", "103.4d")): (("805.3a", None), UNCHANGED_SIDE),
    # Old 702.25m ends without its period, old 706.2b with a comma: the new ones add the period.
    ("DOM-BBD.json", (None, "702.25m")): (None, BLIND_SPOT),
    ("GRN-RNA.json", (None, "706.2b")): (None, BLIND_SPOT),
}


@cache
def _raw(set_code: str) -> tuple[str, str]:
    (path,) = (VENSER / "cr-txt").glob(f"cr-*-{set_code}.txt.gz")
    return path.name, gzip.decompress(path.read_bytes()).decode("utf-8-sig")


@cache
def _document(set_code: str) -> CRDocument:
    name, text = _raw(set_code)
    return cr_txt.parse(text.encode("utf-8"), name)


def _unreadable_by_key_program(set_code: str, number: str) -> bool:
    """True when ``number``'s line in that file ends so that the key's program skips it."""
    line = re.search(rf"^{re.escape(number)}\.? .*$", _raw(set_code)[1], re.MULTILINE)
    return line is not None and line.group(0).rstrip("\r")[-1:] not in KEY_PROGRAM_LINE_ENDS


def read_key(diff: str) -> tuple[set[Pair], dict[Pair, tuple[Pair | None, str]]]:
    """The key as read, and what the reading changed (printed entry → (read entry or None, why))."""
    entries = json.loads((VENSER / diff).read_text(encoding="utf-8"))
    names = entries[0]["names"]
    old_code, new_code = names["old_setcode"], names["new_setcode"]
    old_rules = {rule.number: rule for rule in _document(old_code).rules}
    new_rules = {rule.number: rule for rule in _document(new_code).rules}

    def unchanged(number: str | None) -> bool:
        old, new = old_rules.get(number or ""), new_rules.get(number or "")
        return old is not None and new is not None and entry(old).masked == entry(new).masked

    read: set[Pair] = set()
    changed: dict[Pair, tuple[Pair | None, str]] = {}
    for printed in _printed(diff):
        old_number, new_number = printed
        if (old_number is None and new_number and _unreadable_by_key_program(old_code, new_number)) or (
            new_number is None and old_number and _unreadable_by_key_program(new_code, old_number)
        ):
            changed[printed] = (None, BLIND_SPOT)
            continue
        as_read: Pair = (None if unchanged(old_number) else old_number, None if unchanged(new_number) else new_number)
        if as_read != printed:
            changed[printed] = (as_read if as_read != (None, None) else None, UNCHANGED_SIDE)
        if as_read != (None, None):
            read.add(as_read)
    return read, changed


def _printed(diff: str) -> set[Pair]:
    entries = json.loads((VENSER / diff).read_text(encoding="utf-8"))
    # The key prints rule numbers as the CR does ("601.2."); ours have no final period.
    return {
        tuple(side["ruleNum"].rstrip(".") if side else None for side in (item.get("old"), item.get("new")))  # type: ignore[misc]
        for item in entries[1:]
    }


def _documents(diff: str) -> tuple[CRDocument, CRDocument]:
    names = json.loads((VENSER / diff).read_text(encoding="utf-8"))[0]["names"]
    return _document(names["old_setcode"]), _document(names["new_setcode"])


@cache
def _pairing(diff: str) -> tuple[Pairing, dict[str, str]]:
    pairing = pairing_of(*_documents(diff))
    return pairing, merged_into(pairing)


def _our_answers(diff: str, key: set[Pair], *, one_old_per_new: bool) -> set[Pair]:
    """Our answer for every number ``key`` names.

    ``one_old_per_new``: where we give a new rule two old ones (its predecessor and a rule merged
    into it) and the key names one of them, the other is not scored: the key cannot list it.
    """
    pairing, merged = _pairing(diff)
    mapping = pairing.mapping()
    merged_from: dict[str, set[str]] = {}
    for removed, target in merged.items():
        merged_from.setdefault(target, set()).add(removed)
    answers: set[Pair] = set()
    for old_number, new_number in key:
        if old_number is not None:
            answers.add((old_number, mapping.get(old_number) or merged.get(old_number)))
        if new_number is not None:
            for_new = {(pairing.new_to_old.get(new_number), new_number)}
            for_new |= {(removed, new_number) for removed in merged_from.get(new_number, ())}
            if one_old_per_new and len(for_new) > 1 and for_new & key:
                for_new &= key
            answers |= for_new
    return answers


Scores = dict[str, tuple[set[Pair], set[Pair]]]


@pytest.fixture(scope="module")
def as_printed() -> Scores:
    results = {}
    for diff in DIFFS:
        key = _printed(diff)
        results[diff] = (key, _our_answers(diff, key, one_old_per_new=False))
    return results


@pytest.fixture(scope="module")
def as_read() -> Scores:
    results = {}
    for diff in DIFFS:
        key, _changed = read_key(diff)
        results[diff] = (key, _our_answers(diff, key, one_old_per_new=True))
    return results


def _figures(scores: Scores) -> tuple[int, int, int, float, float]:
    key_total = sum(len(key) for key, _ in scores.values())
    ours_total = sum(len(ours) for _, ours in scores.values())
    agreed = sum(len(key & ours) for key, ours in scores.values())
    return agreed, key_total, ours_total, round(agreed / key_total, 3), round(agreed / ours_total, 3)


def test_the_twelve_diffs_are_there() -> None:
    assert len(DIFFS) == 12


def test_the_key_never_gives_a_new_rule_two_old_ones() -> None:
    """What lets the scoring leave our second old rule of a merge unscored."""
    for diff in DIFFS:
        new_numbers = [new for _old, new in _printed(diff) if new is not None]
        assert len(new_numbers) == len(set(new_numbers)), diff


def test_what_the_reading_changes() -> None:
    changed = {(diff, printed): why for diff in DIFFS for printed, why in read_key(diff)[1].items()}
    assert changed == READ_OFF


def test_every_disagreement_is_a_known_class(as_read: Scores) -> None:
    found = set()
    for diff, (key, ours) in as_read.items():
        found |= {(diff, "key", old, new) for old, new in key - ours}
        found |= {(diff, "ours", old, new) for old, new in ours - key}
    assert found == set(DISAGREEMENTS)


def test_recall_and_precision(as_printed: Scores, as_read: Scores) -> None:
    """(agreed, key entries, our answers, recall, precision); the issue asks for 0.97 and 0.97.

    As read, every miss is an in-place rewrite (IN_PLACE). The XLN 306.4 note ("Previously, ...
    This rule has been removed") is paired as the key gives it: a new rule, not the old one's successor.
    """
    assert _figures(as_printed) == (276, 292, 296, 0.945, 0.932)
    assert _figures(as_read) == (278, 286, 282, 0.972, 0.986)


def test_per_diff_recall(as_read: Scores) -> None:
    recall = {diff: round(len(key & ours) / len(key), 3) for diff, (key, ours) in as_read.items()}
    assert recall == {
        "BFZ-C15.json": 1.0, "C17-XLN.json": 1.0, "DOM-BBD.json": 1.0, "DTK-ORI.json": 0.917,
        "FRF-DTK.json": 1.0, "GRN-RNA.json": 1.0, "KLD-C16.json": 0.926, "KTK-FRF.json": 1.0,
        "M20-C19.json": 1.0, "ORI-BFZ.json": 0.909, "XLN-RIX.json": 1.0, "ZNR-CMR.json": 1.0,
    }


def test_merged_and_split_links_on_the_twelve() -> None:
    """Every merge and split we find, and what the key says of it (exact sets)."""
    merged, split = set(), set()
    for diff in DIFFS:
        key = _printed(diff)
        pairing, merged_here = _pairing(diff)
        merged |= {(diff, removed, target, (removed, target) in key) for removed, target in merged_here.items()}
        split |= {(diff, source, added, (None, added) in key) for added, source in split_from(pairing).items()}
    # Both merges are the key's own pairs; the key's other six "merges" go into rules that kept their
    # text word for word (read as removed: UNCHANGED_SIDE), which took nothing in.
    assert merged == {("DTK-ORI.json", "701.16d", "701.16c", True), ("DTK-ORI.json", "903.12", "903.11", True)}
    # "Effects that remove an ability remove all instances of it." left 112.10 for 112.10b; 603.6d
    # went on as 603.10 (its statement) and gave its list and example to 603.10a and its planeswalk
    # trigger to 603.10g. The key calls all three new rules added, as we do.
    assert split == {
        ("C17-XLN.json", "112.10", "112.10b", True),
        ("KLD-C16.json", "603.6d", "603.10a", True),
        ("KLD-C16.json", "603.6d", "603.10g", True),
    }


def test_the_2009_renumbering_keeps_edited_subrules_of_moved_rules() -> None:
    """2006→2009 renumbered most of the CR and reworded much of it. Edited subrules of a moved rule
    keep their letter under it when as alike as 0.45 (0.5 left trample's damage assignment, 502.9b,
    0.497 alike its 702.17b), and a rule paired only late by likeness takes its subrules along (420.5
    → 704.5, then 420.5a "A player with 0 or less life loses the game" → 704.5a). Before, each of
    these 13 was "removed" in 2009 and its successor "added" (a judge's review of the rule pages)."""
    from kb.link.cr_pairing import pair_rules
    from kb.parse.cr import txt as cr_txt

    fixtures = Path(__file__).parent.parent / "fixtures" / "cr"
    old, new = (cr_txt.parse(path.read_bytes(), path.name) for path in
                (fixtures / "en-raw" / "2006-02-01.txt", fixtures / "en-raw-batch2" / "2009-10-01.txt"))
    pairs = pair_rules(old, new)
    assert {number: pairs[number] for number in (
        "502.9b", "420.5a", "420.3", "409.1b", "419.8a", "200.9c", "104.3b", "207.2", "305.3", "310.5",
        "410.10f", "416.1", "502.31b")} == {
        "502.9b": "702.17b", "420.5a": "704.5a", "420.3": "704.3", "409.1b": "601.2b", "419.8a": "609.7a",
        "200.9c": "109.2c", "104.3b": "107.4b", "207.2": "206.2", "305.3": "505.3", "310.5": "510.5",
        "410.10f": "603.6f", "416.1": "609.1", "502.31b": "702.38b"}


def test_a_near_copy_moved_elsewhere_is_found_by_its_words_without_their_marks() -> None:
    """2019-08-23's 706.7a (linked abilities and undefined choices, with the Voice of All and
    Vesuvan Doppelganger examples) is 2020-09-25's 607.5a, 0.86 alike; its rarest words were quoted
    ('"remember"', '"choose'), which 607.5a quotes otherwise, so it was never a candidate: "removed"
    and "added" (a judge's review of the rule pages). Taken only as a near-copy: found so at any
    likeness, four wrong pairs came with six right ones."""
    from kb.link.cr_pairing import pair_rules
    from kb.parse.cr import txt as cr_txt

    snapshot = Path(__file__).parent.parent.parent / "data" / "snapshot" / "cr" / "en"
    old, new = (cr_txt.parse((snapshot / name).read_bytes(), name) for name in ("2019-08-23.txt", "2020-09-25.txt"))
    assert pair_rules(old, new)["706.7a"] == "607.5a"
