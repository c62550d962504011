"""Scryfall parsers on real recorded API responses (tests/fixtures/scryfall, see its README)."""
from __future__ import annotations

import gzip
import io
import json
import os
import re
from collections import Counter
from itertools import islice
from pathlib import Path

import pytest

from kb.parse.rulings import scryfall
from kb.records import FACE_TEXT_SEPARATOR, CardFace, CardName, ParseError, RulingRecord

FIXTURES = Path(__file__).parent.parent / "fixtures" / "scryfall"
API = FIXTURES / "api-2025-11-01"
MISC = FIXTURES / "misc"
BULK = FIXTURES / "bulk"

JACE_ORACLE = "594f6881-c059-46f8-aa4e-7151d502de73"
ALRUND_ORACLE = "0a69c3dd-52a3-4ef6-b53f-b0780e0dc5f8"
PHELDDAGRIF_ORACLE = "d0e99535-0ea0-4aa5-99f5-6c5255b27c38"


def read(path: Path) -> bytes:
    return path.read_bytes()


def detected(data: bytes) -> list[str]:
    return [name for name, _description, sniff, _parse in scryfall.FORMATS if sniff(data, "")]


def test_jace_rulings_sources_and_first_row() -> None:
    document = scryfall.parse(read(API / "rulings-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json"), "jace")
    assert document.format == "scryfall-rulings"
    assert Counter(r.source for r in document.rulings) == {"wotc": 15, "scryfall": 1}
    assert {r.oracle_id for r in document.rulings} == {JACE_ORACLE}
    assert document.rulings[0] == RulingRecord(
        text="Jace, Vryn's Prodigy is banned as a commander in Duel Commander format, but it may be part of your deck.",
        raw_date="2017-07-17",
        published_at="2017-07-17",
        position=0,
        source="scryfall",
        oracle_id=JACE_ORACLE,
        lang="en",
    )
    assert [r.position for r in document.rulings] == list(range(16))
    assert document.issues == []


def test_two_alrund_card_ids_share_one_set_of_rulings() -> None:
    first = scryfall.parse(read(API / "rulings-5d131784-alrund-god-of-the-cosmos-hakka-whisperin.json"), "a")
    second = scryfall.parse(read(API / "rulings-b751cf69-alrund-god-of-the-cosmos-hakka-whisperin.json"), "b")
    assert first.rulings == second.rulings
    assert len(first.rulings) == 13
    assert {r.oracle_id for r in first.rulings} == {ALRUND_ORACLE}
    assert Counter(r.source for r in first.rulings) == {"wotc": 12, "scryfall": 1}


def test_empty_alchemy_rulings_list_has_zero_rulings() -> None:
    data = read(API / "rulings-b443504e-a-alrund-god-of-the-cosmos-a-hakka-whisp.json")
    assert detected(data) == ["scryfall-rulings"]
    document = scryfall.parse(data, "a-alrund")
    assert document.rulings == [] and document.cards == [] and document.issues == []


def test_deathrite_rulings_keep_curly_apostrophe() -> None:
    document = scryfall.parse(read(MISC / "rulings-deathrite-shaman.json"), "deathrite")
    assert [r.published_at for r in document.rulings] == ["2016-06-08", "2016-06-08"]
    assert document.rulings[1].text.startswith("If the target of any of Deathrite Shaman’s three abilities")


def test_a_rulings_list_that_says_it_has_more_is_said_to_be_incomplete() -> None:
    """Scryfall has never paginated a card's rulings; a list saying it has more was read as whole
    (a damaged-input review), and the rest would have been published as removed upstream."""
    import json

    listed = json.loads(read(MISC / "rulings-deathrite-shaman.json"))
    assert not scryfall.parse(json.dumps(listed).encode(), "deathrite").issues
    listed.update(has_more=True, next_page="https://api.scryfall.com/cards/x/rulings?page=2")
    document = scryfall.parse(json.dumps(listed).encode(), "deathrite")
    assert len(document.rulings) == 2
    assert [(issue.kind, issue.detail) for issue in document.issues] == [(
        "layout-changed",
        "deathrite: the rulings list says it has more (has_more, next page"
        " 'https://api.scryfall.com/cards/x/rulings?page=2'), and a card's rulings have always come in one list:"
        " only its 2 rulings were read",
    )]


