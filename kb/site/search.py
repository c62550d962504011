"""One search over everything: rule numbers, card names, keywords, rules, glossary, rulings.

``search(conn, query)`` takes a plain ``sqlite3.Connection`` (Datasette hands one to
``execute_fn``; tests open the file themselves) and returns a ``SearchResults``: hits grouped by
kind with counts, each with a link and an HTML-safe snippet; ``best``, the one page a query
lands on when it names it exactly (a rule number, a card name in any language, a keyword); and
"did you mean" suggestions when nothing is named exactly.

The jobs live in their own modules: query text (``search_text``), card names
(``search_names``), keywords (``search_keywords``), rules (``search_rules``), the other full
text and CJK (``search_fulltext``, ``search_cjk``), whether words name a term and the term a
question asks about (``search_terms_named``), a question's relaxing (``search_relax``).
Every query is bounded; user input never reaches FTS5 syntax.
"""
from __future__ import annotations

import dataclasses
import functools
import re
import sqlite3
from collections.abc import Callable, Collection
from functools import partial

from kb.site.search_abbreviations import spelled_out
from kb.site.search_card_topic import CardTopic, card_and_topic, card_rulings_about, topic_words
from kb.site.search_cjk import (
    card_names_by_letters,
    cjk_glossary,
    cjk_rows,
    cjk_translations,
    in_other_chinese_script,
    looks_japanese,
)
from kb.site.search_cjk_rank import ranked_cjk_rules
from kb.site.search_cjk_relax import CHINESE_QUESTION_PHRASES, names_a_cjk_term, relaxed_cjk
from kb.site.search_db import (
    bounded_count,
    card_url,
    newest_english_version,
    one_request,
    register_functions,
    rows,
    rule_url,
    table_exists,
    table_has_rows,
)
from kb.site.search_fulltext import (
    glossary_by_text,
    mark_words,
    rulings_by_text,
    rulings_citing,
    translations_by_text,
)
from kb.site.search_hit import GROUP_TITLES, LAST_OFFSET, Hit, SearchResults
from kb.site.search_keywords import (
    NAMED_IN_QUERY,
    WITHIN_A_KEYWORD,
    another_keyword_beside,
    keyword_suggestions,
    keywords_by_term,
    keywords_making_up,
    keywords_named_within,
)
from kb.site.search_names import (
    Candidates,
    card_hit,
    cards_by_name,
    name_candidates,
    name_suggestions,
    page_of,
    slipped_name_suggestions,
    unique,
    unlinked_card_hit,
)
from kb.site.search_players_words import players_words_within, rules_an_older_term_points_to
from kb.site.search_question_words import question_words
from kb.site.search_readings import definitions_of_readings
from kb.site.search_relax import Relaxed, relaxed_words, words_held
from kb.site.search_rules import (
    RULE_NUMBER_QUERY,
    by_stems_where_few,
    is_or_within,
    named_rules,
    rule_number_asked,
    rules_by_number,
    rules_by_text,
)
from kb.site.search_symbols import symbol_results, symbols_asked
from kb.site.search_terms_named import (
    a_glossary_term,
    joined_term,
    names_a_term,
    names_exactly,
    term_a_question_asks_about,
)
from kb.site.search_text import (
    HIT_END,
    HIT_START,
    WORD,
    bare_term,
    clean_query,
    compact,
    escape_like,
    fold,
    fts_query,
    has_cjk,
    highlight,
    marked_to_html,
    one_face_when_alike,
    title_key,
    umlauts_as_vowels,
    with_number_words,
)
from kb.site.search_titles import rules_said_under_titles

__all__ = [
    "GROUP_TITLES", "HIT_END", "HIT_START", "Hit", "SearchResults", "bounded_count", "card_url", "clean_query", "escape_like",
    "fold", "fts_query", "has_cjk", "highlight", "marked_to_html", "newest_english_version", "register_functions",
    "rows", "rule_url", "search", "table_exists", "table_has_rows",
]

PER_KIND = 10
PAGE_SIZE = 25
SUGGESTIONS = 3


