"""The digest of what a build keeps of a bulk body (``kb.build.kept_content``), on real files.

A refresh skips the rebuild when every input's digest is the one the served database was built
from: the digest must change with anything the build saves, and with nothing else.
"""
from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kb.build.kept_content import LABEL, RECORDS_OF, canonical, kept_digest
from kb.build.load import STREAMING_SAVERS
from kb.parse.bounds import bounded_json_stream
from kb.records import CardName, ParseError, RulingRecord

SITE = Path(__file__).parent.parent / "fixtures" / "site"
# 229 real printings in 11 languages, with their prices, ranks and image states (see its README).
ALL_CARDS = SITE / "scryfall-data" / "constructed" / "all-cards-20230404212042.json"
RULINGS = SITE / "scryfall-data" / "constructed" / "rulings-20230404210031.json"
UGIN = SITE / "mtgjson" / "UGIN-v5.2-2022-04-25.json"


def written(tmp_path: Path, name: str, data: object, gzipped: bool = False, lines: bool = False) -> str:
    text = "\n".join(json.dumps(item) for item in data) + "\n" if lines else json.dumps(data)  # type: ignore[attr-defined]
    body = text.encode("utf-8")
    path = tmp_path / name
    path.write_bytes(gzip.compress(body, mtime=0) if gzipped else body)
    return str(path)


def test_every_streamed_format_has_its_digest() -> None:
    assert set(RECORDS_OF) == set(STREAMING_SAVERS)


def test_card_bulk_digest_ignores_prices_ranks_and_layout_of_the_file(tmp_path: Path) -> None:
    printings = json.loads(ALL_CARDS.read_bytes())
    original = kept_digest(str(ALL_CARDS), "scryfall-bulk-cards")
    assert original.startswith("kept:") and len(original) == len("kept:") + 64
    for printing in printings:
        printing["prices"] = {currency: "0.01" for currency in printing["prices"]}
        printing["edhrec_rank"] = 1
        printing["image_status"] = "lowres"
    # The same printings as gzipped JSON Lines (the form Scryfall publishes since 2026) too.
    assert kept_digest(written(tmp_path, "a.json", printings), "scryfall-bulk-cards") == original
    assert kept_digest(written(tmp_path, "b.jsonl.gz", printings, gzipped=True, lines=True), "scryfall-bulk-cards") == original


@pytest.mark.parametrize(
    ("field", "value"),
    [("printed_name", "Böse Stiefmutter (korrigiert)"), ("printed_text", "Fliegend"), ("type_line", "Creature"),
     ("collector_number", "999")],
)
def test_card_bulk_digest_changes_with_what_a_build_keeps(tmp_path: Path, field: str, value: str) -> None:
    printings = json.loads(ALL_CARDS.read_bytes())
    german = next(index for index, printing in enumerate(printings) if printing["lang"] == "de")
    printings[german][field] = value
    assert kept_digest(written(tmp_path, "c.json", printings), "scryfall-bulk-cards") != kept_digest(
        str(ALL_CARDS), "scryfall-bulk-cards")


def test_card_bulk_digest_changes_when_a_printing_goes(tmp_path: Path) -> None:
    printings = json.loads(ALL_CARDS.read_bytes())
    assert kept_digest(written(tmp_path, "d.json", printings[:-1]), "scryfall-bulk-cards") != kept_digest(
        str(ALL_CARDS), "scryfall-bulk-cards")


def test_rulings_bulk_digest_follows_the_rulings(tmp_path: Path) -> None:
    rulings = json.loads(RULINGS.read_bytes())
    original = kept_digest(str(RULINGS), "scryfall-bulk-rulings")
    assert kept_digest(written(tmp_path, "e.jsonl.gz", rulings, gzipped=True, lines=True), "scryfall-bulk-rulings") == original
    # A trailing space the parser strips is not a change; a word is.
    rulings[3]["comment"] += " "
    assert kept_digest(written(tmp_path, "f.json", rulings), "scryfall-bulk-rulings") == original
    rulings[3]["comment"] = rulings[3]["comment"].replace(" the ", " a ", 1)
    assert kept_digest(written(tmp_path, "g.json", rulings), "scryfall-bulk-rulings") != original


