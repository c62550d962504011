"""A query of symbols alone ("{T}", "{W/P}", "{E}"): the rules and glossary entries that print them.

The full-text indexes read "{T}" as the letter t, and "{T}" listed 281 rules, a Korean 101.2
first, and rulings saying "can't" (an English judge's review). The symbols are looked for as
printed, in today's English rules and glossary (a few thousand rows), and the rule of 107
("Numbers and Symbols") whose first sentence prints the symbol is the best match: "The tap symbol
is {T}." (107.5).
"""
from __future__ import annotations

import html
import re
import sqlite3

from kb.link.keyword_vocabulary import FIRST_SENTENCE
from kb.site.search_db import newest_english_version, rows
from kb.site.search_fulltext import glossary_hit
from kb.site.search_hit import Hit, SearchResults
from kb.site.search_rules import rule_hit
from kb.site.search_text import rule_number_key

SYMBOLS_ONLY = re.compile(r"\s*(?:\{[^{}\s]{1,8}\}\s*)+")
SYMBOL = re.compile(r"\{[^{}\s]{1,8}\}")
# The section of the rules that defines the symbols.
SYMBOLS_SECTION = "107"


def symbols_asked(query: str) -> list[str]:
    """The symbols of a query that is symbols alone, as the rules print them ("{t}" is {T}); else []."""
    if not SYMBOLS_ONLY.fullmatch(query):
        return []
    return list(dict.fromkeys(symbol.upper() for symbol in SYMBOL.findall(query)))


def rules_printing(conn: sqlite3.Connection, symbols: list[str]) -> tuple[list[Hit], Hit | None]:
    """Today's English rules printing every one of ``symbols``, in reading order; and of them,
    the rule of 107 whose first sentence prints the first symbol ("The tap symbol is {T}."), else
    the first rule of 107 printing it, else none."""
    current = newest_english_version(conn)
    found = rows(conn, f"""select number, title, text, version_id, 'en' as lang from rules
        where version_id = ? and {" and ".join("instr(coalesce(title, '') || ' ' || coalesce(text, ''), ?) > 0" for _ in symbols)}""",
        (current, *symbols))
    found.sort(key=lambda row: rule_number_key(row["number"]))
    hits = []
    for row in found:
        hit = rule_hit(row, current, " ".join(symbols))
        hit.snippet = marked(row["text"] or "", symbols)
        hits.append(hit)
    in_section = [hit for hit, row in zip(hits, found, strict=True) if row["number"].split(".")[0] == SYMBOLS_SECTION]
    defining = [hit for hit, row in zip(hits, found, strict=True) if row["number"].split(".")[0] == SYMBOLS_SECTION
                and symbols[0] in FIRST_SENTENCE.match(row["text"] or "")[0]]  # type: ignore[index]
    chosen = defining or in_section
    return hits, chosen[0] if chosen else None


def glossary_printing(conn: sqlite3.Connection, symbols: list[str]) -> list[Hit]:
    """Today's English glossary entries printing every one of ``symbols``, those printing the first
    soonest first (Tap Symbol's "The activated ability symbol {T}." before Blood Token's)."""
    current = newest_english_version(conn)
    found = rows(conn, f"""select term, text, version_id from glossary
        where version_id = ? and {" and ".join("instr(term || ' ' || coalesce(text, ''), ?) > 0" for _ in symbols)}
        order by instr(coalesce(text, ''), ?), term""", (current, *symbols, symbols[0]))
    return [glossary_hit(row["term"], "en", marked(row["text"] or "", symbols), row["version_id"]) for row in found]


def marked(text: str, symbols: list[str], width: int = 240) -> str:
    """The text from a little before its first symbol, ``width`` characters, escaped, each symbol
    marked."""
    at = min((text.find(symbol) for symbol in symbols if symbol in text), default=0)
    start = max(0, at - 60)
    shown = ("…" if start else "") + text[start:start + width] + ("…" if start + width < len(text) else "")
    escaped = html.escape(shown)
    for symbol in symbols:
        escaped = escaped.replace(html.escape(symbol), f"<mark>{html.escape(symbol)}</mark>")
    return escaped


def symbol_results(conn: sqlite3.Connection, results: SearchResults, symbols: list[str]) -> SearchResults:
    """``results`` (empty, of a query of ``symbols``) filled with the rules and glossary entries
    that print them, each group paged as ``results`` asks."""
    rules, defining = rules_printing(conn, symbols)
    found = {"rules": rules, "glossary": glossary_printing(conn, symbols)}
    for name, hits in found.items():
        results.counts[name] = len(hits)
        if results.kind in (None, name):
            start = results.offset if results.kind == name else 0
            results.groups[name] = hits[start:start + results.page_size]
    results.best = defining if results.kind is None else None
    return results
