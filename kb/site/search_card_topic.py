"""A card and a question about it: "Okaun coin flip", "Jace transform", "Zndrsplt partner".

A ruling rarely prints its own card's name, so nothing holds every word of such a query and it
found nothing (or, once a question's words could be left out, only the rules of its other words).
Here a run of its words that names one card in any language — its whole name as typed, the short
name a legendary card goes by (the part of its name before the comma: "Okaun" for "Okaun, Eye of
Chaos", as CR 201.5c treats it), or the name a page printed for a card not linked yet ("Tödliches
Komplott") — is taken as that card, and its rulings holding the other words are listed. A name
that several cards share names none of them.

A Chinese, Japanese or Korean question names a card by a run of three or more characters
("灵龙乌金怎么运作": Ugin, the Spirit Dragon), or by a short name in Latin letters ("Ugin 的异能").

Bounded: one statement for the whole names of every run of words (up to eight words; a run that
starts or ends with a question word only as a whole name) or of characters (up to twenty, in a
question of at most forty), one for the short names (a run of a word or two: a range of the name
index each), one for the printed names, and the named card's rulings (at most ``CARD_RULINGS``).
"""
from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from kb.site.search_cjk_relax import names_a_cjk_term
from kb.site.search_db import card_url, rows, table_exists
from kb.site.search_fulltext import mark_words, ruling_hit, symbols_lost
from kb.site.search_hit import Hit
from kb.site.search_names import display_name
from kb.site.search_question_words import question_words
from kb.site.search_text import NUMBER_WORDS, WORD, fold, has_cjk

LONGEST_NAME = 8  # words
# CJK: a card's name is a run of characters, three at least (two are too often a word: 反击 is
# countering as well as Counterspell's Chinese name); a question is short.
CJK_NAME_AT_LEAST = 3
CJK_NAME_AT_MOST = 20  # characters, spaces included
CJK_QUESTION_AT_MOST = 40
SHORT_NAME_WORDS = 2
CARD_RULINGS = 500  # the most rulings of one card read (real cards have at most a few dozen)
SHOWN = 25


@dataclass
class CardTopic:
    oracle_id: str | None  # None: a card known only by the name a page printed ("Tödliches Komplott")
    name: str  # the card's English name (or that printed name)
    typed: str  # the words that named it, as typed
    topic: str  # the query's other words

    @property
    def url(self) -> str:
        return card_url(self.oracle_id, None if self.oracle_id else self.name)


def card_and_topic(conn: sqlite3.Connection, query: str) -> CardTopic | None:
    """The one card a run of ``query``'s words names, and the rest of the query; None when no
    run (other than the whole query: that is a name search) names exactly one card."""
    if has_cjk(query):
        return _cjk_card_and_topic(conn, query)
    spans = [found.span() for found in WORD.finditer(query)]
    if len(spans) < 2:
        return None
    words = [query[start:end].casefold() for start, end in spans]
    asking = question_words(words)
    # Longest first. A run that starts or ends with a question word can be a whole name ("Die
    # Monster erschlagen", "The One Ring"), never a short one or a word alone ("Will" of "what will
    # happen").
    runs: list[NameRun] = []
    for size in range(min(LONGEST_NAME, len(spans) - 1), 0, -1):
        for first in range(len(spans) - size + 1):
            last = first + size - 1
            asks = fold(words[first]) in asking or fold(words[last]) in asking
            if not asks or size > 1:
                rest = " ".join((query[:spans[first][0]] + " " + query[spans[last][1]:]).split())
                # "Okaun" for "Okaun, Eye of Chaos": a short name is a word or two.
                runs.append(NameRun(query[spans[first][0]:spans[last][1]], rest, size <= SHORT_NAME_WORDS and not asks))
    return _first_card_named(conn, runs)