def test_all_printings_digest_ignores_the_build_date_not_a_foreign_name(tmp_path: Path) -> None:
    ugin = json.loads(UGIN.read_bytes())
    # A language the parser does not know: the card's quality issue says where it was read,
    # which differs for every body, and must not change the digest.
    ugin["data"]["cards"][1]["foreignData"].append({"language": "Klingon", "name": "Ugin"})
    wrapped = {"meta": ugin["meta"], "data": {ugin["data"]["code"]: ugin["data"]}}
    original = kept_digest(written(tmp_path, "AllPrintings.json.gz", wrapped, gzipped=True), "mtgjson")
    wrapped["meta"] = {"date": "2022-04-26", "version": "5.2.0+20220426"}
    assert kept_digest(written(tmp_path, "AllPrintings-next.json.gz", wrapped, gzipped=True), "mtgjson") == original
    wrapped["data"]["UGIN"]["cards"][0]["foreignData"][0]["name"] = "Ugin, der Geisterdrache"
    assert kept_digest(written(tmp_path, "AllPrintings-fixed.json.gz", wrapped, gzipped=True), "mtgjson") != original


def test_a_cut_off_body_is_refused_with_its_name(tmp_path: Path) -> None:
    cut = tmp_path / "all-cards-cut.json"
    cut.write_bytes(ALL_CARDS.read_bytes()[:5000])
    with pytest.raises(ParseError, match="all-cards-cut.json"):
        kept_digest(str(cut), "scryfall-bulk-cards")


def test_a_body_that_is_gone_is_refused_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="all-cards-gone.json: cannot read"):
        kept_digest(str(tmp_path / "all-cards-gone.json"), "scryfall-bulk-cards")


# Every streamed format on a real body: the records ``canonical`` is taken of.
REAL_BODIES = {"scryfall-bulk-cards": ALL_CARDS, "scryfall-bulk-rulings": RULINGS, "mtgjson": UGIN}


def real_records(fmt: str) -> list[Any]:
    with open(REAL_BODIES[fmt], "rb") as raw:
        stream = bounded_json_stream(raw, LABEL, lines_if_object=fmt.startswith("scryfall-bulk"))
        return list(RECORDS_OF[fmt](stream, LABEL))


def nested_records(value: Any) -> Iterator[Any]:
    """Every dataclass instance inside ``value`` (a record, a tuple or list of them), itself included."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield value
        for field in dataclasses.fields(value):
            yield from nested_records(getattr(value, field.name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from nested_records(item)


@pytest.mark.parametrize("fmt", sorted(REAL_BODIES))
def test_every_field_of_every_record_counts_in_its_canonical_form(fmt: str) -> None:
    """Changing any one field of any record read from a real body, nested ones included, changes
    the record's canonical form; so does a field set to None, and to an empty string."""
    records = real_records(fmt)
    assert records
    for record in records[:40]:
        before = canonical(record)
        assert before == canonical(record)
        for inner in nested_records(record):
            for field in dataclasses.fields(inner):
                kept = getattr(inner, field.name)
                for other in ("\u2014changed", None, "", 7):
                    if other == kept or (other == 7 and isinstance(kept, bool)):
                        continue
                    object.__setattr__(inner, field.name, other)
                    assert canonical(record) != before, (fmt, type(inner).__name__, field.name, other)
                object.__setattr__(inner, field.name, kept)
        assert canonical(record) == before


@pytest.mark.parametrize("fmt", sorted(REAL_BODIES))
def test_no_record_field_is_one_orjson_would_leave_out_or_blur(fmt: str) -> None:
    """orjson skips dataclass fields whose name starts with "_" and writes a float NaN as null:
    the canonical form relies on no record class having either kind of field."""
    classes = {type(inner) for record in real_records(fmt) for inner in nested_records(record)}
    assert classes
    for cls in classes:
        for field in dataclasses.fields(cls):
            assert not field.name.startswith("_"), (cls.__name__, field.name)
            assert "float" not in str(field.type), (cls.__name__, field.name)


def test_a_record_orjson_cannot_write_is_digested_by_its_repr() -> None:
    """A lone surrogate (json.loads lets one through from a ``\\ud800`` escape) or a number past 64
    bits: the repr stands in, distinct for distinct records."""
    lone = RulingRecord(text="broken \ud800 text", raw_date="2023-01-01", position=0)
    other = RulingRecord(text="broken \ud801 text", raw_date="2023-01-01", position=0)
    assert canonical(lone).startswith(b"<repr> RulingRecord(") and canonical(lone) != canonical(other)
    huge = RulingRecord(text="t", raw_date=None, position=0, multiverse_id=1 << 70)
    assert canonical(huge) == b"<repr> " + repr(huge).encode()
    assert canonical(CardName("de", "Ugin")) == b'CardName {"lang":"de","name":"Ugin","oracle_id":null,"english_name":null}'
