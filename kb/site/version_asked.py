"""Which CR version a request names: ``?version=`` and ``?from=`` as readers type them (an id in
any case, a language, a bare date), and whether a version is held."""
from __future__ import annotations

import re
import sqlite3

from kb.normalise.dates import iso_day
from kb.site.card_language import scryfall_language


def version_exists(conn: sqlite3.Connection, version: str) -> bool:
    return conn.execute("select 1 from cr_versions where id = ?", (version,)).fetchone() is not None


# A version asked for by a language ("zhs", "EN") or by a bare date ("2015-01-23").
LANGUAGE_ONLY = re.compile(r"[a-z]{2,3}")
# A language as a reader tags it ("zh-Hans", "ko-KR"); letters only: "en-2015-01-24", a date
# mistyped, is no tag of English.
LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(?:[-_][a-z]{2,4})*")
BARE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def version_as_asked(conn: sqlite3.Connection, asked: str) -> str | None:
    """The version id ``asked`` names: its id in any case ("EN-2026-04-17"), a language's newest
    version ("zhs", "EN"), a bare date's English edition ("2015-01-23"); None where it names none.
    "No rule 702.19 in 2015-01-23" was said of a rule that edition has (a judge's review), and the
    contents, version and diff pages said they held no such version (a review's fuzz)."""
    if version_exists(conn, asked):
        return asked
    lowered = asked.strip().lower()
    if version_exists(conn, lowered):
        return lowered
    if LANGUAGE_ONLY.fullmatch(lowered) and (newest := newest_version_of(conn, lowered)):
        return newest
    if BARE_DATE.fullmatch(lowered) and version_exists(conn, f"en-{lowered}"):
        return f"en-{lowered}"
    # A language as a reader tags it: "zh-Hans", "zh-CN", "zh" are the Chinese rules, "ko-KR" the
    # Korean (a 404 while /card read "zh-Hans": a review in the judges' languages).
    if LANGUAGE_TAG.fullmatch(lowered):
        held = {lang for (lang,) in conn.execute("select distinct lang from cr_versions")}
        code = scryfall_language(lowered, held)
        if code is not None:
            return newest_version_of(conn, code)
    return None


def newest_version_of(conn: sqlite3.Connection, lang: str) -> str | None:
    """The newest CR version held in ``lang`` ("zhs" → zhs-2025-02-07), if any."""
    found = conn.execute("select id from cr_versions where lang = ? order by effective_date desc, id desc limit 1",
                         (lang,)).fetchone()
    return found[0] if found else None


def english_edition_on(conn: sqlite3.Connection, date: str) -> dict[str, str | None] | None:
    """The English edition in force on ``date`` among those held: the newest that took effect on
    or before it (``id``, ``effective_date``), and the next one held (``next_id``: an edition not
    held may have come between the two); None before the oldest, or for a text that is no date."""
    if not iso_day(date):
        return None
    found = conn.execute(
        "select id, effective_date from cr_versions where lang = 'en' and effective_date <= ?"
        " order by effective_date desc, id desc limit 1", (date,)).fetchone()
    if found is None:
        return None
    after = conn.execute(
        "select id from cr_versions where lang = 'en' and effective_date > ? order by effective_date, id limit 1",
        (found[1],)).fetchone()
    return {"id": found[0], "effective_date": found[1], "next_id": after[0] if after else None, "date": date}
