"""A card's faces, printings and names as its page shows them: each face whole, each language's
printed wordings with the printings that carry them, a multi-faced card's names in face order."""
from __future__ import annotations

import json
import sqlite3
from collections import Counter
from typing import Any

from kb.normalise.text import BRACED_SYMBOL, lost_line_breaks, text_with_lines_restored
from kb.records import FACE_SEPARATOR, FACE_TEXT_SEPARATOR
from kb.site.search import rows
from kb.site.search_db import columns_of, table_exists
from kb.site.search_names import display_name

# A basic land has thousands of printings: a card page lists this many at most.
CARD_PAGE_PRINTINGS_LIMIT = 1000


def set_and_day(conn: sqlite3.Connection) -> tuple[str, str, str]:
    """The select list giving a printing's set name and release day, the join it needs, and the
    day's expression: on a file made before the sets table and printings' days (m029, m030),
    none, not a 500 on every card page (an upgrade's review). A set named without its code (a
    Gatherer printed page's "Innistrad") is named by the printing itself (m035)."""
    has_sets = table_exists(conn, "sets")
    printing_columns = columns_of(conn, "printings")
    day = "printings.released_at" if "released_at" in printing_columns else "null"
    name = "sets.name" if has_sets else "null"
    if "set_name" in printing_columns:
        name = f"coalesce({name}, printings.set_name)"
    join = "left join sets on sets.code = upper(printings.set_code)" if has_sets else ""
    return f"{name} as set_name, {day} as released_at", join, day


def printed_by_language(conn: sqlite3.Connection, oracle_id: str) -> tuple[list[dict[str, Any]], bool]:
    """The card's printings, language by language (English first): each wording a language was
    printed with (name, type line, text; a reprint may be translated anew) and the printings
    (set and collector number) that carry it. English printings carry the Oracle text, not a
    printed one of their own. The first ``CARD_PAGE_PRINTINGS_LIMIT`` printings, and whether the
    card has more (the page says the list is cut)."""
    named, join, day = set_and_day(conn)
    found = rows(
        conn,
        f"""select lang, printed_name, printed_type_line, printed_text, upper(set_code) as set_code,
        collector_number, {named} from printings {join} where oracle_id = ?
        order by lang = 'en' desc, lang, {day} is null, {day}, set_code,
        cast(collector_number as integer), collector_number limit ?""",
        (oracle_id, CARD_PAGE_PRINTINGS_LIMIT + 1),
    )
    capped = len(found) > CARD_PAGE_PRINTINGS_LIMIT
    oracle = rows(conn, "select oracle_text, mana_cost, type_line from cards where oracle_id = ?", (oracle_id,))
    oracle_text = oracle[0]["oracle_text"] if oracle else None
    costs = oracle[0]["mana_cost"] if oracle else None
    type_line = oracle[0]["type_line"] if oracle else None
    languages: dict[str, dict[tuple[str | None, str | None, str | None], list[dict[str, Any]]]] = {}
    for row in found[:CARD_PAGE_PRINTINGS_LIMIT]:
        wording = (row["printed_name"], row["printed_type_line"], row["printed_text"])
        if row["lang"] == "en":
            # An English printing whose printed wording is today's Oracle wording (MTGJSON's
            # originalText) was said to carry "Oracle text above" and then printed it again (a
            # player's review): only a wording of its own is shown.
            wording = (wording[0], None if wording[1] == type_line else wording[1],
                       None if wording[2] == oracle_text else wording[2])
        languages.setdefault(row["lang"], {}).setdefault(wording, []).append(
            {key: row[key] for key in ("set_code", "collector_number", "set_name", "released_at")}
        )
    return [
        {"lang": lang, "wordings": [
            {"printed_name": name, "printed_type_line": type_line, **(shown := shown_text(lang, text, oracle_text)),
             "faces": printed_faces(name, type_line, shown["restored_text"] or text), "printings": printings,
             "symbols_differ": symbols_differ(lang, text, oracle_text, costs)}
            for (name, type_line, text), printings in wordings.items()
        ]}
        for lang, wordings in languages.items()
    ], capped


