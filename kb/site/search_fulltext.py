"""Glossary entries, rulings and translations by their text, and the marked snippets, for the one-box search.

Nothing here ranks, sorts or even visits every match: each full-text query reads at most a
bounded number of index matches (an inner ``LIMIT`` on the FTS5 table, before any join or
filter) and orders that window in Python. FTS5's ``rank`` (bm25) is never asked for: computing
it for even one row reads every row that contains each query word ("the": all of them). A
window that fills up makes its group's count a lower bound ("300+"). Rules have their own
module (``search_rules``): every CR version shares their index.
"""
from __future__ import annotations

import html
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from itertools import groupby
from typing import Any, TypeVar
from urllib.parse import quote

from kb.link.keyword_vocabulary import AMBIGUOUS, STOP_WORDS
from kb.site.search_db import (
    card_url,
    newest_english_version,
    newest_ruling_ids,
    newest_versions,
    per_file,
    rows,
    table_exists,
)
from kb.site.search_hit import LAST_OFFSET, Hit
from kb.site.search_names import with_english
from kb.site.search_prefix import prefix_as_words
from kb.site.search_text import (
    WORD,
    bare_term,
    fold,
    has_cjk,
    highlight,
    is_obsolete_term,
    stem,
    title_key,
)
from kb.store.schema import ruling_card_name

TEXT_WINDOW = 100  # rulings, translations, glossary entries


Found = TypeVar("Found")


def words_first(
    fetch: Callable[[str], list[Found]], match: str, window: int, conn: sqlite3.Connection, index: str
) -> list[Found]:
    """``fetch(match)``, but the words exactly as typed first: the last word as a prefix
    ("transform" also finds "transforms") is asked for only when they do not fill ``window``,
    and then as the words of ``index`` it begins (``kb.site.search_prefix``).

    A prefix query merges the index entries of every word it begins (milliseconds for
    "creature*" over a million rulings); the exact words stop after the window's rows. The
    caller passes the same ``window`` for every page of a group, so its pages never mix the two."""
    if holds_none(conn, index, match):
        return []
    if match.endswith("*"):
        exact = fetch(match[:-1])
        if len(exact) >= window:
            return exact
        match = prefix_as_words(conn, index, match)
    return fetch(match)


# The one-box's own expressions: quoted words, the last one perhaps a prefix.
PLAIN_WORDS = re.compile(r'^(?:"[^"]*"\s*)+\*?$')
QUOTED = re.compile(r'"([^"]*)"')
# Fewer words than this: the query itself costs no more than a probe would.
PROBE_FROM_WORDS = 5
# Words this short ("the", "it", "of", "at", "s") are in most rows: FTS5 walks their entries.
TELLING_LENGTH = 4


def holds_none(conn: sqlite3.Connection, index: str, match: str) -> bool:
    """Whether a long query of plain words certainly matches nothing in ``index``: when no row
    holds even its longer words (any of its words, all of which a match must hold), no row holds
    them all. A pasted card sentence that nothing holds took 3–4 ms a full-text index at a million
    rulings, its short words' entries walked in step; its longer words alone answer in 0.3 ms."""
    if not PLAIN_WORDS.match(match):
        return False
    words = QUOTED.findall(match)
    exact = words[:-1] if match.endswith("*") else words
    telling = [word for word in exact if len(word) >= TELLING_LENGTH]
    if len(words) < PROBE_FROM_WORDS or not telling or len(telling) == len(words):
        return False
    probe = " ".join(f'"{word}"' for word in telling)
    return conn.execute(f"select 1 from {index} where {index} match ? limit 1", (probe,)).fetchone() is None


def mark_words(text: str | None, query: str, width: int = 90) -> str:
    """Escaped text around the query's words, each marked (the words as typed, any case)."""
    text = text or ""
    pattern = words_pattern(query)
    if pattern is None:
        return html.escape(text[: width * 2])
    first = pattern.search(text)
    start = max(0, first.start() - width) if first else 0
    end = min(len(text), start + width * 2 + (first.end() - first.start() if first else 0))
    window = text[start:end]
    out, cursor = [], 0
    for found in pattern.finditer(window):
        out.append(html.escape(window[cursor : found.start()]) + "<mark>" + html.escape(found.group(0)) + "</mark>")
        cursor = found.end()
    out.append(html.escape(window[cursor:]))
    return ("…" if start else "") + "".join(out) + ("…" if end < len(text) else "")