def search(
    conn: sqlite3.Connection, raw_query: str, per_kind: int = PER_KIND, kind: str | None = None, offset: int = 0
) -> SearchResults:
    """Everything that matches ``raw_query``, grouped by kind, best answer first.

    With ``kind`` only that group is filled, ``PAGE_SIZE`` hits from ``offset`` (the "more" pages).
    """
    raw_query = one_face_when_alike(raw_query)
    with one_request(conn):
        results = _search(conn, raw_query, per_kind, kind, offset, later_suggestions=True)
        if not found_nothing(results):
            if _chinese_rules_missed(results):
                # A Traditional word a Traditional printing also prints (死觸) found the keyword
                # but none of the Chinese rules, which are Simplified: the same words in the other
                # script, where they find the rules (a Chinese judge's review).
                return _in_other_script(conn, results, per_kind, kind, offset, _holds_chinese_rules) or results
            if (topic := term_a_question_asks_about(conn, results, raw_query)) is not None:
                # A question whose words, its question words aside, name a section, a keyword or
                # a glossary entry is answered by it, even where some row holds the question
                # words too: "what is the stack" found 400.5 (the library's order), which holds
                # "what", "is" and "the", and not 405 Stack (a judge's answer key). Other
                # questions keep the rows that hold every word as typed ("who controls a
                # triggered ability": 702.75a first, 603.3a among today's rules by the words'
                # stems). Decided by the words alone, so that every page of a group agrees.
                typed = results.abbreviation or results.query
                return relaxed_search(conn, results.query, typed, per_kind, kind, offset, first=topic) or results
            return with_rules_of_fewer_words(conn, results, per_kind, results.query, results.abbreviation or results.query)
        # German umlauts typed as two letters ("Waechter des Spaehnests"): names are folded to
        # their letters without marks ("Wachter"), so the pair is read as its vowel, once.
        if (vowels := umlauts_as_vowels(results.query)) is not None:
            umlauts = _search(conn, vowels, per_kind, kind, offset, asked=results.query)
            if not found_nothing(umlauts):
                return umlauts
        # A French or Italian article elided onto its word ("l'initiative", "d’équipement"): the
        # word, once. Else "l'initiative" is a slip from the term "Initiative" and offered as a
        # spelling, never searched.
        if ELIDED.search(results.query) and not has_cjk(results.query):
            unelided = _search(conn, ELIDED.sub("", results.query), per_kind, kind, offset, asked=results.query)
            if not found_nothing(unelided):
                return unelided
        # Traditional Chinese typed for the Simplified rules ("狀態動作", "踐踏"), or Simplified for
        # a Traditional printing's name: the same words in the other script, once.
        other_script = _in_other_script(conn, results, per_kind, kind, offset, lambda found: not found_nothing(found))
        if other_script is not None:
            return other_script
        # Nothing holds every word. A card and a question about it ("Okaun coin flip"): the
        # card's rulings about the rest. A misspelt name: "did you mean". A question ("what
        # happens if my commander dies") or a misspelt word of the rules ("comander damage"):
        # the results for the words something holds, saying which were left out and how a
        # misspelt one was read.
        typed = results.abbreviation or results.query
        card = card_and_topic(conn, results.query) if kind is None else None
        if card is None and kind is None and has_cjk(results.query):
            # A card known by its Simplified name only, asked about in Traditional
            # ("鑄物勳爵克撒怎麼運作": Urza, Lord High Artificer, whose release notes are Simplified):
            # read in the other script, else the name was cut in two and half of it left out (a
            # review in the judges' languages).
            for converted in in_other_chinese_script(results.query):
                if (card := card_and_topic(conn, converted)) is not None:
                    about = about_card(conn, card, *cjk_topic(conn, card.topic), typed, per_kind)
                    about.left_out = _as_typed(about.left_out, converted, results.query)
                    return about
        if card is not None and has_cjk(results.query):  # "灵龙乌金怎么运作": Ugin, and what it asks
            return about_card(conn, card, *cjk_topic(conn, card.topic), typed, per_kind)
        present, read_as = words_held(conn, topic_words(card)) if card is not None else ([], {})
        # Some word held as typed: a topic, not a misspelt whole name ("Jace Vryns Prodgy").
        if card is not None and set(present) - set(read_as.values()):
            return about_card(conn, card, present, read_as, None, typed, per_kind)
        # CJK is not spaced into words: a question holding a keyword's term ("トランプルはどうなる")
        # is a slip or two from that term, but it asks about the term, not for its spelling.
        if has_cjk(results.query) and (
            relaxed := _relaxed_as_the_chinese_rules_write_it(conn, results.query, typed, per_kind, kind, offset)
        ):
            return relaxed
        # A card named by some words and no other word held as typed ("Jace Vryns Prodgy"): a
        # misspelt whole name, if a name is a slip or two away.
        if results.later_suggestions is not None:
            results.suggestions = results.later_suggestions()
            results.later_suggestions = None
        if results.suggestions:
            # A misspelt keyword ("tramle", "deathtuch"): its results at once, read as the
            # keyword, beside the link to it ("did you mean" alone before, while "comander damage"
            # was read as "commander damage": a judge's review). A misspelt card name stays a
            # question: read word by word it finds other things (Jace's rulings of "vryn"). Only
            # read as the keyword suggested: "ramage" (Rampage?) read as "damage" was rule 120.
            if kind is None and all(hit.kind in ("keyword", "glossary") for hit in results.suggestions):
                relaxed = relaxed_search(conn, results.query, typed, per_kind, kind, offset)
                # A word of the keyword: "first strke" reads "strike" of First strike.
                suggested = {word for hit in results.suggestions for word in fold(hit.title).split()}
                if (
                    relaxed is not None and not relaxed.left_out and relaxed.read_as
                    and all(fold(reading) in suggested for reading in relaxed.read_as.values())
                ):
                    relaxed.suggestions = results.suggestions
                    return relaxed
            return results
        if card is not None:
            return about_card(conn, card, present, read_as, None, typed, per_kind)
        relaxed = relaxed_search(conn, results.query, typed, per_kind, kind, offset)
        if relaxed is not None:
            return with_rules_of_fewer_words(conn, relaxed, per_kind, results.query, typed)
        # Nothing read the query: a one-word name misspelt in its first letters ("wldruf"), last,
        # for "muntain" is the rules' "mountain" and its card (a review of the change).
        if kind is None:
            results.suggestions = unique([hit for _, hit in slipped_name_suggestions(conn, results.query)])[:SUGGESTIONS]
        return results


