"""MTGJSON v5: one set file (``{"meta", "data": {set}}``) or AllPrintings (``{"data": {CODE: set}}``).

Each card gives its English printing, its printings in other languages (``foreignData``, whose
``language`` is an English language name mapped here to Scryfall's codes), its names, and its
rulings ``{date, text}``. MTGJSON builds rulings from Scryfall's bulk file but drops the
``source``, so rulings carry ``source=None`` and the store recovers it from Scryfall.

AllPrintings can be hundreds of MB: ``iter_cards`` streams it card by card
(``kb.parse.rulings.mtgjson_objects``), through gzip when it is the published ``AllPrintings.json.gz``.
"""
from __future__ import annotations

import io
import re
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, NamedTuple

from kb.normalise.dates import iso_day, parse_date
from kb.normalise.symbols import normalise_symbols, unbracketed_loyalty_costs
from kb.normalise.text import clean_text
from kb.parse.bounds import GZIP_MAGIC
from kb.parse.rulings.fields import STAT_FIELDS, card_stats, check_iso_date, check_uuid
from kb.parse.rulings.mtgjson_objects import iter_card_objects
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

FORMAT_NAME = "mtgjson"
DESCRIPTION = "MTGJSON v5 set file or AllPrintings (JSON)"

# MTGJSON's foreignData ``language`` names → Scryfall language codes.
LANG_OF_LANGUAGE = {
    "English": "en",
    "Spanish": "es",
    "French": "fr",
    "German": "de",
    "Italian": "it",
    "Portuguese (Brazil)": "pt",
    "Portuguese": "pt",
    "Japanese": "ja",
    "Korean": "ko",
    "Russian": "ru",
    "Chinese Simplified": "zhs",
    "Chinese Traditional": "zht",
    "Phyrexian": "ph",
    "Hebrew": "he",
    "Latin": "la",
    "Ancient Greek": "grc",
    "Arabic": "ar",
    "Sanskrit": "sa",
}
SNIFF_BYTES = 2_000_000
# The lists of objects a card object holds that this parser reads. Every real card object we hold
# has no other; another is most likely one of these renamed, whose rulings or printings in other
# languages would otherwise be lost without a word.
READ_LISTS = frozenset({"foreignData", "rulings"})


class CardEntry(NamedTuple):
    """Everything one MTGJSON card object yields."""

    cards: list[CardRecord]  # the English printing first, then one per foreignData language
    names: list[CardName]
    rulings: list[RulingRecord]
    issues: list[QualityIssue]


def _unzipped(data: bytes) -> bytes:
    """``data``, or as much of it gunzipped as a sniff needs (AllPrintings is published gzipped)."""
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, SNIFF_BYTES)
    except zlib.error:
        return b""


def sniff(data: bytes, name: str = "") -> bool:
    """An MTGJSON v5 file holding sets: a ``meta`` with a 5.x version and cards with ``setCode``."""
    data = _unzipped(data)
    head = data[:4096]
    if re.search(rb'"version"\s*:\s*"5\.', head) is None or b'"data"' not in data[:SNIFF_BYTES]:
        return False
    window = data[:SNIFF_BYTES]
    return re.search(rb'"cards"\s*:\s*\[', window) is not None and b'"setCode"' in window


def _text(value: Any) -> str | None:
    return normalise_symbols(clean_text(value)) if isinstance(value, str) and value.strip() else None


def _oracle_text(value: Any) -> str | None:
    """A card's or face's "text": Oracle text in Scryfall's spelling (loyalty costs unbracketed)."""
    text = _text(value)
    return unbracketed_loyalty_costs(text) if text else None


def _int(value: Any) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _foreign_printing(card: dict[str, Any], foreign: dict[str, Any], lang: str, oracle_id: str | None) -> CardRecord:
    identifiers = foreign.get("identifiers") or {}
    printed_name = foreign.get("faceName") or foreign.get("name")
    return CardRecord(
        name=card["name"],
        oracle_id=oracle_id,
        faces=[card["faceName"]] if card.get("faceName") else [],
        lang=lang,
        printed_name=clean_text(printed_name) if printed_name else None,
        printed_text=_text(foreign.get("text")),
        printed_type_line=_text(foreign.get("type")),
        scryfall_id=identifiers.get("scryfallId"),
        multiverse_id=_int(identifiers.get("multiverseId") or foreign.get("multiverseId")),
        set_code=card.get("setCode"),
        collector_number=card.get("number"),
        layout=card.get("layout"),
    )


