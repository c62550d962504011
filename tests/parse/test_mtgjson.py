"""MTGJSON v5 on the real UGIN set file (tests/fixtures/mtgjson, see its README)."""
from __future__ import annotations

import gzip
import io
import json
from collections import Counter
from pathlib import Path

import ijson
import pytest

from kb.parse.rulings import gatherer_old, mtgjson, mtgjson_objects, scryfall
from kb.records import ParseError, RulingRecord

UGIN = Path(__file__).parent.parent / "fixtures" / "mtgjson" / "UGIN-v5.2-2022-04-25.json"
UGIN_ORACLE = "eecb3047-a563-441a-9175-200421981ac3"


@pytest.fixture(scope="module")
def data() -> bytes:
    return UGIN.read_bytes()


def test_sniff(data: bytes) -> None:
    assert mtgjson.sniff(data)
    assert not scryfall.sniff(data) and not gatherer_old.sniff(data)
    assert not any(sniff(data, "") for _n, _d, sniff, _p in scryfall.FORMATS)


def test_set_file_counts(data: bytes) -> None:
    document = mtgjson.parse(data, "UGIN.json")
    assert document.extra["cards"] == 26
    assert len(document.cards) == 286  # 26 English printings + 26 x 10 foreignData printings
    assert Counter(c.lang for c in document.cards) == {
        lang: 26 for lang in ("en", "de", "es", "fr", "it", "ja", "ko", "pt", "ru", "zhs", "zht")
    }
    assert len(document.card_names) == 286
    assert len(document.rulings) == 204
    assert len({r.oracle_id for r in document.rulings}) == 24
    assert {r.source for r in document.rulings} == {None}
    assert Counter(r.published_at for r in document.rulings).most_common(2) == [("2014-11-24", 129), ("2014-09-20", 63)]
    assert document.issues == []


def test_ugin_rows(data: bytes) -> None:
    document = mtgjson.parse(data, "UGIN.json")
    assert document.rulings[0] == RulingRecord(
        text="If you choose to put permanent cards with morph onto the battlefield with the third ability, "
        "you must put them onto the battlefield face up.",
        raw_date="2014-11-24",
        published_at="2014-11-24",
        position=0,
        source=None,
        oracle_id=UGIN_ORACLE,
        card_name="Ugin, the Spirit Dragon",
        card_name_lang="en",
        lang="en",
    )
    ugin_names = [n for n in document.card_names if n.oracle_id == UGIN_ORACLE]
    assert [(n.lang, n.name) for n in ugin_names] == [
        ("en", "Ugin, the Spirit Dragon"),
        ("de", "Ugin der Geisterdrache"),
        ("es", "Ugin, el dragón espíritu"),
        ("fr", "Ugin, le dragon-esprit"),
        ("it", "Ugin, lo Spirito Drago"),
        ("ja", "精霊龍、ウギン"),
        ("ko", "신령 용 우진"),
        ("pt", "Ugin, o Dragão Espírito"),
        ("ru", "Уджин, Дух Дракона"),
        ("zhs", "灵龙乌金"),
        ("zht", "靈龍烏金"),
    ]
    assert all(n.english_name == "Ugin, the Spirit Dragon" for n in ugin_names)
    english = {card.name: card for card in document.cards if card.lang == "en"}
    assert [(english[name].power, english[name].toughness, english[name].loyalty) for name in (
        "Ugin, the Spirit Dragon", "Jeskai Infiltrator", "Ainok Tracker",
    )] == [(None, None, "7"), ("2", "3", None), ("3", "3", None)]
    spanish = next(c for c in document.cards if c.lang == "es" and c.oracle_id == UGIN_ORACLE)
    assert (spanish.printed_name, spanish.multiverse_id, spanish.set_code, spanish.collector_number) == (
        "Ugin, el dragón espíritu", 394346, "UGIN", "1"
    )


def test_iter_cards_streams_one_entry_per_card(data: bytes) -> None:
    entries = list(mtgjson.iter_cards(io.BytesIO(data), "UGIN.json"))
    assert len(entries) == 26
    assert sum(1 for e in entries if e.rulings) == 24
    assert [len(e.rulings) for e in entries][:6] == [5, 13, 0, 13, 9, 25]
    assert entries[0].cards[0].name == "Ugin, the Spirit Dragon"


