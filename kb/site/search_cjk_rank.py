"""The order of the Chinese, Japanese and Korean rules a query finds: the most telling first.

The CJK index reads its matches in rowid order, which is the rulebook's, so a term's first matches
were the earliest rules that mention it in passing: 优先权 (priority) listed 104.3b, 104.3c … and
117 Timing and Priority 23rd, 时间印记 (timestamp) 123.5a … and 613.7 eighth (a Chinese judge's
review). Here a bounded window of the matches is read and ordered as an English query's rules
are: the rules under a title that holds the term, then those the term's glossary entry points to,
then those that say it more often, earlier; where the query is the term of a question, the rules
that hold more of the question's other words lead.
"""
from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, NamedTuple

from kb.site.search_cjk import cjk_rows, cjk_rule_rows
from kb.site.search_cjk_relax import KOREAN_PARTICLES
from kb.site.search_db import per_file, rows, rule_heads, translated_versions
from kb.site.search_rules import about_rules, is_or_within
from kb.site.search_text import rule_number_key

CJK_RULES_READ = 200  # rule matches ordered at most: as many as an English query reads (RULES_WINDOW)
# A term more titles of one version hold than this heads none of them ("异能", ability, is in dozens).
TITLES_HOLDING_AT_MOST = 2
GLOSSARY_ENTRIES_READ = 2
GLOSSARY_TARGETS_READ = 5

Head = tuple[str, str]  # (version, number)


class CjkRules(NamedTuple):
    rows: list[dict[str, Any]]  # most telling first
    places: dict[str, int]  # each number's place in that order: a rule and its translations share it
    saying_more: frozenset[str]  # the numbers of rules that say more of the question with its term


def ranked_cjk_rules(
    conn: sqlite3.Connection, found: list[dict[str, Any]], needle: str, asked: str | None, limit: int
) -> CjkRules:
    """The CJK rules holding ``needle``, most telling first. ``found``: the first ``limit`` matches
    in rowid order; where that filled, a window of ``CJK_RULES_READ`` is read instead. ``asked``:
    the question ``needle`` was taken from, if any."""
    matches = found if len(found) < limit else cjk_rows(conn, needle, CJK_RULES_READ, ("rule",)).get("rule", [])
    titled, pointed_to = _term_heads(conn, needle)
    candidates = cjk_rule_rows(conn, matches, needle) + _rules_of(conn, [*titled, *pointed_to])
    # A question holds more than the words searched ("指挥官伤害" is 指挥官 伤害, no question).
    question = asked if asked and "".join(asked.split()) != "".join(needle.split()) else ""

    def rank(row: dict[str, Any]) -> tuple:
        text = f"{row.get('title') or ''} {row.get('text') or ''}"
        said = max((_said_around(text, question, word) for word in needle.split()), default=0) if question else 0
        # A rule that says more of the question with the term, in reading order (the term's section
        # says only the term: "생명점이 0이 되면" is 104.3b and 119.6, "생명점이 0 …", before 119.1).
        told = (rule_number_key(row["number"]),) if said else _telling(row, text, needle, titled, pointed_to)
        return (-said, *told, row["lang"] or "")

    # Each rule's key once: the question's windows are read for every rule (it was read twice).
    keyed = sorted(((rank(row), row) for row in _unique(candidates)), key=lambda pair: pair[0])
    ranked = [row for _, row in keyed]
    places: dict[str, int] = {}
    for row in ranked:
        places.setdefault(row["number"], len(places))
    saying_more = frozenset(row["number"] for key, row in keyed if key[0])
    return CjkRules(ranked, places, saying_more)


def _telling(row: dict[str, Any], text: str, needle: str, titled: list[Head], pointed_to: list[Head]) -> tuple:
    """How telling a rule is of ``needle``: under a title holding it, then pointed to by its
    glossary entry (in the entry's order; of each, the rules saying it in reading order, then
    the others), then saying it more often."""
    number, version = row["number"], row["version_id"]
    under = [place for place, (head_version, head) in enumerate(titled + pointed_to)
             if head_version == version and is_or_within(number, head)]
    if under:
        # Of those, the ones saying the term first: "混血法术力" (hybrid mana) is 107.4e, then the
        # rest of 107.4 Mana Symbols, to which the entry "混血法术力符号" points.
        return (0 if under[0] < len(titled) else 1, under[0], needle not in text, 0, rule_number_key(number))
    if " " in needle:
        # Words searched together ("践踏 伤害", "최소 덱 크기") are a few rules, each saying them all
        # once or so: read in the rulebook's order, which reviews found right (702.19a–c).
        return (2, 0, 0, 0, rule_number_key(number))
    # Of rules saying it as often, the rulebook's first: where it was first said ("컨스에서는
    # 사이드보드가" of 100.4a) put a rule's example before the rule (100.4, the sideboard's).
    return (2, 0, -text.count(needle), 0, rule_number_key(number))