def with_rules_of_fewer_words(
    conn: sqlite3.Connection, results: SearchResults, per_kind: int, asked: str, typed: str
) -> SearchResults:
    """``results`` (every group's page of ``asked``, typed as ``typed``: an abbreviation spelt
    out) where no rule holds every word though something else does, and nothing is the answer
    (no best match, no card named): the rules of the words some rule holds, as the rules' own page
    lists them, and which words those are (``rules_for``, ``rules_left_out``). "mulligan rules
    london" listed the glossary's London Mulligan alone, "what happens when a face down creature
    leaves the battlefield" one ruling, where the rules' page has 103.5 and 708.9 first (a judge's
    review). A card's name is no question: "Okaun, Eye of Chaos" listed 205.3m for "eye" (a review
    of the change)."""
    # The rules' own first page likewise (a code review: it listed the older rules alone).
    first_page = results.kind is None or (results.kind == "rules" and results.offset == 0)
    if first_page and results.best is None and _only_older_rules(results.groups.get("rules", [])):
        return _todays_rules_first(conn, results, results.page_size if results.kind else per_kind, asked, typed)
    found_rules = [hit for hit in results.groups.get("rules", []) if not _a_players_words_rule(results, hit)]
    if (results.kind is not None or found_rules or results.card or results.best is not None
            or results.groups.get("cards") or has_cjk(asked) or len(WORD.findall(asked)) < 2):
        return results
    # (The rules a player's word within it points to lead these too: ``_search``.)
    rules = relaxed_search(conn, asked, typed, per_kind, "rules", 0)
    if rules is None or not rules.groups.get("rules"):
        return results
    results.groups["rules"] = rules.groups["rules"][:per_kind]
    results.counts["rules"] = rules.counts.get("rules", len(rules.groups["rules"]))
    if "rules" in rules.capped:
        results.capped.add("rules")
    results.rules_for, results.rules_left_out = rules.query, rules.left_out
    return results


def _only_older_rules(hits: list[Hit]) -> bool:
    """Every rule listed is an older English edition's only (its page by that version), and none
    of them goes on today: a rule reworded since ("converted mana cost" is "mana value" today) is
    listed with its number today (``Hit.now``), which is the rule asked for."""
    return bool(hits) and all(hit.lang == "en" and "?version=" in hit.url and not hit.now for hit in hits)


# The places of the first page kept for older editions' rules that hold every word.
OLDER_KEPT = 3


def _todays_rules_first(
    conn: sqlite3.Connection, results: SearchResults, per_kind: int, asked: str, typed: str
) -> SearchResults:
    """``results`` whose rules hold every word only in older editions, in rules removed since:
    today's rules of the most of its words today's rules hold together first, then those. "who
    gets priority after combat damage" listed 2006's 310.4 alone ("Combat damage resolves as an
    object on the stack", gone in 2009; 310.4 is about battles today: a judge's answer key; the
    older editions kept every word from being left out). ``rules_for`` and ``rules_left_out`` say
    which words today's rules hold."""
    if results.card or results.groups.get("cards") or has_cjk(asked) or not table_exists(conn, "rules_now_fts"):
        return results
    relaxed = relaxed_words(conn, asked, names_a_term(conn), a_glossary_term(conn), indexes=["rules_now_fts"])
    if relaxed is None or not relaxed.left_out:
        return results
    # More words kept than left out, besides the question's own ("who", "which"): today's rules of
    # "mana" are no answer to "mana burn damage", which 2006's 300.3 was, nor those of "creature
    # type" to "creature type changing layer" (a code review).
    asking = question_words(WORD.findall(asked))
    if len(relaxed.kept) < 2 or len(relaxed.kept) <= len([word for word in relaxed.left_out if fold(word) not in asking]):
        return results
    today = _search(conn, " ".join(relaxed.kept), per_kind, "rules", 0, asked=typed)
    current = [hit for hit in today.groups["rules"] if "?version=" not in hit.url]
    if not current:
        return results
    # One page, no more: the group's own pages (``kind=rules``) list the older editions' rules
    # that hold every word, and a "more" link from here would page another list (a code review).
    # The older rules keep a few places of it, as the page says they follow.
    older = results.groups["rules"]
    results.groups["rules"] = current[:per_kind - min(len(older), OLDER_KEPT)] + older
    results.groups["rules"] = results.groups["rules"][:per_kind]
    results.counts["rules"] = len(results.groups["rules"])
    results.capped.discard("rules")
    results.rules_for, results.rules_left_out, results.rules_older_hold_all = " ".join(relaxed.kept), relaxed.left_out, True
    return results


# Relaxations of a question tried in turn, each the words the one before kept (each is one search).
RELAXED_ROUNDS = 3
DOTTED_NUMBER = re.compile(r"\d[.,]\d")
ELIDED = re.compile(r"\b(?:l|d|j|qu|s|n|c|m|t|un|dell|all|nell|dall|sull)['’](?=\w)", re.IGNORECASE)


