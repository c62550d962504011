"""The rules a player's word names: a term an English glossary calls informal or obsolete, or
one today's glossary no longer defines ("fizzle", "damage assignment order", "paris mulligan"),
asked alone or inside a question, and today's rules its newest entry points to, followed by
identity (kb.site.search lists them first)."""
from __future__ import annotations

import re
import sqlite3
from collections import OrderedDict

from kb.site.search_db import per_file, rows, table_exists
from kb.site.search_fulltext import terms_named
from kb.site.search_rules import glossary_rule_numbers
from kb.site.search_text import WORD, bare_term, fold, rule_number_key, title_key
from kb.store import derive_lineage

# The rules an older term's entry points to that are listed first, at most.
OLDER_TERM_RULES = 6


def rules_an_older_term_points_to(
    conn: sqlite3.Connection, query: str, current: str | None, whole_query: bool = False
) -> list[str]:
    """Today's rules that the newest English glossary entry of this term points to, where today's
    glossary has no entry of that very name: an informal or obsolete term, or one no longer
    defined. "fizzle" is 2006's Fizzle (Informal), whose "See rule 413.2a" is today's 608.2b;
    "damage assignment order" is today's Damage Assignment Order (Obsolete), which points to
    510.1c and 510.1d. Followed by identity (a number is a label in its own edition); a rule with
    no successor today is left out. The player's word found the entry alone, and no rule: "does
    my spell fizzle if the target is gone" listed the rules of targets (a judge's answer key).
    ``whole_query``: the term is all the query asks, and an entry that points to no rule is read
    for the term it says it was the term for (``_pointed_to_by_the_term_it_names``); not inside a
    question, whose other words name what it asks ("converted mana cost of a spell with kicker":
    702.33 Kicker first)."""
    wanted = title_key(query)
    named = terms_named(conn).get(wanted, []) if wanted and current else []
    if not named:
        return []
    entries = rows(
        conn,
        f"""select glossary.id, glossary.term, glossary.version_id, cr_versions.effective_date
        from glossary join cr_versions on cr_versions.id = glossary.version_id
        where cr_versions.lang = 'en' and glossary.id in ({', '.join('?' * len(named))})""",
        tuple(named),
    )
    if not entries or any(entry["version_id"] == current and title_key(entry["term"]) == wanted for entry in entries):
        return []  # today's entry of that name: ``glossary_rule_numbers``
    newest = max(entry["effective_date"] or "" for entry in entries)
    newest_ids = [entry["id"] for entry in entries if (entry["effective_date"] or "") == newest]
    pointed = _pointed_to_today(conn, newest_ids, current)
    return pointed or (_pointed_to_by_the_term_it_names(conn, newest_ids, current) if whole_query else [])


# "An obsolete term for mana value." (Converted Mana Cost (Obsolete), which points to no rule).
TERM_FOR = re.compile(r"\b(?:obsolete|informal|old|former) (?:term|name) for (?:the )?([^.,;]+)", re.IGNORECASE)


def _pointed_to_by_the_term_it_names(conn: sqlite3.Connection, entry_ids: list[int], current: str | None) -> list[str]:
    """Today's rules of the term an obsolete entry says it was the term for, where the entry points
    to none: "CMC", converted mana cost, is 202.3, mana value's (its rules were 2020's, as worded
    then, and today's 202.3 on no page: an English judge's review)."""
    texts = [row[0] or "" for row in conn.execute(
        f"select text from glossary where id in ({', '.join('?' * len(entry_ids))})", entry_ids)]
    named = [id_ for text in texts for found in TERM_FOR.finditer(text)
             for id_ in terms_named(conn).get(title_key(found.group(1)), [])]
    today = [row[0] for row in conn.execute(
        f"select id from glossary where version_id = ? and id in ({', '.join('?' * len(named))})", (current, *named))] if named else []
    return _pointed_to_today(conn, today, current) if today else []


