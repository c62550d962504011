"""Chinese, Japanese and Korean text by any part of a word, for the one-box search.

CJK scripts write words without spaces, so the word index cannot find 克撒 inside a longer word:
``cjk_search`` (trigrams) and ``cjk_bigrams`` (one or two characters) hold every CJK text of the
rules, glossary, card names, ruling translations and keywords, and each query reads a bounded
number of their matches.
"""
from __future__ import annotations

import itertools
import re
import sqlite3
import unicodedata
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any

import opencc
from opencc import OpenCC

from kb.site.search_db import per_file, rows, table_exists
from kb.site.search_fulltext import glossary_hit, translation_hit, translation_snippet
from kb.site.search_hit import Hit
from kb.site.search_text import NOT_WORD, compact, escape_like, highlight, title_key

CJK_KINDS = ("rule", "glossary", "card_name", "ruling_translation", "keyword")
CJK_SCAN = 5000  # matching rows read at most per CJK query
FIRST_PASS = 200  # matching rows read in one pass before each kind is read alone


def cjk_rows(
    conn: sqlite3.Connection, query: str, limit: int, kinds: tuple[str, ...] = CJK_KINDS
) -> dict[str, list[dict[str, Any]]]:
    """Chinese, Japanese, Korean text containing ``query`` (any part of a word), per kind: the
    first ``limit`` of each of ``kinds`` (the others empty).

    Three or more characters go through the trigram index, one or two through the two-character
    index (``short_cjk_condition``). Each kind has its own limit, so rules cannot crowd out
    translations.
    """
    if not table_exists(conn, "cjk_search"):
        return {}
    words = query.split()
    found = _cjk_rows_where(conn, *_held_as_typed(conn, " ".join(words)), limit, kinds)
    if len(words) > 1 and not any(found.values()):
        # Korean writes spaces between words ("최소 덱 크기"): the words as typed first; then, as
        # Chinese and Japanese write none ("践踏 伤害"), texts that hold each word.
        found = _cjk_rows_where(conn, *_holding_each(conn, words), limit, kinds)
    return found


# Card names holding every letter of the query, read to find one by its letters alone.
NAMES_BY_LETTERS = 200
NAME_LETTERS_AT_MOST = 16


def card_names_by_letters(conn: sqlite3.Connection, query: str, limit: int) -> list[dict[str, Any]]:
    """Card names holding the CJK ``query``'s letters, punctuation and spacing aside: "ザルター" and
    "ザル＝ター" are in ザル＝ターの豚, "モミールヴィグ" in シミックの幻想家、モミール・ヴィグ (the index holds
    each name as printed: part of a Japanese name across its ＝, ・ or 、 found nothing, though a
    whole name is found without them; a foreign players' review). The names holding every one of
    its letters are read, a bounded number, and compared: each letter of a name begins one of its
    two-letter words in the index, or ends its run (``cjk_grams``), where a pair of the query's
    letters may stand either side of the name's punctuation (ル＝タ: "ルター" found nothing)."""
    letters, as_typed = compact(query), NOT_WORD.sub("", query)
    # The index holds the letters as printed: folded, "ザ" is "サ" (its voicing mark dropped).
    distinct = list(dict.fromkeys(as_typed))
    # A part of a name, not a question (card names are short: each letter is one more term).
    if (not 3 <= len(letters) <= NAME_LETTERS_AT_MOST or not all(_in_bigram_index(conn, letter) for letter in distinct)
            or not table_exists(conn, "cjk_search")):
        return []
    within = kind_rowids(conn).get("card_name")
    bounds = "and rowid between {} and {}".format(*within) if within else "and kind = 'card_name'"
    found = rows(conn, f"""select kind, key, lang, text from cjk_search
        where {_IN_BIGRAMS.format(within=bounds)} {bounds} limit ?""",
                 (" AND ".join(_bigram_term(letter) for letter in distinct), NAMES_BY_LETTERS))
    return [row for row in found if row["kind"] == "card_name" and letters in compact(row["text"])][:limit]


