"""Rules, glossary entries, rulings and translations by their text, for the one-box search.

Nothing here ranks, sorts or even visits every match: each full-text query reads at most a
bounded number of index matches (an inner ``LIMIT`` on the FTS5 table, before any join or
filter) and orders that window in Python. FTS5's ``rank`` (bm25) is never asked for: computing
it for even one row reads every row that contains each query word ("the": all of them). A
window that fills up makes its group's count a lower bound ("300+").
"""
from __future__ import annotations

import html
import re
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import quote

from kb.site.search_db import (
    card_url,
    newest_english_version,
    rows,
    rule_url,
    rule_versions,
    table_exists,
    translated_versions,
)
from kb.site.search_hit import Hit
from kb.site.search_text import (
    WORD,
    escape_like,
    fold,
    has_cjk,
    highlight,
    rule_number_key,
)

RULES_WINDOW = 200  # rules of the current version read per query
OTHER_RULES_WINDOW = 100  # of translated versions, and of older English versions
TEXT_WINDOW = 100  # rulings, translations, glossary entries
MAX_OFFSET = 1000
# Index matches read at most per query, before sorting them by version: rules of every
# version share one index, and "the" matches 18k of them.
RULES_SCAN = 1000

# "702.78a", "702.78", "702", "7", optionally after the word "rule" in a few languages.
RULE_NUMBER_QUERY = re.compile(
    r"^\s*(?:(?:rules?|cr|regla|règle|regel|regola|regra|правило|规则|規則|규칙)\s*)?"
    r"(?P<number>[1-9]\d{0,2}(?:\.\d+[a-z]?)?)\.?\s*$",
    re.IGNORECASE,
)
RULE_NUMBER_IN_QUERY = re.compile(r"(?<![\w.])([1-9]\d{2}\.\d+[a-z]?)(?![\w])")


def rules_by_number(conn: sqlite3.Connection, query: str) -> list[Hit]:
    """Rule numbers answered by number: the newest English version that has the rule."""
    whole = RULE_NUMBER_QUERY.match(query)
    numbers = [whole.group("number")] if whole else RULE_NUMBER_IN_QUERY.findall(query)
    newest = newest_english_version(conn)
    hits = []
    for number in numbers[:5]:
        for row in rows(
            conn,
            """select rules.number, rules.title, rules.text, rules.version_id
            from rules join cr_versions on cr_versions.id = rules.version_id
            where rules.number = ? and cr_versions.lang = 'en'
            order by cr_versions.effective_date desc limit 1""",
            (number.lower(),),
        ):
            version = None if row["version_id"] == newest else row["version_id"]
            title = f"{row['number']} {row['title'] or ''}".strip()
            hits.append(Hit("rule", title, rule_url(row["number"], version), html.escape((row["text"] or "")[:240]),
                            "en", "number" + (f" (only in {row['version_id']})" if version else "")))
    return hits


Found = TypeVar("Found")


def words_first(fetch: Callable[[str], list[Found]], match: str, window: int) -> list[Found]:
    """``fetch(match)``, but the words exactly as typed first: the last word as a prefix
    ("transform" also finds "transforms") is asked for only when they do not fill ``window``.

    A prefix query merges the index entries of every word it begins (milliseconds for
    "creature*" over a million rulings); the exact words stop after the window's rows. The
    caller passes the same ``window`` for every page of a group, so its pages never mix the two."""
    if match.endswith("*"):
        exact = fetch(match[:-1])
        if len(exact) >= window:
            return exact
    return fetch(match)


