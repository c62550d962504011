"""Keywords a translated rule lists in the order and number its English rule does.

122.1b of the Korean CR lists the keywords a keyword counter can be, as the English rule does:
"flying, first strike, double strike, … trample, and vigilance" / "비행, 선제공격, 이단공격, …
돌진, 경계 및 해당 키워드의 변형". Where the English rule's list is keyword titles only and the
translation's list has as many items, each item is that keyword's term: the
translation's own pairing. Only languages written with spaces between words, where a list's
first item is the sentence's last word before it ("키워드에는 비행"); a Chinese list's first item
is glued to the words before it.
"""
from __future__ import annotations

import re

from kb.link.keywords import MAX_TERM_CHARS, NOT_A_TERM, NOT_IN_A_TERM

ENGLISH_ITEM = re.compile(r",\s+")
TRANSLATED_ITEM = re.compile(r"\s*[,，、]\s*")
# What joins the last item of a list to the one before, or follows it ("경계 및 해당 키워드의 변형").
LIST_CONJUNCTIONS = {
    "ko": ("및", "그리고", "또는", "이나"), "de": ("und", "oder"), "es": ("y", "o", "e"), "fr": ("et", "ou"),
    "it": ("e", "o", "ed"), "pt": ("e", "ou"), "ru": ("и", "или"),
}
MIN_LISTED = 3
TITLE_WORDS_AT_MOST = 3


def listed_keywords(
    lang: str, english_text: str, translated_text: str, titles: dict[str, tuple[str, str]]
) -> list[tuple[str, str, str]]:
    """(term, English keyword, rule number) for each keyword a translated rule lists in the order
    and number its English rule does; none where either list cannot be read whole."""
    conjunctions = LIST_CONJUNCTIONS.get(lang)
    if not conjunctions:
        return []
    english = _english_title_list(english_text, titles)
    if len(english) < MIN_LISTED:
        return []
    runs = [run for run in _translated_lists(translated_text, conjunctions) if len(run) == len(english)]
    if len(runs) != 1:
        return []
    return [(term, *meaning) for term, meaning in zip(runs[0], english, strict=True)]


def _english_title_list(text: str, titles: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    """The longest run of keyword titles a sentence of ``text`` lists ("are flying, first strike,
    …, and vigilance")."""
    best: list[tuple[str, str]] = []
    for sentence in re.split(r"(?<=\.)\s+", text):
        items = ENGLISH_ITEM.split(sentence.rstrip("."))
        for start, first in enumerate(items):
            words = first.split()
            head = next((titles[key] for size in range(min(TITLE_WORDS_AT_MOST, len(words)), 0, -1)
                         if (key := " ".join(words[-size:]).casefold()) in titles), None)
            if head is None:
                continue
            run = [head]
            for item in items[start + 1:]:
                last = re.match(r"(?:and|or)\s+(.*)$", item)
                meaning = titles.get((last[1] if last else item).strip().casefold())
                if meaning is None:
                    break
                run.append(meaning)
                if last:
                    break
            if len(run) > len(best):
                best = run
    return best


def _translated_lists(text: str, conjunctions: tuple[str, ...]) -> list[list[str]]:
    """The comma-separated lists of single words in ``text``: the first item the last word before
    its comma, the last the first word after the last comma when a conjunction follows it."""
    lists = []
    for sentence in re.split(r"(?<=[.。])\s+", text):
        items = TRANSLATED_ITEM.split(sentence)
        if len(items) < MIN_LISTED:
            continue
        first_words, last_words = items[0].split(), items[-1].split()
        middle = items[1:-1]
        if not first_words or len(last_words) < 2 or last_words[1] not in conjunctions:
            continue
        run = [first_words[-1], *middle, last_words[0]]
        if all(_a_term(item) for item in run):
            lists.append(run)
    return lists


def _a_term(item: str) -> bool:
    return bool(item) and " " not in item and len(item) <= MAX_TERM_CHARS and not NOT_A_TERM.search(item) \
        and not NOT_IN_A_TERM.search(item)
