"""Keywords in the one-box search: a keyword in any language lands on its English rule.

Terms come from ``keyword_dictionary`` (mined from printed texts and translated CRs) and the
English keyword titles of the current CR. A few hundred rows at most are read per query.
"""
from __future__ import annotations

import html
import json
import re
import sqlite3
from collections import OrderedDict, defaultdict
from typing import Any

from kb.site.labels import bcp47
from kb.site.search_db import newest_english_version, per_file, rows, rule_url, rules_titled, table_has_rows
from kb.site.search_hit import Hit
from kb.site.search_text import (
    WORD,
    allowed_slips,
    close_enough,
    compact,
    escape_like,
    fold,
    has_cjk,
    title_key,
    without_quotes,
)

LANG_WORDS = {
    "de": "German", "es": "Spanish", "fr": "French", "it": "Italian", "pt": "Portuguese", "ja": "Japanese",
    "ko": "Korean", "ru": "Russian", "zhs": "Simplified Chinese", "zht": "Traditional Chinese", "en": "English",
}


_ENGLISH_KEYWORDS: OrderedDict[tuple, list[dict[str, Any]]] = OrderedDict()


def english_keywords(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Keyword actions and abilities (701, 702) of the current English CR: title and number.

    Kept per served file (not per CR version id: a file built by other code, or from a corrected
    text of the same date, may hold other rules under the same id).
    """
    return per_file(conn, _ENGLISH_KEYWORDS, lambda of: _english_keywords(of, newest_english_version(of)))


_ENGLISH_KEYWORDS_BY_KEY: OrderedDict[tuple, dict[str, dict[str, Any]]] = OrderedDict()


def english_keywords_by_key(conn: sqlite3.Connection) -> dict[str, dict[str, Any]]:
    """``english_keywords`` by their folded term ("double strike"), the last of a term, kept per
    served file."""
    return per_file(conn, _ENGLISH_KEYWORDS_BY_KEY, lambda of: {
        key: found[-1] for key, found in english_keywords_termed(of).items()})


_ENGLISH_KEYWORDS_TERMED: OrderedDict[tuple, dict[str, list[dict[str, Any]]]] = OrderedDict()


def english_keywords_termed(conn: sqlite3.Connection) -> dict[str, list[dict[str, Any]]]:
    """Every one of ``english_keywords`` by its folded term, in their order, kept per served file
    (a search folded each of them: 260 calls a query)."""
    def read(of: sqlite3.Connection) -> dict[str, list[dict[str, Any]]]:
        termed: dict[str, list[dict[str, Any]]] = {}
        for row in english_keywords(of):
            termed.setdefault(fold(row["term"]), []).append(row)
        return termed

    return per_file(conn, _ENGLISH_KEYWORDS_TERMED, read)


def _english_keywords(conn: sqlite3.Connection, current: str | None) -> list[dict[str, Any]]:
    return rows(
        conn,
        """select title as term, title as en_term, number as rule_number, 'en' as lang from rules
        where version_id = ? and kind = 'rule' and title is not null
            and (number like '701.%' or number like '702.%') limit 1000""",
        (current,),
    )


def dictionary_rows(conn: sqlite3.Connection, wanted: str) -> list[dict[str, Any]]:
    """Dictionary entries whose term contains the query's first letters (or all of a CJK query)."""
    needle = wanted if has_cjk(wanted) else wanted[:4]
    if table_has_rows(conn, "keyword_dictionary"):
        return rows(
            conn,
            # The translated rules' own terms first: a term one of them and a printing share (先攻,
            # the Chinese rules' and a Traditional Chinese card's) is named for the rules' language.
            """select lang, term, en_term, rule_number, sources, printings, status from keyword_dictionary
            where term_key = ? or term_key like ? escape '\\'
            order by sources like '%cr-rule-title%' desc, lang limit 400""",
            (wanted, "%" + escape_like(needle) + "%"),
        )
    if table_has_rows(conn, "keywords"):
        return rows(
            conn,
            """select lang, term, en_term, rule_number, '["cr-' || source || '"]' as sources, 0 as printings,
                'agreed' as status from keywords where term like ? escape '\\' limit 400""",
            ("%" + escape_like(needle) + "%",),
        )
    return []


def how_it_matches(wanted: str, term: str) -> str | None:
    """'exact', 'word' (a word of a longer printed term: "Trampelschaden"), 'stem' ("arrollar"
    for "arrolla"), 'part' (a CJK query inside a longer term), or None."""
    key = fold(term)
    if key == wanted:
        return "exact"
    if has_cjk(wanted):
        return "part" if wanted in key else None
    if len(wanted) >= 4 and f" {wanted} " in f" {key} ":
        return "word"
    shorter, longer = sorted((wanted, key), key=len)
    if len(shorter) >= 5 and longer.startswith(shorter) and len(longer) - len(shorter) <= 2:
        return "stem"
    return None


def keywords_by_term(conn: sqlite3.Connection, query: str, limit: int) -> list[Hit]:
    """'Trampelschaden', 'piétinement', '飛行', 'полет', 'Conspire' -> the keyword's rule."""
    wanted = fold(without_quotes(query))
    if not wanted:
        return []
    hits = [Hit("keyword", f"{row['rule_number']} {row['en_term']}", rule_url(row["rule_number"]),
                html.escape(row["en_term"]), "en", "exact keyword") for row in english_keywords_termed(conn).get(wanted, [])]
    for row in _shared_terms(dictionary_rows(conn, wanted)):
        how = how_it_matches(wanted, row["term"])
        if how is None:
            continue
        hits.append(keyword_hit(row, how))
    hits.sort(key=lambda hit: not hit.detail.startswith("exact"))
    return hits[:limit]


def _shared_terms(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per term and keyword, with every language that prints it: "Equipar" is Spanish and
    Portuguese, "Velo" Spanish and Italian (the first hit named one language only: a judge in São
    Paulo was told the term was Spanish)."""
    merged: dict[tuple[str, Any, Any], dict[str, Any]] = {}
    for row in found:
        key = (row["term"], row["en_term"], row["rule_number"])
        if key not in merged:
            merged[key] = {**row, "also_langs": []}
            continue
        first = merged[key]
        first["also_langs"].append(row["lang"])
        first["also_printings"] = [*first.get("also_printings", []), row.get("printings") or 0]
        first["also_statuses"] = [*first.get("also_statuses", []), row.get("status")]
        first["sources"] = json.dumps(sorted(set(json.loads(first.get("sources") or "[]"))
                                             | set(json.loads(row.get("sources") or "[]"))))
    return list(merged.values())


NAMED_IN_QUERY = "keyword named in the query"
# A CJK query found inside a longer term: listed, never landed on (攻击, Attack, is inside
# 侧面攻击, Flanking: the search landed on Flanking).
WITHIN_A_KEYWORD = "part of a keyword"
# A keyword is named by at most three words ("double strike", "split second", "will of the council"
# is an ability word, not a keyword).
KEYWORD_WORDS_AT_MOST = 3
CJK_KEYWORD_CHARACTERS_AT_MOST = 8


def keywords_named_within(conn: sqlite3.Connection, query: str) -> list[Hit]:
    """The keywords that a word or a run of words of a longer query names, in English or as a
    term of the keyword dictionary ("how does trample work with deathtouch": Trample and
    Deathtouch; "Fliegend oder verursacht Trampelschaden": Flying and Trample; "践踏和死触怎么一起运作":
    Trample and Deathtouch), in the order the query names them. The query as a whole is ``keywords_by_term``'s."""
    return [Hit("keyword", f"{row['rule_number']} {row['en_term']}", rule_url(row["rule_number"]),
                html.escape(row["en_term"]), "en", NAMED_IN_QUERY) for _, _, row in _named_spans(conn, query)]


# Words between keywords a query compares: "hexproof vs shroud", "trample and deathtouch".
BETWEEN_KEYWORDS = frozenset({"and", "or", "vs", "v", "versus", "with", "plus", "&", "+", "/"})


def keywords_making_up(conn: sqlite3.Connection, query: str) -> list[str]:
    """The rules of two keywords or more that make up the whole query, words between them aside
    ("hexproof vs shroud": 702.11 and 702.18), in the query's order; else []. Such a query found
    the rules holding every word (122.1b lists keywords a counter can grant), or left one keyword
    out ("hexproof" of "hexproof vs shroud": an English judge's review)."""
    if has_cjk(query):
        return []
    words = WORD.findall(query)
    spans = _named_spans(conn, query)
    covered = {at for start, size, _ in spans for at in range(start, start + size)}
    if len(spans) < 2 or any(at not in covered and fold(word) not in BETWEEN_KEYWORDS for at, word in enumerate(words)):
        return []
    return list(dict.fromkeys(row["rule_number"] for _, _, row in spans))


def _named_spans(conn: sqlite3.Connection, query: str) -> list[tuple[int, int, dict[str, Any]]]:
    """``keywords_named_within``'s keywords, each with where it starts and how many words (CJK:
    characters) it is."""
    cjk = has_cjk(query)
    # CJK: runs of characters ("践踏和死触怎么一起运作": 践踏 and 死触), two at least.
    words = list("".join(query.split())) if cjk else WORD.findall(query)
    if len(words) < 2:
        return []
    inside_words = hangul_inside_words(query) if cjk else set()
    by_key = keyword_terms_by_key(conn)
    english = english_keywords_by_key(conn)
    current = newest_english_version(conn)
    whole = fold(query)
    named: list[tuple[int, int, dict[str, Any]]] = []
    taken: set[int] = set()  # "double strike" is Double Strike, not also Double
    if not cjk:
        # Nor is "double-faced" (with its hyphen or without) Double, doubling (701.10): listed for
        # every question about double-faced cards (a judge's review).
        compounds = hyphenated_compounds(conn)
        for start in range(len(words) - 1):
            pair = (fold(words[start]), fold(words[start + 1]))
            # A compound that is a keyword itself ("jump-start", "web-slinging") is named below.
            if pair in compounds and not {" ".join(pair), "-".join(pair)} & by_key.keys():
                taken |= {start, start + 1}
    longest = CJK_KEYWORD_CHARACTERS_AT_MOST if cjk else KEYWORD_WORDS_AT_MOST
    for size in range(min(longest, len(words)), 1 if cjk else 0, -1):
        for start in range(len(words) - size + 1):
            if start in inside_words:
                continue
            span = set(range(start, start + size))
            key = fold(("" if cjk else " ").join(words[start:start + size]))
            row = by_key.get(key) or (last_words(conn).get(key) if size == 1 and not cjk else None)
            # Another language's term that is an English rule's title is that rule in an English
            # question ("take the initiative": 726 The Initiative, not French First Strike).
            if row is not None and key not in english and rules_titled(conn, current, title_key(key)):
                continue
            if row is not None and key != whole and not span & taken:
                named.append((start, size, row))
                taken |= span
    named.sort(key=lambda found: found[0])
    return named


_HYPHENATED_COMPOUNDS: OrderedDict[tuple, frozenset[tuple[str, str]]] = OrderedDict()
HYPHENATED = re.compile(r"\b([^\W\d_]+)-([^\W\d_]+)\b")


def hyphenated_compounds(conn: sqlite3.Connection) -> frozenset[tuple[str, str]]:
    """The two words of each hyphenated compound the newest English glossary's terms print
    ("Double-Faced Card": double, faced), folded, kept per served file."""
    def read(of: sqlite3.Connection) -> frozenset[tuple[str, str]]:
        version = newest_english_version(of)
        return frozenset((fold(first), fold(second)) for (term,) in of.execute(
            "select term from glossary where version_id = ? and term like '%-%'", (version,))
            for first, second in HYPHENATED.findall(term))

    return per_file(conn, _HYPHENATED_COMPOUNDS, read)


HANGUL_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
# The particles a Korean word ends in ("치명타와 비행", "생물이 비행을", "턴 종료까지 비행을"): a query
# typed without its spaces ("치명타와비행") still names a keyword after one. A particle follows a
# word: the first syllable of a word is none ("의무적", mandatory, is not 의 and 무적, Indestructible).
KOREAN_PARTICLES = frozenset("와과이가을를은는의에도로만")
KOREAN_TWO_SYLLABLE_PARTICLES = frozenset({"까지", "에서", "에게", "으로", "부터", "처럼", "보다", "마다", "한테", "이나"})


def hangul_inside_words(query: str) -> set[int]:
    """The places (counted without spaces, as ``keywords_named_within`` counts characters) of the
    Hangul syllables that do not begin a word. Korean is written in words, spaces between them: a
    keyword begins a word, its particles follow ("변이를"), but it is not named by the syllables
    inside another word (돌연변이화, Mutate, is not 변이, Morph; nor is 답변이, "an answer"). After
    a particle a word begins, spaced or not."""
    inside: set[int] = set()
    place = 0
    for word in query.split():
        for offset, character in enumerate(word):
            if offset and HANGUL_SYLLABLE.match(character) and HANGUL_SYLLABLE.match(word[offset - 1]) \
                    and not _after_a_particle(word, offset):
                inside.add(place + offset)
        place += len(word)
    return inside


def _after_a_particle(word: str, offset: int) -> bool:
    """Whether the syllables before ``offset`` end in a particle that follows a word of its own."""
    return (offset >= 2 and word[offset - 1] in KOREAN_PARTICLES) or (
        offset >= 3 and word[offset - 2 : offset] in KOREAN_TWO_SYLLABLE_PARTICLES)


_KEYWORD_TERMS_BY_KEY: OrderedDict[tuple, dict[str, dict[str, Any]]] = OrderedDict()


def keyword_terms_by_key(conn: sqlite3.Connection) -> dict[str, dict[str, Any]]:
    """Every keyword's terms by their folded term: the English keywords ("double strike") and the
    keyword dictionary's terms in every language ("fliegend"; the first of a term two keywords
    share, an English keyword before any); kept per served file."""
    def read(of: sqlite3.Connection) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        if table_has_rows(of, "keyword_dictionary"):
            for row in rows(of, "select term, en_term, rule_number from keyword_dictionary order by lang, term limit 20000"):
                found.setdefault(fold(row["term"]), row)
        return {**found, **english_keywords_by_key(of)}

    return per_file(conn, _KEYWORD_TERMS_BY_KEY, read)


_LAST_WORDS: OrderedDict[tuple, dict[str, dict[str, Any]]] = OrderedDict()
# A word this long names its term ("Trampelschaden"); shorter last words are everyday words
# ("primero" of "Daña primero", "удар" of "Первый удар", "mortífero" of "Toque mortífero",
# Spanish too for "deadly").
LAST_WORD_AT_LEAST = 10


def last_words(conn: sqlite3.Connection) -> dict[str, dict[str, Any]]:
    """A keyword named by the last word of its printed term alone, where one keyword's terms end
    with it ("Trampelschaden" of "verursacht Trampelschaden": "Trampelschaden Todesberührung"
    named Deathtouch alone, a foreign judges' review), kept per served file."""
    def read(of: sqlite3.Connection) -> dict[str, dict[str, Any]]:
        by_word: dict[str, list[dict[str, Any]]] = {}
        # Printed terms of other languages only: an English keyword's last word is an English word
        # ("attraction" of Open an Attraction, "sculptor" of Space Sculptor: a review of the change).
        printed = rows(of, "select term, en_term, rule_number from keyword_dictionary where lang != 'en'"
                           " and term like '% %' limit 20000") if table_has_rows(of, "keyword_dictionary") else []
        for row in printed:
            *before, last = fold(row["term"]).split(" ")
            if before and len(last) >= LAST_WORD_AT_LEAST and not has_cjk(last):
                by_word.setdefault(last, []).append(row)
        named = keyword_terms_by_key(of)
        return {word: found[0] for word, found in by_word.items()
                if word not in named and len({row["en_term"] for row in found}) == 1}

    return per_file(conn, _LAST_WORDS, read)


def keyword_words(conn: sqlite3.Connection) -> frozenset[str]:
    """The English keywords of one word, folded ("trample", "cascade")."""
    return frozenset(key for key in english_keywords_by_key(conn) if " " not in key)


def in_its_language(term: str, lang: str) -> str:
    """The term escaped, tagged with its language when not English (the snippet around it is)."""
    return html.escape(term) if lang == "en" else f'<span lang="{bcp47(lang)}">{html.escape(term)}</span>'


# "Tocco regola", "Trampelschaden Regel": a word for the rule asked about, not another keyword's
# (a code review: "Tocco regola" no longer landed on Deathtouch, "regola Tocco" did). Folded.
RULE_WORDS = frozenset(
    "rule rules keyword ability regla reglas regle regles regel regeln regola regole regra regras"
    " habilidad fahigkeit abilita habilidade capacite правило правила способность".split())


def another_keyword_beside(conn: sqlite3.Connection, kept: str, typed: str) -> bool:
    """Whether every keyword term that ``kept`` (one word left of ``typed``) is a word of has, next
    to that word, another word than ``typed`` has there: "Двойной удар" (Double Strike) relaxed to
    "удар" found Первый удар (First Strike), and landed on it; "Attacco doppio" found Attacco
    improvviso (a foreign player's review). "Trampelschaden Regel" names no other word beside
    Trampelschaden than verursacht does: it lands on Trample. Only a query of a keyword's length:
    in a question, the word beside is the question's ("die Kreatur Trampelschaden hat")."""
    wanted = fold(kept)
    typed_words = WORD.findall(fold(typed))
    if wanted not in typed_words or len(typed_words) > KEYWORD_WORDS_AT_MOST:
        return False
    at = typed_words.index(wanted)
    found = False
    for row in dictionary_rows(conn, wanted):
        if how_it_matches(wanted, row["term"]) != "word":
            continue
        term_words = WORD.findall(fold(row["term"]))
        if wanted not in term_words:
            continue
        found = True
        here = term_words.index(wanted)
        before = here > 0 and at > 0 and term_words[here - 1] != typed_words[at - 1] not in RULE_WORDS
        after = (here + 1 < len(term_words) and at + 1 < len(typed_words)
                 and term_words[here + 1] != typed_words[at + 1] not in RULE_WORDS)
        if not (before or after):
            return False
    return found


def keyword_hit(row: dict[str, Any], how: str) -> Hit:
    sources = json.loads(row.get("sources") or "[]")
    from_cr = any(source.startswith("cr-") for source in sources)
    evidence = []
    # Each language's own count: one card printed in two languages is not two cards.
    counts = [(lang, count) for lang, count in zip(
        [row["lang"], *row.get("also_langs", [])], [row.get("printings") or 0, *row.get("also_printings", [])],
        strict=True) if count]
    if counts:
        first_lang, first = counts[0]
        evidence.append(f"printed on {first} card{'s' if first != 1 else ''}" + (
            "" if not row.get("also_langs") else f" in {LANG_WORDS.get(first_lang, first_lang)}"
            + "".join(f", {count} in {LANG_WORDS.get(lang, lang)}" for lang, count in counts[1:])))
        # As the rule and glossary pages say it: one card's printing is not yet a translation.
        if all(status == "single printing" for status in [row.get("status"), *row.get("also_statuses", [])]):
            evidence[-1] += ": one each, unconfirmed" if row.get("also_langs") else " only: unconfirmed"
    if from_cr:
        evidence.append("in the translated rules")
    languages = ", ".join(LANG_WORDS.get(lang, lang) for lang in [row["lang"], *row.get("also_langs", [])])
    snippet = (
        f"{in_its_language(row['term'], row['lang'])} <span class=\"lang\">{html.escape(languages)}</span>"
        f" → {html.escape(row['en_term'] or '')}"
        + (f" <span class=\"kb-evidence\">({html.escape(', '.join(evidence))})</span>" if evidence else "")
    )
    # The rule page's column of that language: a translation of the keyword's own rule or glossary
    # entry has one; a term its translation only lists elsewhere has none (the Korean 122.1b lists
    # keywords, and the Korean CR translates no keyword rule).
    anchor = f"lang-{row['lang']}" if {"cr-rule-title", "cr-glossary"} & set(sources) and row["lang"] != "en" else ""
    detail = {"exact": "exact keyword", "part": WITHIN_A_KEYWORD}.get(how, "keyword")
    return Hit("keyword", f"{row['rule_number']} {row['en_term']}", rule_url(row["rule_number"], anchor=anchor),
               snippet, row["lang"], detail)


# (position, compact key, the key's letters, row) of each term, by the key's length.
Candidates = dict[int, list[tuple[int, str, frozenset[str], dict[str, Any]]]]
_SUGGESTION_CANDIDATES: OrderedDict[tuple, Candidates] = OrderedDict()


def suggestion_candidates(conn: sqlite3.Connection) -> Candidates:
    """Every keyword term we hold (``Candidates``), by the key's length (a slip or two changes it
    by at most ``allowed_slips``); kept per served file while it is unchanged (a refresh that
    mines new printed keywords replaces the file, and its terms are read again)."""
    return per_file(conn, _SUGGESTION_CANDIDATES, _read_suggestion_candidates)


def _read_suggestion_candidates(conn: sqlite3.Connection) -> Candidates:
    candidates = list(english_keywords(conn))
    if table_has_rows(conn, "keyword_dictionary"):
        candidates += rows(
            conn,
            "select lang, term, en_term, rule_number, sources, printings, status from keyword_dictionary limit 20000",
        )
    by_length: Candidates = defaultdict(list)
    for position, row in enumerate(candidates):
        term_key = compact(row["term"])
        by_length[len(term_key)].append((position, term_key, frozenset(term_key), row))
    return dict(by_length)


def keyword_suggestions(conn: sqlite3.Connection, query: str) -> list[tuple[int, Hit]]:
    """Keyword terms in any language one or two slips away from ``query``."""
    key = compact(query)
    if not key:
        return []
    allowed = allowed_slips(key)
    by_length = suggestion_candidates(conn)
    close = []
    letters = frozenset(key)
    # Only the terms of a length a slip can reach (of 20k terms, a few thousand), and of those
    # only the terms that lack, or add, at most as many letters as slips are allowed (each needs
    # a slip: ``letters_apart``, with the terms' letters kept).
    for length in range(len(key) - allowed, len(key) + allowed + 1):
        for position, term_key, term_letters, row in by_length.get(length, ()):
            if len(letters - term_letters) > allowed or len(term_letters - letters) > allowed:
                continue
            distance = close_enough(key, term_key, allowed)
            if distance is not None:
                close.append((position, distance, row))
    # In the terms' own order: of equally near terms, the first stays first.
    close.sort(key=lambda found: found[0])
    scored: dict[str, tuple[int, Hit]] = {}
    for _position, distance, row in close:
        hit = Hit("keyword", row["term"] if row["lang"] == "en" else f"{row['term']} ({row['en_term']})",
                  rule_url(row["rule_number"]), html.escape(row["term"]), row["lang"], "suggestion")
        if hit.url + hit.title not in scored or distance < scored[hit.url + hit.title][0]:
            scored[hit.url + hit.title] = (distance, hit)
    return sorted(scored.values(), key=lambda pair: pair[0])
