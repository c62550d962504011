"""The keyword dictionary built from linked 701/702 titles and glossary links."""
from __future__ import annotations

import collections
from pathlib import Path

import pytest

from kb.link.cr_glossary_links import link_glossary
from kb.link.cr_translations import link_rules
from kb.link.keyword_lists import listed_keywords
from kb.link.keywords import Keyword, build_keyword_dictionary
from kb.parse.cr import ko as cr_ko
from kb.parse.cr import rule_page as cr_rule_page
from kb.parse.cr import txt as cr_txt
from kb.parse.cr import zh as cr_zh

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture(scope="module")
def english():
    return {
        f"en-{date}": cr_txt.parse((FIXTURES / "cr" / "en-raw" / f"{date}.txt").read_bytes(), f"{date}.txt")
        for date in ("2019-01-25", "2025-02-07", "2026-01-16")
    }


def test_chinese_keywords(english):
    path = FIXTURES / "cr-zh" / "2025-02-07-zh.txt"
    chinese = cr_zh.parse(path.read_bytes(), path.name)
    version, _, links = link_rules(chinese, english)
    glossary_links = link_glossary(chinese, english[version])
    keywords = build_keyword_dictionary(chinese, english[version], links, glossary_links)
    # 秘罗万岁！ (For Mirrodin!) and 发动引擎！ (Start Your Engines!) among them: keyword headings
    # a mark ends, read as rules without a title before.
    assert len(keywords) == 242
    assert collections.Counter(k.source for k in keywords) == {
        "rule-title+glossary": 223, "rule-title": 14, "glossary": 5,
    }
    by_term = {k.term: k for k in keywords}
    assert by_term["协力"] == Keyword("zhs", "协力", "Conspire", "702.78", "rule-title+glossary")
    assert keywords[0] == Keyword("zhs", "起动", "Activate", "701.2", "rule-title+glossary")
    # Without glossary links (as the build calls it) the titles alone still pair.
    assert len(build_keyword_dictionary(chinese, english[version], links)) == 237


def test_spanish_keyword(english):
    path = FIXTURES / "cr-pages" / "es-702.78-conspirar.txt"
    page = cr_rule_page.parse(path.read_bytes(), path.name)
    version, _, links = link_rules(page, english)
    assert build_keyword_dictionary(page, english[version], links) == [
        Keyword("es", "Conspirar", "Conspire", "702.78", "rule-title")
    ]


def test_korean_keywords(english):
    names = ("2021-02-15-index.md", "2021-02-15-100.md", "2021-02-15-700-excerpt.md")
    korean = cr_ko.merge_documents([cr_ko.parse((FIXTURES / "cr-ko" / n).read_bytes(), n) for n in names])
    version, _, links = link_rules(korean, english)
    assert version == "en-2019-01-25"
    assert build_keyword_dictionary(korean, english[version], links) == [
        Keyword("ko", "Conspire", "Conspire", "702.77", "rule-title"),
        Keyword("ko", "집요", "Persist", "702.78", "rule-title"),
        Keyword("ko", "고사", "Wither", "702.79", "rule-title"),
        # 702.85 Annihilator is left out: its link is a mismatch (the source lost 702.85b).
        Keyword("ko", "레벨업", "Level Up", "702.86", "rule-title"),
    ]


# 122.1b of the official English CR of 2020-11-20 (data/snapshot/cr/en/2020-11-20.txt), the
# edition the Korean translation of 2021-02-15 links to.
ENGLISH_122_1B_2020 = (
    "A keyword counter on a permanent or on a card in a zone other than the battlefield causes that object to"
    " gain that keyword. The keywords that a keyword counter can be are flying, first strike, double strike,"
    " deathtouch, haste, hexproof, indestructible, lifelink, menace, reach, trample, and vigilance, as well as"
    " any variants of those keywords. See rule 613.1f."
)


def test_keywords_a_translated_rule_lists_in_the_english_order(english):
    """The Korean 122.1b names the twelve keywords a keyword counter can be, in the English
    rule's order: each is that keyword's Korean term (the snapshot's Korean dictionary held two)."""
    korean = cr_ko.parse((FIXTURES / "cr-ko" / "2021-02-15-100.md").read_bytes(), "2021-02-15-100.md")
    text = next(rule.text for rule in korean.rules if rule.number == "122.1b")
    titles = {rule.title.casefold(): (rule.title, rule.number) for rule in english["en-2026-01-16"].rules
              if rule.title and rule.number.startswith(("701.", "702."))}
    assert [(term, en_term) for term, en_term, _number in listed_keywords("ko", ENGLISH_122_1B_2020, text, titles)] == [
        ("비행", "Flying"), ("선제공격", "First Strike"), ("이단공격", "Double Strike"), ("치명타", "Deathtouch"),
        ("신속", "Haste"), ("방호", "Hexproof"), ("무적", "Indestructible"), ("생명연결", "Lifelink"),
        ("호전적", "Menace"), ("대공", "Reach"), ("돌진", "Trample"), ("경계", "Vigilance"),
    ]
    # The 2025 rule lists fourteen (exalted, shadow): lists of other lengths pair nothing.
    english_2025 = next(rule.text for rule in english["en-2025-02-07"].rules if rule.number == "122.1b")
    assert listed_keywords("ko", english_2025, text, titles) == []
    # Chinese lists glue their first item to the words before it: not read.
    assert listed_keywords("zhs", ENGLISH_122_1B_2020, "可以是飞行、先攻、连击、死触、敏捷、辟邪、不灭、系命、威慑、延势、践踏和警戒。", titles) == []
