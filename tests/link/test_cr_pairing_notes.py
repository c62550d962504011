"""kb.link.cr_pairing on real CR files: a rule that became a note recording its removal is removed.

When the CR drops a rule it may leave a note at its number ("Previously, ... This rule has been
removed"). The note is a new entry, not the rule's successor; a note reworded as a note stays paired.
"""
from __future__ import annotations

import gzip
from pathlib import Path

from kb.link.cr_pairing import is_retrospective_note, pairing_of
from kb.parse.cr import txt as cr_txt
from kb.records import CRDocument

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr"


def _en_raw(date: str) -> CRDocument:
    path = FIXTURES / "en-raw" / f"{date}.txt"
    return cr_txt.parse(path.read_bytes(), path.name)


def _venser(set_code: str) -> CRDocument:
    (path,) = (FIXTURES / "venser" / "cr-txt").glob(f"cr-*-{set_code}.txt.gz")
    return cr_txt.parse(gzip.decompress(path.read_bytes()), path.name)


def _rules(doc: CRDocument) -> dict[str, str]:
    return {rule.number: rule.text or "" for rule in doc.rules}


def test_the_planeswalker_uniqueness_rule_is_removed_and_its_note_added() -> None:
    old, new = _venser("C17"), _venser("XLN")
    assert _rules(old)["306.4"].startswith("If a player controls two or more planeswalkers that share")
    assert _rules(new)["306.4"].startswith("Previously, planeswalkers were subject to a “planeswalker uniqueness rule”")
    pairing = pairing_of(old, new)
    assert pairing.mapping()["306.4"] is None
    assert "306.4" not in pairing.new_to_old
    # Its neighbours are untouched.
    assert [pairing.mapping()[n] for n in ("306.3", "306.5")] == ["306.3", "306.5"]


def test_the_expansion_symbol_rule_is_removed_and_its_note_added() -> None:
    old, new = _en_raw("2013-04-29"), _en_raw("2014-09-26")
    assert _rules(old)["206.3"].startswith("A spell or ability that affects cards from a particular set checks only")
    assert _rules(new)["206.3"].startswith("Previously, a spell or ability that affected cards from a particular set")
    pairing = pairing_of(old, new)
    assert pairing.mapping()["206.3"] is None
    assert "206.3" not in pairing.new_to_old


def test_a_note_reworded_as_a_note_keeps_its_identity() -> None:
    old, new = _en_raw("2024-02-06"), _en_raw("2025-02-07")
    before, after = _rules(old)["702.75b"], _rules(new)["702.75b"]
    assert before != after and before.startswith("Previously, the rules for the hideaway ability")
    assert pairing_of(old, new).mapping()["702.75b"] == "702.75b"


def test_what_counts_as_a_retrospective_note() -> None:
    by_number = {rule.number: rule for rule in _en_raw("2013-04-29").rules}
    # "For many years, ..." was the older opening of the same kind of note (2009), "Previously, ..." the newer.
    assert is_retrospective_note(by_number["403.5"])  # "Previously, the battlefield was called ..."
    assert not is_retrospective_note(by_number["206.3"])  # the rule itself
    assert not is_retrospective_note(by_number["403.1"])
