"""The sets printings are of: each set's English name and first day (``sets``), and the days
of printings whose file dates them by their set (MTGJSON)."""
from __future__ import annotations

from collections.abc import Iterable

import sqlite_utils

from kb.records import CardRecord

# A set's (English name, release day) by its code, upper case.
SetDays = dict[str, tuple[str | None, str | None]]


def _earlier(day: str | None, other: str | None) -> str | None:
    return min(day, other) if day and other else day or other


def sets_named_by(cards: Iterable[CardRecord]) -> SetDays:
    """The sets these printings name, by code (upper case): the first name given, the earliest day."""
    sets: SetDays = {}
    for card in cards:
        if not card.set_code or not (card.set_name or card.released_at):
            continue
        code = card.set_code.upper()
        name, day = sets.get(code, (None, None))
        sets[code] = (name or card.set_name, _earlier(day, card.released_at))
    return sets


def save_sets(db: sqlite_utils.Database, sets: SetDays, document_id: int) -> None:
    """Each set (code: English name, earliest release day) once.

    A source that gives a day (card data) is taken over one that gives a name only (a Gatherer
    page), whichever was imported first; between two alike the first name read stays (so the
    order of imports changes no name but where two card files disagree)."""
    sets = {code: (name, day) for code, (name, day) in sets.items() if name or day}
    if not sets:
        return
    db.conn.executemany(
        "insert into sets (code, name, released_at, document_id) values (?, ?, ?, ?)"
        " on conflict(code) do update set"
        " name = case when released_at is null and excluded.released_at is not null"
        " then coalesce(excluded.name, name) else coalesce(name, excluded.name) end,"
        " document_id = case when released_at is null and excluded.released_at is not null"
        " then excluded.document_id else document_id end,"
        " released_at = case when released_at is null or excluded.released_at < released_at"
        " then coalesce(excluded.released_at, released_at) else released_at end",
        [(code, name, day, document_id) for code, (name, day) in sorted(sets.items())],
    )


def date_printings_by_their_sets(
    db: sqlite_utils.Database, sets: SetDays, document_id: int
) -> None:
    """Give this document's printings of each set the set's day where they have none: MTGJSON
    dates a printing by its set, whose day its file gives after the set's cards (a stream saved
    them undated: Ugin's Fate's printings showed no day, though its set had one; a player's review)."""
    # One statement over the document's printings (one per set read them all for each of
    # AllPrintings' ~800 sets: 45 s of a 230k-printing import; a code review).
    db.conn.execute("create temp table if not exists set_days (code text primary key, day text)")
    db.conn.execute("delete from temp.set_days")
    db.conn.executemany("insert into temp.set_days values (?, ?)", [(code, day) for code, (_name, day) in sets.items() if day])
    db.conn.execute(
        "update printings set released_at = (select day from temp.set_days where code = upper(printings.set_code))"
        " where document_id = ? and released_at is null and upper(set_code) in (select code from temp.set_days)",
        [document_id],
    )
    db.conn.execute("delete from temp.set_days")


def save_file_sets(db: sqlite_utils.Database, sets: SetDays, document_id: int) -> None:
    """The sets a file names apart from its printings (MTGJSON: after each set's cards), and
    their days given to the file's printings no source dated."""
    save_sets(db, sets, document_id)
    date_printings_by_their_sets(db, sets, document_id)
