"""The CJK search indexes: a trigram index over Chinese, Japanese and Korean text, and its two-character companion.

unicode61 cannot split words written without spaces, so the knowledge base's CJK text (rules and
glossary of CJK versions, card names, translated rulings, keyword terms) also goes into
``cjk_search`` (trigram) and ``cjk_bigrams`` (one- and two-character queries). Both are made again
from their tables whenever what they hold may have changed (``kb.store.schema.ensure_search``).
"""
from __future__ import annotations

import functools
import re
import unicodedata

import sqlite_utils

CJK_LANGS = "('zhs', 'zht', 'ja', 'ko')"
# Han, Hangul, kana: a text holding any of them goes into the CJK index.
CJK_GLOBS = ("*[一-鿿]*", "*[가-힣]*", "*[ぁ-ヿ]*")


def cjk_condition(column: str) -> str:
    return "(" + " or ".join(f"{column} glob '{pattern}'" for pattern in CJK_GLOBS) + ")"


def squeezed(column: str) -> str:
    """SQL: a Korean text without its spaces, for the trigram index's second column ("최소덱크기" is
    "최소 덱 크기" typed without them, as searches often are); null for any other text, which
    writes no spaces between its words."""
    return (f"case when ({column}) glob '*[가-힣]*' and instr({column}, ' ')"
            f" then replace(replace({column}, ' ', ''), char(10), '') end")


def ensure_cjk_search(db: sqlite_utils.Database) -> None:
    """A trigram index over CJK text only: unicode61 cannot split words without spaces.

    Trigram indexes cost several times the space of unicode61, so only rows with Chinese,
    Japanese or Korean text go in (queries of three or more characters; shorter ones use LIKE).
    """
    db.execute("drop table if exists cjk_search")
    db.execute(
        "create virtual table cjk_search using fts5("
        "kind unindexed, key unindexed, lang unindexed, text, squeezed, tokenize='trigram')"
    )
    db.execute(
        f"""insert into cjk_search (kind, key, lang, text, squeezed)
        select 'rule', rules.id, cr_versions.lang,
            coalesce(rules.title, '') || ' ' || rules.text as text,
            {squeezed("coalesce(rules.title, '') || ' ' || rules.text")}
        from rules join cr_versions on cr_versions.id = rules.version_id
        where cr_versions.lang in {CJK_LANGS}"""
    )
    db.execute(
        f"""insert into cjk_search (kind, key, lang, text, squeezed)
        select 'glossary', glossary.id, cr_versions.lang, glossary.term || ' ' || glossary.text,
            {squeezed("glossary.term || ' ' || glossary.text")}
        from glossary join cr_versions on cr_versions.id = glossary.version_id
        where cr_versions.lang in {CJK_LANGS}"""
    )
    db.execute(
        f"""insert into cjk_search (kind, key, lang, text, squeezed)
        select 'card_name', coalesce(oracle_id, 'name:' || name), lang, name as text, {squeezed("name")}
        from all_card_names where lang in {CJK_LANGS}"""
    )
    db.execute(
        f"""insert into cjk_search (kind, key, lang, text, squeezed)
        select 'ruling_translation', id, lang, text, {squeezed("text")} from ruling_translations
        where {cjk_condition('text')}"""
    )
    db.execute(
        f"""insert into cjk_search (kind, key, lang, text, squeezed)
        select 'keyword', id, lang, term as text, {squeezed("term")} from keywords where {cjk_condition('term')}"""
    )
    ensure_cjk_bigrams(db)


CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF))
CJK_RUN = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last in CJK_RANGES) + "]+")


@functools.cache
def _cjk_non_letter() -> re.Pattern[str]:
    """The characters of the CJK ranges that are not letters ("・", "゛", unassigned points): one
    character class, so a run is split with one regex pass, not a category lookup per character."""
    points = [point for first, last in CJK_RANGES for point in range(first, last + 1)
              if unicodedata.category(chr(point))[0] != "L"]
    spans: list[list[int]] = []
    for point in points:
        if spans and spans[-1][1] == point - 1:
            spans[-1][1] = point
        else:
            spans.append([point, point])
    return re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in spans) + "]")


def cjk_grams(text: str) -> str:
    """Every two-character sequence of the text's CJK runs, and each run's last character:
    "克撒的" -> "克撒 撒的 的". A one-character query is a prefix of one of them."""
    grams: list[str] = []
    non_letter = _cjk_non_letter()
    for run in CJK_RUN.findall(text):
        # Only letters: the full-text tokenizer splits words at "・", "゛" and the like.
        for part in non_letter.sub(" ", run).split():
            grams += [part[i : i + 2] for i in range(len(part) - 1)] + [part[-1]]
    return " ".join(grams)


def ensure_cjk_bigrams(db: sqlite_utils.Database) -> None:
    """``cjk_bigrams``: the rows of ``cjk_search`` (same rowids) as two-character words, for the
    one- and two-character queries the trigram index cannot answer (克撒, 飞)."""
    db.execute("drop table if exists cjk_bigrams")
    db.execute("create virtual table cjk_bigrams using fts5(grams, tokenize='unicode61', content='')")
    db.conn.executemany(
        "insert into cjk_bigrams (rowid, grams) values (?, ?)",
        ((rowid, cjk_grams(text)) for rowid, text in db.execute("select rowid, text from cjk_search")),
    )
