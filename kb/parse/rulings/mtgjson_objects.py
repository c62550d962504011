"""The card objects of an MTGJSON v5 set file or AllPrintings, read from a stream one at a time.

AllPrintings can be hundreds of MB, and is published gzipped: a card object is built from ijson's
events as they come, and nothing else of the file is held.
"""
from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

import ijson

from kb.parse.bounds import GZIP_MAGIC
from kb.records import ParseError

# A card object sits at data.cards.item (set file) or data.<SET CODE>.cards.item (AllPrintings).
CARD_PREFIX = re.compile(r"^data(?:\.[^.]+)?\.cards\.item$")


def _opened(stream: BinaryIO) -> BinaryIO:
    """``stream`` gunzipped when it starts with the gzip magic bytes."""
    reader: Any = stream if hasattr(stream, "peek") else io.BufferedReader(cast(Any, stream))
    if reader.peek(2)[:2] == GZIP_MAGIC:
        return cast(BinaryIO, gzip.GzipFile(fileobj=reader, mode="rb"))
    return cast(BinaryIO, reader)


# A set's own fields kept beside its cards (``iter_card_objects``' ``set_fields``).
SET_FIELDS = frozenset({"code", "name", "releaseDate"})
# The file's own fields kept (``iter_card_objects``' ``meta``): the day it was made and its version.
META_FIELDS = frozenset({"date", "version"})


def iter_card_objects(
    stream: BinaryIO, name: str = "<stream>", set_fields: dict[str, dict[str, str]] | None = None,
    meta: dict[str, str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Raw card objects of a set file or AllPrintings, built one at a time from ijson's events.

    The events come without their prefixes (``basic_parse``), and the path to the current value
    is kept here only outside cards: joining a prefix for each of a card's ~330 events, and
    ijson's ``ObjectBuilder`` (Python) taking them, were most of the time to build a card's
    object (120–133 µs a card, now 71–78). The objects are what ``ObjectBuilder`` makes (tests
    compare them).

    ``set_fields``: filled, as the stream passes them, with each set's code, name and release day
    (``SET_FIELDS``) under its key in AllPrintings ("" for a set file). MTGJSON writes a set's
    keys in alphabetical order, its cards before its name: they are there once the cards are read.

    ``meta``: filled with the file's ``meta`` fields (``META_FIELDS``), as the stream passes them."""
    path: list[str | None] = []  # outside cards: the keys and "item"s down to the current value
    building: list[Any] = []  # inside a card: the containers open, the card first
    key: Any = None
    seen_data = False
    cards = 0
    try:
        for event, value in ijson.basic_parse(_opened(stream), use_float=True):
            if building:
                if event == "map_key":
                    key = value
                    continue
                if event == "end_map" or event == "end_array":
                    done = building.pop()
                    if not building:
                        yield done
                    continue
                top = building[-1]
                if event == "start_map":
                    value = {}
                elif event == "start_array":
                    value = []
                if type(top) is dict:
                    top[key] = value
                else:
                    top.append(value)
                if event == "start_map" or event == "start_array":
                    building.append(value)
                continue
            if event == "map_key":
                path[-1] = value
            elif event == "string" and set_fields is not None and 2 <= len(path) <= 3 and path[-1] in SET_FIELDS and path[0] == "data":
                set_fields.setdefault(str(path[1]) if len(path) == 3 else "", {})[str(path[-1])] = value
            elif event == "string" and meta is not None and len(path) == 2 and path[0] == "meta" and path[1] in META_FIELDS:
                meta[str(path[1])] = value
            elif event == "start_map":
                prefix = ".".join(cast(list[str], path))
                if prefix == "data":
                    seen_data = True
                elif CARD_PREFIX.match(prefix):
                    cards += 1
                    building.append({})
                    continue
                path.append(None)  # the key of the map's first value comes next
            elif (
                event != "end_map" and event != "end_array" and 3 <= len(path) <= 4 and path[-1] == "item"
                and CARD_PREFIX.match(".".join(cast(list[str], path)))
            ):
                # A null (or any value) where a card object stands: skipped, a card with its
                # printings, names and rulings was lost without a word. (The cheap tests first:
                # AllPrintings' tokens and boosters are millions of values outside cards.)
                found = "null" if event == "null" else "a list" if event == "start_array" else f"a {event}"
                raise ParseError(f"{name}: card {cards + 1} of the file is {found}, not a card object")
            elif event == "start_array":
                path.append("item")
            elif event == "end_map" or event == "end_array":
                path.pop()
    except (ijson.JSONError, OSError, EOFError, zlib.error) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ParseError(f"{name}: malformed or truncated JSON: {reason}") from None
    if not seen_data:
        raise ParseError(f"{name}: no top-level \"data\" object: not an MTGJSON file")