@lru_cache(maxsize=256)
def words_pattern(query: str) -> re.Pattern[str] | None:
    """The query's words (and what follows a word: "transform" marks "transforms") as one pattern;
    a word is marked where a word starts ("other" marked "an<mark>other</mark>"), CJK anywhere."""
    words = [word for word in WORD.findall(query) if len(word) > 1 or has_cjk(word)][:12]
    if not words:
        return None
    # Each run of words that are not CJK under one look-behind, the words in their order: the
    # same matches, and a place inside a word is passed over once, not once per word (a
    # twelve-word query's snippets five times as fast).
    branches: list[str] = []
    for cjk, run in groupby(words, key=has_cjk):
        escaped = [re.escape(word) for word in run]
        branches += escaped if cjk else [r"(?<!\w)(?:" + "|".join(escaped) + r")\w*"]
    return re.compile("|".join(branches), re.IGNORECASE)


def glossary_by_text(conn: sqlite3.Connection, query: str, match: str, limit: int, shown: int = TEXT_WINDOW) -> list[Hit]:
    """Glossary entries mentioning the query, the newest version's of each term; only the first
    ``shown`` (the hits a page can show) get a marked snippet, the rest are counted.

    A common word's window holds entries of every edition (ids are hashes: no order of editions),
    and a term's snippet was its 2006 definition under a link to today's entry (Sacrifice "from
    the in-play zone"; an English judge's review): an older entry of a term today's glossary
    defines is today's entry where that holds the query's words, else left out (2006's First
    Strike mentions double strike; today's does not). Entries of each language's newest version
    come before older terms the query names as well ("mana burn": today's "Mana Burn
    (Obsolete)", not 2006's "Mana Burn", whose player loses 1 life). The terms the query names
    are read whatever the window holds ("damage": Damage).

    The entries are read without their texts, and the shown ones' texts after: the window's
    hundred texts were a third of a common word's glossary time."""
    found = glossary_entries(conn, terms_named(conn).get(title_key(query), []), GLOSSARY_HEADS)
    found += words_first(lambda expression: rows(
        conn,
        f"""select {GLOSSARY_HEADS}
        from glossary_fts cross join glossary on glossary.rowid = glossary_fts.rowid
        join cr_versions on cr_versions.id = glossary.version_id
        where glossary_fts match ? limit ?""",
        (expression, TEXT_WINDOW),
    ), match, TEXT_WINDOW, conn, "glossary_fts")
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for row in found:
        key = (row["lang"], fold(row["term"]))
        if key not in newest or (row["effective_date"] or "") > (newest[key]["effective_date"] or ""):
            newest[key] = row
    current = newest_versions(conn)
    defined = current_terms(conn)
    older = {key: defined[key[0]][key[1]] for key, row in newest.items()
             if row["version_id"] != current.get(row["lang"]) and key[1] in defined.get(row["lang"], {})}
    if older:
        today = current_entries(conn)
        words = WORD.findall(query.casefold())
        for key, entry_id in older.items():
            entry, held = today.get(entry_id, (None, frozenset()))
            if entry is not None and holds_all(held, words):
                newest[key] = entry
            else:
                del newest[key]
    wanted, wanted_title = fold(query), title_key(query)
    # The term the query names first ("the stack": Stack; "continuous effects": Continuous Effect;
    # "summoning sickness": Summoning Sickness (Informal), a qualifier aside), today's first.
    ordered = sorted(newest.values(), key=lambda row: (
        title_key(bare_term(row["term"])) != wanted_title, row["version_id"] != current.get(row["lang"]),
        fold(row["term"]) != wanted, row["lang"] != "en", fold(row["term"])))
    texts = {entry["id"]: entry["text"] for entry in glossary_entries(
        conn, [row["id"] for row in ordered[:min(shown, limit)] if "text" not in row])}
    return [glossary_hit(
        row["term"], row["lang"],
        mark_words(row["text"] if "text" in row else texts.get(row["id"]), query) if index < shown else "", row["version_id"],
    ) for index, row in enumerate(ordered[:limit])]


