"""Scryfall: rulings lists, card objects and search pages, bulk files, the bulk listing, symbology.

Formats (each with its own ``sniff``/``parse`` in ``FORMATS``):

- ``scryfall-rulings``: ``/cards/{id}/rulings`` (a List of ``ruling`` objects, possibly empty).
- ``scryfall-cards``: ``/cards/{id}`` (one ``card``) or a ``/cards/search`` page (a List of cards).
- ``scryfall-bulk-rulings`` / ``scryfall-bulk-cards``: the bulk downloads, gzipped or not, as a
  JSON array (the legacy ``download_uri`` files) or JSON Lines (the current
  ``jsonl_download_uri`` files). The build streams them with ``iter_bulk_rulings`` and
  ``iter_bulk_cards``: all_cards is ~2.4 GB, never loaded whole.

``parse_bulk_listing`` (``/bulk-data``) and ``parse_symbology`` (``/symbology``) live in
``scryfall_listing``; reading a bulk file's objects as a stream in ``bulk_stream``.
"""
from __future__ import annotations

import io
import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from kb.normalise.dates import parse_date
from kb.normalise.symbols import normalise_symbols
from kb.normalise.text import clean_text
from kb.parse.bounds import GZIP_MAGIC
from kb.parse.rulings.bulk_stream import iter_bulk_objects
from kb.parse.rulings.fields import card_stats
from kb.parse.rulings.scryfall_listing import list_items as _list_items
from kb.parse.rulings.scryfall_listing import load_json as _load_json
from kb.parse.rulings.scryfall_listing import parse_bulk_listing as parse_bulk_listing
from kb.parse.rulings.scryfall_listing import parse_symbology as parse_symbology
from kb.parse.rulings.scryfall_shape import (
    as_one_sided,
    check_card_fields,
    check_ruling_fields,
    faces_of,
    oracle_id_of,
)
from kb.records import (
    FACE_SEPARATOR,
    FACE_TEXT_SEPARATOR,
    CardFace,
    CardName,
    CardRecord,
    ParseError,
    QualityIssue,
    RulingRecord,
    RulingsDocument,
)

FORMAT_NAME = "scryfall-rulings"
DESCRIPTION = "Scryfall /cards/{id}/rulings list (JSON)"

RULINGS_FORMAT = FORMAT_NAME
CARDS_FORMAT = "scryfall-cards"
BULK_RULINGS_FORMAT = "scryfall-bulk-rulings"
BULK_CARDS_FORMAT = "scryfall-bulk-cards"

SNIFF_BYTES = 64 * 1024
# Scryfall writes "object" as the first key of every object, so the first two occurrences in a
# document name the top-level object and (for a List) the kind of its first element.
OBJECT_KIND = re.compile(rb'"object"\s*:\s*"([a-z_]+)"')


# --------------------------------------------------------------------------------------------
# Content detection


def _decompressed_prefix(data: bytes) -> bytes:
    """The first bytes of ``data``, gunzipped when it is gzip (a prefix is enough to sniff)."""
    if not data.startswith(GZIP_MAGIC):
        return data[:SNIFF_BYTES]
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[:SNIFF_BYTES], SNIFF_BYTES)
    except zlib.error:
        return b""


def _object_kinds(prefix: bytes) -> list[str]:
    return [match.decode() for match in OBJECT_KIND.findall(prefix[:SNIFF_BYTES])][:2]


def _is_json_lines(prefix: bytes) -> bool:
    """True when the first line is a whole JSON object and another record follows it."""
    stripped = prefix.lstrip()
    if not stripped.startswith(b"{"):
        return False
    first, newline, rest = stripped.partition(b"\n")
    if not newline:
        return False
    try:
        json.loads(first)
    except ValueError:
        return False
    return rest.lstrip()[:1] == b"{"