def rule_windows(
    conn: sqlite3.Connection, match: str, current: str | None, translated: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], bool]:
    """Rules matching ``match``: up to RULES_WINDOW of the current version, OTHER_RULES_WINDOW
    of translated and of older English versions, all from the first RULES_SCAN index matches
    (one pass over the index; only the chosen rules' texts are read). The flag: a window filled
    up or the scan stopped short of every match (counts are then lower bounds)."""
    found = words_first(lambda expression: conn.execute(
        "select rowid from rules_fts where rules_fts match ? limit ?", (expression, RULES_SCAN + 1)).fetchall(),
        match, RULES_SCAN + 1)
    versions = rule_versions(conn)
    other = set(translated)
    chosen: dict[str, list[int]] = {"current": [], "translated": [], "older": []}
    sizes = {"current": RULES_WINDOW, "translated": OTHER_RULES_WINDOW, "older": OTHER_RULES_WINDOW}
    for (rowid,) in found[:RULES_SCAN]:
        version = versions.get(rowid)
        if version is None:
            continue
        group = "current" if version == current else "translated" if version in other else "older"
        if len(chosen[group]) < sizes[group]:
            chosen[group].append(rowid)
    wanted = [rowid for ids in chosen.values() for rowid in ids]
    marks = ",".join("?" * len(wanted)) or "null"
    # Without their texts: a page shows ten of these hundreds (``with_texts`` reads those).
    version_rows = {row[0]: row[1:] for row in conn.execute("select id, lang, effective_date from cr_versions")}
    by_rowid = {}
    for rowid, number, title, version_id, lineage_id in conn.execute(
        f"select rowid, number, title, version_id, lineage_id from rules where rowid in ({marks})", wanted
    ):
        lang, effective_date = version_rows.get(version_id, (None, None))
        by_rowid[rowid] = {"rowid": rowid, "number": number, "title": title, "version_id": version_id, "lang": lang,
                           "effective_date": effective_date, "lineage_id": lineage_id}
    windows = [[by_rowid[rowid] for rowid in chosen[group] if rowid in by_rowid] for group in sizes]
    capped = (len(found) > RULES_SCAN or len(chosen["current"]) >= RULES_WINDOW
              or len(chosen["translated"]) >= OTHER_RULES_WINDOW)
    return windows[0], windows[1], windows[2], capped