def relaxed_search(
    conn: sqlite3.Connection, query: str, typed: str, per_kind: int, kind: str | None, offset: int,
    first: Relaxed | None = None,
) -> SearchResults | None:
    """The results for the words of ``query`` something holds (``search_relax``; ``first``: those
    words, where the caller read them), or None.

    The words kept are found together somewhere the search may not list (an older edition's
    glossary entry: "what happens if both players lose at the same time" kept "both players lose
    time" and listed nothing at all). Those words are then relaxed in turn, ``RELAXED_ROUNDS``
    times at most."""
    words = query
    left_out: list[str] = []
    read_as: dict[str, str] = {}
    for _ in range(RELAXED_ROUNDS):
        relaxed: Relaxed | None
        if first is not None:
            relaxed, first = first, None
        elif has_cjk(words):  # "飞行怎么运作": a run of characters, not words
            relaxed = relaxed_cjk(conn, words, names_a_cjk_term(conn))
        else:
            relaxed = joined_term(words, names_exactly(conn)) or relaxed_words(
                conn, words, names_a_term(conn), a_glossary_term(conn)
            )
        if relaxed is None:
            return None
        for word in relaxed.left_out:
            # A word an earlier round read otherwise ("flash back" as "flashback"), left out
            # now: the words typed for it are what was left out.
            typed_for = [typed_word for typed_word, reading in read_as.items() if reading == word]
            for typed_word in typed_for:
                del read_as[typed_word]
            left_out += [each for typed_word in typed_for or [word] for each in typed_word.split() if each not in left_out]
        read_as.update(relaxed.read_as)
        # A page of another group shows no glossary: its definitions are not looked up.
        defined = definitions_of_readings(conn, read_as) if kind in (None, "glossary") else None
        again = _search(conn, " ".join(relaxed.kept), per_kind, kind, offset, asked=typed, defined=defined)
        if not found_nothing(again):
            break
        if len(relaxed.kept) < 2:
            return None
        words = " ".join(relaxed.kept)
    else:
        return None
    typed_words = [word.casefold() for word in WORD.findall(query)]
    left_out.sort(key=lambda word: typed_words.index(word.casefold()) if word.casefold() in typed_words else len(typed_words))
    again.relaxed_from, again.left_out, again.read_as = typed, left_out, read_as
    best = again.best
    if (best is not None and best.kind == "keyword" and best.detail == "keyword" and len(relaxed.kept) == 1
            and another_keyword_beside(conn, relaxed.kept[0], typed)):
        again.best = None  # listed, not landed on: the word left out named another keyword
    if relaxed.cut_word:
        if looks_japanese(query):
            # A Chinese term cut out of a Japanese word is a false friend, not a part of what was
            # asked (先制攻撃, First strike: its 先制 is the Chinese rules' Initiative).
            return None
        again.best = None
    return again


def cjk_topic(conn: sqlite3.Connection, topic: str) -> tuple[list[str], dict[str, str], list[str]]:
    """What a CJK question asks of a card: the piece of ``topic`` something holds (as a question's
    is chosen, ``relaxed_cjk``), no readings, and the rest of the topic, left out."""
    relaxed = relaxed_cjk(conn, topic, names_a_cjk_term(conn)) if topic else None
    return (relaxed.kept, {}, relaxed.left_out) if relaxed else ([], {}, topic.split())


def _typed_in(conn: sqlite3.Connection, card: CardTopic) -> str | None:
    """The one language other than English whose name of the card the query typed ("灵龙乌金怎么运作":
    the card's page in it, as a search of the name alone opens it; the English view opened: a
    foreign judges' review), case and accents aside; None where English or several languages print
    that name ("Phelddagrif", "Constructo de Ugin": Spanish and Portuguese)."""
    if not card.oracle_id:
        return None
    typed = fold(card.typed)
    langs = {row["lang"] for row in rows(conn, "select lang, name from card_names where oracle_id = ? limit 50",
                                         (card.oracle_id,)) if fold(row["name"]) == typed}
    return next(iter(langs)) if len(langs) == 1 and "en" not in langs else None


def about_card(
    conn: sqlite3.Connection, card: CardTopic, present: list[str], read_as: dict[str, str],
    left_out: list[str] | None, typed: str, per_kind: int,
) -> SearchResults:
    """The card some words of ``typed`` name, its rulings about the other words some index holds
    (``present``, misspelt ones as ``read_as`` reads them), and the results for those words
    (relaxed as any query's are). A word nothing holds ("rulings" of "Jace rulings") is left out;
    ``left_out``: the topic's words left out, when the caller knows them (a CJK topic's)."""
    words = topic_words(card)
    if present:
        topic = " ".join(present)
        results = _search(conn, topic, per_kind, None, 0, asked=typed)
        if found_nothing(results) and not results.suggestions:
            results = relaxed_search(conn, topic, typed, per_kind, None, 0) or results
    else:  # "what does Zndrsplt do", "Jace rulings": the card, and nothing else to search for
        results = SearchResults(query="", groups={name: [] for name in GROUP_TITLES})
    results.relaxed_from = typed
    as_typed = {word.casefold(): word for word in reversed(WORD.findall(card.topic))}
    if left_out is None:
        left_out = [as_typed.get(word, word) for word in words if word not in present and word not in read_as]
    results.left_out = left_out + results.left_out
    results.read_as = {**{as_typed.get(word, word): reading for word, reading in read_as.items()}, **results.read_as}
    local = _typed_in(conn, card)
    named = card_hit({"oracle_id": card.oracle_id, "lang": local or "en",
                      "name": card.typed if local else card.name, "english": card.name},
                     fold(card.typed if local else card.name)) if card.oracle_id else unlinked_card_hit(card.name, None, True)
    named.detail = "card named in the query"
    results.groups["cards"] = unique([named, *results.groups["cards"]])
    results.counts["cards"] = len(results.groups["cards"])
    results.groups["card_rulings"], about = card_rulings_about(conn, card, present)
    results.counts["card_rulings"] = len(results.groups["card_rulings"])
    # Listed once: the card's rulings leave the rulings that hold the other words.
    listed = {hit.url for hit in results.groups["card_rulings"]}
    others = [hit for hit in results.groups["rulings"] if hit.url not in listed]
    results.counts["rulings"] = max(0, results.counts.get("rulings", 0) - (len(results.groups["rulings"]) - len(others)))
    results.groups["rulings"] = others
    results.card = {"oracle_id": card.oracle_id, "name": card.name, "url": card.url, "typed": card.typed, "about": about}
    results.best = named
    results.suggestions = []
    return results


