"""Lost-symbol detection and restoration (kb.normalise.losses)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from kb.normalise.losses import (
    GAP_PATTERNS,
    PATTERN_TRIGGERS,
    _fragment,
    detect_dropped_symbols,
    restore_from_reference,
)
from kb.parse.rulings import gatherer_old, mtgjson, scryfall

FIXTURES = Path(__file__).parent.parent / "fixtures"
# Copied from tests/fixtures/gatherer/capture/000_3058e1dbd621f134.txt (a German card page whose capture lost
# its symbol images): lines 10 and 13, after the "• DD.MM.YYYY" prefix.
SEED_TAP = (
    "If a creature you control has a mana ability with in the cost, activating that ability while casting a "
    "spell with convoke will result in the creature being tapped before you pay the spell's costs. You won't "
    "be able to tap it again for convoke. Similarly, if you sacrifice a creature to activate a mana ability "
    "while casting a spell with convoke, that creature won't be on the battlefield when you pay the spell's "
    "costs, so you won't be able to tap it for convoke."
)
SEED_ONE = (
    "Tapping a multicolored creature using convoke will pay for or one mana of your choice of any of that "
    "creature's colors."
)
# The English originals, CONSTRUCTED here from the seed text with the symbols the brief gives
# ({T} and {1}); Scryfall's typography (curly apostrophes) to show it need not match.
REFERENCE_TAP = SEED_TAP.replace("with in the cost", "with {T} in the cost").replace("'", "’")
REFERENCE_ONE = SEED_ONE.replace("pay for or", "pay for {1} or")


def all_fixture_texts() -> list[str]:
    texts: list[str] = []
    for path in (FIXTURES / "scryfall" / "api-2025-11-01").glob("rulings-*.json"):
        texts += [r.text for r in scryfall.parse(path.read_bytes(), path.name).rulings]
    texts += [r.text for r in scryfall.parse((FIXTURES / "scryfall" / "misc" / "rulings-deathrite-shaman.json").read_bytes()).rulings]
    for path in (FIXTURES / "gatherer" / "old").glob("*.html"):
        document = gatherer_old.parse(path.read_bytes(), path.name)
        texts += [r.text for r in document.rulings]
        texts += [c.oracle_text or c.printed_text or "" for c in document.cards]
    document = mtgjson.parse((FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_bytes(), "UGIN")
    texts += [r.text for r in document.rulings] + [c.oracle_text or c.printed_text or "" for c in document.cards]
    return texts


def test_no_false_positives_on_real_rulings_and_card_texts() -> None:
    texts = all_fixture_texts()
    assert len(texts) == 583
    assert [t for t in texts if detect_dropped_symbols(t)] == []


def test_detects_the_two_seed_sentences() -> None:
    assert detect_dropped_symbols(SEED_TAP) == ["control has a mana ability with in the cost, activating that ability"]
    assert detect_dropped_symbols(SEED_ONE) == ["creature using convoke will pay for or one mana of your choice of any of"]


def test_seed_page_other_lines_are_clean() -> None:
    lines = (FIXTURES / "gatherer" / "capture" / "000_3058e1dbd621f134.txt").read_text(encoding="utf-8").splitlines()
    flagged = [number for number, line in enumerate(lines, 1) if detect_dropped_symbols(line)]
    assert flagged == [10, 13]


@pytest.mark.parametrize(
    "text",
    ["Add  or .", "Add .", '"  : Draw a card."', "It costs  less to cast."],
)
def test_other_gap_shapes(text: str) -> None:
    assert detect_dropped_symbols(text) != []


def test_restore_from_reference() -> None:
    restored, missing = restore_from_reference(SEED_TAP, REFERENCE_TAP)
    assert missing == ["{T}"]
    # the broken text keeps its own (straight) apostrophes; only the symbol comes back
    assert restored == SEED_TAP.replace("with in the cost", "with {T} in the cost")
    assert restore_from_reference(SEED_ONE, REFERENCE_ONE) == (REFERENCE_ONE, ["{1}"])


def test_restore_adjacent_and_leading_symbols() -> None:
    assert restore_from_reference('": Add ."', '"{T}: Add {G}{U}."') == ('"{T}: Add {G}{U}."', ["{T}", "{G}", "{U}"])


def test_restore_refuses_other_words_or_nothing_missing() -> None:
    assert restore_from_reference("within the cost", "with {T} in the cost") is None
    assert restore_from_reference(SEED_ONE.replace("Tapping", "Untapping"), REFERENCE_ONE) is None
    assert restore_from_reference(REFERENCE_ONE, REFERENCE_ONE) is None
    assert restore_from_reference("No symbols here.", "No symbols here.") is None


def test_seed_sentences_are_the_capture_lines() -> None:
    lines = (FIXTURES / "gatherer" / "capture" / "000_3058e1dbd621f134.txt").read_text(encoding="utf-8").splitlines()
    assert lines[9] == "• 12.01.2024" + SEED_TAP
    assert lines[12] == "• 12.01.2024" + SEED_ONE


def _every_pattern(text: str) -> list[str]:
    """What detection finds when every pattern runs on the whole text, no trigger or needle first."""
    return [_fragment(text, m.start(), m.end()) for pattern in GAP_PATTERNS for m in pattern.finditer(text)]


# Words and separators the patterns are made of, in both cases and with every kind of white space
# they must see through (constructed texts: every combination the needles must not miss).
PIECES = (
    "with WITH in the its their that ability's cost costs for or one two 3 mana add Adds and ADD"
    " . , ; : \" \u201c less more where is Is A x {T} \u2019 activation Where"
).split(" ")
SPACES = (" ", "  ", "\n", "\t", "\u00a0", "\u2003", "", "\x1c", " \n ")


@pytest.mark.long_proof
def test_needles_skip_only_texts_no_pattern_matches() -> None:
    rng = random.Random(15)
    texts = all_fixture_texts() + [SEED_TAP, SEED_ONE, "Add  or .", "Add .", '"  : Draw a card."', " ,:", "\n, :"]
    for _ in range(60_000):
        texts.append("".join(rng.choice(SPACES) + rng.choice(PIECES) for _ in range(rng.randint(1, 9))) + rng.choice(SPACES))
    found = [text for text in texts if detect_dropped_symbols(text)]
    assert [detect_dropped_symbols(text) for text in texts] == [_every_pattern(text) for text in texts]
    assert len(found) > 1_000  # the constructed texts do hit every pattern's shapes


@pytest.mark.parametrize("twin", ["\u0130", "\u0131", "\u017f", "\u212a"])
def test_letters_case_blind_patterns_equate_with_ascii_take_the_word_triggers(twin: str) -> None:
    # "ſ" matches "s" in a case-blind pattern; such texts skip the needles (the lowered text
    # would not hold them) and are checked as before: the word triggers, then the patterns.
    text = f"It co{twin}ts  less to cast. Add ."
    assert detect_dropped_symbols(text) == [
        _fragment(text, m.start(), m.end())
        for triggers, pattern in PATTERN_TRIGGERS
        if any(trigger in text.lower() for trigger in triggers)
        for m in pattern.finditer(text)
    ]
