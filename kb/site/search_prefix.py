"""A query's last word as a prefix, asked as the words of the index it begins (``search_terms``).

FTS5 merges the index entries of every word a prefix begins before the query's other words can
narrow them ("until end of turn*": 32 ms on a million rulings); the same words listed
(``… AND ("turn" OR "turns" OR "turned")``) let the rarest word drive (about 2 ms) and match the
same rows. The list (``kb.store.search_terms``) holds every word beginning with a–z; a prefix
that begins otherwise, or that begins more than ``MAX_WORDS`` words, is asked as FTS5 would.
"""
from __future__ import annotations

import re
import sqlite3

from kb.site.search_db import table_exists
from kb.site.search_text import QUOTED_TOKEN

# Beyond this many words the OR costs about what the merge does.
MAX_WORDS = 64
LAST_PREFIX = re.compile(r'"([^"]*)"\*$')
# What the list can answer: a–z first, ASCII letters and digits after (lower-cased here exactly
# as the index's tokenizer folds them).
LISTED_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def prefix_as_words(conn: sqlite3.Connection, index: str, match: str) -> str:
    """``match`` (``fts_query``'s quoted words, the last with ``*``) with its prefix replaced by
    the words it begins in ``index``, when the word list can say which they are."""
    last = LAST_PREFIX.search(match)
    if last is None or not LISTED_PREFIX.fullmatch(last.group(1)) or not table_exists(conn, "search_terms"):
        return match
    prefix = last.group(1).lower()
    begun = [row[0] for row in conn.execute(
        "select term from search_terms where index_name = ? and term >= ? and term < ? limit ?",
        (index, prefix, prefix + "\U0010ffff", MAX_WORDS + 1),
    )]
    if not begun or len(begun) > MAX_WORDS:
        # None: the index has no such word (the native query finds nothing, at once).
        return match
    alternatives = "(" + " OR ".join(f'"{term}"' for term in begun) + ")"
    # Only the last word is replaced: what comes before it may hold a group of its own ("10" or
    # "ten", ``with_number_words``), and FTS5 joins a group to the rest only by an explicit AND.
    head = match[:last.start()].strip().removesuffix("AND").strip()
    parts = [head] if "(" in head else QUOTED_TOKEN.findall(head)
    return " AND ".join([*(part for part in parts if part), alternatives])