@pytest.mark.parametrize(("field", "value", "shown"), [
    ("comment", ["a", "b"], "a list (['a', 'b'])"), ("comment", 3, "an int (3)"), ("source", {"x": 1}, "a dict ({'x': 1})"),
])
def test_a_ruling_field_that_is_not_text_is_named(field: str, value: object, shown: str) -> None:
    """A list or a number as a ruling's comment failed in Python's words ("'list' object has no
    attribute 'isascii'", a damaged-input review): the file, the ruling and the field are named."""
    import json

    listed = json.loads(read(MISC / "rulings-deathrite-shaman.json"))
    listed["data"][1][field] = value
    with pytest.raises(ParseError, match=re.escape(
            f"deathrite: ruling 2: {field} is {shown}, not text: not the layout of Scryfall's ruling object")):
        scryfall.parse(json.dumps(listed).encode(), "deathrite")


def test_each_real_file_is_claimed_by_exactly_its_format() -> None:
    for path in sorted(API.glob("*.json")):
        expected = "scryfall-rulings" if path.name.startswith("rulings-") else "scryfall-cards"
        assert detected(read(path)) == [expected], path.name
    for listing in ("bulk-data-2023-04-04.json", "symbology-page1.json", "symbology-page2.json"):
        assert detected(read(MISC / listing)) == []
    assert detected(read(BULK / "rulings-sample.json")) == ["scryfall-bulk-rulings"]
    assert detected(read(BULK / "rulings-sample.jsonl.gz")) == ["scryfall-bulk-rulings"]
    assert detected(read(BULK / "all-cards-sample.jsonl.gz")) == ["scryfall-bulk-cards"]


def test_phelddagrif_search_gives_names_per_language() -> None:
    document = scryfall.parse(read(API / "search-langany-d0e99535-phelddagrif.json"), "phelddagrif")
    assert len(document.cards) == 7
    assert [(c.lang, c.set_code, c.collector_number) for c in document.cards] == [
        ("en", "me1", "150"),
        ("en", "all", "115"),
        ("de", "all", "115"),
        ("es", "all", "115"),
        ("fr", "all", "115"),
        ("it", "all", "115"),
        ("pt", "all", "115"),
    ]
    assert document.card_names == [
        CardName(lang=lang, name="Phelddagrif", oracle_id=PHELDDAGRIF_ORACLE, english_name="Phelddagrif")
        for lang in ("en", "de", "es", "fr", "it", "pt")
    ]


def test_jace_search_takes_printed_names_from_card_faces() -> None:
    document = scryfall.parse(read(API / "search-langany-594f6881-jace-vryn-s-prodigy-jace-telepath-unboun.json"), "jace")
    assert len(document.cards) == 16
    assert Counter(c.lang for c in document.cards)["en"] == 6
    assert len(document.card_names) == 33  # 11 languages x (whole name + 2 faces)
    german = [n for n in document.card_names if n.lang == "de"]
    assert german == [
        CardName("de", "Jace, Wunderkind von Vryn // Jace, der entfesselte Telepath", JACE_ORACLE,
                 "Jace, Vryn's Prodigy // Jace, Telepath Unbound"),
        CardName("de", "Jace, Wunderkind von Vryn", JACE_ORACLE, "Jace, Vryn's Prodigy"),
        CardName("de", "Jace, der entfesselte Telepath", JACE_ORACLE, "Jace, Telepath Unbound"),
    ]
    japanese = {n.name for n in document.card_names if n.lang == "ja"}
    assert "ヴリンの神童、ジェイス" in japanese and "束縛なきテレパス、ジェイス" in japanese
    card = next(c for c in document.cards if c.lang == "de")
    assert card.printed_name == "Jace, Wunderkind von Vryn // Jace, der entfesselte Telepath"
    assert card.printed_type_line == "Legendäre Kreatur — Mensch, Zauberer // Planeswalker — Jace"
    assert card.printed_text.startswith("{T}: Ziehe eine Karte und wirf dann eine Karte ab.")
    assert card.faces == ["Jace, Vryn's Prodigy", "Jace, Telepath Unbound"]
    assert (card.multiverse_id, card.scryfall_id, card.layout) == (399265, "5888e59e-2b81-4b24-9497-9944c5fa1a88", "transform")