def _in_other_script(
    conn: sqlite3.Connection, results: SearchResults, per_kind: int, kind: str | None, offset: int,
    good: Callable[[SearchResults], bool],
) -> SearchResults | None:
    """The search of ``results``' query in the other Chinese script, where its results are ``good``."""
    for converted in in_other_chinese_script(results.query):
        other_script = _search(conn, converted, per_kind, kind, offset, asked=results.query)
        if good(other_script):
            return other_script
    return None


def _relaxed_as_the_chinese_rules_write_it(
    conn: sqlite3.Connection, query: str, typed: str, per_kind: int, kind: str | None, offset: int
) -> SearchResults | None:
    """A CJK question relaxed in its own script, or the same question in the other Chinese script,
    relaxed there, where that finds the Chinese rules and reads more of the question
    (``_read_of``), or as much where the question's own script found none of them (or nothing).
    A Traditional question found nothing ("狀態動作是什麼"), kept one of its keywords and found the English rules only
    ("踐踏和死觸怎麼一起運作"), or left its 連擊 (Double Strike) out of "連擊和先攻"; the Simplified
    rules read them as "状态动作…" (State-Based Actions), "践踏和死触…" (Trample and Deathtouch)
    and "连击和先攻" (a Chinese judge's review). A Japanese question stays Japanese
    (飛行はどうなる: the English rules, as ``_chinese_rules_missed`` says)."""
    relaxed = relaxed_search(conn, query, typed, per_kind, kind, offset)
    if looks_japanese(query):
        return relaxed
    for converted in in_other_chinese_script(query):
        other = relaxed_search(conn, converted, converted, per_kind, kind, offset)
        if other is not None and _holds_chinese_rules(other) and (
            relaxed is None or _read_of(other) > _read_of(relaxed)
            or (_chinese_rules_missed(relaxed) and _read_of(other) == _read_of(relaxed))
        ):
            other.relaxed_from = typed
            other.left_out = _as_typed(other.left_out, converted, query)
            return other
    return relaxed


def _as_typed(pieces: list[str], converted: str, typed: str) -> list[str]:
    """The words left out of ``converted`` as ``typed`` wrote them, where the conversion kept each
    character in its place (it does, character by character): "怎麼運作" left out of "飛行怎麼運作",
    not "怎么运作" (a review of the change)."""
    if len(converted) != len(typed):
        return pieces
    found, start = [], 0
    for piece in pieces:
        at = converted.find(piece, start)
        if at == -1:
            return pieces
        found.append(typed[at:at + len(piece)])
        start = at + len(piece)
    return found


def _read_of(relaxed: SearchResults) -> tuple[int, int, int]:
    """How much of a relaxed question was read: the keywords the words it kept name, then every
    keyword it names (some in the words it left out), then the fewer characters left out. A
    reading that kept "对手" (opponent) of "對手有死觸" read less than one that kept 死觸
    (Deathtouch), though both list Deathtouch (a review of the change)."""
    keywords = relaxed.groups.get("keywords", [])
    kept = sum(1 for hit in keywords if hit.detail != NAMED_IN_QUERY)
    return kept, len(keywords), -len("".join(relaxed.left_out))


def _holds_chinese_rules(results: SearchResults) -> bool:
    return any(hit.lang in ("zhs", "zht") for group in ("rules", "glossary") for hit in results.groups.get(group, []))


def _chinese_rules_missed(results: SearchResults) -> bool:
    """A Chinese query that found no Chinese rule or glossary entry, nor a card by its name, nor a
    Japanese keyword (飛行 is Japanese as much as Traditional Chinese: the Japanese reader is
    shown the English rules, as before, not the Chinese ones)."""
    return (has_cjk(results.query) and not results.groups.get("cards") and not _holds_chinese_rules(results)
            and (asks_in_chinese(results.relaxed_from or results.query)
                 or not any(hit.lang == "ja" for hit in results.groups.get("keywords", []))))


def asks_in_chinese(query: str) -> bool:
    """A question in Chinese words, no kana: "飛行 怎麼運作" asks about Flying in Traditional
    Chinese, though 飛行 is the Japanese term too (a foreign judges' review: it was shown the
    English rules only, as a Japanese reader is)."""
    return not looks_japanese(query) and any(phrase in query for phrase in CHINESE_QUESTION_PHRASES)