def _bulk_kind(data: bytes) -> str | None:
    """'ruling' or 'card' when ``data`` is a bulk file (array or JSON Lines, maybe gzipped)."""
    prefix = _decompressed_prefix(data)
    stripped = prefix.lstrip()
    if stripped.startswith(b"["):
        kinds = _object_kinds(stripped)
    elif data.startswith(GZIP_MAGIC) or _is_json_lines(prefix):
        kinds = _object_kinds(stripped)
    else:
        return None
    return kinds[0] if kinds and kinds[0] in ("ruling", "card") else None


def _api_kinds(data: bytes) -> list[str]:
    """Object kinds of a single API response body ([] when ``data`` is a bulk file)."""
    if data.startswith(GZIP_MAGIC) or not data.lstrip().startswith(b"{") or _is_json_lines(data[:SNIFF_BYTES]):
        return []
    return _object_kinds(data[:SNIFF_BYTES])


def sniff_rulings(data: bytes, name: str = "") -> bool:
    """A ``/cards/{id}/rulings`` List: rulings, or empty (Scryfall answers an empty List)."""
    kinds = _api_kinds(data)
    if kinds == ["list", "ruling"]:
        return True
    return kinds == ["list"] and re.search(rb'"data"\s*:\s*\[\s*\]', data[:SNIFF_BYTES]) is not None


def sniff_cards(data: bytes, name: str = "") -> bool:
    """A ``/cards/{id}`` card or a ``/cards/search`` List of cards."""
    kinds = _api_kinds(data)
    return kinds[:1] == ["card"] or kinds == ["list", "card"]


def sniff_bulk_rulings(data: bytes, name: str = "") -> bool:
    return _bulk_kind(data) == "ruling"


def sniff_bulk_cards(data: bytes, name: str = "") -> bool:
    return _bulk_kind(data) == "card"


sniff = sniff_rulings


# --------------------------------------------------------------------------------------------
# Records


def ruling_from_object(obj: dict[str, Any], position: int) -> RulingRecord:
    """One Scryfall ``ruling`` object as a RulingRecord (text cleaned, date kept raw and ISO)."""
    raw_date = obj.get("published_at")
    return RulingRecord(
        text=normalise_symbols(clean_text(obj.get("comment") or "")),
        raw_date=raw_date,
        published_at=parse_date(raw_date, "en"),
        position=position,
        source=obj.get("source"),
        oracle_id=obj.get("oracle_id"),
        lang="en",
    )


def _joined(card: dict[str, Any], key: str, separator: str) -> str | None:
    """``card[key]``, or the faces' values joined (multi-face cards keep some fields per face)."""
    value = card.get(key)
    if value:
        return value
    parts: list[str] = [face[key] for face in faces_of(card) if face.get(key)]
    return separator.join(parts) if parts else None


def _text(value: str | None) -> str | None:
    return normalise_symbols(clean_text(value)) if value else None


def card_from_object(card: dict[str, Any]) -> CardRecord:
    """One Scryfall ``card`` object (one printing in one language) as a CardRecord."""
    card = as_one_sided(card)
    multiverse_ids = card.get("multiverse_ids") or []
    return CardRecord(
        name=card["name"],
        oracle_id=oracle_id_of(card),
        faces=[face["name"] for face in faces_of(card) if face.get("name")],
        lang=card["lang"],  # always present: a default would read every printing as English
        printed_name=_joined(card, "printed_name", FACE_SEPARATOR),
        printed_text=_text(_joined(card, "printed_text", FACE_TEXT_SEPARATOR)),
        printed_type_line=_joined(card, "printed_type_line", FACE_SEPARATOR),
        oracle_text=_text(_joined(card, "oracle_text", FACE_TEXT_SEPARATOR)),
        type_line=_joined(card, "type_line", FACE_SEPARATOR),
        mana_cost=_joined(card, "mana_cost", FACE_SEPARATOR) or None,
        scryfall_id=card.get("id"),
        multiverse_id=multiverse_ids[0] if multiverse_ids else None,
        set_code=card.get("set"),
        set_name=card.get("set_name") if isinstance(card.get("set_name"), str) else None,
        released_at=parse_date(card["released_at"]) if isinstance(card.get("released_at"), str) else None,
        collector_number=card.get("collector_number"),
        layout=card.get("layout"),
        card_faces=_card_faces(card),
        # A multi-faced card's are on its faces (card_faces), where Scryfall gives them.
        **card_stats(card),
        # Scryfall gives every single-faced card its oracle_text ("" for a card without rules
        # text), a multi-faced one on its faces: every real object we hold does.
        text_missing=card.get("oracle_text") is None and not faces_of(card),
    )