def test_single_card_objects() -> None:
    jace = scryfall.parse(read(API / "card-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json"), "jace").cards[0]
    assert (jace.name, jace.oracle_id, jace.lang, jace.mana_cost) == (
        "Jace, Vryn's Prodigy // Jace, Telepath Unbound", JACE_ORACLE, "en", "{1}{U}"
    )
    okaun = scryfall.parse(read(API / "card-94eea6e3-okaun-eye-of-chaos-okaun-eye-of-chaos.json"), "okaun")
    # Reversible cards carry oracle_id only on their faces. This one prints one card on both
    # sides ("Okaun, Eye of Chaos // Okaun, Eye of Chaos"): it is read as a printing of that card,
    # its name, cost, type line and text once (joined, cards.name was the doubled name).
    card = okaun.cards[0]
    assert card.oracle_id == "7dec219b-96d1-4d4c-b3ac-15eda9d2ccc6"
    assert (card.name, card.mana_cost, card.type_line, card.faces, card.card_faces, card.layout) == (
        "Okaun, Eye of Chaos", "{4}{R}", "Legendary Creature — Cyclops Berserker", [], [], "reversible_card",
    )
    # Its numbers are on its faces only (3/3 on each): the card's, once.
    assert (card.power, card.toughness, card.loyalty, card.defense) == ("3", "3", None, None)
    assert card.oracle_text is not None and card.oracle_text.startswith("Partner with Zndrsplt, Eye of Wisdom")
    assert FACE_TEXT_SEPARATOR not in card.oracle_text
    assert [n.name for n in okaun.card_names] == ["Okaun, Eye of Chaos"]


def test_each_face_keeps_its_own_cost_type_line_and_text() -> None:
    # The joined fields cannot say whose cost "{1}{U}" is (the back face has none): each face is
    # kept whole as Scryfall's card_faces give it.
    jace = scryfall.parse(read(API / "card-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json"), "jace").cards[0]
    front, back = jace.card_faces
    assert front == CardFace(
        name="Jace, Vryn's Prodigy", mana_cost="{1}{U}", type_line="Legendary Creature — Human Wizard",
        oracle_text="{T}: Draw a card, then discard a card. If there are five or more cards in your graveyard,"
        " exile Jace, then return him to the battlefield transformed under his owner's control.",
        power="0", toughness="2",
    )
    assert (back.name, back.mana_cost, back.type_line) == ("Jace, Telepath Unbound", None, "Legendary Planeswalker — Jace")
    assert (back.power, back.toughness, back.loyalty) == (None, None, "5")
    # The card's own are none: a transforming card's numbers are its faces'.
    assert (jace.power, jace.toughness, jace.loyalty) == (None, None, None)
    assert back.oracle_text.splitlines() == [
        "+1: Up to one target creature gets -2/-0 until your next turn.",
        "−3: You may cast target instant or sorcery card from your graveyard this turn. If that spell would be put"
        " into your graveyard, exile it instead.",
        "−9: You get an emblem with \"Whenever you cast a spell, target opponent mills five cards.\"",
    ]
    alrund = scryfall.parse(read(API / "card-5d131784-alrund-god-of-the-cosmos-hakka-whisperin.json"), "alrund").cards[0]
    assert [(face.name, face.mana_cost) for face in alrund.card_faces] == [
        ("Alrund, God of the Cosmos", "{3}{U}{U}"), ("Hakka, Whispering Raven", "{1}{U}"),
    ]
    phelddagrif = scryfall.parse(read(API / "card-d9631cb2-phelddagrif.json"), "phelddagrif").cards[0]
    assert phelddagrif.card_faces == []
    assert (phelddagrif.power, phelddagrif.toughness) == ("4", "4")


