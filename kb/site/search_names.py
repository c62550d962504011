"""Card names in the one-box search: exact, punctuation- and spacing-blind, and spelling suggestions.

Every lookup is bounded: exact names through the ``name`` and ``name_key`` indexes, the rest
through a few hundred candidates read by index range (the first letters of the name) or by a
prefix full-text probe, then compared in Python.
"""
from __future__ import annotations

import dataclasses
import html
import json
import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import Any

from kb.site.search_db import card_url, rows, table_exists
from kb.site.search_hit import Hit
from kb.site.search_text import NOT_WORD, allowed_slips, close_enough, compact, fold, fts_query, has_cjk
from kb.store.schema import english_name_known

CANDIDATES = 400
# A one-word name misspelt in its first letters ("pradiesvögel", "wldruf") shares no first letters
# with the name: its candidates are the names beginning as a word one slip away from it in its
# first five letters does (a few hundred index probes, each bounded; four letters left "wldruf"
# beyond the fifty names a common beginning such as "wild" reads).
SLIPPED_PREFIX = 5
PER_SLIPPED_PREFIX = 50
LATIN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Folded: "й" is "и" and "ё" is "е" (``fold``).
CYRILLIC_LETTERS = "абвгдежзиклмнопрстуфхцчшщъыьэюя"


Candidates = Callable[[], list[dict[str, Any]]]


def cards_by_name(
    conn: sqlite3.Connection, query: str, limit: int, named_elsewhere: bool = False, candidates: Candidates | None = None
) -> list[Hit]:
    """Cards whose name in any language matches; exact (folded or compacted) matches first.

    Names of cards not linked yet are looked up only when nothing else answers the query exactly
    (``named_elsewhere``: a keyword or rule number did): that lookup reads ruling texts' index.
    ``candidates``: the query's ``name_candidates``, read once for this and the suggestions.
    """
    wanted = fold(query)
    found = rows(
        conn,
        """select card_names.oracle_id, card_names.lang, card_names.name, cards.name as english
        from card_names left join cards on cards.oracle_id = card_names.oracle_id
        where card_names.name = ? or card_names.name_key = ? limit ?""",
        (query, wanted, limit),
    )
    match = fts_query(query)
    if match:
        found += rows(
            conn,
            """select card_names.oracle_id, card_names.lang, card_names.name, cards.name as english
            from card_names left join cards on cards.oracle_id = card_names.oracle_id
            where card_names.rowid in (
                select rowid from card_names_fts where card_names_fts match ? limit ?)""",
            (match, limit * 5),
        )
    hits = [card_hit(row, wanted) for row in found]
    if has_cjk(query):
        # A part of a name titled by the name found, as the names found by their letters are
        # (``kb.site.search.cjk_cards``): ウギン titled Ugin's Construct ウギンの構築物 beside "Ugin, the
        # Spirit Dragon" (a foreign player's review). A whole name is the card's English one.
        for hit, row in zip(hits, found, strict=True):
            if row["oracle_id"] and has_cjk(row["name"] or "") and not _exact(hit):
                hit.title, hit.title_lang = display_name(row["name"]), row["lang"]
    # A name matched as typed is the language the card opens in: the Spanish "Mómir Vig, visionario
    # simic" is the Italian name folded, and the two made a hit opening in neither (``unique``).
    # Not a name two languages print alike ("Constructo de Ugin", Spanish and Portuguese).
    typed = [hit for hit, row in zip(hits, found, strict=True) if row["name"] == query]
    pages = Counter(page_of(url) for url in {hit.url for hit in typed})
    as_typed: dict[str, Hit] = {}
    for hit in typed:
        page = page_of(hit.url)
        # The English name before another language's that prints it alike (the Italian
        # "Phelddagrif" is the English one: the hit said Italian, by the rows' order; a code review).
        if pages[page] == 1 and (page not in as_typed or hit.lang == "en"):
            as_typed[page] = hit
    hits = [hit for hit in hits if as_typed.get(page_of(hit.url), hit) is hit]
    key = compact(query)
    # Three letters at least: a one- or two-letter name ("X", "Ow") is found exactly above, and
    # "a" would read hundreds of candidates to find nothing more.
    if len(key) >= 3 and not any(hit.detail.startswith("exact") for hit in hits):
        # "jace vryns prodigy", "Ugins Construct": the same letters, other spacing and punctuation.
        same = same_letters(candidates() if candidates else name_candidates(conn, query), key)
        linked = [card_hit(row, fold(row["name"])) for row in with_english(conn, same) if row["oracle_id"]]
        hits += linked or [unlinked_card_hit(row["name"], row["lang"], True) for row in same]
    if not named_elsewhere and not any(hit.detail.startswith("exact") for hit in hits):
        hits += unlinked_cards_by_name(conn, query, wanted, limit)
    hits.sort(key=lambda hit: not hit.detail.startswith("exact"))
    return unique(hits)[:limit]