def _card_faces(card: dict[str, Any]) -> list[CardFace]:
    """Each Oracle face of a multi-faced card, with its own cost, type line and text."""
    faces = faces_of(card)
    if len(faces) < 2:
        return []
    return [
        CardFace(
            name=face["name"],
            mana_cost=face.get("mana_cost") or None,
            type_line=face.get("type_line") or None,
            oracle_text=_text(face.get("oracle_text")),
            **card_stats(face),
        )
        for face in faces
        if face.get("name")
    ]


def names_of_card(card: dict[str, Any]) -> list[CardName]:
    """The card's names in its printing's language: the whole name and, for multi-face
    cards, each face's name, each with its English counterpart.

    English printings give the Oracle name (an English ``printed_name`` is a reflavoured
    printing, not the card's name). Other languages give ``printed_name``, which multi-face
    cards keep only inside ``card_faces``.
    """
    card = as_one_sided(card)
    lang = card["lang"]
    oracle_id = oracle_id_of(card)
    faces = faces_of(card)
    pairs: list[tuple[str | None, str]] = []
    if lang == "en":
        pairs.append((card["name"], card["name"]))
        pairs.extend((face.get("name"), face.get("name", "")) for face in faces)
    else:
        pairs.append((_joined(card, "printed_name", FACE_SEPARATOR), card["name"]))
        pairs.extend((face.get("printed_name"), face.get("name", "")) for face in faces)
    names: list[CardName] = []
    for printed, english in pairs:
        if printed:
            name = clean_text(printed)
            names.append(CardName(lang=lang, name=name, oracle_id=oracle_id, english_name=english or None))
    return names


def _dedupe_names(names: Iterable[CardName]) -> list[CardName]:
    seen: set[tuple[str | None, str, str]] = set()
    unique: list[CardName] = []
    for name in names:
        key = (name.oracle_id, name.lang, name.name)
        if key not in seen:
            seen.add(key)
            unique.append(name)
    return unique


# --------------------------------------------------------------------------------------------
# Whole API documents