def _foreign_names(card: dict[str, Any], foreign: dict[str, Any], lang: str, oracle_id: str | None) -> list[CardName]:
    names: list[CardName] = []
    if foreign.get("name"):
        names.append(CardName(lang=lang, name=clean_text(foreign["name"]), oracle_id=oracle_id, english_name=card["name"]))
    if foreign.get("faceName") and card.get("faceName") and foreign["faceName"] != foreign.get("name"):
        names.append(CardName(lang=lang, name=clean_text(foreign["faceName"]), oracle_id=oracle_id, english_name=card["faceName"]))
    return names


def card_entry(card: dict[str, Any], where: str = "<card>") -> CardEntry:
    """One MTGJSON card object → its printings, names, rulings and problems."""
    if not isinstance(card, dict) or not card.get("name"):
        raise ParseError(f"{where}: a card object without a name")
    identifiers = card.get("identifiers") or {}
    oracle_id = identifiers.get("scryfallOracleId")
    check_uuid(oracle_id, f"{where}: identifiers.scryfallOracleId of {card['name']!r}", "MTGJSON's card object")
    issues: list[QualityIssue] = []
    for key in sorted(READ_LISTS):
        if key in card and type(card[key]) is not list:
            # Read before the lists are: a dict or a string there was iterated as keys or letters.
            issues.append(QualityIssue(
                "layout-changed",
                f"{where}: {card['name']!r} holds {'null' if card[key] is None else type(card[key]).__name__} under"
                f" {key!r}, where MTGJSON's card object has a list (or leaves the key out): its {key} could not be read",
            ))
            card = {**card, key: []}
    if oracle_id is None:
        # Then only its name joins it to a card: said here, where the file is to blame (the
        # derive's "not in the card data yet" blamed the card data).
        identified = identifiers.get("scryfallId") or identifiers.get("multiverseId")
        issues.append(QualityIssue(
            "card-without-oracle-id",
            f"{where}: {card['name']!r} has no identifiers.scryfallOracleId: its names, printings and rulings are kept"
            " and joined to a card by its name; its Oracle text and type line "
            + ("are kept with its printing only, not as the card's (no Oracle id to keep them under)" if identified
               else "are not (no Oracle id to keep them under, nor a printing id)"),
        ))
    english = CardRecord(
        name=card["name"],
        oracle_id=oracle_id,
        faces=[card["faceName"]] if card.get("faceName") else [],
        lang="en",
        oracle_text=_oracle_text(card.get("text")),
        type_line=card.get("type"),
        mana_cost=card.get("manaCost"),
        printed_text=_text(card.get("originalText")),
        printed_type_line=card.get("originalType"),
        scryfall_id=identifiers.get("scryfallId"),
        multiverse_id=_int(identifiers.get("multiverseId")),
        set_code=card.get("setCode"),
        collector_number=card.get("number"),
        layout=card.get("layout"),
        **card_stats(card),
    )
    # MTGJSON leaves "text" out for a card without rules text; a card with keywords, printed or
    # translated text then has lost its own.
    english.text_missing = not card.get("text") and bool(
        card.get("keywords") or card.get("originalText")
        or any(isinstance(f, dict) and f.get("text") for f in card.get("foreignData") or [])
    )
    cards = [english]
    names = [CardName(lang="en", name=card["name"], oracle_id=oracle_id, english_name=card["name"])]
    if card.get("faceName") and card["faceName"] != card["name"]:
        names.append(CardName(lang="en", name=card["faceName"], oracle_id=oracle_id, english_name=card["faceName"]))
    for foreign in card.get("foreignData") or []:
        lang = LANG_OF_LANGUAGE.get(foreign.get("language", ""))
        if lang is None:
            issues.append(QualityIssue("unknown-language", f"{where}: foreignData language {foreign.get('language')!r} of {card['name']!r}"))
            continue
        cards.append(_foreign_printing(card, foreign, lang, oracle_id))
        names.extend(_foreign_names(card, foreign, lang, oracle_id))
    for key in unread_lists(card):
        issues.append(QualityIssue(
            "layout-changed",
            f"{where}: {card['name']!r} holds a list of objects under {key!r}, which MTGJSON's card object has never had"
            f" (its lists are {' and '.join(sorted(READ_LISTS))}): not read; a renamed field's rulings or printings would be lost",
        ))
    return CardEntry(cards, names, _rulings(card, oracle_id, where), issues)


def unread_lists(card: dict[str, Any]) -> list[str]:
    """The keys of ``card`` holding a list of objects this parser does not read."""
    return [
        key for key, value in card.items()
        if type(value) is list and value and type(value[0]) is dict and key not in READ_LISTS
    ]


