"""kb.link.cr_diff on the real English CR files: diffs with renumberings, traces, versions in force."""
from __future__ import annotations

import difflib
import gzip
import importlib.util
from functools import cache
from itertools import pairwise
from pathlib import Path
from random import Random

import pytest
from cydifflib import SequenceMatcher

from kb.link.cr_diff import (
    count_changes,
    diff_and_map,
    diff_versions,
    number_maps,
    render_word_diff,
    trace_rule,
    version_in_force,
    word_ops,
)
from kb.parse.cr import txt as cr_txt
from kb.records import CRDocument

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr"
SCRIPT = Path(__file__).parent.parent.parent / "scripts" / "count_cr_changes.py"


def _parse(path: Path) -> CRDocument:
    return cr_txt.parse(path.read_bytes(), str(path))


@pytest.fixture(scope="module")
def versions() -> list[CRDocument]:
    return [_parse(path) for path in sorted((FIXTURES / "en-raw").glob("*.txt"))]


@pytest.fixture(scope="module")
def by_date(versions: list[CRDocument]) -> dict[str, CRDocument]:
    return {doc.effective_date: doc for doc in versions}


@pytest.fixture(scope="module")
def maps(versions: list[CRDocument]) -> list[dict]:
    return number_maps(versions)


def _script():
    spec = importlib.util.spec_from_file_location("count_cr_changes", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------
# 2022-02-18 -> 2022-04-29: exact counts, checked against an independent count

# scripts/count_cr_changes.py tests/fixtures/cr/en-raw/2022-02-18.txt tests/fixtures/cr/en-raw/2022-04-29.txt
# printed (its own decoding, a line-by-line "number -> text" dict, exact-text renumbering only):
SCRIPT_FIGURES_2022 = {
    "added": 26, "removed": 1, "changed": 11, "renumbered": 16, "numbers-only": 1,
    "glossary-added": 5, "glossary-removed": 0, "glossary-changed": 3,
}
DIFF_FIGURES_2022 = {
    "added": 25, "removed": 0, "changed": 10, "moved": 16, "moved-changed": 2,
    "glossary-added": 5, "glossary-removed": 0, "glossary-changed": 3, "glossary-renamed": 0, "glossary-renamed-changed": 0,
}


def test_the_independent_script_prints_the_recorded_figures() -> None:
    script = _script()
    old_rules, old_glossary = script.read_cr(FIXTURES / "en-raw" / "2022-02-18.txt")
    new_rules, new_glossary = script.read_cr(FIXTURES / "en-raw" / "2022-04-29.txt")
    assert (len(old_rules), len(new_rules)) == (2772, 2797)
    figures = {**script.compare(old_rules, new_rules), **script.compare_glossary(old_glossary, new_glossary)}
    assert figures == SCRIPT_FIGURES_2022


def test_change_counts_2022_02_18_to_2022_04_29(by_date: dict[str, CRDocument]) -> None:
    changes = diff_versions(by_date["2022-02-18"], by_date["2022-04-29"])
    counts = count_changes(changes)
    assert counts == DIFF_FIGURES_2022
    # How the two methods reconcile, difference by difference:
    # - the script has no similarity matching: 201.5 -> 201.6 (renumbered and reworded,
    #   "moved-changed" here) is one removal plus one addition there;
    # - 208.4 was split: its text went, reworded, to the new subrule 208.4a and a new general
    #   208.4 took the number. Here that is 208.4 -> 208.4a "moved-changed" plus an added 208.4;
    #   the script, pairing by number, calls 208.4 "changed" and 208.4a added;
    split = [("208.4", "208.4a")]
    assert SCRIPT_FIGURES_2022["added"] == counts["added"] + counts["moved-changed"] - len(split)
    assert SCRIPT_FIGURES_2022["removed"] == counts["removed"] + counts["moved-changed"] - len(split)
    # - exact-text renumberings are the same 16;
    assert SCRIPT_FIGURES_2022["renumbered"] == counts["moved"]
    # - 702.124d only changed a cited number (903.6 -> 903.8): "numbers-only" there, a
    #   "changed" with the aspect numbers-only here;
    numbers_only = [c.old_number for c in changes if c.kind == "changed" and "numbers-only" in c.aspects]
    assert numbers_only == ["702.124d"]
    # - 601.4 only changed "601.2f-h" to "601.2f–h" (hyphen to en dash): typography, not a change
    #   here, a change for the script. 11 = 10 text changes + that one.
    assert SCRIPT_FIGURES_2022["changed"] == counts["changed"] - len(numbers_only) + 1 + len(split)
    assert "601.4" not in {c.old_number for c in changes}
    assert SCRIPT_FIGURES_2022["glossary-added"] == counts["glossary-added"]
    assert SCRIPT_FIGURES_2022["glossary-changed"] == counts["glossary-changed"]


def test_every_change_2022_02_18_to_2022_04_29(by_date: dict[str, CRDocument]) -> None:
    changes = diff_versions(by_date["2022-02-18"], by_date["2022-04-29"])
    of_kind = lambda kind: [(c.old_number, c.new_number) for c in changes if c.kind == kind]  # noqa: E731
    assert of_kind("moved") == [
        ("122.1c", "122.1d"), ("122.1d", "122.1e"), ("201.3", "201.4"), ("201.3a", "201.4a"),
        ("201.3b", "201.4b"), ("201.3c", "201.4c"), ("201.3d", "201.4d"), ("201.3e", "201.4e"),
        ("201.3f", "201.4f"), ("201.4", "201.5"), ("201.4a", "201.5a"), ("201.4b", "201.5b"),
        ("201.4c", "201.5c"), ("212.1d", "212.1e"), ("212.1e", "212.1f"), ("212.1f", "212.1g"),
    ]
    assert of_kind("moved-changed") == [("201.5", "201.6"), ("208.4", "208.4a")]
    assert [new for _, new in of_kind("added")] == [
        "122.1c", "201.3", "201.3a", "201.3b", "201.3c", "201.4g", "208.4", "208.4b", "212.1d",
        "601.4a", "701.47", "701.47a", "701.47b", "701.47c", "701.47d", "701.47e", "702.6e",
        "702.75b", "702.124g", "702.138d", "702.152", "702.152a", "702.153", "702.153a", "702.153b",
    ]
    assert [old for old, _ in of_kind("changed")] == [
        "100.2a", "205.3m", "207.2c", "209.1", "601.2e", "612.7", "702.75a", "702.124d",
        "702.138c", "903.5b",
    ]
    assert [(c.kind, c.old_number or c.new_number) for c in changes if c.entry_kind == "glossary"] == [
        ("glossary-changed", "Alternate Name"), ("glossary-added", "Blitz"), ("glossary-added", "Casualty"),
        ("glossary-added", "Connive"), ("glossary-changed", "Dash"), ("glossary-added", "Friends Forever"),
        ("glossary-changed", "Secondary Title Bar"), ("glossary-added", "Shield Counter"),
    ]
    raccoon = next(c for c in changes if c.old_number == "205.3m")
    assert "{+Raccoon,+}" in raccoon.word_diff
    assert raccoon.compact_diff() == "Creatures and tribals … Prism, Processor, Rabbit, {+Raccoon,+} Ranger, Rat, Rebel, … Zombie, and Zubera."


def test_normalisation_only_pair_has_no_changes() -> None:
    raw = _parse(FIXTURES / "en-raw" / "2025-02-07.txt")
    cleaned = _parse(FIXTURES / "en-derived" / "2025-02-07-cleaned-lf.txt")
    assert diff_versions(raw, cleaned) == []
    script = _script()
    old_rules, old_glossary = script.read_cr(FIXTURES / "en-raw" / "2025-02-07.txt")
    new_rules, new_glossary = script.read_cr(FIXTURES / "en-derived" / "2025-02-07-cleaned-lf.txt")
    assert set(script.compare(old_rules, new_rules).values()) == {0}
    assert set(script.compare_glossary(old_glossary, new_glossary).values()) == {0}


# ---------------------------------------------------------------------------------------------
# 2025-02-07 -> 2026-01-16: the 701 renumbering


def test_connive_and_convert_renumbering(by_date: dict[str, CRDocument]) -> None:
    changes, number_map = diff_and_map(by_date["2025-02-07"], by_date["2026-01-16"])
    assert {k: v for k, v in number_map.items() if k.startswith(("701.47", "701.50"))} == {
        "701.47": "701.50", "701.47a": "701.50a", "701.47b": "701.50b", "701.47c": "701.50c",
        "701.47d": "701.50d", "701.47e": "701.50e",
        "701.50": "701.28", "701.50a": "701.28a", "701.50b": "701.28b", "701.50c": "701.28c",
        "701.50d": "701.28d", "701.50e": "701.28e", "701.50f": "701.28f",
    }
    by_old = {c.old_number: c for c in changes if c.old_number}
    assert (by_old["701.47"].kind, by_old["701.47"].new_number, by_old["701.47"].new_text) == ("moved", "701.50", "Connive")
    assert (by_old["701.50"].kind, by_old["701.50"].new_number, by_old["701.50"].new_text) == ("moved", "701.28", "Convert")
    # 701.47b only cites its own new number: still a pure move.
    assert (by_old["701.47b"].kind, by_old["701.47b"].aspects) == ("moved", ["text", "numbers-only"])
    # 701.47d was reworded as it moved.
    assert by_old["701.47d"].kind == "moved-changed"
    assert count_changes(changes) == {
        "added": 95, "removed": 1, "changed": 131, "moved": 358, "moved-changed": 18,
        # Transforming Double-Faced Cards → Nonmodal Double-Faced Card and the grown Partner entry
        # are renamed, not removed and added; Friends Forever is removed.
        "glossary-added": 23, "glossary-removed": 1, "glossary-changed": 90, "glossary-renamed": 0,
        "glossary-renamed-changed": 2,
    }


def test_a_renamed_glossary_entry_is_renamed_not_removed_and_added(by_date: dict[str, CRDocument]) -> None:
    # The glossary's changes pair entries as their lineages do, as a renumbered rule is "moved".
    changes = [c for c in diff_versions(by_date["2019-01-25"], by_date["2022-02-18"]) if c.entry_kind == "glossary"]
    renamed = {(c.kind, c.old_number, c.new_number) for c in changes if c.kind.startswith("glossary-renamed")}
    assert ("glossary-renamed", "Converted Mana Cost", "Mana Value") in renamed  # word for word
    assert ("glossary-renamed-changed", "Checklist Card", "Substitute Card") in renamed
    # The five others 2019 and 2022 print differently ("Player's" and "Player’s") are not renamed.
    assert len(renamed) == 2
    assert not [c for c in changes if c.kind == "glossary-removed"]
    assert "Mana Value" not in {c.new_number for c in changes if c.kind == "glossary-added"}


def test_a_section_follows_its_rules_to_a_new_number(by_date: dict[str, CRDocument]) -> None:
    # 2019's 716 "Ending the Turn" is 2022's 719 "Ending Turns and Phases": its rules went there
    # (716.1 → 719.1, 716.2 → 719.1f); 716 then heads Adventurer Cards, a section of its own.
    number_map = diff_and_map(by_date["2019-01-25"], by_date["2022-02-18"])[1]
    assert (number_map["716"], number_map["716.1"], number_map["716.2"]) == ("719", "719.1", "719.1f")
    # The 2009 renumbering, between the 2006 and 2013 editions: "Playing Spells and Activated
    # Abilities" (409) became "Casting Spells" (601), "State-Based Effects" (420) "State-Based
    # Actions" (704), "Legal Text" (210) "Information Below the Text Box" (212), and 2006's 212
    # "Type, Supertype, and Subtype", whose rules went to 205, is removed, not 2013's 212.
    changes, number_map = diff_and_map(by_date["2006-02-01"], by_date["2013-05-01"])
    assert [number_map[number] for number in ("409", "420", "210", "212")] == ["601", "704", "212", None]
    by_old = {change.old_number: change for change in changes if change.old_number}
    assert (by_old["409"].kind, by_old["409"].aspects) == ("moved-changed", ["title"])


def test_a_rule_keeps_its_number_in_a_section_that_moved() -> None:
    # Dominaria's update (2018-04-27) inserted a section before "Restarting the Game" (717 → 718) and
    # "Subgames" (718 → 719). Their rules 717.3 and 718.3 say nearly the same of two kinds of game
    # (0.89 alike): 718.3 of Subgames was kept in place, under Restarting the Game, and 717.3 sent to
    # Subgames. Each follows its section.
    venser = FIXTURES / "venser" / "cr-txt"
    rix, dom = (cr_txt.parse(gzip.decompress((venser / name).read_bytes()), name)
                for name in ("cr-2018-01-19-RIX.txt.gz", "cr-2018-04-27-DOM.txt.gz"))
    number_map = diff_and_map(rix, dom)[1]
    assert [number_map[number] for number in ("717", "717.3", "718", "718.3")] == ["718", "718.3", "719", "719.3"]


SNAPSHOT_CR = Path(__file__).parent.parent.parent / "data" / "snapshot" / "cr" / "en"


@pytest.mark.parametrize(("old", "new", "expected"), [
    # A rule inserted among its siblings shifted their letters or numbers, and pairing by letter,
    # by number or by likeness alone gave each rule its neighbour's successor (a review against
    # the texts, 2026-12-05): the face-down timestamp rule traced to the transform rule, the legend
    # rule to the world rule, wither to "neither wither nor infect", the planeswalker symbol to the
    # chaos symbol, and a general's graveyard rule to the exile rule.
    ("2019-08-23", "2020-09-25", {"613.6e": "613.7f", "613.6f": "613.7g"}),
    ("2006-02-01", "2009-10-01", {"205.4c": "204.4d", "205.4d": "204.4e"}),
    ("2009-10-01", "2013-04-29", {"107.10": "107.11", "107.11": "107.12", "118.3c": "119.3d", "118.3d": "119.3e",
                                  "903.10": "903.11", "903.11": "903.12"}),
    ("2016-11-11", "2017-08-25", {"201.3c": "201.3d", "201.3d": "201.3e"}),
    # Not a shift: 409.1c was divided, its second paragraph (the longer) now 409.1d; 409.1c is
    # still 409.1c, and not given 409.1d for the longer paragraph. (Old 409.1d went into 409.1e; the
    # pairing leaves it at 409.1d by its number alone, and marks it so.)
    ("2003-03-15", "2003-10-01", {"409.1c": "409.1c"}),
])
def test_two_rules_each_paired_with_the_others_successor_are_uncrossed(old: str, new: str, expected: dict) -> None:
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(*(_snapshot_edition(date) for date in (old, new)))
    assert {number: number_map[number] for number in expected} == expected


@pytest.mark.parametrize(("old", "new", "expected"), [
    # The 2009 renumbering moved whole sections and reworded them: an audit of identity across the
    # editions found these "removed" and "added" (each read against both texts).
    #
    # Not a look-alike its siblings did not go to: 403.2 is word for word in the keyword action
    # 701.2a, its siblings went to 602; the mana symbols' 104.3a is not "five colors of mana" (it
    # keeps its letter under the rule its rule went to, 107.4a "five primary colored mana
    # symbols": ``_pair_left_by_letter_under_moved_rules``). By
    # statements, not examples (505.6 followed its example to 708.6c); the rule the new one begins
    # with, not a sentence it took in at its end: banding's 702.19c is 502.10b with 502.10c's
    # sentence after it (a review of the change: the two guards refused both). One pairing of the
    # largest pair of editions for all (half a second each).
    ("2006-02-01", "2009-10-01", {"418.5b": "613.5", "212.5a": "304.1", "403.1": "602.1", "413.2f": "608.2g",
                                  "420.5k": "704.5p", "217.1d": "400.6", "419.9a": "616.1",
                                  "403.2": None, "104.3a": "107.4a", "217.7d": None,
                                  "505.6": None, "502.10b": "702.19c", "502.10c": None,
                                  # A rule split into a rule and its subrules is the rule it begins
                                  # with: 217.1c went to 400.7d, one of its two exceptions.
                                  "217.1c": "400.7",
                                  # Where the rule's family went, not the planeswalker's subtypes
                                  # (306.3, 0.01 less alike), for a rule held whole; not a part
                                  # of a rule split in four (a review of the change).
                                  "205.3b": "204.3b", "309.1": None}),
    ("2022-04-29", "2024-02-06", {"713.3a": "712.8b"}),
])
def test_a_rule_moved_and_reworded_follows_its_likest_free_rule(old: str, new: str, expected: dict) -> None:
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(*(_snapshot_edition(date) for date in (old, new)))
    assert {number: number_map[number] for number in expected} == expected


def test_words_printed_twice_and_once_after_follow_their_section() -> None:
    """2009 printed "Vanguard cards have no subtypes." twice: 204.3n (Subtypes) and 310.3
    (Vanguards); 2013 prints it once, as 311.3 under Vanguards, now section 311 (Phenomena took
    310). Paired in reading order, 204.3n took 311.3 and 310.3 became Phenomenon's 310.3,
    "changed Vanguard → Phenomenon" (a review against the texts). 310.3 is 311.3; 204.3n's
    words live on there, and it is no Phenomenon rule: removed (its words went into 205.3p,
    "Phenomenon cards, scheme cards, and vanguard cards have no subtypes.", 0.53 alike)."""
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(_snapshot_edition("2009-10-01"), _snapshot_edition("2013-04-29"))
    assert {number: number_map[number] for number in ("310", "310.3", "204.3n")} == {
        "310": "311", "310.3": "311.3", "204.3n": None}


def test_a_rule_is_looked_for_in_the_section_its_section_became() -> None:
    """2006's 413 "Resolving Spells and Abilities" is 2009's 608: 413.2 ("Resolution of a spell or
    ability may involve several steps") is 608.2 and 413.2c (choices made while resolving) is
    608.2d, each more than 0.6 alike, once looked for there and not only under 413 (found so by
    the review's case above)."""
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(_snapshot_edition("2006-02-01"), _snapshot_edition("2009-10-01"))
    assert {number: number_map[number] for number in ("413", "413.2", "413.2c")} == {
        "413": "608", "413.2": "608.2", "413.2c": "608.2d"}


def test_a_look_alike_elsewhere_still_bars_a_sibling_in_the_section() -> None:
    """2009's 117.1c (an EDH game's starting life total, 40) compared straight with 2026 is no
    Archenemy 119.1e ("the archenemy's starting life total is 40"): the look-alikes outside 119
    kept it from the likest-anywhere step, until a change let only the section's rules count
    (a review of the change)."""
    from kb.link.cr_pairing import pair_rules

    assert pair_rules(_snapshot_edition("2009-10-01"), _snapshot_edition("2026-04-17")).get("117.1c") != "119.1e"


@pytest.mark.parametrize(("old", "new", "expected"), [
    # A subrule that grew a clause as its rule moved keeps its letter (a judge's review): the
    # Saga's lore counter, 2022's 715.3a, is the first sentence of 2024's 714.3a, which added read
    # ahead (0.37 alike); cumulative upkeep, 2006's 502.13a, begins 2009's 702.21a (0.35).
    # Not where another rule is more like the grown one: 2009's phasing rule 702.23a holds all of
    # 2006's one-line 502.15a and is 502.15b's body (a review of the change).
    ("2022-04-29", "2024-02-06", {"715.3a": "714.3a"}),
    ("2006-02-01", "2009-10-01", {"502.13a": "702.21a", "502.15b": "702.23a", "502.15a": None}),
    # Not a rule cut in two: 2013's 702.13b "Landwalk is an evasion ability." holds every word of
    # itself and is the start of 2009's 702.12b, whose body went on to 702.13c; so with lifelink.
    ("2009-10-01", "2013-04-29", {"702.12b": "702.13c", "702.13a": "702.14b"}),
    # Nor a shorter rule of the moved one's words: 712.4c's front face is 712.8d's, not the meld
    # card's 712.8b (which holds most of its words).
    ("2022-04-29", "2024-02-06", {"712.4c": "712.8d", "712.4d": "712.8e"}),
])
def test_a_subrule_that_grew_as_its_rule_moved_keeps_its_letter(old: str, new: str, expected: dict) -> None:
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(*(_snapshot_edition(date) for date in (old, new)))
    assert {number: number_map[number] for number in expected} == expected


@pytest.mark.parametrize(("old", "new", "expected"), [
    # The glossary's pointer followed the rule (a review against the texts, 2026-12-05): 2013's
    # "Indestructible ... See rule 700.4." is 2014's "... See rule 702.12.", and 700.4 is 702.12b
    # (0.44 alike), not removed while 702.12b was added; the planes' chaos abilities went with
    # "Chaos Ability" from 310.7 to 311.7 when battles took 310; a mulligan, an object, attacking
    # alone and the Two-Headed Giant's APNAP rule moved at the renumberings the same way.
    ("2013-04-29", "2014-09-26", {"700.4": "702.12b"}),
    ("2022-04-29", "2024-02-06", {"310.7": "311.7"}),
    ("2006-02-01", "2009-10-01", {"101.4": "103.4", "200.8": "109.1", "306.4": "506.5"}),
    ("2009-10-01", "2013-04-29", {"806.6d": "805.6"}),
    # Not where the glossary's old rule was divided: 2006's 418.5e, an object's timestamp "with
    # three exceptions", is as like 2009's 613.6c as 613.6g; it stays removed, as before.
    ("2006-02-01", "2009-10-01", {"418.5e": None}),
])
def test_a_rule_rewritten_as_it_moved_follows_its_glossary_entry(old: str, new: str, expected: dict) -> None:
    from kb.link.cr_pairing import pairing_of

    pairing = pairing_of(*(_snapshot_edition(date) for date in (old, new)))
    assert {number: pairing.mapping()[number] for number in expected} == expected
    assert not set(expected) & pairing.by_number


def test_every_pointer_that_left_a_rule_is_weighed_together(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2009's 806.6d (the Two-Headed Giant's APNAP order) is left by "Active Player, Nonactive Player
    # Order", now 805.6 (0.52 alike), and by "Active Team", now 805.4a (0.36): 805.6, in whichever
    # order the glossary lists them (the first listed won: a review of the change).
    from kb.link import cr_pairing

    found = cr_pairing.moved_glossary_pointers
    old, new = _snapshot_edition("2009-10-01"), _snapshot_edition("2013-04-29")
    assert {("806.6d", "805.6"), ("806.6d", "805.4a")} <= set(found(old, new))
    for order in (list, lambda moved: list(reversed(moved))):
        monkeypatch.setattr(cr_pairing, "moved_glossary_pointers", lambda a, b, order=order: order(found(a, b)))
        assert cr_pairing.pairing_of(old, new).mapping()["806.6d"] == "805.6"


def test_the_glossary_pointers_that_moved() -> None:
    from kb.link.cr_pairing import moved_glossary_pointers

    moved = moved_glossary_pointers(_snapshot_edition("2013-04-29"), _snapshot_edition("2014-09-26"))
    assert ("700.4", "702.12") in moved
    assert ("702.18", "702.19") in moved  # Trample renumbered: the pairing had it already
    # A term pointing at two rules, one of them unchanged, moved one: "phase" ['5', '702.24'] → ['5', '702.25'].
    assert ("702.24", "702.25") in moved
    assert not [pair for pair in moved if "5" in pair]


@cache
def _snapshot_edition(date: str) -> CRDocument:
    return _parse(SNAPSHOT_CR / f"{date}.txt")


def test_a_number_alone_does_not_make_a_heading_the_same_rule(by_date: dict[str, CRDocument]) -> None:
    # 2003's 502.14 "Snow-Covered" and 2006's 502.14 "Vigilance" share a number and nothing else: no
    # subrule of one is a subrule of the other. Snow-Covered is removed and Vigilance added, where
    # the pairing's last step used to make them one rule (and Vigilance's history start in 2003).
    changes, number_map = diff_and_map(by_date["2003-03-15"], by_date["2006-02-01"])
    assert [number_map[number] for number in ("502.14", "502.14a", "502.14b", "502.14c")] == [None] * 4
    kinds = {(change.kind, change.old_number, change.new_number) for change in changes}
    assert {("removed", "502.14", None), ("added", None, "502.14")} <= kinds
    # 2019's 711.7 (a double-faced card cast as a spell) went with its section 711 to 712.7 (a rule
    # keeps its number in a section that moved); 2022's 711.7 is a rule of Class enchantments.
    assert diff_and_map(by_date["2019-01-25"], by_date["2022-02-18"])[1]["711.7"] == "712.7"


def test_trace_of_connive_follows_the_renumbering(versions: list[CRDocument], maps: list[dict]) -> None:
    trace = trace_rule(versions, "701.50", maps=maps)
    assert [(e.version_id, e.number, e.title, e.status) for e in trace] == [
        ("en-2003-03-15", None, None, "absent"),
        ("en-2006-02-01", None, None, "absent"),
        ("en-2013-05-01", None, None, "absent"),
        ("en-2014-09-25", None, None, "absent"),
        ("en-2019-01-25", None, None, "absent"),
        ("en-2022-02-18", None, None, "absent"),
        ("en-2022-04-29", "701.47", "Connive", "added"),
        ("en-2024-02-02", "701.47", "Connive", "same"),
        ("en-2025-02-07", "701.47", "Connive", "same"),
        ("en-2026-01-16", "701.50", "Connive", "moved"),
    ]
    convert = trace_rule(versions, "701.50", at_version="en-2025-02-07", maps=maps)
    assert [(e.number, e.title) for e in convert][-3:] == [("701.50", "Convert"), ("701.50", "Convert"), ("701.28", "Convert")]
    assert [e.status for e in convert][-3:] == ["added", "same", "moved"]


def test_trace_of_a_subrule_across_the_renumbering(versions: list[CRDocument], maps: list[dict]) -> None:
    trace = trace_rule(versions, "701.47d", at_version="en-2025-02-07", maps=maps)
    assert [(e.number, e.status) for e in trace][-4:] == [
        ("701.47d", "added"), ("701.47d", "same"), ("701.47d", "same"), ("701.50d", "moved-changed"),
    ]


def test_all_consecutive_diffs(versions: list[CRDocument], maps: list[dict]) -> None:
    assert len(maps) == 9
    # Every old number is accounted for, and no new number is claimed twice.
    for (old, new), number_map in zip(pairwise(versions), maps, strict=True):
        assert set(number_map) == {rule.number for rule in old.rules}
        targets = [n for n in number_map.values() if n]
        assert len(targets) == len(set(targets))
        assert set(targets) <= {rule.number for rule in new.rules}


# ---------------------------------------------------------------------------------------------
# Versions in force, word diffs

VERSION_DATES = [
    ("en-2022-02-18", "2022-02-18"), ("en-2022-04-29", "2022-04-29"),
    ("en-2025-02-07", "2025-02-07"), ("en-2026-01-16", "2026-01-16"),
]


@pytest.mark.parametrize(
    ("date", "expected"),
    [
        ("2022-02-17", None),
        ("2022-02-18", "en-2022-02-18"),
        ("2022-04-28", "en-2022-02-18"),
        ("2024-12-31", "en-2022-04-29"),
        ("2025-06-01", "en-2025-02-07"),
        ("2026-01-15", "en-2025-02-07"),
        ("2026-01-16", "en-2026-01-16"),
        ("2030-01-01", "en-2026-01-16"),
    ],
)
def test_version_in_force(date: str, expected: str | None) -> None:
    assert version_in_force(VERSION_DATES, date) == expected


def test_word_diff_markup_and_structure() -> None:
    ops = word_ops("There are six special actions:", "There are seven special actions:")
    assert [(op.op, op.old_words, op.new_words) for op in ops] == [
        ("equal", ["There", "are"], ["There", "are"]),
        ("replace", ["six"], ["seven"]),
        ("equal", ["special", "actions:"], ["special", "actions:"]),
    ]
    assert render_word_diff(ops) == "There are [-six-] {+seven+} special actions:"


def _matched(matcher) -> tuple:  # type: ignore[no-untyped-def]
    return (
        [tuple(op) for op in matcher.get_opcodes()],
        [tuple(block) for block in matcher.get_matching_blocks()],
        matcher.ratio(),
    )


def test_the_compiled_sequence_matcher_matches_as_difflib_does(versions: list[CRDocument]) -> None:
    # The CR history's word diffs, similarity and containment use cydifflib's SequenceMatcher
    # (difflib's algorithm compiled): every diff and ratio must be difflib's, on the real rule
    # texts of consecutive versions (word lists without the junk heuristic, as the history compares
    # them; whole texts with it, as title and text ratios run) and on random word lists.
    pairs: list[tuple[list[str], list[str]]] = []
    texts: list[tuple[str, str]] = []
    for old, new in pairwise(versions):
        new_rules = {rule.number: rule.text for rule in new.rules}
        for rule in old.rules:
            if rule.number in new_rules and new_rules[rule.number] != rule.text:
                pairs.append((rule.text.split(), new_rules[rule.number].split()))
                texts.append((rule.text, new_rules[rule.number]))
    random = Random(15)
    for _ in range(2000):
        old_words = [random.choice("abcdefg") for _ in range(random.randint(0, 40))]
        new_words = list(old_words)
        for _ in range(random.randint(0, 6)):
            at = random.randint(0, len(new_words))
            if random.random() < 0.5 or not new_words:
                new_words.insert(at, random.choice("abcdefgh"))
            else:
                del new_words[min(at, len(new_words) - 1)]
        pairs.append((old_words, new_words))
    # Every tenth pair as characters (difflib's own pace on long texts is what the change avoids).
    texts = texts[::10]
    assert len(pairs) > 3000 and sum(len(new) >= 200 for _old, new in texts) > 50  # the junk heuristic runs
    for old_words, new_words in pairs:
        assert _matched(SequenceMatcher(None, old_words, new_words, autojunk=False)) == _matched(
            difflib.SequenceMatcher(None, old_words, new_words, autojunk=False)
        ), (old_words, new_words)
    for old_text, new_text in texts:
        assert _matched(SequenceMatcher(None, old_text, new_text)) == _matched(
            difflib.SequenceMatcher(None, old_text, new_text)
        ), (old_text, new_text)


def test_rules_paired_by_their_number_alone_are_marked(by_date: dict[str, CRDocument]) -> None:
    # 2014 -> 2019: fourteen updates apart. The last step pairs what is left at its number: 107.14
    # is the moon symbol in 2014 (removed in 2015) and the energy symbol in 2019 (added in 2016).
    changes = diff_versions(by_date["2014-09-25"], by_date["2019-01-25"])
    by_number = [change for change in changes if change.paired_by_number]
    assert [change.old_number for change in by_number] == [
        "107.4c", "107.14", "110.5a", "400.7c", "400.7g", "505.4", "511.1", "511.2", "605.1b",
        "613.6c", "702.47b", "702.101b", "702.102c", "708.3", "711.1a", "711.1b", "810.10d",
    ]
    assert {(change.kind, change.old_number == change.new_number) for change in by_number} == {("changed", True)}
    # Other rules changed as little were paired by more than their number: 201.3 and 505.5 as each
    # other's best match in their section, 513.1 by where its subrule went.
    others = {c.old_number: c for c in changes if c.kind == "changed" and c.old_number in ("201.3", "505.5", "513.1")}
    assert sorted(others) == ["201.3", "505.5", "513.1"]
    assert all(change.similarity < 0.5 and not change.paired_by_number for change in others.values())


def test_a_rule_is_where_its_statement_went_not_where_its_subrules_stayed(by_date: dict[str, CRDocument]) -> None:
    # 2016 dropped the declare attackers step's "Second, any abilities that triggered on attackers
    # being declared go on the stack" (508.2): "the active player gets priority" moved up from
    # 508.3 to 508.2, and the triggers' rule became 508.2b under it, beside 508.2a, which stayed.
    # The number 508.2 kept its subrule, not its rule: 2014's 508.3 is 2019's 508.2, and 2014's
    # 508.3 was paired with 2019's 508.3 (another rule, 0.08 alike) by its number alone.
    changes, number_map = diff_and_map(by_date["2014-09-25"], by_date["2019-01-25"])
    moved = {c.old_number: (c.kind, c.new_number) for c in changes if c.old_number in ("508.2", "508.3")}
    assert moved == {"508.2": ("moved-changed", "508.2b"), "508.3": ("moved-changed", "508.2")}
    assert number_map["508.2a"] == "508.2a"
    assert ("added", None, "508.3") in {(c.kind, c.old_number, c.new_number) for c in changes}


def test_a_subrule_of_one_keyword_is_not_a_subrule_of_another(by_date: dict[str, CRDocument]) -> None:
    # Every keyword has its "Multiple instances of [it] are redundant"; alike words, another rule.
    # 2003-10-01's Snow-Covered (502.14) is removed in 2006, whose 502.14 is Vigilance, where its
    # 502.14d ("... of snow-covered on the same land ...", 0.8 alike 502.14c "... of vigilance on the
    # same creature ...") made the two one rule, and Vigilance's history start in 2003. In 2009 Banding's
    # 502.10i went to Intimidate's 702.11c (0.9 alike) and Scry's 502.36b to Graft's 702.55b; in 2013
    # Deathtouch's 702.2d to Infect's 702.88d (0.96), where Deathtouch's own 702.2e (0.82) is it.
    # A keyword renamed keeps its subrules: 2025's Umbra Armor is 2024's Totem Armor.
    oct_2003, edition_2009 = (_parse(FIXTURES / "en-raw-batch2" / name) for name in ("2003-10-01.txt", "2009-10-01.txt"))
    snow = diff_and_map(oct_2003, by_date["2006-02-01"])[1]
    assert [snow[number] for number in ("502.14", "502.14a", "502.14b", "502.14c", "502.14d")] == [None] * 5
    to_2009 = diff_and_map(by_date["2006-02-01"], edition_2009)[1]
    assert (to_2009["502.10i"], to_2009["502.36b"]) == (None, None)
    assert to_2009["502.10"] == "702.19"  # Banding itself
    assert diff_and_map(edition_2009, by_date["2013-05-01"])[1]["702.2d"] == "702.2e"
    changes, renamed = diff_and_map(by_date["2024-02-02"], by_date["2025-02-07"])
    assert (renamed["702.89"], renamed["702.89a"]) == ("702.89", "702.89a")
    assert not [c for c in changes if c.old_number == "702.89a" and c.paired_by_number]


def test_a_rule_whose_example_was_rewritten_as_it_moved_is_the_same_rule(by_date: dict[str, CRDocument]) -> None:
    # 2006's 407.2 is 2009's 112.11: its statement word for word (its cited rule renumbered), its
    # example now Muraganda Petroglyphs. It was "removed" and 112.11 "added", the one rule of the
    # 2009 renumbering whose identity was lost.
    edition_2009 = _parse(FIXTURES / "en-raw-batch2" / "2009-10-01.txt")
    changes, number_map = diff_and_map(by_date["2006-02-01"], edition_2009)
    assert number_map["407.2"] == "112.11"
    assert next(c.kind for c in changes if c.old_number == "407.2") == "moved-changed"


def _venser_edition(name: str) -> CRDocument:
    return cr_txt.parse(gzip.decompress((FIXTURES / "venser" / "cr-txt" / name).read_bytes()), name)


def test_typography_of_files_set_in_ascii_is_not_a_change(by_date: dict[str, CRDocument]) -> None:
    # The official 2019-01-25 file is set in ASCII: "Future Sight(r)", "Time Spiral(r)", "Choose
    # one -."; the editions on either side print "®" and "—". 2013's prints "Creature -- Human
    # Soldier", 2014's "Creature — Human Soldier". Each was a "changed" rule, twice for 2019.
    pairs = [
        (_venser_edition("cr-2018-10-05-GRN.txt.gz"), by_date["2019-01-25"], {"107.10", "206.2"}),
        (by_date["2019-01-25"], _venser_edition("cr-2019-07-12-M20.txt.gz"), {"107.10", "206.2", "700.2"}),
        (by_date["2013-05-01"], by_date["2014-09-25"], {"302.3", "205.3b"}),
    ]
    for old, new, typography_only in pairs:
        assert not [c.old_number for c in diff_versions(old, new) if c.old_number in typography_only]


def test_a_glossary_term_printed_in_another_case_is_not_renamed() -> None:
    from kb.link.cr_diff import diff_glossary
    from kb.records import GlossaryEntry

    # As 2006's "Global Enchantment (obsolete)" became 2009's "Global Enchantment (Obsolete)" and
    # was reworded (the definitions here are short texts written for this test).
    old = [GlossaryEntry("Global Enchantment (obsolete)", "Some older cards used the term “global enchantment.”")]
    new = [GlossaryEntry("Global Enchantment (Obsolete)", "Some older cards used the term “global enchantment”; they now say “non-Aura enchantment.”")]
    assert [(c.kind, c.old_number, c.new_number) for c in diff_glossary(old, new)] == [
        ("glossary-changed", "Global Enchantment (obsolete)", "Global Enchantment (Obsolete)")]


def test_a_section_follows_its_rules_before_a_section_titled_alike() -> None:
    """2003-03's 503 "Copying Spells and Abilities" is 2003-10's 503 "Copying Objects", where its
    eleven rules went (707 today), not 415 "Targeted Spells and Abilities", three of whose four
    title words it shares (a review: the history of Targets, 115 today, began with it)."""
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(_snapshot_edition("2003-03-15"), _snapshot_edition("2003-10-01"))
    assert number_map["503"] == "503"
    assert [number_map[f"503.{n}"] for n in range(1, 12)] == [f"503.{n}" for n in range(1, 12)]
    # A rule is not a section: its statement says more than where its subrules went. 2022's 103.2
    # ("each player shuffles their deck") is 2024's 103.3, though its subrules went under the new
    # 103.2 ("Some games require additional steps").
    shuffles = pair_rules(_snapshot_edition("2022-04-29"), _snapshot_edition("2024-02-06"))
    assert (shuffles["103.2"], shuffles["103.2a"], shuffles["103.2c"]) == ("103.3", "103.2a", "103.2c")


def test_a_general_section_is_the_general_section_its_rules_went_under() -> None:
    """2009 gave every chapter a section "General": 2006's 300 "General" of Turn Structure is
    2009's 500 "General" of Turn Structure, where eight of its nine rules went, not 300 "General"
    of Card Types; 2006's 600 "General" of Multiplayer is 2009's 800 (a review)."""
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(_snapshot_edition("2006-02-01"), _snapshot_edition("2009-10-01"))
    assert (number_map["300"], number_map["600"]) == ("500", "800")
    assert [number_map[f"300.{n}"] for n in (1, 2)] == ["500.1", "500.2"]
    assert (number_map["100"], number_map["400"]) == ("100", "400")  # their rules stayed


def test_a_glossary_entry_of_an_empty_term_keeps_its_own_text() -> None:
    """An entry's texts are looked up by its term: an empty term is a term, not a missing side."""
    from kb.link.cr_diff import diff_glossary
    from kb.records import GlossaryEntry

    changes = diff_glossary([GlossaryEntry("Attack", "a")], [GlossaryEntry("", "b")], {})
    assert [(c.kind, c.old_number, c.new_number, c.old_text, c.new_text) for c in changes] == [
        ("glossary-added", None, "", None, "b"), ("glossary-removed", "Attack", None, "a", None),
    ]


def test_a_subrule_left_under_a_moved_rule_keeps_its_letter_where_each_is_the_others_likest() -> None:
    """2009 reworded what it moved: 2006's first strike 502.2b and 502.2c ("Adding or removing
    first strike after the first combat damage step…") are 2009's 702.7b and 702.7c ("Giving
    first strike to a creature without it after combat damage…"), 0.44 and 0.38 alike, each the
    other's likest free rule; they were "removed" and "added". So are double strike's 502.28b,
    kicker's 502.21d and the look-back-in-time 410.10d (each read against both texts)."""
    from kb.link.cr_pairing import pair_rules

    number_map = pair_rules(_snapshot_edition("2006-02-01"), _snapshot_edition("2009-10-01"))
    assert {number: number_map[number] for number in ("502.2b", "502.2c", "502.28b", "502.21d", "410.10d")} == {
        "502.2b": "702.7b", "502.2c": "702.7c", "502.28b": "702.4b", "502.21d": "702.30d", "410.10d": "603.6d",
    }
    # Not under a rule that went without its subrules: compared straight with 2026, 2006's 409.1
    # paired with 602.2 while its subrules went to 601.2; 409.1a (casting a spell) is no 602.2a
    # (activating an ability: a review of the change).
    assert pair_rules(_snapshot_edition("2006-02-01"), _snapshot_edition("2026-04-17"))["409.1a"] != "602.2a"


def test_a_word_diff_escapes_the_marks_the_rules_text_holds() -> None:
    # 107.3k of 2020-09-25 holds "[-X]", station's 721.2a "{N+}": read as the markup's marks,
    # the diff page showed nearly all of 107.3k deleted and 721.2a mangled (a review).
    from kb.link.word_diff import render_word_diff, word_ops
    from kb.site.markup import render_word_diff as word_diff_html

    old = "If an object’s activated ability has an {X}, [-X], or X in its activation cost. See rule 107.3h."
    new = "If an object’s activated ability has an {X}, [-X], or X in its activation cost. See rule 107.3i."
    diff = render_word_diff(word_ops(old, new))
    assert diff == "If an object’s activated ability has an {X}, [\\-X], or X in its activation cost. See rule [-107.3h.-] {+107.3i.+}"
    assert word_diff_html(diff) == ("If an object’s activated ability has an {X}, [-X], or X in its activation cost. See rule"
                                    " <del>107.3h.</del> <ins>107.3i.</ins>")
    station = render_word_diff(word_ops("", "“{N+}[abilities]” means “As long as …”"))
    assert word_diff_html(station) == "<ins>“{N+}[abilities]” means “As long as …”</ins>"
    # A last "[" or "{" would begin a mark with the closing one (a code review).
    assert word_diff_html(render_word_diff(word_ops("a x[ b", "a y{ b"))) == "a <del>x[</del> <ins>y{</ins> b"
    # A text without them reads as it did.
    assert render_word_diff(word_ops("Draw a card.", "Draw two cards.")) == "Draw [-a card.-] {+two cards.+}"


def test_a_section_cited_next_in_a_list_is_a_number_cited() -> None:
    # 701.27g of 2026-04-17: "See rules 701.42, “Meld,” and 730, “Merging with Permanents.”",
    # 729 before: a change of the numbers cited, not of wording (a review of the diff pages).
    from kb.link.cr_compare import collapse, masked

    old = collapse("See rules 701.42, “Meld,” and 729, “Merging with Permanents.”")
    new = collapse("See rules 701.42, “Meld,” and 730, “Merging with Permanents.”")
    assert masked(old) == masked(new) == 'See rules #, "Meld," and #, "Merging with Permanents."'
    # A quantity is no citation.
    assert masked("Each deck has exactly 100 cards, and 7 in hand.") == "Each deck has exactly 100 cards, and 7 in hand."