def _held_as_typed(conn: sqlite3.Connection, needle: str) -> tuple[str, list[str]]:
    if len(needle) >= 3:
        return "cjk_search match ?", ['"' + needle.replace('"', "") + '"']
    sql, param = _short_condition(conn, needle)
    return sql, [param]


def _holding_each(conn: sqlite3.Connection, words: list[str]) -> tuple[str, list[str]]:
    """Texts holding every word: the long ones in one trigram match (FTS5 takes one per table),
    the short ones in one match of the two-character index (each capped alone, a common word's
    first matches crowded out the texts holding both: translations and names, after the rules)."""
    long_words = [word for word in words if len(word) >= 3]
    short_words = [word for word in words if len(word) < 3]
    conditions, params = [], []
    if long_words:
        conditions.append("cjk_search match ?")
        params.append(" AND ".join('"' + word.replace('"', "") + '"' for word in long_words))
    if short_words and all(_in_bigram_index(conn, word) for word in short_words):
        # Beside a long word's match, the short words' rowids only filter what that match reads
        # ("+"): as the rowids to look up one by one, 289 rules holding 堆叠 took 9.5 ms of
        # "触发式异能 堆叠"; as a filter, 0.4.
        conditions.append(("+" if long_words else "") + _IN_BIGRAMS)
        params.append(" AND ".join(_bigram_term(word) for word in short_words))
    else:
        for word in short_words:
            sql, param = _short_condition(conn, word)
            conditions.append(sql)
            params.append(param)
    return " and ".join(conditions), params


# Conditions over ``cjk_search`` are templates: ``{within}`` is where the rowids of one kind go
# (``kind_rowids``), or nothing.
_IN_BIGRAMS = f"rowid in (select rowid from cjk_bigrams where cjk_bigrams match ? {{within}} limit {CJK_SCAN})"


def _cjk_rows_where(
    conn: sqlite3.Connection, sql: str, params: list[str], limit: int, kinds: tuple[str, ...] = CJK_KINDS
) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {kind: [] for kind in CJK_KINDS}
    ranges = kind_rowids(conn)
    # A rare word's matches are all read in one short pass (a statement for each kind cost a
    # card name's search a third more).
    if _cjk_rows_in_one_pass(conn, sql, params, limit, kinds, found, FIRST_PASS if ranges else CJK_SCAN) or not ranges:
        return found
    # Then each kind not yet full, alone, from its own rowids: read in one pass, a common word's
    # thousands of rules came before any name or translation (异能, ability: 5,000 rows read, 5
    # ms, for each of a question's ~30 pieces; and a translation after the first 5,000 was never
    # found).
    for kind in kinds:
        if kind in ranges and len(found[kind]) < limit:
            within = "and rowid between {} and {}".format(*ranges[kind])
            found[kind] = rows(conn, f"""select kind, key, lang, text from cjk_search
                where {sql.format(within=within)} {within} limit ?""", (*params, limit))
    return found


def _cjk_rows_in_one_pass(
    conn: sqlite3.Connection, sql: str, params: list[str], limit: int, kinds: tuple[str, ...],
    found: dict[str, list[dict[str, Any]]], cap: int,
) -> bool:
    """Into ``found``, each kind capped on its own, in one pass that stops once every kind is
    full or after ``cap`` matching rows; whether it read all it was asked for (every kind full,
    or every match read)."""
    cursor = conn.execute(f"select kind, key, lang, text from cjk_search where {sql.format(within='')} limit ?",
                          (*params, cap))
    read = 0
    for kind, key, lang, text in cursor:
        read += 1
        bucket = found.setdefault(kind, [])
        if kind in kinds and len(bucket) < limit:
            bucket.append({"kind": kind, "key": key, "lang": lang, "text": text})
            if all(len(found[name]) >= limit for name in kinds):
                return True
    return read < cap


_KIND_ROWIDS: OrderedDict[tuple, dict[str, tuple[int, int]]] = OrderedDict()


