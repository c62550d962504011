"""The words of a query that something holds, when nothing holds them all.

The one-box search asks for every word of a query. Judges and players type questions ("what
happens if my commander dies", "can I respond to a cascade trigger"), and no rule, ruling or
glossary entry holds all of those words, so such a query found nothing. Here the question's
words ("what", "if", "my", …) are left out first. If the rest are still not found together, the
commonest word is left out, one at a time, until the remaining words are found together: the
rarest words say most about what was asked, and a word that names a keyword or a section of the
rules ("cascade", "commander") is left out last. The search page then shows the results for those
words and names the words it left out.

Bounded: at most a few dozen one-row probes (``limit 1``) and two capped counts for each word,
and only when the query as typed found nothing.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kb.site.search_db import bounded_count, table_exists
from kb.site.search_prefix import prefix_as_words
from kb.site.search_text import WORD, fts_query, has_cjk

# English words of a question or a sentence, rather than of what is asked about. Only left out
# when the query as typed found nothing, so a CR phrase that holds them ("until end of turn",
# "if a creature would die") is always searched as typed first.
QUESTION_WORDS = frozenset("""
    a an the and or but of to in on at by for from with without into onto about as
    is are was were be been being am do does did doing done
    can could may might must shall should will would
    what whats which who whom whose when where why how
    i me my mine we us our you your yours he him his she her it its they them their
    this that these those there here if then so than also just
    happen happens happened happening work works worked working
    same different difference between vs versus mean means meaning
    s t d ll re ve m
""".split())

# The full-text indexes whose rows a search shows, in the order they are probed.
PROBED_INDEXES = ("rules_fts", "glossary_fts", "rulings_fts", "ruling_translations_fts", "card_names_fts")
# The indexes a word's commonness is counted in (a capped count each: the cap only has to be
# above the counts that tell a rare word from a common one).
COUNTED_INDEXES = ("rules_fts", "rulings_fts")
COUNT_CAP = 5000
MAX_WORDS = 8


def relaxed_words(
    conn: sqlite3.Connection, query: str, names_a_term: Callable[[str], bool] = lambda word: False
) -> tuple[list[str], list[str]] | None:
    """(the words of ``query`` to search for, the words left out), or None when the query has
    fewer than two words, is CJK (its words are not spaced), or no word of it is found at all.
    ``names_a_term``: whether a word names a keyword (in any language) or a section ("cascade",
    "Trampelschaden", "commander"): such words are kept before any other."""
    words = WORD.findall(query)
    if len(words) < 2 or has_cjk(query):
        return None
    kept = _distinct([word for word in words if word.casefold() not in QUESTION_WORDS])[:MAX_WORDS]
    if not kept:
        return None
    indexes = [name for name in PROBED_INDEXES if table_exists(conn, name)]
    if len(kept) < len(words) and found_together(conn, kept, indexes):
        return kept, _left_out(words, kept)
    commonness = {word: _commonness(conn, word) for word in kept}
    named = {word: names_a_term(word) for word in kept}
    while len(kept) > 1:
        commonest_first = sorted(kept, key=lambda word: (named[word], -commonness[word]))
        for word in commonest_first:
            rest = [other for other in kept if other != word]
            # A word alone that names a keyword in any language ("Trampelschaden") is found.
            if (len(rest) == 1 and named[rest[0]]) or found_together(conn, rest, indexes):
                return rest, _left_out(words, rest)
        kept.remove(commonest_first[0])
    return None


def found_together(conn: sqlite3.Connection, words: list[str], indexes: list[str]) -> bool:
    """Whether some row of one of ``indexes`` holds every word, as the search would ask for
    them (the last word also as the start of a longer one: "trigger" finds "triggered")."""
    expression = fts_query(" ".join(words))
    if not expression:
        return False
    return any(
        conn.execute(
            f"select 1 from {index} where {index} match ? limit 1", (prefix_as_words(conn, index, expression),)
        ).fetchone()
        for index in indexes
    )


def _commonness(conn: sqlite3.Connection, word: str) -> int:
    return sum(
        bounded_count(conn, f"select 1 from {index} where {index} match ?", (f'"{word}"',), COUNT_CAP)
        for index in COUNTED_INDEXES
        if table_exists(conn, index)
    )


def _distinct(words: list[str]) -> list[str]:
    seen: set[str] = set()
    distinct = []
    for word in words:
        if word.casefold() not in seen:
            seen.add(word.casefold())
            distinct.append(word)
    return distinct


def _left_out(words: list[str], kept: list[str]) -> list[str]:
    wanted = {word.casefold() for word in kept}
    return _distinct([word for word in words if word.casefold() not in wanted])
