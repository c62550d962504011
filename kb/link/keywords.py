"""The keyword dictionary: each translated keyword with its English name (pure).

Keyword actions (701) and keyword abilities (702) are rules whose text is only their name
("702.78. 协力", "702.78. Conspire"). Once a translated rule is linked to its English rule, the
two titles are a translation pair. Glossary links add the pairs whose English term is such a
keyword title.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kb.link.cr_translations import GlossaryLink, RuleLink
from kb.records import CRDocument

KEYWORD_SECTIONS = ("701", "702")
LINKED_STATUSES = ("linked", "stale", "renumbered")
TRANSLATOR_NOTE = re.compile(r"[（(]\s*译注[:：].*?[)）]")


@dataclass
class Keyword:
    lang: str
    term: str
    en_term: str
    rule_number: str
    source: str  # rule-title | glossary | rule-title+glossary


def build_keyword_dictionary(
    translated: CRDocument,
    english: CRDocument,
    links: list[RuleLink],
    glossary_links: list[GlossaryLink] | None = None,
) -> list[Keyword]:
    """One Keyword per (term, English term) pair, in rule order; glossary pairs after them."""
    english_rules = {rule.number: rule for rule in english.rules}
    translated_rules = {rule.number: rule for rule in translated.rules}
    keywords: dict[tuple[str, str], Keyword] = {}
    for link in links:
        if link.status not in LINKED_STATUSES or not link.en_number:
            continue
        rule, en_rule = translated_rules.get(link.number), english_rules.get(link.en_number)
        if rule is None or en_rule is None or not _is_keyword_rule(rule.number, rule.kind):
            continue
        if not rule.title or not en_rule.title:
            continue
        term = _clean(rule.title)
        keywords.setdefault(
            (term, en_rule.title), Keyword(translated.lang, term, en_rule.title, en_rule.number, "rule-title")
        )
    keyword_titles = {
        rule.title.casefold(): rule
        for rule in english.rules
        if rule.title and _is_keyword_rule(rule.number, rule.kind)
    }
    for glossary_link in glossary_links or []:
        en_rule = keyword_titles.get(glossary_link.en_term.casefold())
        if en_rule is None or en_rule.title is None:
            continue
        term = _clean(glossary_link.term)
        key = (term, en_rule.title)
        if key in keywords:
            keywords[key].source = "rule-title+glossary"
        else:
            keywords[key] = Keyword(translated.lang, term, en_rule.title, en_rule.number, "glossary")
    return list(keywords.values())


def _is_keyword_rule(number: str, kind: str) -> bool:
    return kind == "rule" and number.split(".")[0] in KEYWORD_SECTIONS


def _clean(term: str) -> str:
    return TRANSLATOR_NOTE.sub("", term).strip()
