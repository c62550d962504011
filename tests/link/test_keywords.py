"""The keyword dictionary built from linked 701/702 titles and glossary links."""
from __future__ import annotations

import collections
from pathlib import Path

import pytest

from kb.link.cr_glossary_links import link_glossary
from kb.link.cr_translations import link_rules
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
