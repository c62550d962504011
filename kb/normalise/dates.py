"""Dates as printed in any of our languages, to ISO 8601; never a silent guess.

The page's language decides how an all-numeric date is read ("12.01.2024" is 12 January in
German, "6/1/2011" is June 1 in US English), using the locale's own short date pattern from
babel rather than a hand table. Anything dateparser cannot read with every part present gives
``None``: the caller records a quality issue instead of inventing a date.
"""
from __future__ import annotations

import datetime
import re
from functools import cache, lru_cache
from urllib.parse import urlsplit

from babel import Locale, UnknownLocaleError
from babel.dates import get_date_format

# Scryfall's language codes to locales babel and dateparser know.
LOCALE_OF_LANG = {
    "en": "en_US",
    "es": "es",
    "fr": "fr",
    "de": "de",
    "it": "it",
    "pt": "pt",
    "ja": "ja",
    "ko": "ko",
    "ru": "ru",
    "zhs": "zh",
    "zht": "zh",
    "zh": "zh",
}

ISO_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
NUMERIC_DATE = re.compile(r"^\s*(\d{1,4})\s*[./-]\s*(\d{1,2})\s*[./-]\s*(\d{1,4})\s*\.?\s*$")
# Weekday names after a date ("2019년 5월 31일 금요일", "Friday, May 31, 2019") carry no
# information and trip strict parsing in some languages.
ENGLISH_MONTHS = {
    name: number
    for number, name in enumerate(
        ("january", "february", "march", "april", "may", "june", "july", "august", "september",
         "october", "november", "december"),
        start=1,
    )
}
# The CR and most English pages print "September 26, 2014" or "26 September 2014": read those
# directly, because dateparser spends about a second loading its locale data on first use.
ENGLISH_MONTH_DATE = re.compile(
    r"^(?:(?P<month>[A-Za-z]+)\s*(?P<day>\d{1,2}),?|(?P<day2>\d{1,2})\s+(?P<month2>[A-Za-z]+),?)\s+(?P<year>\d{4})$"
)
# "2021년 2월 15일", "2025年2月7日": year, month and day each marked, nothing to interpret.
CJK_DATE = re.compile(r"^(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]$")
TRAILING_WEEKDAY = re.compile(r"\s*(?:[(（]?\s*[월화수목금토일]요일\s*[)）]?|[(（]?星期.[)）]?)\s*$")


@cache
def date_order(lang: str) -> str:
    """'DMY', 'MDY' or 'YMD' as the locale writes short dates."""
    locale_name = LOCALE_OF_LANG.get(lang, lang)
    try:
        pattern = get_date_format("short", locale=Locale.parse(locale_name)).pattern
    except (UnknownLocaleError, ValueError):
        pattern = "M/d/yy"
    positions = {part: pattern.find(letter) for part, letter in (("D", "d"), ("M", "M"), ("Y", "y"))}
    return "".join(sorted(positions, key=lambda part: positions[part]))


# A date as this project writes one: ISO 8601, ASCII digits.
ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def iso_day(text: str) -> bool:
    """Whether ``text`` is a day of the calendar written YYYY-MM-DD ("2003-02-30" is none), as a
    date a reader types is asked to be and a stored one must be."""
    if not ISO_DAY.fullmatch(text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _valid(year: int, month: int, day: int) -> str | None:
    try:
        return datetime.date(year, month, day).isoformat()
    except ValueError:
        return None


def parse_date(raw: str | None, lang: str = "en") -> str | None:
    """The ISO date ``raw`` names, read the way ``lang`` writes dates, or None."""
    if raw is None:
        return None
    return _parse_date(raw, lang)


def parse_us_date(raw: str | None) -> str | None:
    """A date of a page written in US English (Gatherer's rulings, M/D/YYYY), as ``parse_date``
    reads English; but not a numeric date written with dots or dashes, which US English does not
    write and which reads day first where it is written: "1.10.2009" on a German page is 1 October,
    and was read as 10 January (a review of damaged input). Not guessed: None, and the build says
    the ruling's date could not be read."""
    if raw is None:
        return None
    match = NUMERIC_DATE.match(raw)
    if match and len(match[1]) != 4 and "/" not in raw:
        return None
    return parse_date(raw, "en")


@lru_cache(maxsize=4096)  # a page repeats its date on every ruling; dateparser is slow
def _parse_date(raw: str, lang: str) -> str | None:
    text = " ".join(raw.split())
    if not text:
        return None
    match = ISO_DATE.match(text)
    if match:
        return _valid(int(match[1]), int(match[2]), int(match[3]))
    match = NUMERIC_DATE.match(text)
    if match:
        first, second, third = match[1], match[2], match[3]
        if len(first) == 4:
            return _valid(int(first), int(second), int(third))
        if len(third) != 4:
            return None  # two-digit years are ambiguous across centuries: refuse
        order = date_order(lang)
        if order.startswith("M"):
            return _valid(int(third), int(first), int(second))
        return _valid(int(third), int(second), int(first))
    match = ENGLISH_MONTH_DATE.match(text)
    if match:
        month = ENGLISH_MONTHS.get((match["month"] or match["month2"]).lower())
        if month is not None:
            return _valid(int(match["year"]), month, int(match["day"] or match["day2"]))
    text = TRAILING_WEEKDAY.sub("", text)
    match = CJK_DATE.match(text)
    if match:
        return _valid(int(match[1]), int(match[2]), int(match[3]))
    language = LOCALE_OF_LANG.get(lang, lang).split("_")[0]
    languages = [language] if language == "en" else [language, "en"]
    # Imported here: a bulk file of ISO dates never needs it, and importing it took a tenth of a
    # second of every command.
    import dateparser

    parsed = dateparser.parse(
        text,
        languages=languages,
        settings={
            "STRICT_PARSING": True,
            "REQUIRE_PARTS": ["day", "month", "year"],
            "DATE_ORDER": date_order(lang),
            "RETURN_AS_TIMEZONE_AWARE": False,
            "PARSERS": ["absolute-time"],
        },
    )
    if parsed is None:
        return None
    return parsed.date().isoformat()


# Scryfall publishes each kind of bulk file under its own dated name ("…/all-cards/all-cards-
# 20260908….jsonl.gz"); oracle_cards and all_cards share a format but neither replaces the other.
BULK_KIND = re.compile(r"/([a-z]+(?:[-_][a-z]+)*)[-_](\d{8,14})\.json(?:l)?(?:\.gz)?$")


def bulk_file_day(url: str | None) -> str | None:
    """The day a bulk file was made, as its name says ("rulings-20230404210031.json": 2023-04-04)."""
    match = BULK_KIND.search(urlsplit(url or "").path)
    return f"{match[2][:4]}-{match[2][4:6]}-{match[2][6:8]}" if match else None