GLOSSARY_HEADS = "glossary.id, glossary.term, glossary.version_id, cr_versions.lang, cr_versions.effective_date"
GLOSSARY_COLUMNS = GLOSSARY_HEADS + ", glossary.text"


def glossary_entries(conn: sqlite3.Connection, ids: list[int], columns: str = GLOSSARY_COLUMNS) -> list[dict[str, Any]]:
    """The glossary entries of ``ids`` with their version's language and date (``columns``: the
    entries' text too, or ``GLOSSARY_HEADS``)."""
    if not ids:
        return []
    return rows(conn, f"""select {columns} from glossary join cr_versions on cr_versions.id = glossary.version_id
        where glossary.id in ({", ".join("?" * len(ids))})""", ids)


_CURRENT_TERMS: OrderedDict[tuple, dict[str, dict[str, int]]] = OrderedDict()
_CURRENT_ENTRIES: OrderedDict[tuple, dict[int, tuple[dict[str, Any], frozenset[str]]]] = OrderedDict()
_TERMS_NAMED: OrderedDict[tuple, dict[str, list[int]]] = OrderedDict()
_CURRENT_ENGLISH_TERM_KEYS: OrderedDict[tuple, frozenset[str]] = OrderedDict()


def terms_named(conn: sqlite3.Connection) -> dict[str, list[int]]:
    """Every glossary entry's id by the words a query names its term with (``title_key`` of the
    term without its qualifier: "the stack" and "Stack", "mana burn" and "Mana Burn (Obsolete)"),
    kept per served file."""
    def read(of: sqlite3.Connection) -> dict[str, list[int]]:
        named: dict[str, list[int]] = {}
        for entry_id, term in of.execute("select id, term from glossary"):
            named.setdefault(title_key(bare_term(term)), []).append(entry_id)
        return named

    return per_file(conn, _TERMS_NAMED, read)


def current_english_term_keys(conn: sqlite3.Connection) -> frozenset[str]:
    """The terms of the newest English glossary as a query names them (``title_key`` of the bare
    term: "aura" for "Aura", "triggered ability" for "Triggered Ability"), and the stems of its
    terms of one word ("attach" for "Attach", which "attached" has), kept per served file."""
    def read(of: sqlite3.Connection) -> frozenset[str]:
        version = newest_versions(of).get("en")
        keys = {title_key(bare_term(term)) for (term,) in of.execute("select term from glossary where version_id = ?", (version,))}
        return frozenset(keys | {stem(key) for key in keys if " " not in key})

    return per_file(conn, _CURRENT_ENGLISH_TERM_KEYS, read)


