"""kb.normalise.refs: rule numbers cited in English and translated rules text."""
from __future__ import annotations

import random

import pytest

from kb.normalise.refs import SUBRULE_LETTERS, expand_range, extract_refs


def test_subrule_letters_skip_l_and_o() -> None:
    assert SUBRULE_LETTERS == "abcdefghijkmnpqrstuvwxyz"
    assert len(SUBRULE_LETTERS) == 24


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        ("601.2f", "h", ["601.2f", "601.2g", "601.2h"]),
        ("704.5k", "p", ["704.5k", "704.5m", "704.5n", "704.5p"]),
        ("702.19b", "d", ["702.19b", "702.19c", "702.19d"]),
        ("601.2f", "f", ["601.2f"]),
        ("601.2h", "f", ["601.2h"]),  # backwards: not a range
        ("601.2", "h", ["601.2"]),  # no start letter: not a range
    ],
)
def test_expand_range(start: str, end: str, expected: list[str]) -> None:
    assert expand_range(start, end) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 702.78a in the 2026-01-16 CR
        (
            "Paying a spell’s conspire cost follows the rules for paying additional costs in "
            "rules 601.2b and 601.2f–h.",
            ["601.2b", "601.2f", "601.2g", "601.2h"],
        ),
        ("rule 601.2b", ["601.2b"]),
        ("rules 601.2a-e", ["601.2a", "601.2b", "601.2c", "601.2d", "601.2e"]),
        ("rules 702.19b–d", ["702.19b", "702.19c", "702.19d"]),
        ("See section 7, “Additional Rules.”", ["7"]),
        ("See rule 702.19, “Trample.”", ["702.19"]),
        ("rules 103.4 and 103.5", ["103.4", "103.5"]),
        ("rule 704.5k.", ["704.5k"]),
        ("See rule 113, “Abilities,” and section 6, “Spells, Abilities, and Effects.”", ["113", "6"]),
        ("See rules 113, 602, and 603.", ["113", "602", "603"]),
        ("sections 8 and 9", ["8", "9"]),
        # 2006 CR: a range written with both full numbers
        ("(rules 418.5b-418.5g)", ["418.5b", "418.5c", "418.5d", "418.5e", "418.5f", "418.5g"]),
        # order of first appearance, no repeats
        ("rule 702.19c, then rule 601.2b, then 702.19c again", ["702.19c", "601.2b"]),
        # A section by its number and title, without the word "rule" (901.9d of 2022-02-18 on,
        # 702.160a of 2026-01-16).
        ('See 706, "Rolling a Die."', ["706"]),
        ("See 718, “Prototype Cards.”", ["718"]),
        # The next of a list led by a rule, by its number and title (701.27g of 2026).
        ("See rules 701.42, “Meld,” and 729, “Merging with Permanents.”", ["701.42", "729"]),
        ('See rules 701.42, "Meld," or 729, "Merging with Permanents."', ["701.42", "729"]),
        # 2003-10-01's glossary, a misprint of 419.8: a list's comma is followed by a space, and
        # "8" was read as a part cited (the review of the parse found it reported as a missing rule).
        ('See rule 419,8, "Sources of Damage."', ["419"]),
    ],
)
def test_english_references(text: str, expected: list[str]) -> None:
    assert extract_refs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("reglas 601.2b y 601.2f–h", ["601.2b", "601.2f", "601.2g", "601.2h"]),
        ("规则601.2b和601.2f–h", ["601.2b", "601.2f", "601.2g", "601.2h"]),
        ("규칙 601.2b의", ["601.2b"]),
        ("voir la règle 702.19.", ["702.19"]),
        ("参见规则702.19", ["702.19"]),
        ("règles 601.2a-e", ["601.2a", "601.2b", "601.2c", "601.2d", "601.2e"]),
    ],
)
def test_translated_references(text: str, expected: list[str]) -> None:
    assert extract_refs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Each player sets their life total to 20 life.",
        "The game is 1.5 times longer.",
        "These rules are effective as of January 16, 2026.",
        "Put a +1/+1 counter on it.",
        "rule 20",  # not a section number
        "version 100.25.3",
        "page 1201.5",
        "601.2bis",
        "a deck of 100 cards",  # bare section-like number without the word "rule"
        "See 100 cards, “for example”",  # no section is cited by a number and a word
        'see 706, "Rolling a Die."',  # "See" opens the citation in every CR
        # A number and a title after "and" cite a section only after a "See" (a review).
        "The card named “Lightning Bolt” and 500, “Foo” See something",
    ],
)
def test_not_references(text: str) -> None:
    assert extract_refs(text) == []