def test_2019_multilanguage_page_names() -> None:
    document = scryfall.parse(read(MISC / "cards-page3-multilang-2019.json"), "page3")
    assert len(document.cards) == 175
    assert Counter(n.lang for n in document.card_names) == {"en": 31, "it": 29, "ja": 29, "de": 29, "es": 29, "fr": 28}
    signet = next(c for c in document.cards if c.lang == "ja" and c.name == "Simic Signet")
    assert (signet.printed_name, signet.printed_text) == ("シミックの印鑑", "{1}, {T}：{G}{U}を加える。")
    assert document.extra["next_page"] == "https://api.scryfall.com/cards?page=4"


def test_bulk_listing_2023_legacy_download_uri() -> None:
    listing = scryfall.parse_bulk_listing(read(MISC / "bulk-data-2023-04-04.json"), "bulk-data")
    assert [entry["type"] for entry in listing] == ["oracle_cards", "unique_artwork", "default_cards", "all_cards", "rulings"]
    assert listing[4] == {
        "type": "rulings",
        "id": "06f54c0b-ab9c-452d-b35a-8297db5eb940",
        "name": "Rulings",
        "updated_at": "2023-04-04T21:00:31.996000Z",
        "download_uri": "https://data.scryfall.io/rulings/rulings-20230404210031.json",
        "file_format": "json",
        "size": None,
        "compressed_size": None,
        "content_encoding": "gzip",
    }


def test_bulk_listing_current_shape_prefers_jsonl() -> None:
    listing = scryfall.parse_bulk_listing(read(BULK / "bulk-data-current-shape.json"), "bulk-data")
    assert [(e["type"], e["download_uri"], e["file_format"], e["compressed_size"], e["size"]) for e in listing] == [
        ("oracle_cards", "https://data.scryfall.io/oracle-cards/oracle-cards-20260908090157.jsonl.gz", "jsonl", 24535940, None),
        ("rulings", "https://data.scryfall.io/rulings/rulings-20260728210037.jsonl.gz", "jsonl", 5300458, None),
    ]


def test_symbology_pages() -> None:
    first = scryfall.parse_symbology(read(MISC / "symbology-page1.json"))
    second = scryfall.parse_symbology(read(MISC / "symbology-page2.json"))
    assert (len(first), len(second)) == (10, 10)
    tap = first[0]
    assert (tap["symbol"], tap["gatherer_alternates"]) == ("{T}", ["ocT", "oT"])
    assert next(s for s in first if s["symbol"] == "{X}")["gatherer_alternates"] == ["oX", "ooX"]


def test_bulk_rulings_gzipped_jsonl_and_json_array_give_the_same_records() -> None:
    with (BULK / "rulings-sample.jsonl.gz").open("rb") as stream:
        from_jsonl = list(scryfall.iter_bulk_rulings(stream, "rulings.jsonl.gz"))
    with (BULK / "rulings-sample.json").open("rb") as stream:
        from_array = list(scryfall.iter_bulk_rulings(stream, "rulings.json"))
    assert from_jsonl == from_array
    assert len(from_jsonl) == 54
    assert Counter(r.source for r in from_jsonl) == {"wotc": 52, "scryfall": 2}
    assert len({r.oracle_id for r in from_jsonl}) == 5
    # parse() on a whole bulk file collects the same iterator
    assert scryfall.parse(read(BULK / "rulings-sample.jsonl.gz"), "bulk").rulings == from_jsonl


def test_bulk_rulings_plain_jsonl_and_gzipped_array() -> None:
    plain_jsonl = gzip.decompress(read(BULK / "rulings-sample.jsonl.gz"))
    gzipped_array = gzip.compress(read(BULK / "rulings-sample.json"))
    assert len(list(scryfall.iter_bulk_rulings(io.BytesIO(plain_jsonl)))) == 54
    assert len(list(scryfall.iter_bulk_rulings(io.BytesIO(gzipped_array)))) == 54


