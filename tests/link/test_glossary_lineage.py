"""Glossary lineages on the real CR files: a renamed term keeps its entry's identity."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.link.glossary_lineage import glossary_lineages, pair_glossary, split_parts
from kb.parse.cr import txt as cr_txt
from kb.records import CRDocument

CR = Path(__file__).parent.parent / "fixtures" / "cr"
EN_RAW = CR / "en-raw"


def parsed(path: str) -> CRDocument:
    return cr_txt.parse((CR / path).read_bytes(), path)


@pytest.fixture(scope="module")
def editions() -> dict[str, CRDocument]:
    return {path.stem: cr_txt.parse(path.read_bytes(), str(path)) for path in sorted(EN_RAW.glob("*.txt"))}


def renamed(editions: dict[str, CRDocument], old: str, new: str) -> dict[str, str]:
    pairs = pair_glossary(editions[old].glossary, editions[new].glossary)
    return {before: after for before, after in pairs.items() if before != after}


def removed(editions: dict[str, CRDocument], old: str, new: str) -> list[str]:
    pairs = pair_glossary(editions[old].glossary, editions[new].glossary)
    return [entry.term for entry in editions[old].glossary if entry.term not in pairs]


def test_renames_the_glossary_states_2019_to_2022(editions: dict[str, CRDocument]) -> None:
    # Mana Value took Converted Mana Cost's definition word for word; "Converted Mana Cost
    # (Obsolete)" is a new entry that says so. Substitute cards replaced checklist cards (the
    # same definition); the rest is typography (straight quotes to curly ones).
    assert renamed(editions, "2019-01-25", "2022-02-18") == {
        "Attacks and Isn't Blocked": "Attacks and Isn’t Blocked",
        'Banding, "Bands with Other"': "Banding, “Bands with Other”",
        "City's Blessing": "City’s Blessing",
        'Intervening "If" Clause': "Intervening “If” Clause",
        'Partner, "Partner with [name]"': "Partner, “Partner with [name]”",
        "Converted Mana Cost": "Mana Value",
        "Checklist Card": "Substitute Card",
    }
    assert removed(editions, "2019-01-25", "2022-02-18") == []


def test_renamed_obsolete_and_grown_terms_2024_to_2026(editions: dict[str, CRDocument]) -> None:
    assert renamed(editions, "2024-02-06", "2025-02-07") == {
        "Damage Assignment Order": "Damage Assignment Order (Obsolete)",  # obsolete, not renamed
        "Totem Armor": "Umbra Armor",
        "Tribal": "Kindred",
    }
    # "An older name for nonmodal double-faced cards": the longest entry name the obsolete entry
    # states, not "Double-Faced Cards" it also names.
    assert renamed(editions, "2025-02-07", "2026-01-16") == {
        "Transforming Double-Faced Cards": "Nonmodal Double-Faced Card",
        "Partner, “Partner with [name]”": "Partner, “Partner—[text],” “Partner with [name]”",
    }
    assert removed(editions, "2025-02-07", "2026-01-16") == ["Friends Forever"]


def test_the_2009_renames_across_2006_to_2013(editions: dict[str, CRDocument]) -> None:
    pairs = renamed(editions, "2006-02-01", "2013-04-29")
    # "The battlefield … used to be known as the “in-play” zone"; exile "used to be known as the
    # “removed-from-the-game” zone". "Set Aside (Obsolete)" points to Exile, whose definition is
    # not Set Aside's: Set Aside lives on as its obsolete entry.
    assert pairs["In Play"] == "Battlefield"
    assert pairs["Removed from the Game"] == "Exile"
    assert pairs["Set Aside"] == "Set Aside (Obsolete)"
    assert pairs["Mana Burn"] == "Mana Burn (Obsolete)"
    assert pairs["Two-Headed Giant"] == "Two-Headed Giant Variant"
    assert pairs["End of Turn Step"] == "End Step"
    # Words inside another term are not enough: "Order" is not "Damage Assignment Order", nor
    # "Snow-Covered Landwalk" "Snow", nor "Teams" "Alternating Teams Variant".
    assert "Order" not in pairs and "Snow-Covered Landwalk" not in pairs and "Teams" not in pairs
    # Renamed in part, the names and definitions agreeing (the 2009 renames, and "Control Another
    # Player's Turn" → "Control Another Player" of 2013); a shared "game" is not enough.
    assert pairs["State-Based Effects"] == "State-Based Actions"
    assert pairs["Controlling Another Player's Turn"] == "Control Another Player"
    assert "Game Action" not in pairs
    assert len(pairs) == 31


def test_renamed_in_part_2006_to_2009() -> None:
    pairs = pair_glossary(parsed("en-raw/2006-02-01.txt").glossary, parsed("en-raw-batch2/2009-10-01.txt").glossary)
    assert {old: new for old, new in pairs.items() if old != new and old not in STATED_OR_CONTAINED_2009} == {
        "State-Based Effects": "State-Based Actions",
        "State Triggers": "State Trigger",
        "Leaves Play": "Leaves the Battlefield",
        "End Phase": "Ending Phase",
        "Ending the Turn": "End the Turn",
        "Flip a Coin": "Flipping a Coin",
        "Controlling Another Player's Turn": "Control Another Player's Turn",
        "Trigger, Triggered Ability": "Triggered Ability",
        "Turn Marker": "Turn Markers",
        "Half-Half Mana Symbols": "Hybrid Mana Symbols",
        "Cast (Obsolete)": "Cast",  # "Some older cards used the term “cast” …": cast again since 2009
    }
    # Named in other words: not found.
    assert "Comes into Play" not in pairs
    # "Instant Type" and "Sorcery Type" are as near to "Spell Type" as each other.
    assert "Instant Type" not in pairs and "Sorcery Type" not in pairs


# The renames of 2006 → 2009 found before the names renamed in part.
STATED_OR_CONTAINED_2009 = {
    '"As though"', "Global Enchantment (obsolete)", "Local Enchantment (obsolete)", "In Play", "Mana Burn",
    "Removed from the Game", "Set Aside", "Snow-Covered", "Ante (Obsolete)", "End of Turn Step", "Generic Mana Cost",
    "Kicker", "Multiplayer", "Phased Out", "Postcombat", "Precombat", "Respond, Response (Informal)",
    "Summoning Sickness (Informal)", "Teams", "Two-Headed Giant", "Y, Z",
}


def test_lineages_follow_renames_through_every_edition(editions: dict[str, CRDocument]) -> None:
    version_ids = [f"en-{date}" for date in editions]
    by_version, lineages = glossary_lineages(version_ids, [document.glossary for document in editions.values()])
    newest = by_version[-1]
    mana_value = lineages[newest["Mana Value"]]
    assert mana_value.id == "en-2003-03-15/glossary:Converted Mana Cost"
    assert mana_value.numbers == ["Converted Mana Cost", "Mana Value"]
    assert lineages[newest["Battlefield"]].numbers == ["In Play", "Battlefield"]
    assert lineages[newest["Kindred"]].numbers == ["Tribal", "Kindred"]
    # The obsolete entries are lineages of their own, starting where they were written.
    assert newest["Converted Mana Cost (Obsolete)"] == "en-2022-02-18/glossary:Converted Mana Cost (Obsolete)"
    # Every entry of every edition has exactly one lineage.
    for document, terms in zip(editions.values(), by_version, strict=True):
        assert set(terms) == {entry.term for entry in document.glossary}


def test_obsolete_entries_continue_the_enchantments_they_replaced_2003_to_2006() -> None:
    # "Global Enchantment (obsolete)": "… These cards now say “non-Aura enchantment.” See also Aura
    # and Enchantment": Aura is named beside the old term, not as its new name; and "Local
    # Enchantment (obsolete)"'s "enchantments that are attached to" does not name Attach.
    pairs = pair_glossary(parsed("en-raw-batch2/2003-10-01.txt").glossary, parsed("en-raw/2006-02-01.txt").glossary)
    assert pairs["Global Enchantment"] == "Global Enchantment (obsolete)"
    assert pairs["Local Enchantment"] == "Local Enchantment (obsolete)"
    assert "Aura" not in pairs.values() and "Attach" not in pairs.values()


def test_an_entry_split_in_two_continues_neither_2003() -> None:
    # 2003-03's "Source" defined "the source of an ability or of damage"; 2003-10 defines "Source
    # of an Ability" and "Source of Damage". "Basic Land" (the five types, and what a basic land
    # is) became "Basic Land Type" and the supertype "Basic". Joined to the likelier half, a page
    # said "Source" was the source of damage's earlier name alone (a review).
    old, new = parsed("en-raw/2003-03-15.txt").glossary, parsed("en-raw-batch2/2003-10-01.txt").glossary
    pairs = pair_glossary(old, new)
    assert "Source" not in pairs and "Basic Land" not in pairs
    news = {entry.term: entry.text for entry in new if entry.term not in pairs.values()}
    assert split_parts("Source", news) == ["Source of an Ability", "Source of Damage"]
    assert split_parts("Basic Land", news) == ["Basic", "Basic Land Type"]
    # A term grown by a word where one new entry is named so keeps its entry.
    assert pairs["Upkeep"] == "Upkeep Step"
