"""Symbol spelling and text normalisation (kb.normalise.symbols, kb.normalise.text)."""
from __future__ import annotations

import pytest

from kb.normalise.symbols import (
    braced_old_codes,
    gatherer_alt_to_symbol,
    gatherer_alternates,
    normalise_symbols,
    old_gatherer_codes_to_braces,
)
from kb.normalise.text import clean_text, identity_key, nfc, quality_score


@pytest.mark.parametrize(
    "alt, image_name, expected",
    [
        ("Tap", "tap", "{T}"),
        ("Untap", "untap", "{Q}"),
        ("Blue or Red", "UR", "{U/R}"),
        ("Red or Blue", None, "{U/R}"),
        ("Green or White", None, "{G/W}"),
        ("White or Black", None, "{W/B}"),
        ("Phyrexian Black", "BP", "{B/P}"),
        ("Phyrexian Red", "RP", "{R/P}"),
        ("Variable Colorless", "X", "{X}"),
        ("1", "1", "{1}"),
        ("10", None, "{10}"),
        ("Two or Blue", "2U", "{2/U}"),
        ("Snow", "snow", "{S}"),
        ("Colorless", "C", "{C}"),
        ("Green", "G", "{G}"),
        # alt text not understood: the image code decides
        ("", "RP", "{R/P}"),
        ("?", "UR", "{U/R}"),
        ("?", "2U", "{2/U}"),
        ("?", "tap", "{T}"),
        ("?", "oT", "{T}"),  # Scryfall's gatherer_alternates
        ("?", "zz", None),
        ("Mystery", None, None),
    ],
)
def test_gatherer_alt_to_symbol(alt: str, image_name: str | None, expected: str | None) -> None:
    assert gatherer_alt_to_symbol(alt, image_name) == expected


def test_bundled_gatherer_alternates_come_from_scryfall_symbology() -> None:
    alternates = gatherer_alternates()
    assert alternates["oT"] == "{T}" and alternates["ocT"] == "{T}"
    assert alternates["ooX"] == "{X}" and alternates["o2"] == "{2}"
    assert len(alternates) == 14


@pytest.mark.parametrize(
    "text, expected",
    [
        ("oW", "{W}"),
        ("ooX", "{X}"),
        ("o2", "{2}"),
        ("o1oU, oT: Add oGoG.", "{1}{U}, {T}: Add {G}{G}."),
        ("ocT: Draw a card.", "{T}: Draw a card."),
        ("ooXoR: deals X damage", "{X}{R}: deals X damage"),
        # ordinary words are untouched
        ("Other players; Zoo; tooth; oTher", "Other players; Zoo; tooth; oTher"),
    ],
)
def test_old_gatherer_codes_to_braces(text: str, expected: str) -> None:
    assert old_gatherer_codes_to_braces(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("{2/u}", "{2/U}"),
        ("{u/2}", "{2/U}"),
        ("{r/u}", "{U/R}"),
        ("{U/R}", "{U/R}"),
        ("{w/g}", "{G/W}"),
        ("{g/u}", "{G/U}"),
        ("{p/b}", "{B/P}"),
        ("{b/p}", "{B/P}"),
        ("{u/w/p}", "{W/U/P}"),
        ("{w/c}", "{C/W}"),
        ("{t}, {q}: {x}", "{T}, {Q}: {X}"),
        ("{PW}", "{PW}"),
        ("{横置}{白/蓝}", "{横置}{白/蓝}"),
    ],
)
def test_normalise_symbols(text: str, expected: str) -> None:
    assert normalise_symbols(text) == expected


def test_nfc_and_clean_text() -> None:
    assert nfc("Alru\u0308nd") == "Alründ"
    assert clean_text("  The ability   triggers\u00a0 at\r\nthe beginning.  \r\n\r\n\r\nNext.\u200b ") == (
        "The ability triggers at\nthe beginning.\n\nNext."
    )


def test_identity_key_ignores_typography_only() -> None:
    scryfall = "If the target of any of Deathrite Shaman’s three abilities is an illegal target — it won’t resolve."
    gatherer = "If the target of any of Deathrite Shaman's  three abilities is an illegal target - it won't resolve"
    assert identity_key(scryfall) == identity_key(gatherer)
    assert identity_key("Pay {u/r} .") == identity_key("Pay {U/R}.")
    assert identity_key("“Whenever”") == identity_key('"Whenever"')
    # a changed word is a different ruling
    assert identity_key("it won’t resolve.") != identity_key("it doesn't resolve.")
    assert identity_key("Add {G}.") != identity_key("Add {U}.")


def test_quality_score_prefers_symbols_and_typography() -> None:
    with_symbol = "If a creature you control has a mana ability with {T} in the cost, it’s tapped."
    lost = "If a creature you control has a mana ability with in the cost, it’s tapped."
    straight = "If a creature you control has a mana ability with {T} in the cost, it's tapped."
    spaced = "If a creature you control has a mana ability with {T} in the cost,  it’s tapped."
    ranked = sorted([lost, straight, spaced, with_symbol], key=quality_score, reverse=True)
    assert ranked == [with_symbol, straight, spaced, lost]


def test_braced_old_codes_are_their_symbols() -> None:
    # 2003-10-01's CR braces Gatherer's codes; upper-cased as they were, "{oW}" was "{OW}".
    assert normalise_symbols("{oW}{o3}{oT}{w}") == "{W}{3}{T}{W}"
    assert braced_old_codes("{oW}, {oU} and {x}") == "{W}, {U} and {x}"