def _pointed_to_today(conn: sqlite3.Connection, entry_ids: list[int], current: str | None) -> list[str]:
    """Today's numbers of the rules glossary entries point to, followed by identity; not a rule
    whose identity took a step paired by its number alone: 2006's 100.3 (sealed deck) is not
    today's 100.3 (coins and dice; a code review)."""
    found = rows(
        conn,
        f"""select distinct now.number, pointed.lineage_id, pointed.version_id from glossary_refs
        join rules as pointed on pointed.id = glossary_refs.target_rule_id
        join rules as now on now.lineage_id = pointed.lineage_id and now.version_id = ?
        where glossary_refs.glossary_id in ({', '.join('?' * len(entry_ids))})""",
        (current, *entry_ids),
    )
    crossed = derive_lineage.crossed_by_number(conn, [row["lineage_id"] for row in found]) if found else None
    numbers = {row["number"] for row in found if crossed is None or not crossed(row["lineage_id"], row["version_id"], current)}
    return sorted(numbers, key=rule_number_key)[:OLDER_TERM_RULES]


# The longest glossary term a question is read for, in words.
TERM_WORDS_AT_MOST = 5
# The player's words of one question whose rules are listed, at most.
PLAYERS_WORDS_AT_MOST = 2


def players_words_within(conn: sqlite3.Connection, query: str, current: str | None) -> list[str]:
    """Today's rules that a player's word inside a longer question points to: a term an English
    glossary calls informal or obsolete ("does my spell fizzle if the target is gone": Fizzle,
    608.2b; "damage assignment order multiple blockers": 510.1c and 510.1d, a judge's answer
    key). Not a term today's rules say: "cast", whose obsolete entry points to 601, is in most
    questions, and "at end of turn" (At End of Turn (Obsolete), 513) in "maximum hand size
    discard at end of turn", which 402.2 and 514.1 answer; the rules that say such a term are
    found by it. Nor a piece of a longer term the question names ("legend rule" is no Legend
    (Obsolete)). Any other term of the glossary lists its rules only where it is the whole query
    (``named_rules``): "target" inside a question listed 115 before the rules of its other words."""
    words = title_key(query).split()
    if len(words) < 2 or current is None:
        return []
    named, players = terms_named(conn), players_terms(conn)
    claimed: set[int] = set()
    numbers: list[str] = []
    found = 0
    for length in range(min(TERM_WORDS_AT_MOST, len(words) - 1), 0, -1):
        for start in range(len(words) - length + 1):
            span = set(range(start, start + length))
            key = " ".join(words[start:start + length])
            if span & claimed or key not in named:
                continue
            claimed |= span
            if key not in players or found >= PLAYERS_WORDS_AT_MOST or any(
                # As named ("ability" of Phase Ability, whose "phase" a title leaves out) and as spelt.
                _said_by_todays_rules(conn, term) for term in (key, players[key])
            ):
                continue
            pointed = glossary_rule_numbers(conn, key, current) or rules_an_older_term_points_to(conn, key, current)
            # Rules, not a whole section or part: "edh commander damage" listed all of 903 before
            # 903.10a, and a section an old entry names may be another today ("See rule 419",
            # Prevention: 616, not 615; a code review).
            pointed = [number for number in pointed if "." in number]
            found += bool(pointed)
            numbers += pointed
    return list(dict.fromkeys(numbers))


def players_terms(conn: sqlite3.Connection) -> dict[str, str]:
    """The English glossary's informal and obsolete terms as a query names them ("fizzle" of
    Fizzle (Informal), "commander tax" of Commander Tax: "Informal term for …") → the term's words
    (without its qualifier), kept per served file."""
    def read(of: sqlite3.Connection) -> dict[str, str]:
        return {title_key(bare_term(term)): bare_term(term) for (term,) in of.execute(
            """select distinct glossary.term from glossary join cr_versions on cr_versions.id = glossary.version_id
            where cr_versions.lang = 'en' and (glossary.term like '%(Informal)' or glossary.term like '%(Obsolete)'
                or glossary.text like 'Informal term%' or glossary.text like 'The term % is an informal term%')""")}

    return per_file(conn, _PLAYERS_TERMS, read)


_PLAYERS_TERMS: OrderedDict[tuple, dict[str, str]] = OrderedDict()


def _said_by_todays_rules(conn: sqlite3.Connection, term: str) -> bool:
    """Whether a rule of today's CR says ``term``, its words in order."""
    words = WORD.findall(fold(term))
    if not words or not table_exists(conn, "rules_now_fts"):
        return True  # unknown: not taken for a player's word
    phrase = '"' + " ".join(words) + '"'
    return conn.execute("select 1 from rules_now_fts where rules_now_fts match ? limit 1", (phrase,)).fetchone() is not None
