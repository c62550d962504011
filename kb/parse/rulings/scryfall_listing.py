"""Scryfall's ``/bulk-data`` listing and ``/symbology`` pages: what the fetcher and the symbol table read.

They describe no rulings, so they are not import formats.
"""
from __future__ import annotations

import json
from typing import Any

from kb.records import ParseError


def load_json(data: bytes, name: str) -> Any:
    """One Scryfall JSON document; ParseError naming where it is not UTF-8 or not JSON."""
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise ParseError(f"{name}: not UTF-8 (byte offset {error.start})") from None
    except json.JSONDecodeError as error:
        if error.pos == len(error.doc) - len(error.doc.lstrip()) and error.doc.strip():
            # Nothing of it is JSON: a CR text given as --format scryfall-rulings was called
            # "malformed or truncated JSON" (a review of real files).
            raise ParseError(f"{name}: not JSON (it begins {error.doc.strip()[:20]!r})") from None
        raise ParseError(f"{name}: malformed or truncated JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None


def list_items(document: Any, name: str, kind: str) -> list[dict[str, Any]]:
    """The items of a Scryfall List, each checked to be a ``kind`` object."""
    if not isinstance(document, dict) or document.get("object") != "list" or not isinstance(document.get("data"), list):
        raise ParseError(f"{name}: not a Scryfall List of {kind} objects")
    items = document["data"]
    for index, item in enumerate(items, 1):
        if not isinstance(item, dict) or item.get("object") != kind:
            got = item.get("object") if isinstance(item, dict) else type(item).__name__
            raise ParseError(f"{name}: item {index} of the List is a {got!r}, not a {kind!r}")
    return items


def parse_bulk_listing(data: bytes, name: str = "<bytes>") -> list[dict[str, Any]]:
    """The ``/bulk-data`` List → one dict per bulk file.

    Keys: ``type``, ``id``, ``name``, ``updated_at``, ``download_uri`` (``jsonl_download_uri``
    when present, else the legacy ``download_uri``), ``file_format`` (``jsonl`` or ``json``),
    ``size`` and ``compressed_size`` (None where the listing does not give them),
    ``content_encoding``.
    """
    items = list_items(load_json(data, name), name, "bulk_data")
    entries: list[dict[str, Any]] = []
    for index, item in enumerate(items, 1):
        uri = item.get("jsonl_download_uri") or item.get("download_uri")
        if not uri or not item.get("type"):
            raise ParseError(f"{name}: bulk entry {index} has no type or download URI")
        entries.append(
            {
                "type": item["type"],
                "id": item.get("id"),
                "name": item.get("name"),
                "updated_at": item.get("updated_at"),
                "download_uri": uri,
                "file_format": "jsonl" if item.get("jsonl_download_uri") else "json",
                "size": item.get("size"),
                "compressed_size": item.get("compressed_size"),
                "content_encoding": item.get("content_encoding"),
            }
        )
    return entries


SYMBOL_FIELDS = (
    "symbol",
    "english",
    "represents_mana",
    "mana_value",
    "hybrid",
    "phyrexian",
    "colors",
    "gatherer_alternates",
)


def parse_symbology(data: bytes, name: str = "<bytes>") -> list[dict[str, Any]]:
    """One ``/symbology`` page → its card symbols (``gatherer_alternates`` always a list).

    Follow the page's ``next_page`` for the rest; this returns one page's symbols.
    """
    items = list_items(load_json(data, name), name, "card_symbol")
    symbols: list[dict[str, Any]] = []
    for item in items:
        entry = {field: item.get(field) for field in SYMBOL_FIELDS}
        entry["gatherer_alternates"] = list(item.get("gatherer_alternates") or [])
        symbols.append(entry)
    return symbols
