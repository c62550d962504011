"""New Gatherer card pages (Gatherer '25, Next.js), from their embedded flight data.

The card is not in the HTML markup but in React Server Components data the page pushes as
JavaScript strings: ``<script>self.__next_f.push([1,"…"])</script>``. Each string is a JS string
literal holding (part of) a serialised payload; the chunks are decoded with ``json.loads`` of the
quoted literal and concatenated, then the card object (the one with ``instanceName``) is decoded
from where it starts. Field names follow docs/sources.md §3.2 (a TypeScript scraper's list):
``instanceName``/``oracleName``, ``instanceText``/``oracleText``, ``instanceTypeLine``,
``languageCode``, ``multiverseId``, ``setCode``, ``cardNumber``, ``rulings[{rulingDate,
rulingStatement}]``.

No real page was available when this was written: the test fixture is reconstructed from the
documented field names. NOT ESTABLISHED and handled both ways: the ``rulingDate`` format (ISO or
M/D/YYYY are read; anything else is kept raw with a quality issue) and the language code form
(``de-de``, ``de``, ``zh-cn`` …).
"""
from __future__ import annotations

import html
import json
import re
from typing import Any

from kb.normalise.dates import parse_us_date
from kb.normalise.symbols import normalise_symbols, old_gatherer_codes_to_braces
from kb.normalise.text import clean_text
from kb.parse.html_whole import check_closed_html
from kb.records import (
    CardName,
    CardRecord,
    ParseError,
    QualityIssue,
    RulingRecord,
    RulingsDocument,
)

FORMAT_NAME = "gatherer-new"
DESCRIPTION = "New Gatherer card page (Next.js flight data, 2025+)"

PUSH_CALL = re.compile(r"self\.__next_f\.push\(\[\s*\d+\s*,\s*(\"(?:[^\"\\]|\\.)*\")\s*\]\)", re.S)
SCRIPT_PUSH = re.compile(rb"<script[^>]*>\s*self\.__next_f\.push\(\[")
CARD_KEY = '"instanceName"'
MAX_OPENINGS_TRIED = 400
# Gatherer locale codes (and bare language codes) → Scryfall's language codes. The locale
# Gatherer uses for Traditional Chinese is NOT ESTABLISHED; the plausible forms are listed.
LANG_OF_LOCALE = {
    "en": "en", "en-us": "en",
    "de": "de", "de-de": "de",
    "es": "es", "es-es": "es",
    "fr": "fr", "fr-fr": "fr",
    "it": "it", "it-it": "it",
    "ja": "ja", "ja-jp": "ja",
    "ko": "ko", "ko-ko": "ko", "ko-kr": "ko",
    "pt": "pt", "pt-br": "pt",
    "ru": "ru", "ru-ru": "ru",
    "zh-cn": "zhs", "zh-hans": "zhs", "zhs": "zhs",
    "zh-tw": "zht", "zh-hk": "zht", "zh-hant": "zht", "zht": "zht",
}
HTML_TAG = re.compile(r"<[^>]+>")
HTML_BREAK = re.compile(r"<br\s*/?>", re.I)


def sniff(data: bytes, name: str = "") -> bool:
    """A Next.js page whose flight data carries a Gatherer card object."""
    # The key is inside a JS string literal, so its quotes are escaped.
    return SCRIPT_PUSH.search(data) is not None and b'\\"instanceName\\":' in data


def _payload(page: str, name: str) -> str:
    """All pushed string chunks, decoded from their JS string literals and concatenated."""
    chunks: list[str] = []
    for number, match in enumerate(PUSH_CALL.finditer(page), 1):
        try:
            chunks.append(json.loads(match.group(1)))
        except json.JSONDecodeError as error:
            raise ParseError(f"{name}: flight data chunk {number} is not a valid string literal: {error.msg}") from None
    if not chunks:
        raise ParseError(f"{name}: no self.__next_f.push([...]) flight data found")
    return "".join(chunks)


def _card_objects(payload: str, name: str) -> list[tuple[int, int, dict[str, Any]]]:
    """(start, end, object) of each outermost JSON object that has an ``instanceName``.

    For each occurrence of the key, the enclosing object is found by trying to decode from
    each ``{`` before it, nearest first, until one decodes and spans the key.
    """
    decoder = json.JSONDecoder()
    found: list[tuple[int, int, dict[str, Any]]] = []
    position = payload.find(CARD_KEY)
    while position != -1:
        if not any(start < position < end for start, end, _ in found):
            candidate = _enclosing_object(decoder, payload, position)
            if candidate is not None:
                found.append(candidate)
        position = payload.find(CARD_KEY, position + 1)
    outermost = [item for item in found if not any(o[0] < item[0] and item[1] <= o[1] for o in found)]
    return outermost


def _enclosing_object(decoder: json.JSONDecoder, payload: str, key_position: int) -> tuple[int, int, dict[str, Any]] | None:
    opening = payload.rfind("{", 0, key_position)
    for _ in range(MAX_OPENINGS_TRIED):
        if opening == -1:
            return None
        try:
            value, end = decoder.raw_decode(payload, opening)
        except json.JSONDecodeError:
            value, end = None, -1
        if isinstance(value, dict) and end > key_position and "instanceName" in value:
            return opening, end, value
        opening = payload.rfind("{", 0, opening)
    return None