def with_texts(conn: sqlite3.Connection, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``found`` with each window row's ``text`` read (one query for all of them)."""
    wanted = [row["rowid"] for row in found if "text" not in row]
    if wanted:
        texts = dict(conn.execute(f"select rowid, text from rules where rowid in ({','.join('?' * len(wanted))})", wanted))
        for row in found:
            if "text" not in row:
                row["text"] = texts.get(row["rowid"])
    return found


def about_rules(conn: sqlite3.Connection, numbers: list[str], version: str | None) -> list[dict[str, Any]]:
    """The rules a query names (a keyword's rule, the rule a glossary term points to) with their subrules."""
    found: list[dict[str, Any]] = []
    for number in numbers[:5]:
        found += rows(
            conn,
            """select rules.number, rules.title, rules.text, rules.version_id, cr_versions.lang,
                cr_versions.effective_date, rules.lineage_id, null as snip
            from rules join cr_versions on cr_versions.id = rules.version_id
            where rules.id in (select id from rules where version_id = ? and number = ?
                union all select id from rules where version_id = ? and parent_number = ? limit 60)""",
            (version, number, version, number),
        )
    return found


def glossary_rule_numbers(conn: sqlite3.Connection, query: str, version: str | None) -> list[str]:
    """Rules the current glossary's entry for exactly this term points to ("Legend Rule" -> 704.5j)."""
    entries = rows(conn, "select id, term from glossary where version_id = ? and term like ? escape '\\' limit 5",
                   (version, escape_like(query)))
    numbers: list[str] = []
    for entry in entries:
        if fold(entry["term"]) == fold(query):
            numbers += [row["target_number"] for row in rows(
                conn, "select target_number from glossary_refs where glossary_id = ? limit 10", (entry["id"],))]
    return numbers


def rules_by_text(
    conn: sqlite3.Connection, query: str, match: str | None, about: list[str], cjk_rows: list[dict[str, Any]],
    shown: int = RULES_WINDOW,
) -> tuple[list[Hit], int, bool]:
    """Rule hits in reading order: the rules the query names first, then the rules mentioning it.

    Current English rules and translated rules lead; copies of a rule in older English versions
    fold under it (``Hit.older``); rules found only in older versions come last.
    Returns the first ``shown`` hits (only those are built: a page shows a few of the hundreds a
    common word finds), how many there are, and whether a window filled up (the count is then
    a lower bound).
    """
    current = newest_english_version(conn)
    translated = translated_versions(conn)
    about = about + glossary_rule_numbers(conn, query, current)
    in_force = about_rules(conn, about, current) + list(cjk_rows)
    capped = False
    older: list[dict[str, Any]] = []
    if match:
        window, translations, older, capped = rule_windows(conn, match, current, translated)
        in_force += window + translations
    # Rows, not hits, until the page's share is known: (row, its older copies).
    found: dict[tuple[str, str], tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for row in in_force:
        found.setdefault((row["lang"], row["number"]), (row, []))
    # An older version's copy folds under the rule it is now: the same lineage (a renumbered
    # rule under its new number; an old rule that only shares a number stays apart). Without
    # lineages (a database built before them): the same number, else the same title or text.
    by_lineage = {row["lineage_id"]: (row["lang"], row["number"]) for row in in_force if row.get("lineage_id")}
    by_text: dict[tuple[str, str], tuple[str, str]] = {}
    only_older: dict[tuple[str, str], tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for row in sorted(older, key=lambda row: row["effective_date"] or "", reverse=True):
        if row.get("lineage_id"):
            home: tuple[str, str] | None = by_lineage.get(row["lineage_id"])
            key = ("lineage", row["lineage_id"])
        else:
            if "text" not in row:
                with_texts(conn, in_force + older)
            home = (row["lang"], row["number"])
            if home not in found:
                if not by_text:
                    by_text = {(row["lang"], text_key(row)): (row["lang"], row["number"]) for row in in_force}
                home = by_text.get((row["lang"], text_key(row)), home)
            key = (row["lang"], text_key(row))
        target = (found.get(home) if home else None) or only_older.get(key)
        if target is None:
            only_older[key] = (row, [])
        elif len(target[1]) < 20:
            target[1].append(row)
    named = {number.lower() for number in about}

    def order(entry: tuple[dict[str, Any], list[dict[str, Any]]]) -> tuple:
        row = entry[0]
        number = row["number"]
        is_named = number in named or any(number.startswith(n) and number[len(n):].isalpha() for n in named)
        return (not is_named, rule_number_key(number), row["lang"] != "en", row["lang"] or "")

    ordered = sorted(found.values(), key=order)
    ordered += sorted(only_older.values(), key=lambda entry: rule_number_key(entry[0]["number"]))
    hits = []
    with_texts(conn, [row for row, _ in ordered[:shown]])
    for row, copies in ordered[:shown]:
        hit = rule_hit(row, current, query)
        # An older copy shows its version only (the page folds it under the rule).
        hit.older = [rule_hit({**copy, "text": ""}, current, query) for copy in copies]
        hits.append(hit)
    return hits, len(ordered), capped


def text_key(row: dict[str, Any]) -> str:
    """The same rule under another number: its title, or its text with spacing and case ignored.

    Kept on the row: one search asks for the key of the same row up to three times."""
    key = row.get("_text_key")
    if key is None:
        key = row["_text_key"] = "title:" + fold(row["title"]) if row.get("title") else "text:" + spaced_prefix(row.get("text") or "", 300).casefold()
    return key


def spaced_prefix(text: str, length: int) -> str:
    """``" ".join(text.split())[:length]`` without splitting a whole long text."""
    head = " ".join(text[: length * 2].split())
    return head[:length] if len(head) >= length else " ".join(text.split())[:length]


def rule_hit(row: dict[str, Any], current: str | None, query: str) -> Hit:
    """A rule hit; its snippet is filled by ``mark_words`` once the page's hits are chosen."""
    english = row["lang"] == "en"
    version = None if row["version_id"] == current or not english else row["version_id"]
    anchor = "" if english else f"lang-{row['lang']}"
    title = f"{row['number']} {row['title'] or ''}".strip()
    return Hit("rule", title, rule_url(row["number"], version, anchor), row.get("text") or "", row["lang"],
               row["version_id"])


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
    """The query's words (and what follows a word: "transform" marks "transforms") as one pattern."""
    words = [word for word in WORD.findall(query) if len(word) > 1 or has_cjk(word)][:12]
    if not words:
        return None
    return re.compile("|".join(re.escape(word) + (r"\w*" if not has_cjk(word) else "") for word in words),
                      re.IGNORECASE)


def glossary_by_text(conn: sqlite3.Connection, query: str, match: str, limit: int, shown: int = TEXT_WINDOW) -> list[Hit]:
    """Glossary entries mentioning the query, the newest version's of each term; only the first
    ``shown`` (the hits a page can show) get a marked snippet, the rest are counted."""
    found = words_first(lambda expression: rows(
        conn,
        """select glossary.id, glossary.term, glossary.text, glossary.version_id, cr_versions.lang,
            cr_versions.effective_date
        from glossary_fts cross join glossary on glossary.rowid = glossary_fts.rowid
        join cr_versions on cr_versions.id = glossary.version_id
        where glossary_fts match ? limit ?""",
        (expression, TEXT_WINDOW),
    ), match, TEXT_WINDOW)
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for row in found:
        key = (row["lang"], fold(row["term"]))
        if key not in newest or (row["effective_date"] or "") > (newest[key]["effective_date"] or ""):
            newest[key] = row
    wanted = fold(query)
    ordered = sorted(newest.values(), key=lambda row: (fold(row["term"]) != wanted, row["lang"] != "en", fold(row["term"])))
    return [glossary_hit(row["term"], row["lang"], mark_words(row["text"], query) if index < shown else "", row["version_id"])
            for index, row in enumerate(ordered[:limit])]


def glossary_hit(term: str, lang: str, snippet: str, version_id: str) -> Hit:
    url = f"/glossary/{quote(term, safe='')}" + ("" if lang == "en" else f"?lang={quote(lang)}")
    return Hit("glossary", term, url, snippet, lang, version_id)


def windowed(
    conn: sqlite3.Connection, sql: str, match: str, query: str, offset: int, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    """Rows ``offset``..``offset + limit`` of a bounded window, best first within the window
    (``relevance``): the full match set is never read, let alone sorted."""
    offset = max(0, min(offset, MAX_OFFSET))
    size = max(TEXT_WINDOW, offset + limit)
    found = words_first(lambda expression: rows(conn, sql, (expression, size)), match, TEXT_WINDOW)
    words = [word.casefold() for word in WORD.findall(query)]
    found.sort(key=lambda row: relevance(row.get("text"), query, words))
    return found[offset : offset + limit], len(found) >= size


def relevance(text: str | None, query: str, words: list[str]) -> tuple:
    """A sort key, best first: the query as typed, then more of its words, then shorter texts."""
    folded = (text or "").casefold()
    present = sum(1 for word in words if word in folded)
    return (query.casefold() not in folded, -present, len(folded))


def rulings_by_text(
    conn: sqlite3.Connection, query: str, match: str, offset: int, limit: int
) -> tuple[list[Hit], int, bool]:
    found, capped = windowed(
        conn,
        """select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at, rulings.text,
            cards.name as english
        from (select rowid from rulings_fts where rulings_fts match ? limit ?) as hits
        join rulings on rulings.rowid = hits.rowid
        left join cards on cards.oracle_id = rulings.oracle_id""",
        match, query, offset, limit,
    )
    count = len(found) + offset if not capped else TEXT_WINDOW
    return [ruling_hit(row, mark_words(row["text"], query)) for row in found], count, capped


def ruling_hit(row: dict[str, Any], snippet: str) -> Hit:
    card = row.get("english") or row.get("card_name") or "card not identified"
    url = card_url(row["oracle_id"], row.get("card_name")) + f"#ruling-{row['id']}"
    if not row["oracle_id"] and not row.get("card_name"):
        url = f"/ruling/{row['id']}"
    return Hit("ruling", card.split(" // ")[0] if len(set(card.split(" // "))) == 1 else card, url, snippet, "en",
               row.get("published_at") or "")


def rulings_citing(conn: sqlite3.Connection, number: str, english: str, limit: int) -> list[Hit]:
    """Rulings citing a keyword's rule (``ruling_rules``) or naming the keyword."""
    found: list[dict[str, Any]] = []
    select = """select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at,
            rulings.text, cards.name as english
        from rulings left join cards on cards.oracle_id = rulings.oracle_id"""
    if table_exists(conn, "ruling_rules"):
        found += rows(conn, f"""{select} where rulings.id in (
            select ruling_id from ruling_rules where rule_number = ? limit ?)""", (number, limit))
    found += rows(conn, f"""{select} where rulings.rowid in (
        select rowid from rulings_fts where rulings_fts match ? limit ?)""", ('text : "' + english.replace('"', "") + '"', limit))
    return [ruling_hit(row, highlight(row["text"], english)) for row in found]


def translations_by_text(conn: sqlite3.Connection, query: str, match: str, limit: int) -> list[Hit]:
    found, _ = windowed(
        conn,
        """select ruling_translations.id, ruling_translations.lang, ruling_translations.card_name,
            ruling_translations.ruling_id, ruling_translations.text, rulings.oracle_id,
            rulings.card_name as ruling_card, cards.name as english
        from (select rowid from ruling_translations_fts where ruling_translations_fts match ? limit ?) as hits
        join ruling_translations on ruling_translations.rowid = hits.rowid
        left join rulings on rulings.id = ruling_translations.ruling_id
        left join cards on cards.oracle_id = rulings.oracle_id""",
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
    else:
        url = f"/translation/{row['id']}"
    return Hit("translation", card, url, snippet, row["lang"], "linked" if row.get("ruling_id") else "not yet linked")