def test_allprintings_shape_and_duplicate_rulings(data: bytes) -> None:
    document = json.loads(data)
    # AllPrintings keys sets by code; the same set twice repeats every ruling, kept once.
    all_printings = json.dumps({"meta": document["meta"], "data": {"UGIN": document["data"], "UGI2": document["data"]}})
    assert mtgjson.sniff(all_printings.encode())
    parsed = mtgjson.parse(all_printings.encode(), "AllPrintings.json")
    assert parsed.extra["cards"] == 52
    assert len(parsed.rulings) == 204 and len(parsed.card_names) == 286


def test_foreign_language_names_map_to_scryfall_codes() -> None:
    card = {
        "name": "Test Card",
        "identifiers": {"scryfallOracleId": "00000000-0000-4000-8000-000000000001"},
        "foreignData": [
            {"language": "Portuguese (Brazil)", "name": "Carta"},
            {"language": "Phyrexian", "name": "Φ"},
            {"language": "Klingon", "name": "?"},
        ],
    }
    entry = mtgjson.card_entry(card, "made-up card")
    assert [n.lang for n in entry.names] == ["en", "pt", "ph"]
    assert [i.kind for i in entry.issues] == ["unknown-language"]


def test_truncated_file_raises(data: bytes) -> None:
    with pytest.raises(ParseError, match="^UGIN.json: malformed or truncated JSON"):
        mtgjson.parse(data[:30000] + b"   ", "UGIN.json")
    with pytest.raises(ParseError, match="^x.json: no top-level"):
        mtgjson.parse(b'{"meta": {}}', "x.json")


def test_a_card_that_is_not_an_object_is_refused_and_a_list_that_is_null_is_said(data: bytes) -> None:
    """A null in a set file's cards was skipped: a card with its printings, names and rulings gone,
    exit 0 (a damaged-input review). "rulings": null dropped the card's rulings alike."""
    whole = json.loads(data)
    for damage, found in [(None, "null"), ([], "a list"), ("Soul Summons", "a string")]:
        damaged = json.loads(data)
        damaged["data"]["cards"][3] = damage
        with pytest.raises(ParseError, match=f"^UGIN.json: card 4 of the file is {found}, not a card object$"):
            mtgjson.parse(json.dumps(damaged).encode(), "UGIN.json")
    for key, value, shown in [("rulings", None, "null"), ("foreignData", {"language": "German", "name": "B"}, "dict"),
                              ("rulings", "none", "str")]:
        damaged = json.loads(data)
        card = damaged["data"]["cards"][3]
        card[key] = value
        parsed = mtgjson.parse(json.dumps(damaged).encode(), "UGIN.json")
        assert [(issue.kind, issue.detail) for issue in parsed.issues if issue.kind == "layout-changed"] == [(
            "layout-changed",
            f"UGIN.json: card 4: {card['name']!r} holds {shown} under {key!r}, where MTGJSON's card object has a list"
            f" (or leaves the key out): its {key} could not be read",
        )]
        assert len(whole["data"]["cards"]) == parsed.extra["cards"]
    for not_a_set_file in (b"[1, 2]", b"null", b'"data"'):
        with pytest.raises(ParseError, match="no top-level \"data\" object: not an MTGJSON file"):
            mtgjson.parse(not_a_set_file, "x.json")


def test_a_card_without_its_oracle_id_is_said_to_lack_it(data: bytes) -> None:
    damaged = json.loads(data)
    card = damaged["data"]["cards"][3]
    del card["identifiers"]["scryfallOracleId"]
    parsed = mtgjson.parse(json.dumps(damaged).encode(), "UGIN.json")
    assert [issue.detail for issue in parsed.issues if issue.kind == "card-without-oracle-id"] == [
        f"UGIN.json: card 4: {card['name']!r} has no identifiers.scryfallOracleId: its names, printings and rulings are"
        " kept and joined to a card by its name; its Oracle text and type line are kept with its printing only, not as the"
        " card's (no Oracle id to keep them under)"
    ]


def objects_by_object_builder(data: bytes) -> list[dict]:
    """Card objects as ijson's own ObjectBuilder makes them from the prefixed events (how
    ``iter_card_objects`` built them before it kept the path itself)."""
    from ijson.common import ObjectBuilder

    found, builder, depth = [], None, 0
    for prefix, event, value in ijson.parse(io.BytesIO(data), use_float=True):
        if builder is None:
            if event != "start_map" or not mtgjson_objects.CARD_PREFIX.match(prefix):
                continue
            builder, depth = ObjectBuilder(), 0
        builder.event(event, value)
        depth += event in ("start_map", "start_array")
        depth -= event in ("end_map", "end_array")
        if depth == 0:
            found.append(builder.value)
            builder = None
    return found


