"""Which card a name asks for, in any language: its Oracle card, or the page of a card known only
by the names documents printed (Gatherer pages, release notes), spacing and punctuation aside."""
from __future__ import annotations

import sqlite3
from typing import Any

from kb.site.search import fold, rows, table_exists
from kb.site.search_text import one_face_when_alike


def find_card(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    """A name in any language -> ``{"oracle_id": …}`` or, for unlinked pages, ``{"name": …}``."""
    name = one_face_when_alike(name)
    wanted = fold(name)
    if not wanted:
        return None
    exact = rows(conn, "select distinct oracle_id from card_names where name = ? limit 2", (name,))
    if len(exact) == 1:
        return {"oracle_id": exact[0]["oracle_id"]}
    from kb.site.search import fts_query

    match = fts_query(name, prefix_last=False)
    if match:
        candidates = rows(
            conn,
            """select oracle_id, name from card_names where rowid in (
                select rowid from card_names_fts where card_names_fts match ? limit 200)""",
            (match,),
        )
        found = {
            row["oracle_id"] for row in candidates
            if fold(row["name"]) == wanted or wanted in {fold(face) for face in row["name"].split(" // ")}
        }
        if len(found) == 1:
            return {"oracle_id": found.pop()}
        unlinked = rows(
            conn,
            """select distinct card_name from rulings where oracle_id is null and rowid in (
                select rowid from rulings_fts where rulings_fts match ? limit 500)""",
            ("card_name : (" + match + ")",),
        )
        for row in unlinked:
            if fold(row["card_name"]) == wanted:
                return {"name": row["card_name"]}
    recorded = recorded_names(conn, name)
    if recorded:
        return {"name": recorded[0]["name"]}
    return _same_letters(conn, name)


def _same_letters(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    """The one card whose name has the same letters, spaced and punctuated otherwise ("bete de
    guerre d arashin", "Аинок Следопыт"): the search calls it the exact name, and this page
    answered 404."""
    from kb.site.search_names import name_candidates, same_letters
    from kb.site.search_text import compact

    key = compact(name)
    if len(key) < 3:
        return None
    same = same_letters(name_candidates(conn, name), key)
    cards = {row["oracle_id"] for row in same if row["oracle_id"]}
    if len(cards) == 1:
        return {"oracle_id": cards.pop()}
    names = {row["name"] for row in same if not row["oracle_id"]}
    if not cards and len(names) == 1:
        printed = names.pop()
        recorded = recorded_names(conn, printed)  # its card's one page, as for the name as printed
        return {"name": recorded[0]["name"] if recorded else printed}
    return None


def recorded_names(conn: sqlite3.Connection, name: str) -> list[dict[str, Any]]:
    """A name as documents printed it for a card not identified yet (Gatherer printed pages,
    release notes): the rows of ``card_name_records`` with the same folded name, and the names
    of the same card printed by other documents (``same_card_documents``), canonical name first."""
    from kb.normalise.names import name_key

    if not table_exists(conn, "card_name_records"):
        return []
    found = _recorded(conn, "card_name_records.name_key = ?", [name_key(name)])
    if not found:
        return []
    found = _whole_names(conn, name, found) or found
    documents = same_card_documents(conn, sorted({row["document_id"] for row in found}))
    if len(documents) > len({row["document_id"] for row in found}):
        marks = ",".join("?" * len(documents))
        found = _recorded(conn, f"card_name_records.document_id in ({marks})", documents)
    # One page per card: the English name when a document printed it, else the first language;
    # the whole name of a card of faces.
    return sorted(found, key=lambda row: (row["lang"] != "en", " // " not in row["name"], row["lang"], row["name"]))


def _whole_names(conn: sqlite3.Connection, name: str, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The whole name ("Afflicted Deserter // Werewolf Ransacker") the same documents printed for a
    card of which ``name`` is a face: its page and rulings are filed under it (a face's page said
    "Rulings 0": a European judges' review). None where ``name`` is no face."""
    from kb.normalise.names import name_key

    key = name_key(name)
    documents = sorted({row["document_id"] for row in found})
    marks = ",".join("?" * len(documents))
    wholes = _recorded(conn, f"card_name_records.document_id in ({marks}) and card_name_records.name like '% // %'", documents)
    wholes = [row for row in wholes if key in {name_key(face) for face in row["name"].split(" // ")}]
    # A face two cards share ("… // Werewolf Ransacker" twice) names neither: not chosen for it.
    return wholes if len({row["name"] for row in wholes}) == 1 else []


def _recorded(conn: sqlite3.Connection, where: str, params: list[Any]) -> list[dict[str, Any]]:
    return rows(
        conn,
        f"""select card_name_records.lang, card_name_records.name, card_name_records.document_id,
            documents.source_id, documents.url, documents.path
        from card_name_records join documents on documents.id = card_name_records.document_id
        where {where} order by documents.source_id, card_name_records.id limit 20""",
        params,
    )


def same_card_documents(conn: sqlite3.Connection, document_ids: list[int]) -> list[int]:
    """The documents showing the same printing as these (same set code and collector number,
    whatever the language): Gatherer's German, French and Japanese pages of Magic 2012 #165
    are one card even while no card data names it."""
    if not document_ids:
        return []
    marks = ",".join("?" * len(document_ids))
    shown = rows(
        conn,
        f"""select distinct upper(set_code) as set_code, collector_number from printings
        where document_id in ({marks}) and set_code is not null and set_code != ''
        and collector_number is not null and collector_number != '' limit 20""",
        document_ids,
    )
    found = dict.fromkeys(document_ids)
    for printing in shown:
        for row in rows(
            conn,
            """select distinct document_id from printings where collector_number = ?
            and upper(set_code) = ? and oracle_id is null and document_id is not null limit 50""",
            (printing["collector_number"], printing["set_code"]),
        ):
            found.setdefault(row["document_id"])
    return list(found)