def found_nothing(results: SearchResults) -> bool:
    """No hit but the keywords some words of the query name (``keywords_named_within``). A page
    of one group past its last hit found what the group holds: its words are not relaxed (paging
    "copy of a copy"'s 73 rules on showed 86 others, four of them again: a review)."""
    if results.kind is not None and results.offset > 0 and results.counts.get(results.kind, 0) > 0:
        return False
    return results.best is None and all(
        hit.detail == NAMED_IN_QUERY or (kind == "rules" and _a_players_words_rule(results, hit))
        for kind, hits in results.groups.items() for hit in hits
    )


def _a_players_words_rule(results: SearchResults, hit: Hit) -> bool:
    """A rule listed for a player's word within the question (``players_words_within``), or one
    of its subrules listed with it (103.5a of 103.5, Paris Mulligan's)."""
    number = hit.title.partition(" ")[0]
    return any(is_or_within(number, rule) for rule in results.players_words_rules)


def _search(
    conn: sqlite3.Connection, raw_query: str, per_kind: int, kind: str | None, offset: int, asked: str | None = None,
    later_suggestions: bool = False, defined: list[Hit] | None = None,
) -> SearchResults:
    """``search`` of ``raw_query`` as typed; ``asked``: the whole query when this is some of its
    words (the keywords its other words name are listed too); ``later_suggestions``: when nothing
    is found, "did you mean" is left to be asked for (``SearchResults.later_suggestions``);
    ``defined``: glossary entries listed first where anything else is found (paged and counted
    with the rest)."""
    query = clean_query(raw_query)
    abbreviation, query = (query, expanded) if (expanded := spelled_out(query)) else (None, query)
    kind = kind if kind in GROUP_TITLES else None
    size = PAGE_SIZE if kind else per_kind
    offset = max(0, min(int(offset or 0), LAST_OFFSET)) if kind else 0
    results = SearchResults(query=query, groups={name: [] for name in GROUP_TITLES}, kind=kind, offset=offset,
                            page_size=size, abbreviation=abbreviation)
    if not query:
        return results
    if symbols := symbols_asked(query):
        return symbol_results(conn, results, symbols)
    # A rule number named with the word "rule" of some language, "§" or "第…条" is searched as
    # the number alone: "规则 702.19" and "rule 702.19" listed the English rules only, for no
    # translated rule holds that word (a Chinese judge types the number as the Chinese rules cite it).
    if named_number := RULE_NUMBER_QUERY.match(query):
        query = rule_number_asked(named_number)
    groups = results.groups
    match = fts_query(query)
    # Not the numbers of a rule number ("702.19": its 19 is no "nineteen").
    match = with_number_words(match) if match and not DOTTED_NUMBER.search(query) else match
    cjk = cjk_rows(conn, query, size * 3) if has_cjk(query) else {}
    if cjk and not cjk["card_name"]:
        cjk["card_name"] = card_names_by_letters(conn, query, size * 3)
    groups["keywords"] = keywords_by_term(conn, query, per_kind)
    numbered = rules_by_number(conn, query)
    named = bool(numbered) or any(hit.detail.startswith("exact") for hit in groups["keywords"])
    candidates = functools.cache(partial(name_candidates, conn, query))
    groups["cards"] = cards_by_name(conn, query, per_kind, named, candidates) + cjk_cards(conn, cjk.get("card_name", []), query)
    about = [hit.title.split(" ")[0] for hit in groups["keywords"][:3]]
    about += [hit.title.split(" ")[0] for hit in numbered]
    # "hexproof vs shroud", "trample deathtouch": the rules of each keyword the query is made of
    # (only 122.1b, which lists both, was found; or "hexproof" was left out).
    about += [number for number in keywords_making_up(conn, query) if number not in about]
    by_glossary, by_title = named_rules(conn, query)
    about += by_glossary + by_title
    current = newest_english_version(conn)
    # Where nothing names a rule: "mana abilities" is 605, not 106 Mana's rules saying "ability".
    about = about or rules_said_under_titles(conn, query)
    # An informal or obsolete term, or one today's glossary no longer defines ("fizzle"): today's
    # rules its newest entry points to, where nothing else names a rule ("kicker" is 702.33
    # first, not 2006's entry's 409.1b, today's 601.2b).
    about = about or rules_an_older_term_points_to(conn, query, current, whole_query=True)
    # A player's word inside the question ("does my spell fizzle if …"): the rules its informal
    # or obsolete glossary entry points to, today's, first. They are no match of the question's
    # words: a question that finds nothing else is read by fewer words as before (``found_nothing``),
    # and they lead that reading's rules too, on every page of the group alike.
    # Whatever else names rules: "does a spell fizzle" is read as "spell", 112 Spells, and 608.2b
    # leads it (a code review: it was lost there).
    spoken = [number for number in players_words_within(conn, asked or query, current) if number not in about]
    results.players_words_rules = spoken
    # "Initiative" titles 726 The Initiative and is French for First Strike: the rule the English
    # title names leads, the French meaning's follows.
    # Likewise a rule titled as asked before the others its glossary entry cites: "infinity" is
    # 702.186 "∞ (Infinity)", then 701.64 Harness (the entry Infinity cites both).
    first = another_meaning(groups["keywords"], by_title) or (by_title if set(by_glossary) - set(by_title) else [])

    # The CJK rules most telling first, not in the rulebook's order (``search_cjk_rank``).
    cjk_rules = ranked_cjk_rules(conn, cjk.get("rule", []), query, asked, size * 3) if cjk else None

    def rules_about(numbers: list[str]) -> tuple[list[Hit], int, bool]:
        found = rules_by_text(conn, query, match, numbers, cjk_rules.rows if cjk_rules else [], offset + size, first,
                              spoken, cjk_rules.places if cjk_rules else None, cjk_rules.saying_more if cjk_rules else ())
        # A card's name ("Ugin, the Spirit Dragon") asks for no rules by its words' stems.
        if match and not any(hit.detail.startswith("exact") for hit in groups["cards"]):
            found = by_stems_where_few(conn, query, match, numbers, offset + size, first, found, spoken)
        return found

    rules, results.counts["rules"], rules_capped = rules_about(about + spoken)
    # A page of one group reads no other group's matches (the million rulings for a page of rules).
    if match and kind in (None, "glossary"):
        groups["glossary"] = glossary_by_text(conn, query, match, 100, offset + size)
    if match and kind in (None, "rulings"):
        rulings, count, capped = rulings_by_text(conn, query, match, offset if kind == "rulings" else 0, size)
        groups["rulings"] = rulings
        results.counts["rulings"] = count
        if capped:
            results.capped.add("rulings")
    if match and kind in (None, "translations"):
        groups["translations"] = translations_by_text(conn, query, match, 100)
    groups["glossary"] = cjk_glossary(conn, cjk.get("glossary", []), query) + groups["glossary"]
    groups["translations"] += cjk_translations(conn, cjk.get("ruling_translation", []), query)
    if rules_capped:
        results.capped.add("rules")
    groups["rules"] = rules[offset:] if kind == "rules" else rules
    if defined and not all(hit.detail == NAMED_IN_QUERY for hits in groups.values() for hit in hits):
        groups["glossary"] = defined + groups["glossary"]
    for keyword in groups["keywords"][:2] if kind in (None, "rulings") else []:
        number, _, english = keyword.title.partition(" ")
        groups["rulings"] += rulings_citing(conn, number, english, size)
    # Listed, not searched: the rules and rulings are those of the query's words.
    listed = {hit.url.split("#")[0] for hit in groups["keywords"]}
    groups["keywords"] += [hit for hit in keywords_named_within(conn, asked or query) + (
        keywords_named_within(conn, query) if asked else []) if hit.url.split("#")[0] not in listed]
    for name in GROUP_TITLES:
        hits = unique(groups[name])
        if name == "rules":
            total = results.counts["rules"]
        elif name == "rulings":
            total = max(results.counts.get("rulings", 0), len(hits))
        else:
            total = len(hits)
            hits = hits[offset:] if kind == name else hits
        results.counts[name] = total
        groups[name] = hits[:size] if kind in (None, name) else []
    for hit in groups["rules"]:
        hit.snippet = mark_words(hit.snippet, query)
        for copy in hit.older:
            copy.snippet = ""
    if another_meaning(groups["keywords"], by_title):
        # The rules group first too, not only 726 first within it: the French keyword's group led
        # the page for "initiative" (a player's review).
        reordered = {"rules": groups["rules"], **{name: hits for name, hits in groups.items() if name != "rules"}}
        groups.clear()
        groups.update(reordered)
    results.best = best_hit(query, groups, numbered, by_glossary, by_title)
    # A misspelling: suggest names and keywords a slip or two away (short queries, or few results).
    if not kind and results.best is None and (results.total < 5 or len(query.split()) <= 4) and not any(
        hit.detail.startswith("exact") for hit in groups["cards"] + groups["keywords"]
    ):
        if later_suggestions and found_nothing(results):
            # Wanted only if no card is named by some of the words (``search``).
            results.later_suggestions = partial(suggestions, conn, query, candidates)
        else:
            results.suggestions = suggestions(conn, query, candidates)
    return results


