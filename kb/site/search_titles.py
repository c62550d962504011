"""The rules the one-box search finds under a title the query says whole, that say its other words.

"cleanup step discard" is 514.1 ("… they discard enough cards …"), which never says "cleanup": the
title of 514, Cleanup Step, does. Only where nothing else names a rule (``kb.site.search``), and
only titles of two telling words or more, said once in today's rules.
"""
from __future__ import annotations

import re
import sqlite3
from collections import Counter, OrderedDict

from kb.site.search_db import newest_english_version, per_file, rule_heads
from kb.site.search_rules import NAMED_AT_MOST, TITLE_WORDS_UNSAID, rules_as_words, section_titles, telling_stems
from kb.site.search_text import TITLE_FILLER, rule_number_key, rules_over, stem, title_key

_TITLES_AND_RULES: OrderedDict[tuple, tuple[list[tuple[str, frozenset[str]]], dict[str, list[tuple[str, int]]]]] = OrderedDict()


def titles_and_rules(conn: sqlite3.Connection) -> tuple[list[tuple[str, frozenset[str]]], dict[str, list[tuple[str, int]]]]:
    """The current English version's titles of two telling words or more, said once ("Cleanup
    Step"), as (number, stems), and the rules under each (number, rowid), kept per served file."""
    def read(of: sqlite3.Connection) -> tuple[list[tuple[str, frozenset[str]]], dict[str, list[tuple[str, int]]]]:
        current = newest_english_version(of)
        stems = section_titles(of)
        heads = sorted(((rowid, head) for rowid, head in rule_heads(of).items() if head.version_id == current),
                       key=lambda item: rule_number_key(item[1].number))
        said = Counter(title_key(head.title) for _rowid, head in heads if head.title)
        # Titles of two words or more: one word ("Spells", "Creatures") is as often a word of
        # the question ("counter a spell", "who can a creature attack") as a title said whole.
        titles = [(head.number, stems[(head.version_id, head.number)]) for _rowid, head in heads
                  if head.title and said[title_key(head.title)] == 1 and len(stems[(head.version_id, head.number)]) >= 2]
        under: dict[str, list[tuple[str, int]]] = {number: [] for number, _stems in titles}
        for rowid, head in heads:
            for over in rules_over(head.number):
                if over in under and over != head.number:
                    under[over].append((head.number, rowid))
        return titles, under
    return per_file(conn, _TITLES_AND_RULES, read)


# A title's words that say which kind of section it is, not what it is about.
FILLER_STEMS = frozenset(stem(word) for word in TITLE_FILLER)
# Rules found under titles at most: as many as the rules a query names that ``about_rules`` reads
# (ten were found and five shown, the rest neither shown nor counted: a review of the change).
SAID_UNDER_TITLES_AT_MOST = NAMED_AT_MOST


def rules_said_under_titles(conn: sqlite3.Connection, query: str) -> list[str]:
    """Current rules under a title the query says whole that say the query's other words: "cleanup
    step discard" is 514.1 ("… they discard enough cards …"), which never says "cleanup" (an
    English judge's review: three rules held every word, none of them 514.1); "first strike
    damage step" is 702.7b."""
    stems = telling_stems(query)
    if len(stems) < 2:
        return []
    titles, under = titles_and_rules(conn)
    whole = {title for _number, title in titles}
    # Where a title says the whole query, the titles' order shows its rules ("resolving a spell" is
    # 608 Resolving Spells and Abilities, not 112 Spells' rules saying "resolves").
    if any(stems <= title and len(title - stems) <= TITLE_WORDS_UNSAID for title in whole):
        return []
    said = rules_as_words(conn)
    found: list[str] = []
    for number, title in titles:
        # A title's "Variant", "Step" or "Phase" need not be said where two words more are: "two
        # headed giant shared life total" is 810.4 ("Each team has a shared life total"), under
        # 810 Two-Headed Giant Variant (a judge's answer key).
        core = title - FILLER_STEMS
        said_whole = title < stems or (len(core) >= 2 and core < stems)
        if not said_whole:
            continue
        rest = [re.compile(rf"(?<!\w){re.escape(word)}") for word in stems - title]
        # Rules without subrules: a rule named leads with its subrules, and 709.5, saying "mana
        # value" once, brought its five subrules that do not.
        parents = {rule.rstrip("abcdefghijklmnopqrstuvwxyz") for rule, _rowid in under[number] if rule[-1].isalpha()}
        found += [rule for rule, rowid in under[number]
                  if rule not in parents and all(word.search(said.get(rowid, "")) for word in rest)]
    return found[:SAID_UNDER_TITLES_AT_MOST]
