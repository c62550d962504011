"""A symbol reads as what its CR edition says it is: {P} was the planeswalker symbol (2009), then
the Phyrexian symbol (2013-2024), and is the pawprint now; {C} was the chaos symbol before it was
colorless mana. Sentences and editions below are the real CR files'."""
from __future__ import annotations

import re

from kb.site.markup import render_text
from kb.site.symbol_readings import defined_readings, symbol_readings

# tests/fixtures/cr/en-raw-batch2/2009-10-01.txt, 107.10 and 901.3a.
PLANAR_DIE_2009 = (
    "The planeswalker symbol is {P}. It appears on one face of the planar die used in the Planar Magic casual variant.",
    "A planar die is a six-sided die. One face has the planeswalker symbol {P}. One face has the chaos symbol {C}."
    " The other faces are blank.",
)
# 107.4g of the 2022-02-18 edition; 107.4 and 107.18 of 2026-04-17.
PHYREXIAN_2022 = ("In rules text, the Phyrexian symbol {P} with no colored background means any of the fifteen"
                  " Phyrexian mana symbols.")
HYBRID_FAMILY_2026 = "the hybrid Phyrexian symbols {W/U/P}, {W/B/P}, {U/B/P}, {U/R/P}, {B/R/P}"
PAWPRINT_2026 = "The pawprint symbol is {P}. This symbol is used to indicate the modes on some modal spells"


def labels(html: str) -> list[tuple[str, str]]:
    return re.findall(r'aria-label="([^"]*)"><i class="ms ms-cost ([^"]*)"', html)


def test_an_edition_defines_what_its_symbols_are() -> None:
    assert defined_readings(PLANAR_DIE_2009[0]) == {"P": "planeswalker"}
    assert defined_readings(PLANAR_DIE_2009[1]) == {"P": "planeswalker", "C": "chaos"}
    assert defined_readings(PHYREXIAN_2022) == {"P": "Phyrexian symbol"}
    # What today's notation reads the same way needs no word, and a family of hybrids names
    # no one symbol.
    assert defined_readings(PAWPRINT_2026) == {}
    assert defined_readings(HYBRID_FAMILY_2026) == {}


def test_a_text_reads_its_editions_symbols() -> None:
    assert labels(render_text(PHYREXIAN_2022, readings={"P": "Phyrexian symbol"})) == [("Phyrexian symbol", "ms-h")]
    assert labels(render_text(PHYREXIAN_2022)) == [("pawprint", "ms-paw")]
    assert labels(render_text(PLANAR_DIE_2009[1], readings=defined_readings(PLANAR_DIE_2009[1]))) == [
        ("planeswalker", "ms-planeswalker"), ("chaos", "ms-chaos")]
    assert labels(render_text("{C}")) == [("one colorless mana", "ms-c")]


def test_the_snapshots_editions_and_translations(snapshot_conn) -> None:
    readings = dict(symbol_readings(snapshot_conn))  # a copy: the function's result is shared
    # Before Phyrexian mana (2011), {P} was the planar die's planeswalker face.
    assert readings.pop("en-2009-10-01") == {"P": "planeswalker", "C": "chaos"}
    # The chaos symbol was {C} until Magic Origins' update (2015-07-17) wrote it {CHAOS}.
    chaos_as_c = {version for version, symbols in readings.items() if "C" in symbols}
    assert chaos_as_c == {"en-2013-05-01", "en-2014-09-25", "en-2015-01-23", "en-2015-03-27"}
    english = sorted(version for version in readings if version.startswith("en-"))
    assert (english[0], english[-1], len(english)) == ("en-2013-05-01", "en-2024-02-02", 24)
    assert all(readings[version]["P"] == "Phyrexian symbol" for version in english)
    # The Korean CR translates the 2021 English rules: its 107.4g is the Phyrexian symbol too.
    assert readings["ko-2021-02-15"] == {"P": "Phyrexian symbol"}
    assert len(readings) == 25


async def test_rule_and_glossary_pages_read_each_versions_symbols(snapshot_ds) -> None:
    old = (await snapshot_ds.client.get("/rule/107.4g?version=en-2022-02-18")).text
    assert labels(old)[0] == ("Phyrexian symbol", "ms-h")
    assert ("pawprint", "ms-paw") not in labels(old)
    data = (await snapshot_ds.client.get("/rule/107.4g.json?version=en-2022-02-18")).json()
    assert data["symbol_readings"]["en-2022-02-18"] == {"P": "Phyrexian symbol"}
    assert labels((await snapshot_ds.client.get("/rule/107.18")).text)[0] == ("pawprint", "ms-paw")
    # The planar die's chaos face, in the 2014 edition's own text and in the current page's history.
    assert ("chaos", "ms-chaos") in labels((await snapshot_ds.client.get("/rule/901.3a?version=en-2014-09-25")).text)
    current = labels((await snapshot_ds.client.get("/rule/901.3a")).text)
    assert ("chaos", "ms-chaos") in current and ("one colorless mana", "ms-c") not in current
    chaos_ability = labels((await snapshot_ds.client.get("/glossary/Chaos%20Ability")).text)
    assert chaos_ability and set(chaos_ability) == {("chaos", "ms-chaos")}


def test_the_rules_found_through_the_index_define_what_every_rule_defines(snapshot_conn, monkeypatch) -> None:
    """Only the rules the full-text index finds for ``DEFINING_RULES`` are read: every rule
    ``DEFINED`` can match is among them, so the readings are those of reading every rule."""
    from kb.site import symbol_readings as module

    through_the_index = module._read_symbol_readings(snapshot_conn)
    monkeypatch.setattr(module, "table_exists", lambda conn, name: False)
    assert through_the_index == module._read_symbol_readings(snapshot_conn)
    assert len(through_the_index) == 26  # the 25 above and the 2009 edition