def parse_rulings(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """A ``/cards/{id}/rulings`` List → RulingsDocument (rulings keyed by ``oracle_id``)."""
    listed = _load_json(data, name)
    items = _list_items(listed, name, "ruling")
    for position, item in enumerate(items):
        check_ruling_fields(item, f"{name}: ruling {position + 1}")
    rulings = [ruling_from_object(item, position) for position, item in enumerate(items)]
    document = RulingsDocument(format=RULINGS_FORMAT, lang="en", rulings=rulings)
    if isinstance(listed, dict) and listed.get("has_more"):
        # Scryfall has never paginated a card's rulings: the rest would be read as removed upstream.
        document.issues.append(QualityIssue(
            "layout-changed",
            f"{name}: the rulings list says it has more (has_more, next page {listed.get('next_page')!r}), and a"
            f" card's rulings have always come in one list: only its {len(rulings)} rulings were read",
        ))
    return document




def parse_cards(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """A card object or a search List → one CardRecord per printing, names per language."""
    document = _load_json(data, name)
    if isinstance(document, dict) and document.get("object") == "card":
        items = [document]
    else:
        items = _list_items(document, name, "card")
    result = RulingsDocument(format=CARDS_FORMAT, lang=None)
    for number, item in enumerate(items, 1):
        check_card_fields(item, f"{name}: card {number}")
    try:
        result.cards = [card_from_object(item) for item in items]
        result.card_names = _dedupe_names(n for item in items for n in names_of_card(item))
    except KeyError as error:
        raise ParseError(f"{name}: a card object lacks {error.args[0]!r}") from None
    if isinstance(document, dict) and document.get("has_more"):
        result.extra["next_page"] = document.get("next_page")
    return result


def parse_bulk_rulings(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """A whole rulings bulk file in memory (the build streams ``iter_bulk_rulings`` instead)."""
    document = RulingsDocument(format=BULK_RULINGS_FORMAT, lang="en")
    document.rulings = list(iter_bulk_rulings(io.BytesIO(data), name=name))
    return document


def parse_bulk_cards(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """A whole cards bulk file in memory (the build streams ``iter_bulk_cards`` instead)."""
    document = RulingsDocument(format=BULK_CARDS_FORMAT, lang=None)
    names: list[CardName] = []
    for card, card_names in _iter_bulk_card_objects(io.BytesIO(data), name):
        document.cards.append(card)
        names.extend(card_names)
    document.card_names = _dedupe_names(names)
    return document


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """Any Scryfall document this module knows, chosen by content."""
    for _format, _description, sniffer, parser in FORMATS:
        if sniffer(data, name):
            return parser(data, name, lang)
    raise ParseError(f"{name}: not a Scryfall rulings list, card, search page or bulk file")


# --------------------------------------------------------------------------------------------
# Streams (objects: kb.parse.rulings.bulk_stream)


def _checked(objects: Iterator[dict[str, Any]], kind: str, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, obj in enumerate(objects, 1):
        if not isinstance(obj, dict) or obj.get("object") != kind:
            got = obj.get("object") if isinstance(obj, dict) else type(obj).__name__
            raise ParseError(f"{name}: record {number} is a {got!r}, not a {kind!r}")
        yield number, obj


def iter_bulk_rulings(stream: BinaryIO, name: str = "<stream>") -> Iterator[RulingRecord]:
    """Rulings of a Scryfall rulings bulk file, one at a time (position = record number - 1)."""
    for number, obj in _checked(iter_bulk_objects(stream, name), "ruling", name):
        check_ruling_fields(obj, f"{name}: record {number}")
        yield ruling_from_object(obj, number - 1)


def _iter_bulk_card_objects(stream: BinaryIO, name: str) -> Iterator[tuple[CardRecord, list[CardName]]]:
    for number, obj in _checked(iter_bulk_objects(stream, name), "card", name):
        check_card_fields(obj, f"{name}: card record {number}")
        try:
            yield card_from_object(obj), names_of_card(obj)
        except KeyError as error:
            raise ParseError(f"{name}: card record {number} lacks {error.args[0]!r}") from None


def iter_bulk_cards(stream: BinaryIO, name: str = "<stream>") -> Iterator[CardRecord]:
    """CardRecords of an oracle_cards / default_cards / all_cards bulk file, one at a time."""
    for card, _names in _iter_bulk_card_objects(stream, name):
        yield card


def iter_bulk_card_names(stream: BinaryIO, name: str = "<stream>") -> Iterator[tuple[CardRecord, list[CardName]]]:
    """Like ``iter_bulk_cards`` with each printing's names (all_cards has every language's)."""
    yield from _iter_bulk_card_objects(stream, name)



Parser = Callable[[bytes, str, "str | None"], RulingsDocument]
FORMATS: list[tuple[str, str, Callable[[bytes, str], bool], Parser]] = [
    (RULINGS_FORMAT, DESCRIPTION, sniff_rulings, parse_rulings),
    (CARDS_FORMAT, "Scryfall /cards/{id} card or /cards/search page (JSON)", sniff_cards, parse_cards),
    (BULK_RULINGS_FORMAT, "Scryfall rulings bulk file (JSON array or JSON Lines, gzip or not)", sniff_bulk_rulings, parse_bulk_rulings),
    (BULK_CARDS_FORMAT, "Scryfall card bulk file: oracle/default/all cards (JSON array or JSON Lines, gzip or not)", sniff_bulk_cards, parse_bulk_cards),
]
