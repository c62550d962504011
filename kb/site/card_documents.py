"""The documents a card page names for what it shows: where its Oracle wording was read, and
which documents that list a card's rulings list none of its (``kb.site.card_page`` shows them)."""
from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.normalise.dates import bulk_file_day
from kb.site.card_printings import set_and_day
from kb.site.search import rows
from kb.site.search_db import columns_of

# What a page says of a document: where it is, whose, when it was read, what it holds.
DOCUMENT_COLUMNS = ("documents.id, documents.source_id, documents.url, documents.path, documents.fetched_at,"
                    " documents.format, documents.lang")


def document_columns(conn: sqlite3.Connection) -> str:
    """``DOCUMENT_COLUMNS`` and the day a file says it was made: none on a file made before
    documents kept it (m034), not a 500 on every card page (a code review)."""
    made_on = "documents.made_on" if "made_on" in columns_of(conn, "documents") else "null as made_on"
    return f"{DOCUMENT_COLUMNS}, {made_on}"
# Read whole: a failed document lists nothing (a file cut short was said to list none).
READ_WHOLE = "documents.status = 'parsed'"
# The documents that show the rulings of every card they hold: a Gatherer page, an MTGJSON file.
SHOWS_A_CARDS_RULINGS = "(documents.format = 'mtgjson' or documents.format like 'gatherer-%')"

RULINGS_LIST_URL = re.compile(r"/cards/([0-9a-f-]{36})/rulings(?:[?#]|$)")


def rulings_checked_in(conn: sqlite3.Connection, oracle_id: str) -> list[dict[str, Any]]:
    """The documents that list this card's rulings, where they list none: a Scryfall bulk rulings
    file (every card's), Scryfall's rulings list of one of its printings (known by its URL), an
    MTGJSON file or a Gatherer page that holds the card (each shows the card's rulings). Empty
    where no document we hold is known to list them: "Rulings 0" read as "no rulings" on cards
    whose rulings were never imported (a player's review)."""
    columns = document_columns(conn)
    read = READ_WHOLE
    listed = rows(conn, f"select {columns} from documents where format = 'scryfall-bulk-rulings' and {read} limit 5")
    listed += rows(conn, f"""select distinct {columns} from printings join documents on documents.id = printings.document_id
        where printings.oracle_id = ? and {read} and {SHOWS_A_CARDS_RULINGS} limit 5""", (oracle_id,))
    # Scryfall's rulings list of a printing, by the card id its URL ends in: matched in Python, not
    # by a LIKE per printing (2.6 s for a card of 3,000 printings beside 2,000 documents).
    printing_ids = {row["id"] for row in rows(conn, "select id from printings where oracle_id = ?", (oracle_id,))}
    lists = rows(conn, f"select {columns} from documents where format = 'scryfall-rulings' and {read} and url is not null")
    listed += [document for document in lists
               if (card_id := RULINGS_LIST_URL.search(document["url"])) and card_id[1] in printing_ids]
    documents = list({document["id"]: document for document in listed}.values())[:10]
    # A bulk file made before any printing of the card we hold lists none of its rulings perhaps
    # because it could not: said so, not "lists none" as if read for them (a player's review).
    # Only "may": the printings held may not be the card's first (oracle_cards holds one), and
    # rulings come out before a set's release day (a code review).
    earliest_held = conn.execute(
        f"select min({set_and_day(conn)[2]}) from printings where oracle_id = ?", (oracle_id,)).fetchone()[0]
    for document in documents:
        made = file_date(document)
        document["made_on"] = made
        document["made_before_printings"] = earliest_held if made and earliest_held and made < earliest_held else None
    return documents


def file_date(document: dict[str, Any]) -> str | None:
    """The day a file says it was made (an MTGJSON file's meta.date), or a bulk rulings file was
    made (its name says it) or else fetched; None for other documents."""
    if document["made_on"]:
        return str(document["made_on"])
    if document["format"] != "scryfall-bulk-rulings":
        return None
    return bulk_file_day(document["url"] or document["path"]) or (document["fetched_at"] or "")[:10] or None


def pages_listing_none(conn: sqlite3.Connection, document_ids: list[int]) -> list[dict[str, Any]]:
    """Of these documents, those read whole that show a card's rulings (a Gatherer page, an
    MTGJSON file): a card known only by them, with no rulings, is one they list none for."""
    if not document_ids:
        return []
    marks = ", ".join("?" for _ in document_ids)
    return rows(conn, f"""select {document_columns(conn)} from documents
        where documents.id in ({marks}) and {READ_WHOLE} and {SHOWS_A_CARDS_RULINGS}
        order by documents.lang, documents.id limit 10""", tuple(document_ids))


def oracle_source(conn: sqlite3.Connection, document_id: int | None) -> dict[str, Any] | None:
    """The document a card's Oracle text was read from, and when: card data of 2019 says "enters
    the battlefield", and the page gave it as today's wording (a player's review)."""
    if document_id is None:
        return None
    found = rows(conn, f"select {document_columns(conn)} from documents where documents.id = ?", (document_id,))
    return found[0] if found else None


def oracle_as_shown(conn: sqlite3.Connection, printings: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The Oracle wording a document gave for a card no card data holds yet (an old Gatherer page
    in its Oracle view; an MTGJSON card without its Oracle id), with the document and the day it
    was read: the card's wording of that day."""
    shown = next((printing for printing in printings if printing["oracle_text"] or printing["type_line"]), None)
    if shown is None:
        return None
    document = oracle_source(conn, shown["document_id"]) or {}
    keys = ("mana_cost", "type_line", "oracle_text", "power", "toughness", "loyalty", "defense")
    return {
        **{key: shown[key] for key in keys},
        "source_url": document.get("url"),
        "source_path": document.get("path"),
        **{key: document.get(key) for key in ("fetched_at", "made_on", "source_id", "format")},
    }