def _rsc_value(value: Any) -> Any:
    """A flight-data value with React's special strings resolved ("$undefined" → None)."""
    if isinstance(value, str):
        if value.startswith("$$"):
            return value[1:]
        if value.startswith("$"):
            return None  # "$undefined", references to other rows ("$L1", "$1:…")
    return value


def _field(card: dict[str, Any], key: str) -> Any:
    return _rsc_value(card.get(key))


def _card_text(value: Any) -> str | None:
    """Printed or Oracle text: HTML and old Gatherer mana codes ("oW", "ooX") removed."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = HTML_BREAK.sub("\n", value)
    text = html.unescape(HTML_TAG.sub("", text))
    return normalise_symbols(old_gatherer_codes_to_braces(clean_text(text))) or None


def _lang(card: dict[str, Any], issues: list[QualityIssue], name: str) -> str | None:
    codes = [_field(card, "languageCode")]
    language = _field(card, "language")
    if isinstance(language, dict):
        codes += [_rsc_value(language.get("code")), _rsc_value(language.get("isoLanguageCode"))]
    for code in codes:
        # Locales come as "zh-tw" in URLs and "zh_TW" in .NET-style codes: the same locale.
        key = code.strip().lower().replace("_", "-") if isinstance(code, str) else None
        if key in LANG_OF_LOCALE:
            return LANG_OF_LOCALE[key]
    issues.append(QualityIssue("unknown-language", f"{name}: language code {codes[0]!r} not recognised"))
    return None


def _multiverse_id(card: dict[str, Any]) -> int | None:
    value = _field(card, "multiverseId")
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _card_record(card: dict[str, Any], lang: str | None) -> CardRecord:
    printed_name = _field(card, "instanceName")
    oracle_name = _field(card, "oracleName") or printed_name
    return CardRecord(
        name=clean_text(oracle_name),
        lang=lang or "en",
        printed_name=clean_text(printed_name) if printed_name else None,
        printed_text=_card_text(_field(card, "instanceText")),
        printed_type_line=_card_text(_field(card, "instanceTypeLine")),
        oracle_text=_card_text(_field(card, "oracleText")),
        type_line=_card_text(_field(card, "oracleTypeLine")),
        mana_cost=_card_text(_field(card, "oracleManaText")),
        multiverse_id=_multiverse_id(card),
        set_code=_field(card, "setCode"),
        collector_number=_field(card, "cardNumber"),
    )


def _rulings(card: dict[str, Any], record: CardRecord, issues: list[QualityIssue], name: str, start: int) -> list[RulingRecord]:
    rulings: list[RulingRecord] = []
    for item in _field(card, "rulings") or []:
        if not isinstance(item, dict):
            continue
        text = _card_text(_rsc_value(item.get("rulingStatement")))
        if not text:
            continue
        raw_date = _rsc_value(item.get("rulingDate"))
        raw_date = str(raw_date) if raw_date is not None else None
        # The date format is NOT ESTABLISHED: ISO and US M/D/YYYY are read; others are kept raw.
        published_at = parse_us_date(raw_date)
        rulings.append(
            RulingRecord(
                text=text,
                raw_date=raw_date,
                published_at=published_at,
                position=start + len(rulings),
                source="wotc",
                card_name=record.name,
                card_name_lang="en",
                lang="en",
                multiverse_id=record.multiverse_id,
            )
        )
    return rulings


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """A new Gatherer card page → its printing, its name in the page's language, its rulings."""
    try:
        page = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ParseError(f"{name}: not UTF-8 (byte offset {error.start})") from None
    check_closed_html(page, name)
    payload = _payload(page, name)
    objects = _card_objects(payload, name)
    if not objects:
        raise ParseError(f"{name}: flight data holds no card object with \"instanceName\"")
    document = RulingsDocument(format=FORMAT_NAME)
    seen: set[tuple[Any, Any]] = set()
    for _start, _end, card in objects:
        key = (_field(card, "multiverseId"), _field(card, "instanceName"))
        if key in seen:
            continue  # Next.js often serialises the same props twice
        seen.add(key)
        card_lang = lang or _lang(card, document.issues, name)
        record = _card_record(card, card_lang)
        document.cards.append(record)
        if record.printed_name:
            document.card_names.append(
                CardName(lang=record.lang, name=record.printed_name, english_name=record.name)
            )
        if record.lang != "en":
            document.card_names.append(CardName(lang="en", name=record.name, english_name=record.name))
        document.rulings += _rulings(card, record, document.issues, name, len(document.rulings))
    document.lang = document.cards[0].lang
    listed = sum(len(_field(card, "rulings") or []) for _s, _e, card in objects if isinstance(_field(card, "rulings"), list))
    if listed and not document.rulings:
        # The page lists rulings but none could be read: the payload's shape changed.
        document.issues.append(QualityIssue(
            "layout-changed",
            f"{name}: the page lists {listed} rulings but none could be read; the Gatherer payload may have changed",
        ))
    return document