def kind_rowids(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """Each kind's first and last rowid in ``cjk_search``, kept per served file: a build writes
    the kinds one after another (``kb.store.cjk_search``), so each is one range of rowids. Empty
    when the ranges overlap (an index made otherwise): then every kind is read in one pass."""
    return per_file(conn, _KIND_ROWIDS, _read_kind_rowids)


def _read_kind_rowids(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    ranges = {kind: (first, last) for kind, first, last in conn.execute(
        "select kind, min(rowid), max(rowid) from cjk_search group by kind")}
    spans = sorted(ranges.values())
    if any(before[1] >= after[0] for before, after in itertools.pairwise(spans)):
        return {}
    return ranges


def short_cjk_condition(conn: sqlite3.Connection, needle: str) -> tuple[str, str]:
    """The ``cjk_search`` condition for a one- or two-character query (克撒, 飞): through the
    two-character index ``cjk_bigrams`` (an index lookup, not a scan), else a LIKE scan that
    stops at the caller's LIMIT (a database built before that index existed)."""
    template, param = _short_condition(conn, needle)
    return template.format(within=""), param


def _short_condition(conn: sqlite3.Connection, needle: str) -> tuple[str, str]:
    if _in_bigram_index(conn, needle):
        return _IN_BIGRAMS, _bigram_term(needle)
    return "text like ? escape '\\'", "%" + escape_like(needle) + "%"


def _in_bigram_index(conn: sqlite3.Connection, needle: str) -> bool:
    letters = all(unicodedata.category(char)[0] == "L" for char in needle)
    return bool(CJK_ONLY.fullmatch(needle)) and letters and table_exists(conn, "cjk_bigrams")


def _bigram_term(needle: str) -> str:
    return '"' + needle + '"' if len(needle) == 2 else '"' + needle + '"*'


CJK_ONLY = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{1,2}")


def cjk_rule_rows(conn: sqlite3.Connection, found: list[dict[str, Any]], needle: str) -> list[dict[str, Any]]:
    keys = [row["key"] for row in found]
    marks = ",".join("?" * len(keys)) or "null"
    rules = rows(conn, f"""select rules.number, rules.title, rules.text, rules.version_id, cr_versions.lang,
            cr_versions.effective_date from rules join cr_versions on cr_versions.id = rules.version_id
        where rules.id in ({marks})""", keys)
    for rule in rules:
        rule["snip"] = None
    return rules


def _by_key(conn: sqlite3.Connection, sql: str, found: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    """The rows ``sql`` (``... where <table>.id in ({marks})``) reads for the keys of ``found``,
    by key: one statement for all of them (a statement each was 276 of a question's 2,088)."""
    keys = [row["key"] for row in found]
    if not keys:
        return {}
    return {row["id"]: row for row in rows(conn, sql.format(marks=",".join("?" * len(keys))), keys)}


def cjk_translations(conn: sqlite3.Connection, found: list[dict[str, Any]], needle: str) -> list[Hit]:
    translations = _by_key(conn, """select ruling_translations.id, ruling_translations.lang, ruling_translations.card_name,
            ruling_translations.ruling_id, rulings.oracle_id, rulings.card_name as ruling_card, cards.name as english
        from ruling_translations left join rulings on rulings.id = ruling_translations.ruling_id
        left join cards on cards.oracle_id = rulings.oracle_id
        where ruling_translations.id in ({marks}) and ruling_translations.status is not 'untranslated'""", found)
    return [translation_hit(translation, translation_snippet({**translation, "text": row["text"]}, needle))
            for row in found if (translation := translations.get(row["key"])) is not None]


def cjk_glossary(conn: sqlite3.Connection, found: list[dict[str, Any]], needle: str) -> list[Hit]:
    """Glossary entries whose CJK text holds the query, the term the query names first ("堆叠")."""
    entries = _by_key(conn, "select id, term, version_id from glossary where id in ({marks})", found)
    hits = [glossary_hit(entry["term"], row["lang"], highlight(row["text"], needle), entry["version_id"])
            for row in found if (entry := entries.get(row["key"])) is not None]
    wanted = title_key(needle)
    hits = sorted(hits, key=lambda hit: title_key(hit.title) != wanted)
    words = needle.split()
    if len(words) < 2 or not hits:
        return hits
    # Terms searched together ("触发式异能 堆叠", read from "触发式异能堆叠"), where some entry holds
    # them all: each one's own entry first, which holds only itself (the triggered ability's entry
    # was dropped: a review). Not where none does: the words are then read otherwise.
    named = [glossary_hit(row["term"], row["lang"], highlight(row["text"], word), row["version_id"])
             for word in words for row in rows(
                 conn, """select glossary.term, glossary.text, glossary.version_id, cr_versions.lang from glossary
                 join cr_versions on cr_versions.id = glossary.version_id
                 where glossary.term = ? and cr_versions.lang != 'en' limit 3""", (word,))]
    shown = {(hit.title, hit.detail) for hit in named}
    return named + [hit for hit in hits if (hit.title, hit.detail) not in shown]


HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@cache
def _chinese_converter(config: str) -> OpenCC:
    return OpenCC(config)


# Characters of Chinese's own among OpenCC's Japanese variants (found in the Chinese CR and
# printings, or in any Chinese dictionary): no sign of Japanese.
CHINESE_TOO = frozenset("予欠疏醋呪痺鼈")
KANA_CHAR = re.compile(r"[\u3040-\u30ff]")


def looks_japanese(text: str) -> bool:
    """Whether ``text`` is Japanese rather than Chinese: it holds kana, a Japanese form of a
    character (先制攻撃's 撃), or characters of both Chinese scripts at once (装備: Simplified 装 with
    Traditional 備, as Japanese writes them). Read as Chinese, such a text found Chinese false
    friends: 先制 (Initiative) in 先制攻撃 (First strike), 装备 (Equipment) for 装備 (Equip)."""
    simplified_only, traditional_only, japanese_forms = _one_script_characters()
    if KANA_CHAR.search(text) or any(char in japanese_forms for char in text):
        return True
    return any(char in simplified_only for char in text) and any(char in traditional_only for char in text)


@cache
def _one_script_characters() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Characters only Simplified Chinese writes (装: 裝 in Traditional), only Traditional writes
    (備: 备), and only Japanese (撃: 击, 擊; 変: 变, 變), from OpenCC's character tables; a form
    Taiwan's or Hong Kong's standard writes (群, 秘, 台, 占, which OpenCC's Traditional writes 羣, 祕,
    臺, 佔) is no Simplified-only one. (Asked of its converters, a Taiwan name such as 群魔亂鬥 read
    as mixed: as Japanese.)"""
    folder = Path(opencc.__file__).parent / "dictionary"

    def table(name: str) -> dict[str, list[str]]:
        with open(folder / name, encoding="utf-8") as lines:
            return {key: values.split() for key, values in (line.rstrip("\n").split("\t") for line in lines if "\t" in line)}

    to_traditional, to_simplified = table("STCharacters.txt"), table("TSCharacters.txt")
    regional = {form for name in ("TWVariants.txt", "HKVariants.txt") for forms in table(name).values() for form in forms}
    simplified_only = frozenset(char for char, forms in to_traditional.items()
                                if char not in forms and char not in to_simplified and char not in regional)
    traditional_only = frozenset(char for char, forms in to_simplified.items()
                                 if char not in forms and char not in to_traditional)
    chinese = {*to_traditional, *to_simplified, *(form for table_ in (to_traditional, to_simplified)
                                                   for forms in table_.values() for form in forms)}
    japanese = frozenset(form for forms in table("JPVariants.txt").values() for form in forms
                         if form not in chinese and form not in CHINESE_TOO)
    return simplified_only, traditional_only, japanese


def in_other_chinese_script(text: str) -> list[str]:
    """``text`` written in the other Chinese script, where that differs: Traditional as Simplified
    ("狀態動作" → 状态动作, the script of the Chinese CR and the release notes), Simplified as
    Traditional (the script of Taiwan's and Hong Kong's printings). None for Japanese
    (``looks_japanese``): its characters are neither script's."""
    if not HAN.search(text) or looks_japanese(text):
        return []
    found: list[str] = []
    for config in ("t2s", "s2t"):
        converted = _chinese_converter(config).convert(text)
        if converted != text and converted not in found:
            found.append(converted)
    return found
