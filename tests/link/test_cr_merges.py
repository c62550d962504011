"""kb.link.cr_merges on real CR files: the merges and splits of 2014-09-26 → 2019-01-25, exactly."""
from __future__ import annotations

from functools import cache
from pathlib import Path

from kb.link.cr_compare import HeldEntries
from kb.link.cr_merges import confirmed_links, containment, merged_into, split_from
from kb.link.cr_pairing import Pairing, pairing_of
from kb.parse.cr import txt as cr_txt

EN_RAW = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw"


@cache
def _pairing() -> Pairing:
    old, new = (cr_txt.parse((EN_RAW / f"{d}.txt").read_bytes(), f"{d}.txt") for d in ("2014-09-26", "2019-01-25"))
    return pairing_of(old, new)


def test_containment_counts_words_in_order() -> None:
    assert containment("a b c d".split(), "a x b c y".split()) == 0.75
    assert containment([], ["a"]) == 0.0


def test_merged_into_2019() -> None:
    # 701.16d and 903.12 are the merges Venser's Journal lists for 2015 (as 701.16c, 903.11);
    # 800.7 ("not using the limited range of influence") is a look-alike of 104.3h's template.
    assert merged_into(_pairing()) == {"701.16d": "701.19c", "800.7": "104.3h", "903.12": "903.9"}


def test_split_from_2019() -> None:
    # Improvise's 702.125b is written on delve's 702.65a but belongs to the new rule 702.125.
    assert split_from(_pairing()) == {
        "106.4b": "106.4a",
        "108.2b": "108.2",
        "112.10b": "112.10",
        "603.10a": "603.6d",
        "603.10g": "603.6d",
        "702.50b": "702.50a",
        "702.65b": "702.65a",
    }


def test_confirmed_links_2019_stay_in_their_section() -> None:
    # 800.7 (section 800) matched 104.3h's template in section 104: not confirmed, not stored.
    assert [(link.kind, link.old_number, link.new_number) for link in confirmed_links(_pairing())] == [
        ("merge", "701.16d", "701.19c"),
        ("merge", "903.12", "903.9"),
        ("split", "106.4a", "106.4b"),
        ("split", "108.2", "108.2b"),
        ("split", "112.10", "112.10b"),
        ("split", "603.6d", "603.10a"),
        ("split", "603.6d", "603.10g"),
        ("split", "702.50a", "702.50b"),
        ("split", "702.65a", "702.65b"),
    ]


def test_a_version_held_for_both_its_pairings_pairs_as_it_does_alone() -> None:
    # A history pairs each version with the one before and the one after, its rules put in
    # comparison form once (HeldEntries): what each pairing finds must not depend on it.
    documents = [cr_txt.parse((EN_RAW / f"{d}.txt").read_bytes(), f"{d}.txt") for d in ("2014-09-26", "2019-01-25", "2022-02-18")]
    held = HeldEntries()
    first = pairing_of(documents[0], documents[1], held)
    second = pairing_of(documents[1], documents[2], held)
    assert all(second.old[number] is entry for number, entry in first.new.items())
    for together, (old, new) in ((first, documents[:2]), (second, documents[1:])):
        alone = pairing_of(old, new)
        assert together.old_to_new == alone.old_to_new and together.folded == alone.folded
        assert confirmed_links(together) == confirmed_links(alone)
    held.release(documents[1])
    assert held(documents[1]) is not first.new
