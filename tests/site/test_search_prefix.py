"""kb.site.search_prefix: a prefix asked as the words it begins finds exactly what FTS5's own prefix query finds."""
from __future__ import annotations

import sqlite3

import pytest

from kb.site.search_prefix import MAX_WORDS, prefix_as_words
from kb.store.search_terms import LETTER_TERMS

INDEXES = ("rulings_fts", "rules_fts", "glossary_fts", "ruling_translations_fts", "card_names_fts")


def matched(conn: sqlite3.Connection, index: str, match: str) -> list[int]:
    return [row[0] for row in conn.execute(f"select rowid from {index} where {index} match ? order by rowid", (match,))]


@pytest.mark.parametrize("index", INDEXES)
def test_the_word_list_is_every_a_to_z_word_of_the_index(snapshot_conn: sqlite3.Connection, index: str) -> None:
    snapshot_conn.execute(f"create virtual table if not exists temp.{index}_words using fts5vocab(main, {index}, row)")
    vocabulary = [row[0] for row in snapshot_conn.execute(f"select term from temp.{index}_words where {LETTER_TERMS} order by term")]
    listed = [row[0] for row in snapshot_conn.execute(
        "select term from search_terms where index_name = ? order by term", (index,))]
    assert listed == vocabulary and len(listed) > 50


@pytest.mark.long_proof
@pytest.mark.parametrize("index", INDEXES)
def test_every_prefix_of_the_snapshot_finds_what_fts5_finds(snapshot_conn: sqlite3.Connection, index: str) -> None:
    # Every four- and six-letter beginning of a word the index holds, alone and after a common
    # word: the rows found through the word list are the rows of FTS5's own prefix query.
    words = [row[0] for row in snapshot_conn.execute("select term from search_terms where index_name = ?", (index,))]
    prefixes = sorted({word[:length] for word in words for length in (4, 6) if len(word) > length})
    rewritten = 0
    for prefix in prefixes:
        for match in (f'"{prefix}"*', f'"the" "{prefix.upper()}"*'):
            asked = prefix_as_words(snapshot_conn, index, match)
            rewritten += asked != match
            assert matched(snapshot_conn, index, asked) == matched(snapshot_conn, index, match), (match, asked)
    assert rewritten > len(prefixes)


def test_the_words_a_prefix_begins_replace_it(snapshot_conn: sqlite3.Connection) -> None:
    assert prefix_as_words(snapshot_conn, "rulings_fts", '"until" "end" "of" "Transfor"*') == (
        '"until" AND "end" AND "of" AND ("transform" OR "transformed" OR "transforming")'
    )


def test_a_prefix_the_list_cannot_answer_is_asked_as_fts5_would(snapshot_conn: sqlite3.Connection) -> None:
    for match in ('"7021"*', '"zerstör"*', '"until" "end"', '"qqqqz"*', '"Trampel_schaden"*'):
        assert prefix_as_words(snapshot_conn, "rulings_fts", match) == match
    # A database made before the list.
    plain = sqlite3.connect(":memory:")
    plain.execute("create virtual table texts_fts using fts5(text)")
    assert prefix_as_words(plain, "texts_fts", '"transform"*') == '"transform"*'


def test_a_prefix_of_many_words_is_asked_as_fts5_would() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("create table search_terms (index_name text, term text, primary key (index_name, term)) without rowid")
    conn.executemany("insert into search_terms values ('texts_fts', ?)", [(f"tran{n:03d}",) for n in range(MAX_WORDS + 1)])
    assert prefix_as_words(conn, "texts_fts", '"tran"*') == '"tran"*'
    conn.execute("delete from search_terms where term = 'tran000'")
    assert prefix_as_words(conn, "texts_fts", '"tran"*').count(" OR ") == MAX_WORDS - 1