def _cjk_card_and_topic(conn: sqlite3.Connection, query: str) -> CardTopic | None:
    """The one card a run of three or more characters of a CJK ``query`` names ("灵龙乌金怎么运作":
    灵龙乌金, Ugin, the Spirit Dragon, in Chinese), the longest first, and the rest of the query; a
    run that is a keyword's term or a section's title is not a card's name ("反击" asks about
    countering, not about Counterspell). None for a long text (a pasted passage, not a question)."""
    text = " ".join(query.split())
    if not text or len(text) > CJK_QUESTION_AT_MOST:
        return None
    whole = fold(text)
    names = names_a_cjk_term(conn)
    # Runs across spaces too: Korean names are spaced ("신령 용 우진").
    runs = list(dict.fromkeys(
        text[start:start + size]
        for size in range(min(len(text), CJK_NAME_AT_MOST), CJK_NAME_AT_LEAST - 1, -1)
        for start in range(len(text) - size + 1)
        if not text[start].isspace() and not text[start + size - 1].isspace()
        and not _cuts_a_word(text, start) and not _cuts_a_word(text, start + size)
    ))
    runs = sorted((run for run in runs if fold(run) and fold(run) != whole and not names(run)), key=len, reverse=True)
    # "Ugin 的异能": a legendary card's short name, typed in Latin letters.
    return _first_card_named(conn, [NameRun(run, " ".join(text.replace(run, " ", 1).split()), not has_cjk(run))
                                    for run in runs])


@dataclass
class NameRun:
    typed: str  # words of the query that may name a card
    rest: str  # the query without them
    may_be_short: bool  # whether they may be a legendary card's short name ("Okaun")


def _first_card_named(conn: sqlite3.Connection, runs: list[NameRun]) -> CardTopic | None:
    """The card the first of ``runs`` that names exactly one card names: its whole name in any
    language, its short name, or a name printed for a card not linked yet. Three statements at
    most, whatever the number of runs (the printed names only once the longest run names no card)."""
    if not runs:
        return None
    exact = _cards_named(conn, [fold(run.typed) for run in runs])
    short = _cards_short_named(conn, [fold(run.typed) for run in runs if run.may_be_short])
    unlinked: dict[str, str] | None = None
    for run in runs:
        key = fold(run.typed)
        card = _one(exact.get(key, [])) or (_one(short.get(key, [])) if run.may_be_short and "," not in key else None)
        if card is not None:
            return CardTopic(card["oracle_id"], display_name(card["english"] or card["name"]), run.typed, run.rest)
        if unlinked is None:
            unlinked = _unlinked_names(conn, [run.typed for run in runs])
        # As printed, or in another case or without its accents ("paradiesvogel").
        if printed := unlinked.get(run.typed) or unlinked.get(key):
            return CardTopic(None, printed, run.typed, run.rest)
    return None


def _cuts_a_word(text: str, at: int) -> bool:
    """Whether a run's edge at ``at`` falls inside a word of a script with spaces ("gin" of "Ugin")."""
    if at <= 0 or at >= len(text):
        return False
    before, after = text[at - 1], text[at]
    return before.isalnum() and after.isalnum() and not has_cjk(before) and not has_cjk(after)


SELECT_NAMES = """select card_names.oracle_id, card_names.name, card_names.name_key, cards.name as english
    from card_names join cards on cards.oracle_id = card_names.oracle_id"""


def one_card_named(conn: sqlite3.Connection, typed: str) -> dict[str, Any] | None:
    """The card whose name, or short name, in any language is ``typed`` (case, accents and
    spacing aside), when exactly one card has it."""
    key = fold(typed)
    if not key:
        return None
    return _one(_cards_named(conn, [key]).get(key, [])) or _one(_cards_short_named(conn, [key]).get(key, []))