def symbols_differ(lang: str, printed: str | None, oracle_text: str | None, costs: str | None) -> dict[str, str] | None:
    """The mana and tap symbols a translated wording prints otherwise than today's Oracle text:
    Korean Ainok Tracker's "변이 {4}{B}" where Oracle has Morph {4}{R} (a player's review). None
    where they agree, a face's cost printed as a hint of the other face aside (a modal card's
    "Vogel {1}{U}"). A misprint, or an older wording of the card: the page says either."""
    if lang == "en" or not printed or not oracle_text:
        return None
    in_printed, in_oracle = Counter(BRACED_SYMBOL.findall(printed)), Counter(BRACED_SYMBOL.findall(oracle_text))
    extra = in_printed - in_oracle - Counter(BRACED_SYMBOL.findall(costs or ""))
    missing = in_oracle - in_printed
    if not extra and not missing:
        return None
    return {"printed": "".join(sorted(extra.elements())), "oracle": "".join(sorted(missing.elements()))}


def shown_text(lang: str, printed: str | None, oracle_text: str | None) -> dict[str, Any]:
    """A wording's text as the page shows it: ``printed_text`` as its source printed it; where
    the source lost its line breaks (each line glued to the next, ``lost_line_breaks``),
    ``lines_lost`` and, when each break is plain, ``restored_text``: the text cut where its lines
    ended, shown marked as such with the printed text beside it."""
    lost = bool(printed and oracle_text and lang != "en" and lost_line_breaks(printed, oracle_text))
    restored = text_with_lines_restored(printed, oracle_text) if lost and printed and oracle_text else None
    return {"printed_text": printed, "lines_lost": lost, "restored_text": restored}


def printed_faces(name: str | None, type_line: str | None, text: str | None) -> list[dict[str, str]]:
    """A multi-faced printing's name, type line and text face by face, where each field holds as
    many faces as the name: the fields are stored joined, a face without a type line or text left
    out of the join, so any other count cannot say which part is whose (then: none)."""
    if not name or not type_line or not text or FACE_SEPARATOR not in name:
        return []
    names, types, texts = name.split(FACE_SEPARATOR), type_line.split(FACE_SEPARATOR), text.split(FACE_TEXT_SEPARATOR)
    if not len(names) == len(types) == len(texts):
        return []
    return [{"name": n, "type_line": t, "text": x} for n, t, x in zip(names, types, texts, strict=True)]


def faces_in_order(names: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each language's names (``names`` grouped by language) with a multi-faced card's whole
    name first and its faces next, in the order that name gives them (front before back, not
    alphabetical); any other name after them as it was. A name the page would show as one
    already listed in its language is left out: a reversible card's whole name "X // X" is shown
    as its face's "X"."""
    wholes: dict[str, list[str]] = {}
    for row in names:
        if FACE_SEPARATOR in row["name"] and row["lang"] not in wholes:
            wholes[row["lang"]] = [row["name"], *row["name"].split(FACE_SEPARATOR)]

    def key(row: dict[str, Any]) -> tuple[int, int]:
        whole = wholes.get(row["lang"], [])
        if row["name"] in whole[:1]:
            return 0, 0
        faces = whole[1:]
        return (1, faces.index(row["name"])) if row["name"] in faces else (2, 0)

    languages = list(dict.fromkeys(row["lang"] for row in names))
    in_order = [row for lang in languages for row in sorted((r for r in names if r["lang"] == lang), key=key)]
    shown: set[tuple[str, str]] = set()
    once = []
    for row in in_order:
        as_shown = (row["lang"], display_name(row["name"]))
        if as_shown not in shown:
            shown.add(as_shown)
            once.append(row)
    return once


def with_faces(card: dict[str, Any]) -> dict[str, Any]:
    """The card row with ``card_faces`` read (a list; empty for a one-faced card or a file made
    before faces were kept apart)."""
    faces = card.get("card_faces")
    return {**card, "card_faces": json.loads(faces) if faces else []}
