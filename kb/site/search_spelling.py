"""A word of the rules that a query misspelt: "comander", "sacrafice", "indestructable".

Candidates are the words one edit away (a letter missing, extra or wrong, or two letters swapped)
that the Comprehensive Rules or their glossary use, read from the word list kept beside the
full-text indexes (``kb.store.search_terms``); the commonest of them in the rules is the reading.
Card names have their own "did you mean" (``kb.site.search_names``).
"""
from __future__ import annotations

import sqlite3
import string
from collections import OrderedDict
from collections.abc import Callable

from kb.site.search_db import per_file, table_exists

# The indexes whose words are the rules' vocabulary.
VOCABULARY_INDEXES = ("rules_fts", "glossary_fts")
# Shorter words are one edit away from too many others ("cat": "at", "can", "car", …).
SHORTEST = 5
# A four-letter word is read only as the one rules word it gives with two letters swapped ("mnaa":
# mana, "lnad": land), the commonest slip of a short word; "tapd" (tap, taps) is left alone.
SHORTEST_SWAPPED = 4
LETTERS = string.ascii_lowercase

_VOCABULARY: OrderedDict[tuple, frozenset[str]] = OrderedDict()


def vocabulary(conn: sqlite3.Connection) -> frozenset[str]:
    """Every a–z word of the rules and the glossary (a few thousand), kept per served file."""
    return per_file(conn, _VOCABULARY, _read_vocabulary)


def _read_vocabulary(conn: sqlite3.Connection) -> frozenset[str]:
    if not table_exists(conn, "search_terms"):
        return frozenset()
    marks = ", ".join("?" for _ in VOCABULARY_INDEXES)
    return frozenset(row[0] for row in conn.execute(
        f"select term from search_terms where index_name in ({marks})", VOCABULARY_INDEXES))


def one_edit_away(word: str) -> set[str]:
    splits = [(word[:cut], word[cut:]) for cut in range(len(word) + 1)]
    missing = {left + right[1:] for left, right in splits if right}
    wrong = {left + letter + right[1:] for left, right in splits if right for letter in LETTERS}
    extra = {left + letter + right for left, right in splits for letter in LETTERS}
    return (missing | swapped_letters(word) | wrong | extra) - {word}


def swapped_letters(word: str) -> set[str]:
    """``word`` with two neighbouring letters swapped, each way it can be."""
    return {word[:cut] + word[cut + 1] + word[cut] + word[cut + 2:] for cut in range(len(word) - 1)} - {word}


def rules_word_for(conn: sqlite3.Connection, word: str, commonness: Callable[[str], float]) -> str | None:
    """The word of the rules ``word`` misspells, or None (a word too short, not plain a–z, or
    with no rules word one edit away). Of several, the commonest (``commonness``), then the first
    alphabetically. A four-letter word: only a single rules word with two of its letters swapped."""
    folded = word.lower()
    if len(folded) < SHORTEST_SWAPPED or not (folded.isascii() and folded.isalpha()):
        return None
    known = vocabulary(conn)
    if folded in known:
        return None
    if len(folded) < SHORTEST:
        swapped = swapped_letters(folded) & known
        return swapped.pop() if len(swapped) == 1 else None
    candidates = sorted(one_edit_away(folded) & known)
    # ``max`` keeps the first of equals: the alphabetically first.
    return max(candidates, key=commonness) if candidates else None
