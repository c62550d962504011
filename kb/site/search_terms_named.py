"""Whether the words of a query name a term of the rules, and the term a question asks about.

A keyword in any language, a section of today's rules, a term of today's English glossary, a
keyword written apart ("flash back"), and a question's words, its question words aside, naming
one of those ("what is the stack": 405 Stack). The one-box search (``kb.site.search``) and its
relaxing of questions (``kb.site.search_relax``) read them.
"""
from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from functools import partial

from kb.site.search_db import newest_english_version, rules_titled
from kb.site.search_fulltext import current_english_term_keys
from kb.site.search_hit import SearchResults
from kb.site.search_keywords import keyword_words, keywords_by_term
from kb.site.search_names import cards_by_name, name_candidates
from kb.site.search_question_words import opens_a_question, question_words
from kb.site.search_relax import Relaxed, relaxed_words
from kb.site.search_spelling import vocabulary
from kb.site.search_text import WORD, fold, has_cjk, stem, title_key


def term_a_question_asks_about(conn: sqlite3.Connection, results: SearchResults, raw_query: str) -> Relaxed | None:
    """A question's words without its question words (``opens_a_question``; nothing else left
    out), where they name a term as a whole ("stack", "replacement effect") and the words as
    typed name no card ("Who // What // When // Where // Why" is a card: its name is the answer)."""
    words = WORD.findall(results.query)
    if has_cjk(results.query) or not opens_a_question(results.query.split(), raw_query):
        return None
    # First the words' own check, cheap: a pasted sentence opening with "What" names no term,
    # and its card lookup and relaxing took as long again as its search (a review of the change).
    asking = question_words(words)
    names, glossary_term = names_a_term(conn), a_glossary_term(conn)
    topic = " ".join(word for word in words if fold(word) not in asking)
    if not topic or not (names(topic) or glossary_term(topic)):
        return None
    if cards_by_name(conn, results.query, 1, False, functools.cache(partial(name_candidates, conn, results.query))):
        return None
    relaxed = relaxed_words(conn, results.query, names, glossary_term)
    if relaxed is None or relaxed.read_as or not relaxed.left_out:
        return None
    # Only question words left out, nothing read otherwise: the words kept are the topic's.
    return None if any(fold(word) not in asking for word in relaxed.left_out) else relaxed


def names_a_term(conn: sqlite3.Connection) -> Callable[[str], bool]:
    """Whether a word names a keyword in any language ("cascade", "Trampelschaden") or a section
    of the current rules ("commander"). A word of the English rules is looked for among the
    other languages' keywords only if it is not one of the English ones."""
    exactly = names_exactly(conn)
    english = vocabulary(conn)
    return lambda word: exactly(word) or (word.lower() not in english and bool(keywords_by_term(conn, word, 1)))


def a_glossary_term(conn: sqlite3.Connection) -> Callable[[str], bool]:
    """Whether a word is a term of the current English glossary, as a query names it ("aura"), or
    a form of a term of one word ("attached" of Attach)."""
    terms = current_english_term_keys(conn)
    return lambda word: title_key(word) in terms or (" " not in word and stem(word) in terms)


def names_exactly(conn: sqlite3.Connection) -> Callable[[str], bool]:
    """Whether a word is, as it is, a keyword in some language or the title of a current rule
    (``names_a_term`` also takes a word a keyword's term begins with or is a slip from)."""
    keywords = keyword_words(conn)
    current = newest_english_version(conn)
    return lambda word: fold(word) in keywords or bool(rules_titled(conn, current, title_key(word)))


def joined_term(query: str, names_a_term: Callable[[str], bool]) -> Relaxed | None:
    """Two words of ``query`` that are one keyword written apart ("flash back": Flashback, not
    Flash with "back" left out), read as that keyword; None when no two neighbours are one."""
    words = WORD.findall(query)
    for first, second in zip(words, words[1:], strict=False):
        joined = first + second.lower()
        # Not a possessive's or a contraction's letter: "a spell's target" is no "spells" (every
        # other word was kept with it, and nothing found: a judge's answer key).
        if len(second) > 1 and names_a_term(joined):
            kept = [word for word in words if word not in (first, second)]
            return Relaxed(kept=[joined, *kept], left_out=[], read_as={f"{first} {second}": joined})
    return None