def test_spaced_dash_is_prose_not_range() -> None:
    assert extract_refs("See rule 601.2b - a player may pay.") == ["601.2b"]


import pytest as _pytest


@_pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("参见规则903，“指挥官”", ["903"]),  # real Chinese CR wording
        ("见规则717，“景点牌”；规则901", ["717", "901"]),
        ("参见第3章", ["3"]),
        ("규칙 704를 보세요", ["704"]),
        ("reglas 113 y 602", ["113", "602"]),
        ("règles 113 et 602", ["113", "602"]),
        ("Regel 704", ["704"]),
        ("véase la sección 7", ["7"]),
        ('다인전은 두 명 이상으로 시작하는 게임을 말합니다. 8절 "Multiplayer Rules."을 보세요.', ["8"]),  # Korean 100.1b
        ("（参见规则703，“回合动作”和704，“状态动作”。）", ["703", "704"]),  # Chinese 116.1
        ("“闪电击”和500，“某牌”", []),  # a number and a title cite a section only after a rule cited
        ("18절", []),
        ("20 reglas", []),
        ("regla 20", []),
        ("规则7023", []),
    ],
)
def test_section_references_in_other_languages(text: str, expected: list[str]) -> None:
    assert extract_refs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Number-to-number ranges as real CRs print them (2024-02-06: 509.4a, 701.50a; 2026: 903.x).
        ("process described in rules 509.1–3 are", ["509.1", "509.2", "509.3"]),
        ("This follows rules 701.28a–f, 712.9–10, and 712.18.",
         ["701.28a", "701.28b", "701.28c", "701.28d", "701.28e", "701.28f", "712.9", "712.10", "712.18"]),
        ("See rules 119.7–8.", ["119.7", "119.8"]),
        ("rules 903.6–903.11", ["903.6", "903.7", "903.8", "903.9", "903.10", "903.11"]),
        ("See rules 306–311.", ["306", "307", "308", "309", "310", "311"]),
        ("rules 306-311 and 420", ["306", "307", "308", "309", "310", "311", "420"]),
        # Across sections nothing lies between that we could name: the endpoints stay.
        ("rules 601.2–602.1", ["601.2", "602.1"]),
        ("rules 306–411", ["306", "411"]),
        ("rules 509.3–1", ["509.3"]),  # backwards: not a range
    ],
)
def test_number_ranges_expanded(text: str, expected: list[str]) -> None:
    assert extract_refs(text) == expected


def test_english_only_skips_translated_words() -> None:
    assert extract_refs("reglas 113 y 602, section 7", lang="en") == ["7"]
    assert extract_refs("rules 306–308 and 601.2f–g", lang="en") == ["306", "307", "308", "601.2f", "601.2g"]


def test_dotted_numbers_are_looked_for_only_where_one_can_be() -> None:
    # The cheap test before the pattern's scan never skips a text the pattern finds a number in.
    from kb.normalise.refs import DOTTED_RULE, _may_hold_dotted_number

    pieces = ["601", "2b", "1", "12", "702.19", ".", ". ", "..", "3 damage", "x", "١٢٣", "٤", "²", "0", "99", "–", "h",
              "rule ", "v", "\n", "601.2f–h", "9.5", "100.1", "1201.5"]
    rng = random.Random(15)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(30_000)]
    found = [text for text in texts if DOTTED_RULE.search(text)]
    assert len(found) > 3_000
    assert all(_may_hold_dotted_number(text) for text in found)
    assert sum(not _may_hold_dotted_number(text) for text in texts) > 3_000