def _rulings(card: dict[str, Any], oracle_id: str | None, where: str) -> list[RulingRecord]:
    rulings = []
    for position, ruling in enumerate(card.get("rulings") or []):
        # MTGJSON's ruling is {date, text}, both always present: one missing means the layout
        # changed (a renamed "text" gave rulings without text, each dropped without a word).
        if not isinstance(ruling, dict) or "text" not in ruling or "date" not in ruling:
            raise ParseError(
                f"{where}: ruling {position + 1} of {card['name']!r} is not MTGJSON's {{date, text}} object"
            )
        raw_date = ruling.get("date")
        check_iso_date(raw_date, f"{where}: ruling {position + 1} of {card['name']!r}: date", "MTGJSON's ruling object")
        rulings.append(
            RulingRecord(
                text=_text(ruling.get("text")) or "",
                raw_date=raw_date,
                published_at=parse_date(raw_date, "en"),
                position=position,
                source=None,  # MTGJSON drops Scryfall's source
                oracle_id=oracle_id,
                card_name=card["name"],
                card_name_lang="en",
                lang="en",
            )
        )
    return rulings


def iter_cards(
    stream: BinaryIO, name: str = "<stream>", set_fields: dict[str, dict[str, str]] | None = None,
    meta: dict[str, str] | None = None,
) -> Iterator[CardEntry]:
    """Every card of a set file or AllPrintings, streamed (memory stays at one card). The face
    objects of one printing, which follow each other in a set's cards, are one card
    (``faces_entry``). ``set_fields`` and ``meta``: see ``iter_card_objects`` (``set_names`` and
    ``made_on`` read them)."""
    faces: list[dict[str, Any]] = []
    where = name
    for number, card in enumerate(iter_card_objects(stream, name, set_fields, meta), 1):
        if faces and not _another_face(faces, card):
            yield faces_entry(faces, where)
            faces = []
        if _is_face(card):
            where = where if faces else f"{name}: card {number}"
            faces.append(card)
            continue
        yield card_entry(card, f"{name}: card {number}")
    if faces:
        yield faces_entry(faces, where)


# A face's own fields: the card's are these joined in face order.
FACE_FIELDS = (("text", FACE_TEXT_SEPARATOR), ("type", FACE_SEPARATOR), ("manaCost", FACE_SEPARATOR),
               ("originalText", FACE_TEXT_SEPARATOR), ("originalType", FACE_SEPARATOR))


def _is_face(card: Any) -> bool:
    """One face of a multi-faced card: MTGJSON gives each face a card object of its own (``side``
    "a", "b", …; ``faceName``), each with the whole card's ``name`` and its own text, type and cost."""
    return isinstance(card, dict) and bool(card.get("faceName")) and bool(card.get("side")) and FACE_SEPARATOR in str(card.get("name"))


def _another_face(faces: list[dict[str, Any]], card: Any) -> bool:
    """Whether ``card`` is one more face of the printing ``faces`` are of."""
    def printing(face: dict[str, Any]) -> tuple:
        return face.get("setCode"), face.get("number"), face.get("name"), (face.get("identifiers") or {}).get("scryfallId")

    return _is_face(card) and printing(card) == printing(faces[0]) and card.get("side") not in {f.get("side") for f in faces}


def _joined(values: Iterable[Any], separator: str) -> str | None:
    return separator.join(value for value in values if isinstance(value, str) and value.strip()) or None


def faces_entry(faces: list[dict[str, Any]], where: str = "<card>") -> CardEntry:
    """The face objects of one printing as one card: its text, type line and cost joined in face
    order as Scryfall joins them, each face kept whole (``card_faces``), and each language's
    printed text and type line joined alike. A face seen without the others (they are elsewhere
    in the file, or missing) gives the card's names and rulings but no text: its own text is not
    the card's, and would replace the card's whole text where another source gave it."""
    faces = sorted(faces, key=lambda face: str(face.get("side")))
    whole = len(faces) == len(str(faces[0]["name"]).split(FACE_SEPARATOR))
    card = {key: value for key, value in faces[0].items() if key != "faceName"}
    for field, separator in FACE_FIELDS:
        card[field] = _joined((face.get(field) for face in faces), separator) if whole else None
    foreign_faces: dict[str, list[dict[str, Any]]] = {}
    for face in faces:
        for foreign in face.get("foreignData") or []:
            if isinstance(foreign, dict):
                foreign_faces.setdefault(str(foreign.get("language", "")), []).append(foreign)
    card["foreignData"] = [_foreign_whole(entries, whole) for entries in foreign_faces.values()]
    entry = card_entry(card, where)
    oracle_id = entry.cards[0].oracle_id
    face_names = str(card["name"]).split(FACE_SEPARATOR)
    for record in entry.cards:
        record.faces = face_names
    # Each face has its own numbers (a face's object gives them; the card's first face's are not the card's).
    for field in STAT_FIELDS:
        setattr(entry.cards[0], field, None)
    if whole:
        entry.cards[0].card_faces = [
            CardFace(name=face["faceName"], mana_cost=face.get("manaCost") or None, type_line=face.get("type") or None,
                     oracle_text=_oracle_text(face.get("text")), **card_stats(face))
            for face in faces
        ]
    names = list(entry.names)
    for face in faces:
        if face["faceName"] != card["name"]:
            names.append(CardName(lang="en", name=face["faceName"], oracle_id=oracle_id, english_name=face["faceName"]))
        for foreign in face.get("foreignData") or []:
            lang = LANG_OF_LANGUAGE.get(foreign.get("language", "")) if isinstance(foreign, dict) else None
            if lang and foreign.get("faceName"):
                names.append(CardName(lang=lang, name=clean_text(foreign["faceName"]), oracle_id=oracle_id,
                                      english_name=face["faceName"]))
    rulings = list(entry.rulings)
    seen = {(ruling.raw_date, ruling.text) for ruling in rulings}
    for face in faces[1:]:
        for ruling in _rulings(face, oracle_id, where):
            if (ruling.raw_date, ruling.text) not in seen:
                seen.add((ruling.raw_date, ruling.text))
                rulings.append(ruling)
    return CardEntry(entry.cards, names, rulings, entry.issues)