def test_a_sets_name_and_day_after_its_cards_are_read_for_its_printings(data: bytes) -> None:
    """MTGJSON writes a set's keys in alphabetical order: its name and release day come after its
    cards, so a stream has them only once the cards are read (``set_fields``). The real set file
    of Ugin's Fate, and AllPrintings with it twice under two codes (one a set's own code beside
    a token's and a booster's "name", which are no set's)."""
    fields: dict = {}
    assert len(list(mtgjson.iter_cards(io.BytesIO(data), "UGIN.json", fields))) == 26
    assert mtgjson.set_names(fields) == {"UGIN": ("Ugin's Fate", "2015-01-17")}
    document = json.loads(data)
    # A set file's other map with a "name" (CONSTRUCTED: a booster's, one level up) is no set.
    odd = json.dumps({"meta": document["meta"], "data": {**document["data"], "booster": {"name": "Default"}}}).encode()
    fields = {}
    list(mtgjson.iter_cards(io.BytesIO(odd), "UGIN.json", fields))
    assert mtgjson.set_names(fields) == {"UGIN": ("Ugin's Fate", "2015-01-17")}
    other = {**document["data"], "code": "UG2", "name": "Ugin's Fate Again", "releaseDate": "2016-01-01",
             "tokens": [{"name": "A token", "code": "T"}], "booster": {"default": {"name": "Default"}}}
    all_printings = json.dumps({"meta": document["meta"], "data": {"UGIN": document["data"], "UG2": other}}).encode()
    fields = {}
    list(mtgjson.iter_cards(io.BytesIO(all_printings), "AllPrintings.json", fields))
    assert mtgjson.set_names(fields) == {"UGIN": ("Ugin's Fate", "2015-01-17"), "UG2": ("Ugin's Fate Again", "2016-01-01")}
    # Read whole, the sets are the document's, saved as a stream saves them; its printings carry
    # no day of their own (the set's, given them, overwrote a day Scryfall gave: a review).
    parsed = mtgjson.parse(data, "UGIN.json")
    assert parsed.extra["sets"] == {"UGIN": ("Ugin's Fate", "2015-01-17")}
    assert {(card.set_code, card.released_at) for card in parsed.cards} == {("UGIN", None)}


def test_the_day_the_file_was_made_is_read_from_its_meta(data: bytes) -> None:
    """The real file opens with ``"meta": {"date": "2022-04-25", "version": "5.2.0+20220425"}``:
    the day of its Oracle wording, which the card pages called "no known date" (a review)."""
    assert mtgjson.parse(data, "UGIN.json").extra["made_on"] == "2022-04-25"
    meta: dict = {}
    assert len(list(mtgjson.iter_cards(io.BytesIO(data), "UGIN.json", None, meta))) == 26
    assert meta == {"date": "2022-04-25", "version": "5.2.0+20220425"}
    document = json.loads(data)
    # Where the file puts its meta is not promised (MTGJSON's AllPrintings writes it after the data).
    after = json.dumps({"data": document["data"], "meta": {**document["meta"], "date": "2022-04-26"}}).encode()
    assert mtgjson.parse(after, "UGIN.json").extra["made_on"] == "2022-04-26"
    for damaged in ({"version": "5.2.0"}, {"date": "2022-02-30"}, {"date": 20220425}):
        odd = json.dumps({"meta": damaged, "data": document["data"]}).encode()
        assert mtgjson.parse(odd, "UGIN.json").extra["made_on"] is None


def test_card_objects_are_what_ijsons_builder_makes(data: bytes) -> None:
    document = json.loads(data)
    odd_card = {"name": "Odd", "a.b": {"c": [[], [[1, 2.5, None]], {}], "d": [{"e": True}, "f"]}, "": [{}]}
    shapes = [
        data,
        # AllPrintings: sets by code, with tokens and other arrays of maps beside the cards.
        json.dumps({"meta": document["meta"], "data": {
            "UGIN": document["data"],
            "X.Y": {"cards": [odd_card]},  # a code with a dot: no card prefix, as before
            "TOK": {"tokens": [odd_card], "cards": [odd_card, {}], "booster": {"cards": [odd_card]}},
        }}).encode(),
        # "cards" where no card is: under meta, at the top, nested below a card's own "cards".
        json.dumps({"meta": {"cards": [odd_card]}, "cards": [odd_card],
                    "data": {"cards": [{"name": "Outer", "cards": [odd_card]}, odd_card]}}).encode(),
    ]
    for shape in shapes:
        expected = objects_by_object_builder(shape)
        assert expected
        assert list(mtgjson_objects.iter_card_objects(io.BytesIO(shape), "x.json")) == expected
        assert list(mtgjson_objects.iter_card_objects(io.BytesIO(gzip.compress(shape)), "x.json.gz")) == expected


