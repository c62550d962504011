"""The keyword dictionary in every language we hold printed text in: mined, agreed, saved.

Reads localized printings (with their card's Oracle text; Gatherer's printed pages through the
card their name resolves to, or through the same printing in other languages) and the keyword pairs the translated
CRs give (``keywords``, rule titles and glossaries), hands them to the pure miner in
``kb.link.keywords`` and writes ``keyword_dictionary``: one row per (language, term, English
keyword), with its sources and how many printings agree or print another term.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import sqlite_utils

from kb.link.keyword_actions import ClauseEvidence, action_titles, clause_starts
from kb.link.keyword_lists import LIST_CONJUNCTIONS, listed_keywords
from kb.link.keywords import (
    Keyword,
    PrintedKeyword,
    agree,
    glossary_keyword_term,
    known_terms,
    mine_glued_first_line,
    mine_printing,
    mine_siblings,
    terms_known,
)
from kb.normalise.names import name_key
from kb.store.schema import stable_id

KEYWORD_SECTIONS = ("701", "702")


def keyword_titles(db: sqlite_utils.Database) -> dict[str, tuple[str, str]]:
    """Casefolded English keyword title -> (title, rule number), from the newest English CR."""
    current = db.execute(
        "select id from cr_versions where lang = 'en' order by effective_date desc limit 1"
    ).fetchone()
    if current is None:
        return {}
    titles: dict[str, tuple[str, str]] = {}
    for title, number in db.execute(
        "select title, number from rules where version_id = ? and kind = 'rule' and title is not null"
        " and (number like '701.%' or number like '702.%') order by position",
        [current[0]],
    ):
        titles.setdefault(title.casefold(), (title, number))
    return titles


# Texts held mined at once (``observations``): past this many the memo starts again.
MINED_TEXTS_HELD = 50_000


def observations(db: sqlite_utils.Database, titles: dict[str, tuple[str, str]]) -> list[PrintedKeyword]:
    """What every localized printing with card data prints for its Oracle text's keywords.

    Reprints print the same text: each (language, printed text, Oracle text) is mined once and
    its terms given to every printing of it (``mine_printing`` only copies the printing's id and
    source into what it finds). The 1M bench's 300k localized printings hold 3,410 such texts.
    Keyword actions inside sentences are weighed over every printing at once
    (``kb.link.keyword_actions``)."""
    found: list[PrintedKeyword] = []
    actions, evidence = action_titles(titles), ClauseEvidence()

    def read(lang: str, printed: str, oracle: str) -> tuple[list[tuple[str, str, str]], list]:
        return (_terms(mine_printing("", lang, printed, oracle, titles, "")),
                clause_starts(lang, printed, oracle, actions))

    cursor = db.execute(
        """select printings.id, printings.lang, printings.printed_text, cards.oracle_text,
            documents.source_id
        from printings join cards on cards.oracle_id = printings.oracle_id
        left join documents on documents.id = printings.document_id
        where printings.lang != 'en' and printings.printed_text is not null
            and cards.oracle_text is not null"""
    )
    for printing_id, lang, source, (terms, clauses) in each_text_once(cursor, read):
        found.extend(PrintedKeyword(lang, term, en_term, number, printing_id, source) for term, en_term, number in terms)
        evidence.add(printing_id, source, lang, clauses)
    return found + evidence.keywords()


Read = TypeVar("Read")


def each_text_once(
    cursor: Iterable[tuple[str, str, str, str, str | None]], read: Callable[[str, str, str], Read]
) -> Iterator[tuple[str, str, str, Read]]:
    """(printing id, language, source, what ``read`` made of its text) per printing of ``cursor``
    (id, language, printed text, Oracle text, source): each distinct (language, printed text,
    Oracle text) read once, what it gave kept for the reprints that print it again (at most
    ``MINED_TEXTS_HELD`` at a time)."""
    held: dict[tuple[str, str, str], Read] = {}
    for printing_id, lang, printed, oracle, source in cursor:
        text = (lang, printed, oracle)
        if text not in held:
            if len(held) >= MINED_TEXTS_HELD:
                held.clear()
            held[text] = read(lang, printed, oracle)
        yield printing_id, lang, source or "unknown", held[text]


def _terms(found: list[PrintedKeyword]) -> list[tuple[str, str, str]]:
    return [(seen.term, seen.en_term, seen.rule_number) for seen in found]


def unidentified_observations(
    db: sqlite_utils.Database,
    titles: dict[str, tuple[str, str]],
    known: dict[tuple[str, str], tuple[str, str]],
) -> list[PrintedKeyword]:
    """Printings no card data names (Gatherer's printed pages): paired with the Oracle text of
    the card their printed name resolved to, else with their siblings (the same set and
    collector number in other languages) through the terms already agreed."""
    found: list[PrintedKeyword] = []
    resolved: set[str] = set()
    for printing_id, lang, printed, oracle, source in db.execute(
        """select printings.id, printings.lang, printings.printed_text, min(cards.oracle_text),
            documents.source_id
        from printings join documents on documents.id = printings.document_id
        join card_names on card_names.name = printings.printed_name and card_names.lang = printings.lang
            and card_names.source = documents.source_id
        join cards on cards.oracle_id = card_names.oracle_id
        where printings.oracle_id is null and printings.lang != 'en' and printings.printed_text is not null
            and cards.oracle_text is not null
        group by printings.id having count(distinct cards.oracle_id) = 1"""
    ):
        resolved.add(printing_id)
        found.extend(mine_printing(printing_id, lang, printed, oracle, titles, source or "unknown"))
    groups: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}
    for printing_id, lang, printed, source, set_code, number in db.execute(
        """select printings.id, printings.lang, printings.printed_text, documents.source_id,
            upper(printings.set_code), printings.collector_number
        from printings left join documents on documents.id = printings.document_id
        where printings.oracle_id is null and printings.printed_text is not null
            and printings.set_code != '' and printings.collector_number != ''
        order by printings.id"""
    ):
        if printing_id not in resolved:
            groups.setdefault((set_code, number), []).append((printing_id, lang, printed, source or "unknown"))
    for siblings in groups.values():
        if len({lang for _id, lang, _text, _source in siblings}) > 1:
            found.extend(mine_siblings(siblings, known))
    return found


def glued_observations(
    db: sqlite_utils.Database, titles: dict[str, tuple[str, str]], known: dict[tuple[str, str], str]
) -> list[PrintedKeyword]:
    """First keyword lines glued to the next in printings whose text lost its line breaks
    (MTGJSON's Japanese and Korean texts: "接死変異 ― …"), read through the agreed term of the
    keyword after them (``mine_glued_first_line``). Only single-line texts are read, each text once."""
    if not known:
        return []
    cursor = db.execute(
        """select printings.id, printings.lang, printings.printed_text, cards.oracle_text, documents.source_id
        from printings join cards on cards.oracle_id = printings.oracle_id
        left join documents on documents.id = printings.document_id
        where printings.lang != 'en' and instr(printings.printed_text, char(10)) = 0
            and instr(cards.oracle_text, char(10)) > 0"""
    )

    def read(lang: str, printed: str, oracle: str) -> list[tuple[str, str, str]]:
        return _terms(mine_glued_first_line("", lang, printed, oracle, titles, known, ""))

    return [PrintedKeyword(lang, term, en_term, number, printing_id, source)
            for printing_id, lang, source, terms in each_text_once(cursor, read) for term, en_term, number in terms]


def cr_translations(db: sqlite_utils.Database, titles: dict[str, tuple[str, str]]) -> list[Keyword]:
    """Pairs from translated CRs: rule titles (``keywords``) and glossary terms of keywords.

    A translated rule title's number is the translation's (701.16 of the Chinese rules of 2025 is
    701.20 Reveal today, and today's 701.16 is Investigate): the dictionary gives today's number of
    the English rule it translates (by its lineage), else of the English keyword of that name; a
    keyword today's rules hold under neither is left out, as the glossary's pairs are."""
    newest = db.execute("select id from cr_versions where lang = 'en' order by effective_date desc limit 1").fetchone()
    pairs = []
    for lang, term, en_term, number_today, source in db.execute(
        """select keywords.lang, keywords.term, keywords.en_term,
            (select today.number from rules as translated
                join rule_links on rule_links.rule_id = translated.id and rule_links.status != 'mismatch'
                join rules as english on english.id = rule_links.en_rule_id
                join rules as today on today.lineage_id = english.lineage_id and today.version_id = :newest
             where translated.version_id = keywords.version_id and translated.number = keywords.rule_number
             limit 1),
            keywords.source
        from keywords""",
        {"newest": newest[0] if newest else None},
    ):
        named = titles.get((en_term or "").casefold())
        number = number_today or (named[1] if named else None)
        if number:  # as for the glossary's pairs below: a keyword today's rules hold
            pairs.append(Keyword(lang, term, en_term, number, source))
    for lang, term, en_term in db.execute(
        """select versions.lang, glossary.term, english.term
        from glossary_links join glossary on glossary.id = glossary_links.glossary_id
        join glossary as english on english.id = glossary_links.en_glossary_id
        join cr_versions as versions on versions.id = glossary.version_id"""
    ):
        title = titles.get((en_term or "").casefold())
        keyword_term = glossary_keyword_term(term or "")
        if title and keyword_term:
            pairs.append(Keyword(lang, keyword_term, title[0], title[1], "glossary"))
    return pairs + listed_in_translations(db, titles)


def listed_in_translations(db: sqlite_utils.Database, titles: dict[str, tuple[str, str]]) -> list[Keyword]:
    """Keywords a translated rule lists as its English rule does (``listed_keywords``: the Korean
    122.1b names the twelve keywords a keyword counter can be)."""
    languages = sorted(LIST_CONJUNCTIONS)
    pairs: list[Keyword] = []
    for lang, translated, english in db.execute(
        f"""select versions.lang, translated.text, english.text
        from rule_links join rules as translated on translated.id = rule_links.rule_id
        join rules as english on english.id = rule_links.en_rule_id
        join cr_versions as versions on versions.id = translated.version_id
        where rule_links.status != 'mismatch' and versions.lang in ({", ".join("?" * len(languages))})
            and (english.text like '%, and %' or english.text like '%, or %')""",
        languages,
    ):
        pairs.extend(Keyword(lang, term, en_term, number, "rule-list")
                     for term, en_term, number in listed_keywords(lang, english or "", translated or "", titles))
    return pairs


def derive_keyword_dictionary(db: sqlite_utils.Database) -> int:
    """Rebuild ``keyword_dictionary``; returns its row count."""
    db.execute("delete from keyword_dictionary")
    titles = keyword_titles(db)
    if not titles:
        return 0
    seen, translations = observations(db, titles), cr_translations(db, titles)
    entries = agree(seen, translations)
    more = unidentified_observations(db, titles, known_terms(entries)) + glued_observations(db, titles, terms_known(entries))
    if more:
        entries = agree(seen + more, translations)
    db.conn.executemany(
        "insert or replace into keyword_dictionary (id, lang, term, term_key, en_term, rule_number,"
        " sources, printings, dissent, status) values (?,?,?,?,?,?,?,?,?,?)",
        [
            (
                stable_id("keyword-dictionary", entry.lang, entry.term, entry.en_term),
                entry.lang, entry.term, name_key(entry.term), entry.en_term, entry.rule_number,
                json.dumps(entry.sources), entry.printings, entry.dissent, entry.status,
            )
            for entry in entries
        ],
    )
    return len(entries)