def test_bulk_all_cards_stream() -> None:
    with (BULK / "all-cards-sample.jsonl.gz").open("rb") as stream:
        cards = list(scryfall.iter_bulk_cards(stream, "all-cards"))
    assert len(cards) == 23
    assert Counter(c.oracle_id for c in cards) == {JACE_ORACLE: 16, PHELDDAGRIF_ORACLE: 7}
    with (BULK / "all-cards-sample.jsonl.gz").open("rb") as stream:
        names = {n.name for _card, card_names in scryfall.iter_bulk_card_names(stream) for n in card_names}
    assert "Jace, prodigio de Vryn" in names


def test_truncated_json_raises_parse_error() -> None:
    data = read(API / "rulings-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json")
    with pytest.raises(ParseError, match=r"^jace-rulings\.json: malformed or truncated JSON at line 1"):
        scryfall.parse_rulings(data[:1000], "jace-rulings.json")
    with pytest.raises(ParseError, match="^card.json: "):
        scryfall.parse_cards(b'{"object":"card","name":', "card.json")


def test_truncated_bulk_array_names_record_and_offset() -> None:
    data = read(BULK / "rulings-sample.json")
    with pytest.raises(ParseError, match=r"^bulk\.json: malformed or truncated JSON array after record \d+ \(near byte offset \d+\)"):
        list(scryfall.iter_bulk_rulings(io.BytesIO(data[: len(data) // 2]), "bulk.json"))


def test_truncated_gzip_jsonl_raises_parse_error() -> None:
    data = read(BULK / "rulings-sample.jsonl.gz")
    with pytest.raises(ParseError, match=r"^bulk\.jsonl\.gz: "):
        list(scryfall.iter_bulk_rulings(io.BytesIO(data[: len(data) // 2]), "bulk.jsonl.gz"))


def test_damaged_gzip_data_is_placed_in_the_file() -> None:
    """Damage at the end of a small file was said to be "after 0 bytes" (a damaged-input review)."""
    from kb.parse.bounds import bounded_json_stream

    data = gzip.compress(read(MISC / "rulings-deathrite-shaman.json"))
    damaged = data[:-8] + bytes(byte ^ 0xFF for byte in data[-8:])  # the CRC and length flipped
    with pytest.raises(ParseError, match=rf"^rulings\.json\.gz: damaged gzip data by byte {len(data):,} of the file"
                                         r" \(0 bytes of content read before\): CRC check failed"):
        bounded_json_stream(io.BytesIO(damaged), "rulings.json.gz").read()


def test_broken_jsonl_line_names_record_number() -> None:
    lines = gzip.decompress(read(BULK / "rulings-sample.jsonl.gz")).splitlines(keepends=True)
    broken = b"".join(lines[:3]) + lines[3][:40] + b"\n" + b"".join(lines[4:])
    with pytest.raises(ParseError, match=r"^x\.jsonl: record 4 \(line 4, near byte offset \d+\) is not valid JSON"):
        list(scryfall.iter_bulk_rulings(io.BytesIO(broken), "x.jsonl"))


def test_cards_bulk_is_not_a_rulings_bulk() -> None:
    with pytest.raises(ParseError, match=r"record 1 is a 'card', not a 'ruling'"):
        list(scryfall.iter_bulk_rulings(io.BytesIO(gzip.decompress(read(BULK / "all-cards-sample.jsonl.gz"))), "cards"))


def test_list_of_the_wrong_objects_is_rejected() -> None:
    with pytest.raises(ParseError, match=r"^symbols: item 1 of the List is a 'card_symbol', not a 'ruling'"):
        scryfall.parse_rulings(read(MISC / "symbology-page1.json"), "symbols")
    not_scryfall = json.dumps({"meta": {}, "data": {}}).encode()
    with pytest.raises(ParseError):
        scryfall.parse(not_scryfall, "other.json")


class CountingStream(io.BytesIO):
    """Counts the bytes a parser reads, to prove it streams."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk

    def readinto(self, buffer) -> int:  # type: ignore[override]
        count = super().readinto(buffer)
        self.bytes_read += count
        return count


@pytest.mark.parametrize("packaging", ["jsonl", "jsonl.gz", "array", "array.gz"])
def test_bulk_iterators_stream_instead_of_loading(packaging: str) -> None:
    # 21,600 real rulings, repeated; a random tag keeps gzip from shrinking them below one buffer
    records = [dict(r, comment=f"{r['comment']} {os.urandom(16).hex()}") for r in json.loads(read(BULK / "rulings-sample.json")) * 400]
    if packaging.startswith("jsonl"):
        data = "".join(json.dumps(r) + "\n" for r in records).encode()
    else:
        data = json.dumps(records).encode()
    if packaging.endswith(".gz"):
        data = gzip.compress(data)
    stream = CountingStream(data)
    first_three = list(islice(scryfall.iter_bulk_rulings(stream, packaging), 3))
    assert [r.position for r in first_three] == [0, 1, 2]
    assert stream.bytes_read < len(data) / 4


# Constructed lines where orjson and json.loads part ways (orjson refuses or reads otherwise).
EDGE_LINES = [
    b'{"a": NaN}', b'{"a": Infinity}', b'{"a": 1e400}', b'{"a": 100000000000000000000}',
    b'{"a": [18446744073709551616, {"b": -9223372036854775809}]}', b'{"a": 12345678901234567890123}',
    b'{"a": "\\ud800"}', b'{"a": "\xed\xa0\x80"}', '{"a": "b"}'.encode("utf-16"), b'\xef\xbb\xbf{"a": 1}',
    b'{"a": 1e19, "b": 9223372036854775807, "c": -0.0, "d": 0.1}', b'{"a": 1, "a": 2}',
]


def test_json_lines_records_read_as_json_loads_reads_them() -> None:
    from kb.parse.rulings.bulk_stream import _loads

    lines = [line for name in ("rulings-sample.jsonl.gz", "all-cards-sample.jsonl.gz")
             for line in gzip.decompress((BULK / name).read_bytes()).splitlines()] + EDGE_LINES
    assert len(lines) == 89
    for line in lines:
        assert repr(_loads(line)) == repr(json.loads(line))
    for broken in (b'{"a": 1,}', b'{"a": "\xff"}', b'{"a": "x\ty"}', b'{"a": 1} x'):
        with pytest.raises(ValueError) as expected:
            json.loads(broken)
        with pytest.raises(ValueError) as got:
            _loads(broken)
        assert str(got.value) == str(expected.value)


def test_a_renamed_field_of_the_documented_objects_is_refused() -> None:
    """Scryfall documents a ruling's "comment" and "published_at", and a card's "lang", as always
    present. Renamed, the text was read as empty (every ruling dropped) and every printing as
    English: now the layout change is named."""
    jace = read(API / "rulings-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json")
    with pytest.raises(ParseError, match=r"^jace\.json: ruling 1 has no 'comment': not the layout of Scryfall's ruling object$"):
        scryfall.parse_rulings(jace.replace(b'"comment"', b'"text"'), "jace.json")
    bulk = gzip.decompress(read(BULK / "rulings-sample.jsonl.gz"))
    with pytest.raises(ParseError, match=r"^bulk\.jsonl: record 1 has no 'published_at': not the layout of Scryfall's ruling object$"):
        list(scryfall.iter_bulk_rulings(io.BytesIO(bulk.replace(b'"published_at"', b'"date"')), "bulk.jsonl"))
    # Without its oracle_id a ruling is still read: the checks keep it, flagged (ruling-without-card).
    assert scryfall.parse_rulings(jace.replace(b'"oracle_id"', b'"card"'), "jace.json").rulings[0].oracle_id is None
    card = read(API / "card-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json")
    with pytest.raises(ParseError, match=r"^card\.json: a card object lacks 'lang'$"):
        scryfall.parse_cards(card.replace(b'"lang"', b'"language"'), "card.json")