def _foreign_whole(entries: list[dict[str, Any]], whole: bool) -> dict[str, Any]:
    """One language's foreignData of a card's faces as the whole card's: its name (the faces'
    names joined where MTGJSON gives a face's only), text and type line joined in face order."""
    foreign = {key: value for key, value in entries[0].items() if key != "faceName"}
    name = str(foreign.get("name") or "")
    if FACE_SEPARATOR not in name and all(entry.get("faceName") for entry in entries) and whole:
        foreign["name"] = FACE_SEPARATOR.join(str(entry["faceName"]) for entry in entries)
    foreign["text"] = _joined((entry.get("text") for entry in entries), FACE_TEXT_SEPARATOR) if whole else None
    foreign["type"] = _joined((entry.get("type") for entry in entries), FACE_SEPARATOR) if whole else None
    return foreign


def set_names(set_fields: dict[str, dict[str, str]]) -> dict[str, tuple[str | None, str | None]]:
    """Each set's (English name, release day) by its code, upper case, from ``iter_cards``'
    ``set_fields``: only a map that gives its own code is a set (every MTGJSON set does; a set
    file's other maps with a "name", a booster's say, are not)."""
    return {
        str(fields["code"]).upper(): (fields.get("name"), parse_date(fields["releaseDate"]) if fields.get("releaseDate") else None)
        for fields in set_fields.values() if fields.get("code")
    }


def made_on(meta: dict[str, str]) -> str | None:
    """The day the file says it was made (``meta.date``, "2022-04-25"): the day of its Oracle
    wording. None where it gives none, or no day of the calendar (a damaged date is no date)."""
    day = meta.get("date")
    return day if isinstance(day, str) and iso_day(day) else None


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """A whole set file or AllPrintings in memory → cards, names (deduplicated) and rulings.

    Rulings repeat on every printing of a card; each (oracle_id, date, text) is kept once.
    """
    document = RulingsDocument(format=FORMAT_NAME, lang=None)
    seen_names: set[tuple[str | None, str, str]] = set()
    seen_rulings: set[tuple[str | None, str | None, str]] = set()
    count = 0
    set_fields: dict[str, dict[str, str]] = {}
    meta: dict[str, str] = {}
    for entry in iter_cards(io.BytesIO(data), name, set_fields, meta):
        count += 1
        document.cards.extend(entry.cards)
        document.issues.extend(entry.issues)
        for card_name in entry.names:
            name_key = (card_name.oracle_id, card_name.lang, card_name.name)
            if name_key not in seen_names:
                seen_names.add(name_key)
                document.card_names.append(card_name)
        for ruling in entry.rulings:
            key = (ruling.oracle_id or ruling.card_name, ruling.raw_date, ruling.text)
            if key not in seen_rulings:
                seen_rulings.add(key)
                document.rulings.append(ruling)
    if count == 0:
        raise ParseError(f"{name}: no cards found (expected data.cards or data.<SET>.cards)")
    # Saved as a stream saves them (kb.build.load.stream_mtgjson): the sets, and their days given
    # to the printings no other source dated (a printing's day given here overwrote Scryfall's
    # own day of it: a review).
    document.extra["sets"] = set_names(set_fields)
    document.extra["made_on"] = made_on(meta)
    document.extra["cards"] = count  # a multi-faced card's face objects are one card
    return document