def _unique(found: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for row in found:
        seen.setdefault((row["version_id"], row["number"]), row)
    return list(seen.values())


def _said_around(text: str, question: str, word: str) -> int:
    """How many characters of ``question`` around ``word`` ``text`` says as the question does,
    beyond the word itself (0 where it says only the word, or not even that)."""
    at = question.find(word)
    if at < 0:
        return 0
    longest = 0
    start = text.find(word)
    while start >= 0:
        before = 0
        while before < min(at, start) and text[start - before - 1] == question[at - before - 1]:
            before += 1
        after, end, asked_end = 0, start + len(word), at + len(word)
        while end + after < len(text) and asked_end + after < len(question) and text[end + after] == question[asked_end + after]:
            after += 1
        longest = max(longest, before + after - min(after, _particle_at(question, asked_end)))
        start = text.find(word, start + 1)
    return longest


def _particle_at(question: str, at: int) -> int:
    """The length of the Korean particle and space that end the question's word at ``at`` (the
    "은 " of "멀리건은 어떻게"): saying the word with its particle is saying no more of the question
    (103.4c, "첫 번째 멀리건은 세지 않습니다", came before 103.4)."""
    ending = question[at:].split(" ", 1)[0]
    if ending not in KOREAN_PARTICLES:
        return 0
    after = question[at + len(ending):]
    return len(ending) + len(after) - len(after.lstrip())


def _term_heads(conn: sqlite3.Connection, term: str) -> tuple[list[Head], list[Head]]:
    """The translated rules whose title holds ``term`` ("时机和优先权", 117, for 优先权) and those its
    glossary entry points to, or to which an entry it begins points ("时间印记顺序", Timestamp
    Order: 613.7, for 时间印记)."""
    if " " in term:
        return [], []
    by_version: dict[str, list[str]] = {}
    for version, number, title in translated_titles(conn):
        if term in title:
            by_version.setdefault(version, []).append(number)
    titled = [(version, number) for version, numbers in by_version.items()
              if len(numbers) <= TITLES_HOLDING_AT_MOST for number in numbers]
    return titled, _glossary_targets(conn, term)


def _glossary_targets(conn: sqlite3.Connection, term: str) -> list[Head]:
    targets: list[Head] = []
    for version in translated_versions(conn):
        # The term itself first, else the entries it begins (read through the term's index).
        entries = rows(conn, """select id from glossary where version_id = ? and term >= ? and term < ?
            order by term != ?, term limit ?""", (version, term, term + "\uffff", term, GLOSSARY_ENTRIES_READ))
        for entry in entries:
            targets += [(version, row["target_number"]) for row in rows(
                conn, "select target_number from glossary_refs where glossary_id = ? limit ?",
                (entry["id"], GLOSSARY_TARGETS_READ))]
    return list(dict.fromkeys(targets))


def _rules_of(conn: sqlite3.Connection, heads: list[Head]) -> list[dict[str, Any]]:
    """The rules ``heads`` name, each with its subrules (``about_rules``)."""
    found: list[dict[str, Any]] = []
    for version, number in heads:
        found += about_rules(conn, [number], version)
    return found


_TRANSLATED_TITLES: OrderedDict[tuple, list[tuple[str, str, str]]] = OrderedDict()


def translated_titles(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(version, number, title) of every titled rule of the translated CR versions (a few hundred
    each), kept per served file."""
    def read(of: sqlite3.Connection) -> list[tuple[str, str, str]]:
        translated = set(translated_versions(of))
        return sorted(((head.version_id, head.number, head.title) for head in rule_heads(of).values()
                       if head.title and head.version_id in translated), key=lambda head: (head[0], rule_number_key(head[1])))

    return per_file(conn, _TRANSLATED_TITLES, read)