def todays_term_keys(conn: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """Each language's newest glossary's terms as ``spelling_blind_key`` reads them, kept per
    served file."""
    def read(of: sqlite3.Connection) -> dict[str, frozenset[str]]:
        return {lang: frozenset(spelling_blind_key(term) for term in terms) for lang, terms in current_terms(of).items()}

    return per_file(conn, _TODAYS_TERM_KEYS, read)


def todays_obsolete_term_keys(conn: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """Each language's newest glossary's obsolete terms ("Mana Burn (Obsolete)") as
    ``spelling_blind_key`` reads them, kept per served file."""
    def read(of: sqlite3.Connection) -> dict[str, frozenset[str]]:
        return {lang: frozenset(spelling_blind_key(term) for term in terms if is_obsolete_term(term))
                for lang, terms in current_terms(of).items()}

    return per_file(conn, _TODAYS_OBSOLETE_TERM_KEYS, read)


def spelling_blind_key(term: str) -> str:
    """A glossary term without its qualifier, quotes, case, filler words and the endings of its
    words: 2006's '"As though"', "Removed from Combat" and "Ending the Turn" are today's As Though,
    Remove from Combat and End the Turn."""
    words = []
    for word in title_key(bare_term(term)).split():
        for ending in ("ing", "ed", "es", "s", "e"):
            if word.endswith(ending) and len(word) - len(ending) >= 3:
                word = word[: -len(ending)]
                break
        words.append(word)
    return " ".join(words)


_TODAYS_TERM_KEYS: OrderedDict[tuple, dict[str, frozenset[str]]] = OrderedDict()
_TODAYS_OBSOLETE_TERM_KEYS: OrderedDict[tuple, dict[str, frozenset[str]]] = OrderedDict()


def current_terms(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
    """Each language's newest glossary: its entries' ids by folded term, kept per served file."""
    def read(of: sqlite3.Connection) -> dict[str, dict[str, int]]:
        return {lang: {fold(term): entry_id for entry_id, term in of.execute(
                    "select id, term from glossary where version_id = ?", (version_id,))}
                for lang, version_id in newest_versions(of).items()}

    return per_file(conn, _CURRENT_TERMS, read)


def current_entries(conn: sqlite3.Connection) -> dict[int, tuple[dict[str, Any], frozenset[str]]]:
    """Each language's newest glossary entries (``glossary_entries``' rows) by id, with the words
    of their term and text, kept per served file: a common word's window of entries of every
    edition is told today's entry of each term, eighty of them for "the" (a statement of 0.7 ms
    and eighty texts split into words, a search)."""
    def read(of: sqlite3.Connection) -> dict[int, tuple[dict[str, Any], frozenset[str]]]:
        versions = sorted(set(newest_versions(of).values()))
        if not versions:
            return {}
        return {row["id"]: (row, words_in(row["term"] + " " + (row["text"] or ""))) for row in rows(
            of, f"""select {GLOSSARY_COLUMNS} from glossary join cr_versions on cr_versions.id = glossary.version_id
            where glossary.version_id in ({", ".join("?" * len(versions))})""", versions)}

    return per_file(conn, _CURRENT_ENTRIES, read)


def holds_all(held: frozenset[str], words: list[str]) -> bool:
    """Whether a text whose words are ``held`` (``words_in``) holds every one of ``words``
    (folded), the last perhaps as the start of a longer word, as the full-text search asks for
    them."""
    *whole, last = words or [""]
    return all(word in held for word in whole) and (not last or last in held or any(word.startswith(last) for word in held))


def words_in(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text.casefold()))


def glossary_hit(term: str, lang: str, snippet: str, version_id: str) -> Hit:
    return Hit("glossary", term, glossary_url(term, lang), snippet, lang, version_id)


@lru_cache(maxsize=1 << 14)
def glossary_url(term: str, lang: str) -> str:
    # Kept: a common word's search makes a hundred glossary hits to count them (ten are shown).
    return f"/glossary/{quote(term, safe='')}" + ("" if lang == "en" else f"?lang={quote(lang)}")


def windowed(
    conn: sqlite3.Connection, index: str, sql: str, match: str, query: str, offset: int, limit: int
) -> tuple[list[dict[str, Any]], bool, int]:
    """Rows ``offset``..``offset + limit`` of a bounded window of ``sql`` (which matches
    ``index``), best first within each ``TEXT_WINDOW`` rows of the index's order (``relevance``):
    the full match set is never read, let alone sorted. Returns the page, whether more rows match
    past the windows read, and how many rows the windows hold.

    A page past the first window reads whole windows up to it, each ranked on its own, so a row
    stays where every page put it: the longer window sorted whole ranked the first rows anew, and
    paging on repeated rulings an earlier page had shown while others were on no page at all (an
    API user's review); a window cut at the page's end did so within the second (a review of the
    change: "the", 246 rulings, 71 on no page).

    One row past the windows is asked for, so "full" means a row follows: a group of exactly 100
    matches said "100+", and "more" on its last page led to a page of nothing."""
    offset = max(0, min(offset, LAST_OFFSET))
    size = -(-(offset + limit) // TEXT_WINDOW) * TEXT_WINDOW
    found = words_first(lambda expression: rows(conn, sql, (expression, size + 1)), match, TEXT_WINDOW, conn, index)
    following, found = len(found) > size, found[:size]
    words = [word.casefold() for word in WORD.findall(query)]
    ranked: list[dict[str, Any]] = []
    for start in range(0, len(found), TEXT_WINDOW):
        ranked += sorted(found[start : start + TEXT_WINDOW], key=lambda row: relevance(row.get("text"), query, words))
    return ranked[offset : offset + limit], following, len(found)


def relevance(text: str | None, query: str, words: list[str]) -> tuple:
    """A sort key, best first: the query as typed, then more of its words, then shorter texts."""
    folded = (text or "").casefold()
    present = sum(1 for word in words if word in folded)
    return (query.casefold() not in folded, -present, len(folded))


def rulings_by_text(
    conn: sqlite3.Connection, query: str, match: str, offset: int, limit: int
) -> tuple[list[Hit], int, bool]:
    # The cards' English names of the page's rows only: joined in the window, each of a deep
    # page's 1,051 rulings looked its card up to show 25 (6.5 ms of the statement's; 3.0 so).
    found, capped, read = windowed(
        conn,
        "rulings_fts",
        """select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at, rulings.text
        from (select rowid from rulings_fts where rulings_fts match ? limit ?) as hits
        join rulings on rulings.rowid = hits.rowid""",
        match, query, offset, limit,
    )
    with_english(conn, found)
    count = read
    lost = symbols_lost(conn, [row["id"] for row in found])
    return [ruling_hit(row, mark_words(row["text"], query), row["id"] in lost) for row in found], count, capped


LOST_SYMBOLS_NOTE = (' <span class="kb-warning kb-lost-symbols">Some symbols (such as {T} or mana) were lost from this'
                     " ruling where we read it: check the card's official text before relying on it.</span>")


def symbols_lost(conn: sqlite3.Connection, ruling_ids: list[int]) -> set[int]:
    """Those of ``ruling_ids`` a source printed with symbols lost (the card page warned of them,
    the search listed the damaged text as if whole: a page-fidelity review)."""
    if not ruling_ids or not table_exists(conn, "quality_issues"):
        return set()
    return {row[0] for row in conn.execute(
        f"select ruling_id from quality_issues where kind = 'dropped-symbols' and ruling_id in ({','.join('?' * len(ruling_ids))})",
        ruling_ids,
    )}


def ruling_hit(row: dict[str, Any], snippet: str, symbols_were_lost: bool = False) -> Hit:
    if symbols_were_lost:
        snippet += LOST_SYMBOLS_NOTE
    card = row.get("english") or row.get("card_name") or "card not identified"
    url = card_url(row["oracle_id"], row.get("card_name")) + f"#ruling-{row['id']}"
    if not row["oracle_id"] and not row.get("card_name"):
        url = f"/ruling/{row['id']}"
    return Hit("ruling", card.split(" // ")[0] if len(set(card.split(" // "))) == 1 else card, url, snippet, "en",
               row.get("published_at") or "")


def rulings_citing(conn: sqlite3.Connection, number: str, english: str, limit: int) -> list[Hit]:
    """Rulings citing a keyword's rule (``ruling_rules``) or naming the keyword: not by its word
    where rulings say that word in another sense as often (the linker's ``STOP_WORDS`` and
    ``AMBIGUOUS``): the Chinese 反击, "counter" a spell, listed rulings on +1/+1 counters (a
    review in the judges' languages)."""
    found: list[dict[str, Any]] = []
    select = f"""select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at,
            rulings.text, {ruling_card_name()} as english
        from rulings left join cards on cards.oracle_id = rulings.oracle_id"""
    ids = ruling_ids_citing(conn, number, limit)
    found += rows(conn, f"{select} where rulings.id in ({','.join('?' * len(ids)) or 'null'})", ids)
    if english.casefold() not in STOP_WORDS | AMBIGUOUS:
        found += rows(conn, f"""{select} where rulings.rowid in (
            select rowid from rulings_fts where rulings_fts match ? limit ?)""", ('text : "' + english.replace('"', "") + '"', limit))
    lost = symbols_lost(conn, [row["id"] for row in found])
    return [ruling_hit(row, highlight(row["text"], english), row["id"] in lost) for row in found]


def ruling_ids_citing(conn: sqlite3.Connection, number: str, limit: int) -> list[int]:
    """Up to ``limit`` rulings relying on rule ``number`` of the newest English version, by the
    rule's identity: its lineage (under the number it had on each ruling's date, newest first
    from the (lineage, date) index), or, in a database made before lineages had dates, that
    rule itself. Never by number: 701.50 is Connive now and was Convert before (and, unindexed,
    a number no ruling cites read every link: 0.2 s on a million rulings)."""
    if not table_exists(conn, "ruling_rules"):
        return []
    found = rows(conn, "select * from rules where version_id = ? and number = ?", (newest_english_version(conn), number))
    if not found:
        return []
    rule = found[0]
    if rule.get("lineage_id") and "published_at" in {column[1] for column in conn.execute("pragma table_info(ruling_rules)")}:
        return newest_ruling_ids(conn, rule["lineage_id"], limit)
    return [row[0] for row in conn.execute(
        "select distinct ruling_id from ruling_rules where rule_id = ? or current_rule_id = ? limit ?",
        (rule["id"], rule["id"], limit),
    )]


def translations_by_text(conn: sqlite3.Connection, query: str, match: str, limit: int) -> list[Hit]:
    """Translations whose text matches. Not the English texts that a page announced in another
    language (``untranslated``): listed as translations, they were labelled French, and the
    English ruling they copy is a hit of its own."""
    found, _capped, _read = windowed(
        conn,
        "ruling_translations_fts",
        f"""select ruling_translations.id, ruling_translations.lang, ruling_translations.card_name,
            ruling_translations.ruling_id, ruling_translations.text, rulings.oracle_id,
            rulings.card_name as ruling_card, {ruling_card_name()} as english
        from (select rowid from ruling_translations_fts where ruling_translations_fts match ? limit ?) as hits
        join ruling_translations on ruling_translations.rowid = hits.rowid
        left join rulings on rulings.id = ruling_translations.ruling_id
        left join cards on cards.oracle_id = rulings.oracle_id
        where ruling_translations.status is not 'untranslated'""",
        match, query, 0, limit,
    )
    return [translation_hit(row, translation_snippet(row, query)) for row in found]


def translation_snippet(row: dict[str, Any], query: str) -> str:
    """The translation's text marked; led by its card name when the name is what matched."""
    name = row.get("card_name") or ""
    words = [word.casefold() for word in WORD.findall(query)]
    if name and any(word in name.casefold() for word in words) and not any(word in (row.get("text") or "").casefold() for word in words):
        return mark_words(name, query) + " — " + html.escape((row.get("text") or "")[:160])
    return mark_words(row["text"], query)


def translation_hit(row: dict[str, Any], snippet: str) -> Hit:
    card = row.get("english") or row.get("ruling_card") or row.get("card_name") or "card not identified"
    if row.get("oracle_id"):
        url = card_url(row["oracle_id"]) + f"#ruling-{row['ruling_id']}"
    elif row.get("card_name") and not row.get("ruling_id"):
        # Not matched to a ruling yet: the page of the card it names lists it (a bare table row did).
        url = card_url(None, row["card_name"]) + f"#translation-{row['id']}"
    else:
        url = f"/translation/{row['id']}"
    # Titled by the name the translation printed only where no English name is known.
    printed_name = card == row.get("card_name") and not (row.get("english") or row.get("ruling_card"))
    return Hit("translation", card, url, snippet, row["lang"], "linked" if row.get("ruling_id") else "not yet linked",
               title_lang=row["lang"] if printed_name else None)