def _cards_named(conn: sqlite3.Connection, keys: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The names whose key is one of ``keys`` (one statement for all of them)."""
    wanted = sorted({key for key in keys if key})
    found: dict[str, list[dict[str, Any]]] = {}
    if wanted:
        marks = ", ".join("?" for _ in wanted)
        for row in rows(conn, f"{SELECT_NAMES} where card_names.name_key in ({marks}) limit 200", wanted):
            found.setdefault(row["name_key"], []).append(row)
    return found


def _cards_short_named(conn: sqlite3.Connection, keys: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The names whose key begins with one of ``keys`` and a comma (one statement: a range of
    the name index for each key)."""
    wanted = sorted({key for key in keys if key and "," not in key})
    found: dict[str, list[dict[str, Any]]] = {}
    if wanted:
        ranges = " or ".join("(card_names.name_key >= ? and card_names.name_key < ?)" for _ in wanted)
        bounds = [bound for key in wanted for bound in (key + ",", key + ",\U0010ffff")]
        for row in rows(conn, f"{SELECT_NAMES} where {ranges} limit 400", bounds):
            found.setdefault(row["name_key"].split(",", 1)[0], []).append(row)
    return found


def _unlinked_names(conn: sqlite3.Connection, typed: list[str]) -> dict[str, str]:
    """Those of ``typed`` that name a card no Oracle card is known for, each to the name as
    printed: exactly the name a page printed above its rulings (the rulings' name index), or, case
    and accents aside, a name a document printed for a card not identified yet (a Gatherer page's
    "Paradiesvögel": the name records' key index)."""
    wanted = sorted(set(typed))
    marks = ", ".join("?" for _ in wanted)
    found = {row["card_name"]: row["card_name"] for row in rows(
        conn, f"select distinct card_name from rulings where card_name in ({marks}) and oracle_id is null limit 50", wanted)}
    keys = sorted({fold(name) for name in wanted} - {""})
    if keys and table_exists(conn, "card_name_records"):
        key_marks = ", ".join("?" for _ in keys)
        for row in rows(conn, f"""select name, name_key from card_name_records as records
                where name_key in ({key_marks}) and oracle_id is null
                and not exists (select 1 from card_names where card_names.name_key = records.name_key) limit 50""", keys):
            found.setdefault(row["name_key"], row["name"])
    return found


def _one(found: list[dict[str, Any]]) -> dict[str, Any] | None:
    return found[0] if len({row["oracle_id"] for row in found}) == 1 else None


def card_rulings_about(conn: sqlite3.Connection, card: CardTopic, words: list[str]) -> tuple[list[Hit], str]:
    """The card's rulings that hold every one of ``words`` (the last also as the start of a
    longer word), newest first, else those holding the most of them, and the words they hold;
    with no word, or none held by any ruling: its newest rulings, and "" for the words."""
    found = rows(
        conn,
        f"""select rulings.id, rulings.oracle_id, rulings.card_name, rulings.published_at, rulings.text,
            cards.name as english
        from rulings left join cards on cards.oracle_id = rulings.oracle_id
        where {"rulings.oracle_id = ?" if card.oracle_id else "rulings.card_name = ? and rulings.oracle_id is null"}
        order by rulings.published_at desc, rulings.position limit ?""",
        (card.oracle_id or card.name, CARD_RULINGS),
    )
    patterns = [_topic_pattern(word, index == len(words) - 1) for index, word in enumerate(words)]
    held = [([word for word, pattern in zip(words, patterns, strict=True) if pattern.search(row["text"] or "")], row)
            for row in found]
    most = max((len(holds) for holds, _ in held), default=0)
    if most == 0:
        lost = symbols_lost(conn, [row["id"] for row in found[:SHOWN]])
        return [ruling_hit(row, mark_words(row["text"], ""), row["id"] in lost) for row in found[:SHOWN]], ""
    chosen = [(holds, row) for holds, row in held if len(holds) == most][:SHOWN]
    about = " ".join(word for word in words if any(word in holds for holds, _ in chosen))
    lost = symbols_lost(conn, [row["id"] for _holds, row in chosen])
    return [ruling_hit(row, mark_words(row["text"], " ".join(holds)), row["id"] in lost) for holds, row in chosen], about


def _topic_pattern(word: str, last: bool) -> re.Pattern[str]:
    """A topic word as a ruling may say it: a number also as the word rulings write ("5 cards":
    "five or more cards", as the rules' search reads it; a player's review); the last word also
    begun (still being typed)."""
    if word.isascii() and word.isdecimal() and int(word) in NUMBER_WORDS:
        return re.compile(rf"\b(?:{word}|{NUMBER_WORDS[int(word)]})\b", re.IGNORECASE)
    return re.compile(r"\b" + re.escape(word) + (r"\w*" if last else r"\b"), re.IGNORECASE)


def topic_words(card: CardTopic) -> list[str]:
    """The words of the topic asked about, folded, question words aside ("coin flip")."""
    words = WORD.findall(card.topic)
    asking = question_words(WORD.findall(f"{card.typed} {card.topic}"))
    return list(dict.fromkeys(word.casefold() for word in words if fold(word) not in asking))