JACE_FACES = Path(__file__).parent.parent / "fixtures" / "constructed" / "mtgjson-jace-faces.json"


def test_the_face_objects_of_one_printing_are_one_card() -> None:
    # MTGJSON gives each face of Jace, Vryn's Prodigy a card object of its own (a constructed
    # file of its documented shape, the texts real: see fixtures/constructed/README.md). Saved one
    # at a time, the back face's text and type line replaced the card's whole ones.
    document = mtgjson.parse(JACE_FACES.read_bytes(), "jace")
    assert document.extra["cards"] == 2
    english, german = (card for card in document.cards if card.name.startswith("Jace"))
    assert english.faces == ["Jace, Vryn's Prodigy", "Jace, Telepath Unbound"]
    assert (english.mana_cost, english.type_line) == ("{1}{U}", "Legendary Creature — Human Wizard // Legendary Planeswalker — Jace")
    front, back = english.oracle_text.split("\n//\n")
    assert front.startswith("{T}: Draw a card") and back.startswith("+1: Up to one target creature")
    assert [(face.name, face.mana_cost, face.type_line) for face in english.card_faces] == [
        ("Jace, Vryn's Prodigy", "{1}{U}", "Legendary Creature — Human Wizard"),
        ("Jace, Telepath Unbound", None, "Legendary Planeswalker — Jace"),
    ]
    assert german.printed_name == "Jace, Wunderkind von Vryn // Jace, der entfesselte Telepath"
    assert german.printed_type_line == "Legendäre Kreatur — Mensch, Zauberer // Planeswalker — Jace"
    assert german.printed_text.startswith("{T}: Ziehe eine Karte") and "\n//\n+1: Bis zu eine Kreatur" in german.printed_text
    assert [(name.lang, name.name) for name in document.card_names if "Jace" in name.name] == [
        ("en", "Jace, Vryn's Prodigy // Jace, Telepath Unbound"),
        ("de", "Jace, Wunderkind von Vryn // Jace, der entfesselte Telepath"),
        ("en", "Jace, Vryn's Prodigy"), ("de", "Jace, Wunderkind von Vryn"),
        ("en", "Jace, Telepath Unbound"), ("de", "Jace, der entfesselte Telepath"),
    ]
    # Both faces carry the card's rulings: kept once.
    assert len([r for r in document.rulings if r.card_name.startswith("Jace")]) == 2


def test_a_face_seen_alone_gives_no_text_of_the_card() -> None:
    # Its other face elsewhere or missing: its own text is not the card's, and would replace
    # the card's whole text where another source gave it.
    back = json.loads(JACE_FACES.read_text())["data"]["cards"][1]
    entry = mtgjson.faces_entry([back], "back")
    english, german = entry.cards
    assert english.faces == ["Jace, Vryn's Prodigy", "Jace, Telepath Unbound"]
    assert (english.oracle_text, english.type_line, english.mana_cost, english.card_faces) == (None, None, None, [])
    assert (german.printed_text, german.printed_type_line) == (None, None)
    assert ("de", "Jace, der entfesselte Telepath") in [(name.lang, name.name) for name in entry.names]


def test_a_loyalty_cost_in_oracle_text_is_spelt_as_scryfall_and_the_card_print_it(data: bytes) -> None:
    """MTGJSON's "text" brackets a loyalty cost ("[+2]: …"); its own "originalText", every foreign
    text of the card and Scryfall's oracle_text of planeswalkers give "+2: …"."""
    english = next(
        card for card in mtgjson.parse(data, "UGIN.json").cards if card.lang == "en" and card.oracle_id == UGIN_ORACLE
    )
    assert english.oracle_text is not None and english.printed_text is not None
    costs = ["+2", "−X", "−10"]
    assert [line.split(":")[0] for line in english.oracle_text.split("\n")] == costs
    assert [line.split(":")[0] for line in english.printed_text.split("\n")] == costs


def test_only_a_bracketed_cost_opening_a_line_is_unbracketed() -> None:
    from kb.normalise.symbols import unbracketed_loyalty_costs

    assert unbracketed_loyalty_costs("[+1]: Draw a card.\n[0]: Scry 1.\n[−X]: Exile it.\n[-3]: Gain 3 life.") == (
        "+1: Draw a card.\n0: Scry 1.\n−X: Exile it.\n-3: Gain 3 life."
    )
    assert unbracketed_loyalty_costs("Choose one [+2]: text in a line, and [X] alone") == (
        "Choose one [+2]: text in a line, and [X] alone"
    )