def cjk_cards(conn: sqlite3.Connection, found: list[dict], needle: str) -> list[Hit]:
    """Cards whose CJK name contains the query (the trigram or LIKE rows). A face's name found is
    titled by the card's whole name in that language where it has one, as a name found whole is
    (杰斯 titled Jace's front face alone, ジェイス both faces: a review in the judges' languages)."""
    linked = sorted({row["key"] for row in found if not str(row["key"]).startswith("name:")})
    whole: dict[tuple[str, str], str] = {}
    if linked:
        marks = ",".join("?" * len(linked))
        for oracle_id, lang, name in conn.execute(
                f"select oracle_id, lang, name from card_names where oracle_id in ({marks}) and name like '% // %'", linked):
            whole.setdefault((oracle_id, lang), name)
    hits = []
    for row in found:
        if str(row["key"]).startswith("name:"):
            hits.append(unlinked_card_hit(row["text"], row["lang"], fold(row["text"]) == fold(needle)))
        else:
            name = whole.get((row["key"], row["lang"]), row["text"])
            hit = card_hit({"oracle_id": row["key"], "lang": row["lang"], "name": name, "english": None}, fold(needle))
            hit.snippet = highlight(row["text"], needle) + f' <span class="lang">{row["lang"]}</span>'
            hits.append(hit)
    return hits


