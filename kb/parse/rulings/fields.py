"""Field shapes the JSON sources document, checked where a parser reads them.

Scryfall's ids are UUIDs written in lower case, and its dates (like MTGJSON's) are ISO 8601
(``YYYY-MM-DD``). A value in another shape means the file is not what its format promises (a
corrupt or edited file, a layout change): an oracle id that is not a UUID was a card of its own,
and "01/02/2020" was read as 2 January, both with exit 0.
"""
from __future__ import annotations

import re
from typing import Any

from kb.normalise.dates import iso_day
from kb.records import CardStats, ParseError

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_uuid(value: Any, what: str, source: str) -> None:
    """Refuse ``value`` unless it is None or a UUID; ``what`` names it, ``source`` the format."""
    if value is not None and not (isinstance(value, str) and UUID.fullmatch(value)):
        raise ParseError(f"{what} {value!r} is not a UUID: not the layout of {source}")


def check_iso_date(value: Any, what: str, source: str) -> None:
    """Refuse ``value`` unless it is None, empty or an ISO 8601 date: a day of the calendar too
    ("2020-02-30" was kept undated, a second copy of the ruling beside the dated one: a review of
    real files, damaged)."""
    if value not in (None, "") and not (isinstance(value, str) and ISO_DATE.fullmatch(value)):
        raise ParseError(f"{what} {value!r} is not an ISO 8601 date (YYYY-MM-DD): not the layout of {source}")
    if isinstance(value, str) and value and not iso_day(value):
        raise ParseError(f"{what} {value!r} is no day of the calendar: the file is damaged")


STAT_FIELDS = ("power", "toughness", "loyalty", "defense")


def card_stats(card_or_face: dict[str, Any]) -> CardStats:
    """Power, toughness, loyalty and defense as Scryfall and MTGJSON write them: strings ("*",
    "1+*", "X"), a number read as its digits; a value of no other shape, or blank, is none."""
    def read(key: str) -> str | None:
        value = card_or_face.get(key)
        return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip() else None

    return CardStats(power=read("power"), toughness=read("toughness"), loyalty=read("loyalty"), defense=read("defense"))