def same_letters(candidates: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The candidates whose name, or one face of it, has the letters ``key`` holds (``compact``)."""
    return [row for row in candidates
            if any(compact(name) == key for name in (row["name"], *(row["name"] or "").split(" // ")))]


def unique(hits: list[Hit]) -> list[Hit]:
    """Each page once. A card found by names of two languages (Spanish and Portuguese "Constructo
    de Ugin") is one hit, leading to its page in neither (``page_of``); found exactly by one and in
    part by another, it leads to the exact one's ("Momir Vig, Simic-Visionär" exactly German, and
    its "visionär" a prefix of the English "Visionary": the JSON's link had lost its ``?lang=de``,
    a foreign players' review)."""
    kept: dict[str, int] = {}
    found: list[Hit] = []
    for hit in hits:
        page = page_of(hit.url)
        if page not in kept:
            kept[page] = len(found)
            found.append(hit)
            continue
        first = found[kept[page]]
        if first.url != hit.url and not (_exact(first) and not _exact(hit)):
            found[kept[page]] = dataclasses.replace(first, url=page)
    return found


def _exact(hit: Hit) -> bool:
    return hit.detail.startswith("exact")


def page_of(url: str) -> str:
    """A hit's page whatever language it opens in: ``url`` without its ``lang=`` (``card_hit``)."""
    if "lang=" not in url:
        return url
    path, _, query = url.partition("?")
    query, hash_mark, anchor = query.partition("#")
    kept = [part for part in query.split("&") if part and not part.startswith("lang=")]
    return path + ("?" + "&".join(kept) if kept else "") + hash_mark + anchor


def card_hit(row: dict[str, Any], wanted: str) -> Hit:
    faces = (row["name"] or "").split(" // ")
    exact = fold(row["name"]) == wanted or any(fold(face) == wanted for face in faces)
    english = display_name(row["english"] or row["name"])
    name = display_name(row["name"])
    snippet = html.escape(name) if name == english else (
        f"{html.escape(name)} <span class=\"lang\">{html.escape(row['lang'])}</span>"
    )
    # A name in another language leads to the card's page in it: its printing under the Oracle text
    # (a card found by part of its German name, or offered for a misspelt one, opened in English);
    # not where the English name holds the query too ("Jace" is in every language's name of Jace).
    local = row["lang"] not in (None, "en") and not (row["english"] and wanted and wanted in fold(row["english"]))
    url = card_url(row["oracle_id"]) + (f"?lang={row['lang']}" if local else "")
    return Hit("card", english, url, snippet, row["lang"],
               ("exact " if exact else "") + "name", title_lang=None if row["english"] else row["lang"])


def display_name(name: str) -> str:
    """A reversible card prints one name on both faces: "Okaun, Eye of Chaos", not "X // X"."""
    faces = name.split(" // ")
    return faces[0] if len(faces) > 1 and len(set(faces)) == 1 else name


def unlinked_cards_by_name(conn: sqlite3.Connection, query: str, wanted: str, limit: int) -> list[Hit]:
    """Cards known only by the name a localized page printed (no Oracle card yet)."""
    match = fts_query(query, prefix_last=False)
    if not match:
        return []
    # The name exactly as a page printed it (an index lookup); the full-text index of ruling
    # texts is not used: its doclists for common words grow with every ruling.
    found = rows(
        conn,
        """select distinct card_name, card_name_lang from rulings
        where card_name = ? and oracle_id is null limit ?""",
        (query, limit),
    )
    if table_exists(conn, "card_name_records_fts"):
        # Names documents printed for cards not identified yet (no ruling needed: a Gatherer
        # printed page, a release-notes card). NOT EXISTS probes the index once per name.
        found += rows(
            conn,
            """select distinct name as card_name, lang as card_name_lang from card_name_records as records
            where rowid in (select rowid from card_name_records_fts where card_name_records_fts match ? limit ?)
            and not exists (select 1 from card_names where card_names.name_key = records.name_key)""",
            (match, limit * 5),
        )
    return [unlinked_card_hit(row["card_name"], row["card_name_lang"], fold(row["card_name"]) == wanted)
            for row in found]


def unlinked_card_hit(name: str, lang: str | None, exact: bool) -> Hit:
    return Hit("card", name, card_url(None, name),
               html.escape(name) + ' <span class="unlinked" lang="en">not yet linked to an Oracle card</span>',
               lang, ("exact " if exact else "") + "unlinked name", title_lang=lang)


def name_candidates(conn: sqlite3.Connection, query: str) -> list[dict[str, Any]]:
    """A few hundred names that share the query's first letters (index ranges, prefix probes)."""
    folded = fold(query)
    words = [word for word in NOT_WORD.split(folded) if word]
    if not words:
        return []
    found: list[dict[str, Any]] = []
    # Without the English name: it is read for the few candidates that match (``with_english``),
    # not for hundreds of names that share three letters.
    select = "select card_names.oracle_id, card_names.lang, card_names.name, null as english from card_names"
    prefix = words[0][:1] if has_cjk(words[0]) else words[0][:3]
    found += rows(conn, f"{select} where card_names.name_key >= ? and card_names.name_key < ? limit ?",
                  (prefix, prefix + "\U0010ffff", CANDIDATES))
    if has_cjk(prefix) and table_exists(conn, "card_name_records"):
        # The names release notes and pages printed for cards not identified yet, by the same first
        # character: "반역행위" typed without its space is "반역 행위" (the Korean M20 notes).
        found += rows(
            conn,
            """select null as oracle_id, lang, name, null as english from card_name_records
            where name_key >= ? and name_key < ? and oracle_id is null limit ?""",
            (prefix, prefix + "\U0010ffff", CANDIDATES),
        )
    probes = " OR ".join(f'"{word[:3]}"*' for word in words[:4] if len(word) >= 3 and not has_cjk(word))
    if probes:
        found += rows(
            conn,
            f"""{select} where card_names.rowid in (
                select rowid from card_names_fts where card_names_fts match ? limit ?)""",
            (probes, CANDIDATES),
        )
        if table_exists(conn, "card_name_records_fts"):
            found += rows(
                conn,
                """select null as oracle_id, lang, name, null as english from card_name_records
                where rowid in (select rowid from card_name_records_fts where card_name_records_fts match ? limit ?)""",
                (probes, CANDIDATES),
            )
    return found


def slipped_prefixes(word: str) -> set[str]:
    """The first ``SLIPPED_PREFIX`` letters of the words one slip (a letter missing, extra, wrong,
    or two swapped) away from ``word`` where the slip falls among those letters, other than its own.
    Latin and Cyrillic words; none for a shorter word or another script."""
    letters = CYRILLIC_LETTERS if word[:1] in CYRILLIC_LETTERS else LATIN_LETTERS
    if len(word) <= SLIPPED_PREFIX or any(letter not in letters for letter in word[:SLIPPED_PREFIX + 1]):
        return set()
    head = word[:SLIPPED_PREFIX + 1]
    variants = {head[:cut] + head[cut + 1:] for cut in range(SLIPPED_PREFIX)}
    variants |= {head[:cut] + head[cut + 1] + head[cut] + head[cut + 2:] for cut in range(SLIPPED_PREFIX - 1)}
    variants |= {head[:cut] + letter + head[cut + 1:] for cut in range(SLIPPED_PREFIX) for letter in letters}
    variants |= {head[:cut] + letter + head[cut:] for cut in range(SLIPPED_PREFIX) for letter in letters}
    return {variant[:SLIPPED_PREFIX] for variant in variants if len(variant) >= SLIPPED_PREFIX} - {word[:SLIPPED_PREFIX]}


def slipped_prefix_candidates(conn: sqlite3.Connection, query: str) -> list[dict[str, Any]]:
    """Names beginning as the one-word ``query`` would with a slip in its first letters
    (``slipped_prefixes``), at most ``PER_SLIPPED_PREFIX`` a beginning: what ``name_candidates``
    cannot find by the query's own first letters: one bounded index probe a beginning, all of
    them in one statement (a statement each was 230 of them, 2.8 ms)."""
    prefixes = sorted(slipped_prefixes(compact(query)))
    if not prefixes:
        return []
    tables = ["card_names", *(["card_name_records"] if table_exists(conn, "card_name_records") else [])]
    # Each beginning's names in the index's order, the cards' before the records'.
    probes = " union all ".join(
        f"""select prefix.key as prefix_order, {order} as table_order, named.name_key, named.rowid as row_order,
            named.oracle_id, named.lang, named.name
        from json_each(:prefixes) as prefix cross join {table} as named on named.rowid in (
            select rowid from {table} where name_key >= prefix.value and name_key < prefix.value || char(1114111)
            limit {PER_SLIPPED_PREFIX})"""
        for order, table in enumerate(tables)
    )
    found = rows(conn, f"""select oracle_id, lang, name, null as english, table_order from ({probes})
        order by prefix_order, table_order, name_key, row_order""", {"prefixes": json.dumps(prefixes)})
    # The records' names not linked to a card are kept after the limit, not asked for in it: a
    # beginning most of whose records are linked was read whole (24 ms for "zanr").
    return [{key: row[key] for key in ("oracle_id", "lang", "name", "english")}
            for row in found if row["table_order"] == 0 or row["oracle_id"] is None]


def with_english(conn: sqlite3.Connection, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``found`` with each linked row's ``english`` name filled in (one query for all of them): its
    card data's, else the name its own rulings call it by (``ruling_card_name``: Deathrite
    Shaman's rulings were "card not identified" in the search, its page named it; a player's review)."""
    wanted = sorted({row["oracle_id"] for row in found if row["oracle_id"] and row.get("english") is None})
    if wanted:
        marks = ",".join("?" * len(wanted))
        by_rulings = f"coalesce(name, {english_name_known('cards.oracle_id')})" if table_exists(conn, "card_names") else "name"
        english = dict(conn.execute(f"select oracle_id, {by_rulings} from cards where oracle_id in ({marks})", wanted))
        for row in found:
            if row["oracle_id"] and row.get("english") is None:
                row["english"] = english.get(row["oracle_id"])
    return found


def name_suggestions(
    conn: sqlite3.Connection, query: str, candidates: Candidates | None = None
) -> list[tuple[int, Hit]]:
    """Card names one or two typing slips away from ``query``, nearest first (``suggested``)."""
    key = compact(query)
    return suggested(conn, key, candidates() if candidates else name_candidates(conn, query))


def slipped_name_suggestions(conn: sqlite3.Connection, query: str) -> list[tuple[int, Hit]]:
    """For a one-word query, card names a slip away in their first letters ("pradiesvögel",
    "wldruf"), which share no first letters with it (``slipped_prefix_candidates``): asked for
    only when nothing else read the query, where "muntain" is read as the rules' "mountain"."""
    if len(NOT_WORD.sub(" ", fold(query)).split()) != 1:
        return []
    return suggested(conn, compact(query), slipped_prefix_candidates(conn, query))


def suggested(conn: sqlite3.Connection, key: str, found: list[dict[str, Any]]) -> list[tuple[int, Hit]]:
    """The names of ``found`` a typing slip or two from the query's ``key``, nearest first, each
    titled by the name it resembles in that name's language ("Lame d'ectofeu", French, not
    "Ghostfire Blade" badged French), once: a release note's record of a name a card prints is
    that card."""
    allowed = allowed_slips(key)
    close: list[tuple[dict[str, Any], str, int]] = []
    for row in found:
        for name in {row["name"], *(row["name"] or "").split(" // ")}:
            distance = close_enough(key, compact(name), allowed)
            if distance is not None:
                close.append((row, name, distance))
    with_english(conn, [row for row, _, _ in close])
    scored: dict[str, tuple[int, bool, Hit]] = {}
    english: dict[str, str] = {}
    for row, name, distance in close:
        linked = bool(row["oracle_id"])
        hit = card_hit(row, fold(name)) if linked else unlinked_card_hit(name, row["lang"], False)
        hit.detail = "suggestion"
        hit.snippet = html.escape(name)
        english[hit.url] = hit.title
        if linked and row["lang"] not in (None, "en"):
            hit.title, hit.title_lang = display_name(name), row["lang"]
        if hit.url not in scored or distance < scored[hit.url][0]:
            scored[hit.url] = (distance, linked, hit)
    kept: list[tuple[int, Hit]] = []
    named: set[str] = set()
    # Nearest first; of equals, a card before a name not linked to one. A name not linked that is
    # a card's suggested name or one of its faces, in any language, is that card ("Jace, Vryn's
    # Prodigy"; "Phelddagrif", which German prints too).
    for distance, linked, hit in sorted(scored.values(), key=lambda entry: (entry[0], not entry[1])):
        if not linked and fold(hit.title) in named:
            continue
        kept.append((distance, hit))
        named |= {fold(face) for face in hit.title.split(" // ")}
    # Two cards one language names alike: told apart by their English names.
    titles = Counter((hit.title, hit.lang) for _, hit in kept)
    for _, hit in kept:
        if titles[(hit.title, hit.lang)] > 1 and english[hit.url] != hit.title:
            hit.title = f"{hit.title} ({english[hit.url]})"
    return kept