def best_hit(
    query: str, groups: dict[str, list[Hit]], numbered: list[Hit], by_glossary: Collection[str] = (),
    by_title: Collection[str] = (),
) -> Hit | None:
    """The page an exact query lands on: a rule number, a card name, or a keyword; else the
    section the query names by its title (``by_title``: also a translation's title of it, "스택"
    for 405 Stack), or the rule its glossary term points to, or that glossary entry."""
    if numbered:
        return numbered[0]
    exact_cards = [hit for hit in groups["cards"] if hit.detail.startswith("exact")]
    if len({page_of(hit.url) for hit in exact_cards}) == 1:  # one card, whatever its names' languages
        return exact_cards[0]
    exact_keywords = [hit for hit in groups["keywords"] if hit.detail.startswith("exact")]
    if len({hit.url.split("#")[0] for hit in exact_keywords}) == 1:
        # A word that is another language's keyword only and titles a rule has two meanings
        # ("Initiative": French First Strike, 726 The Initiative): both are listed, neither is landed on.
        return None if another_meaning(groups["keywords"], by_title) else exact_keywords[0]
    # "Trampelschaden" (a word of "verursacht Trampelschaden"), "arrollar": one keyword, no card;
    # unless the query is a section's title: "异能" is 113 Abilities, not Cycling ("循环（异能）").
    named = [hit for hit in groups["keywords"] if hit.detail not in (NAMED_IN_QUERY, WITHIN_A_KEYWORD)]
    titled = bool(groups["rules"]) and groups["rules"][0].title.partition(" ")[0] in by_title
    if not groups["cards"] and len({hit.url.split("#")[0] for hit in named}) == 1 and not titled:
        return named[0]
    # "state-based actions", "day and night": the section of that title (shown, not landed on).
    if groups["rules"]:
        first = groups["rules"][0]
        number, _, title = first.title.partition(" ")
        if (title and title_key(title) == title_key(query)) or number in by_title:
            return dataclasses.replace(first, detail="title", older=[])
        # "legend rule", "layers": the rule the glossary's entry for that term points to; a rule
        # before a whole part ("face down": its entry's "See section 4, “Zones.”" led, before
        # 110.5 and 708; a review).
        if number in by_glossary:
            pointed = [hit for hit in groups["rules"] if hit.title.partition(" ")[0] in by_glossary]
            chosen = next((hit for hit in pointed if not _a_whole_part(hit.title.partition(" ")[0])), first)
            return dataclasses.replace(chosen, detail="glossary", older=[])
    # One card, named as players name it: its words but the small ones ("ugin spirit dragon"), or
    # a legendary card's name before its comma ("momir vig", "zndrsplt"). A judge's review: "Did
    # you mean Ugin, the Spirit Dragon?" for those words, while "ugin spirt dragon" landed on it.
    # After a keyword and a section named so ("monarch" is 724 The Monarch, not the card The
    # Monarch: a code review).
    cards = [hit for hit in groups["cards"] if hit.kind == "card"]
    if len({page_of(hit.url) for hit in cards}) == 1 and _named_as_players_name_it(cards[0].title, query):
        return dataclasses.replace(cards[0], detail="name as players say it")
    # "bury", "converted mana cost", "mana burn": a glossary term (an obsolete one, or an older
    # name whose page is the term it became), where no rule is named.
    for hit in groups["glossary"][:1]:
        if compact(bare_term(hit.title)).removesuffix("s") == compact(query).removesuffix("s"):
            return dataclasses.replace(hit, detail="glossary term", older=[])
    return None


# Words a card's name holds that a player leaves out of it.
SMALL_WORDS = frozenset({"the", "of", "a", "an"})


def _named_as_players_name_it(name: str, query: str) -> bool:
    """Whether ``query`` is a face of ``name`` without its small words, or the face's name before
    its comma (``best_hit``)."""
    asked = [word for word in WORD.findall(fold(query)) if word not in SMALL_WORDS]
    for face in name.split(" // "):
        if asked and (asked == [word for word in WORD.findall(fold(face)) if word not in SMALL_WORDS]
                      or ("," in face and asked == WORD.findall(fold(face.split(",")[0])))):
            return True
    return False


def _a_whole_part(number: str) -> bool:
    return number.isdigit() and len(number) == 1


def another_meaning(keywords: list[Hit], by_title: Collection[str]) -> list[str]:
    """The rules the query titles (``by_title``) other than the keyword it is exactly, where it is
    that keyword's term in other languages than English only ("Initiative": 726, The Initiative,
    beside French First Strike); none where the title is the keyword's own ("Conspirar": 702.78)."""
    exact = [hit for hit in keywords if hit.detail.startswith("exact")]
    if not exact or any(hit.lang == "en" for hit in exact):
        return []
    own = {hit.title.partition(" ")[0] for hit in exact}
    return [number for number in by_title if number not in own]


def suggestions(conn: sqlite3.Connection, query: str, candidates: Candidates | None = None) -> list[Hit]:
    """"Did you mean": card names and keyword terms (every language) within a typing slip or two.

    Not for very short queries ("the"): one slip away from a three-letter word is anything.
    """
    key = compact(query)
    if len(key) < (2 if has_cjk(key) else 4):
        return []
    scored = name_suggestions(conn, query, candidates) + keyword_suggestions(conn, query)
    scored.sort(key=lambda pair: pair[0])
    return unique([hit for _, hit in scored])[:SUGGESTIONS]


def card_names_of(conn: sqlite3.Connection, oracle_id: str) -> list[dict]:
    return rows(conn, "select lang, name from card_names where oracle_id = ? order by lang", (oracle_id,))
