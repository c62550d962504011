"""Chinese CR: plain text and the aligned JSON, on the real 2025-02-07 files."""
from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest

from kb.parse.cr import zh as cr_zh
from kb.parse.cr import zh_aligned as cr_zh_aligned
from kb.records import ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr-zh"
TXT = FIXTURES / "2025-02-07-zh.txt"
ALIGNED = FIXTURES / "2025-02-07-en-zh-aligned.json"


@pytest.fixture(scope="module")
def zh():
    return cr_zh.parse(TXT.read_bytes(), TXT.name)


@pytest.fixture(scope="module")
def aligned():
    return cr_zh_aligned.parse(ALIGNED.read_bytes(), ALIGNED.name)


def rules_by_number(doc):
    return {rule.number: rule for rule in doc.rules}


def test_header(zh):
    assert (zh.lang, zh.method, zh.encoding) == ("zhs", "community", "utf-8")
    assert zh.title == "万智牌完整规则"
    assert (zh.raw_date, zh.effective_date) == ("2025年2月7日", "2025-02-07")
    assert zh.intro.startswith("本文件是万智牌®竞技游戏的最终解释。")
    assert zh.credits.startswith("万智牌游戏原始设计：Richard Garfield")
    assert zh.warnings == []


def test_counts(zh):
    kinds = collections.Counter(rule.kind for rule in zh.rules)
    assert kinds == {"part": 9, "section": 144, "rule": 1127, "subrule": 1895}
    assert sum(len(rule.examples) for rule in zh.rules) == 274
    assert len(zh.glossary) == 703
    # Headings of parts, sections and keyword/option rules ("702.163. 秘罗万岁！" and
    # "702.179. 发动引擎！" among them, though a mark ends them).
    assert sum(1 for rule in zh.rules if rule.title) == 398
    assert [rules_by_number(zh)[n].title for n in ("702.163", "702.179")] == ["秘罗万岁！", "发动引擎！"]


def test_keyword_rule_and_subrules(zh):
    rules = rules_by_number(zh)
    conspire = rules["702.78"]
    assert (conspire.kind, conspire.title, conspire.text, conspire.parent, conspire.section) == (
        "rule", "协力", "", "702", "702",
    )
    assert rules["702.78a"].refs == ["601.2b", "601.2f", "601.2g", "601.2h"]
    assert rules["702.78b"].text.startswith("如果一个咒语具有多个协力异能")
    assert (rules["702"].kind, rules["702"].title, rules["702"].parent) == ("section", "关键字异能", "7")
    assert (rules["7"].kind, rules["7"].title, rules["7"].parent) == ("part", "附加规则", None)


def test_examples_and_continuations(zh):
    rules = rules_by_number(zh)
    assert rules["101.2"].examples == [
        "例如：如果某效应为“你本回合可以额外使用一个地”，而另一个效应为“你本回合不能使用地”，则以使你不能使用地的效应为优先。"
    ]
    assert [example[:5] for example in rules["111.4"].examples] == ["例如：矮人", "例如：厚爱", "例如：射影"]
    # "例如，" (a comma, not the usual colon) still opens an example.
    assert rules["111.11"].examples[0].startswith("例如，勇行者")
    # The indented paragraph under 205.4c continues its text.
    assert rules["205.4c"].text.split("\n")[1].startswith("在核心第八版之前的版本")
    # Official quirks 119.1d. / 606.5 / 901.4.All are fixed in this file; numbers stay as printed.
    assert rules["606.5"].kind == "rule" and rules["119.1d"].kind == "subrule"


def test_glossary(zh):
    first, second = zh.glossary[0], zh.glossary[1]
    assert (first.term, first.refs) == ("撤废", ["701.26"])
    assert second.term == "异能"
    assert second.text.split("\n")[0] == "1. 一个物件上解释这个物件作什么或可以作什么的叙述。"
    assert zh.glossary[-1].term == "改变区域触发"


def test_stale_date_in_credits_is_ignored(zh):
    # The credits of this file repeat "此规则于2024年2月7日起生效。"; the header wins.
    assert "2024年2月7日" in TXT.read_text(encoding="utf-8")
    assert zh.effective_date == "2025-02-07"


def test_sniff():
    assert cr_zh.sniff(TXT.read_bytes(), TXT.name)
    assert not cr_zh.sniff(ALIGNED.read_bytes(), ALIGNED.name)
    assert cr_zh_aligned.sniff(ALIGNED.read_bytes(), ALIGNED.name)
    assert not cr_zh_aligned.sniff(TXT.read_bytes(), TXT.name)
    english = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "2025-02-07.txt"
    assert not cr_zh.sniff(english.read_bytes(), english.name)


def test_bad_input_names_the_file():
    with pytest.raises(ParseError, match="broken.txt"):
        cr_zh.parse("万智牌完整规则\n\n此规则于2025年2月7日起生效。\n\n没有规则。\n".encode(), "broken.txt")
    with pytest.raises(ParseError, match="broken.json"):
        cr_zh_aligned.parse(b'{"intro": {"contents": []}, "zh": 1, "en": 2', "broken.json")
    with pytest.raises(ParseError, match=r"bad\.json: main/1\.\[0\]: '1x' is not a rule number"):
        cr_zh_aligned.parse(
            b'{"intro": {"contents": []}, "main": [{"chapter": "1.", "en": "A", "zh": "B",'
            b' "subrules": [{"chapter": "1x", "en": "", "zh": ""}]}]}',
            "bad.json",
        )


@pytest.mark.parametrize("field, renamed, where", [
    ("subrules", "children", "main: rule 1."),
    ("zhname", "zh_name", "glossary[0]"),
])
def test_a_renamed_field_of_the_aligned_file_is_refused(field: str, renamed: str, where: str) -> None:
    # The rules under a renamed "subrules" were left unread: a version of its chapters alone.
    data = ALIGNED.read_bytes().replace(f'"{field}"'.encode(), f'"{renamed}"'.encode())
    with pytest.raises(ParseError, match=rf"renamed\.json: {re.escape(where)}: field '{renamed}' this file's layout never had"):
        cr_zh_aligned.parse(data, "renamed.json")


def cut_before_line(number: int) -> bytes:
    """The real file up to (not including) its line ``number``, as a cut-off copy would be."""
    return b"".join(TXT.read_bytes().splitlines(keepends=True)[: number - 1])


def test_a_file_cut_before_its_glossary_is_refused():
    assert TXT.read_text(encoding="utf-8").split("\n")[6808] == "词汇表"
    with pytest.raises(ParseError, match=r"^zh\.txt: truncated: no '词汇表' \(glossary\) after the numbered rules$"):
        cr_zh.parse(cut_before_line(6809), "zh.txt")


def test_a_file_cut_in_its_glossary_hands_over_its_whole_rules(zh):
    """As the English parser does: refused, with the rules part (whole) and the glossary's whole
    entries for a build run with --keep-going to keep as a truncated edition."""
    with pytest.raises(cr_zh.TruncatedCR, match=r"^zh\.txt: truncated: no '版权信息' \(credits\) after the glossary$") as refused:
        cr_zh.parse(cut_before_line(8000), "zh.txt")
    partial = refused.value.partial
    assert partial.rules == zh.rules
    assert 0 < len(partial.glossary) < len(zh.glossary)
    assert partial.glossary == zh.glossary[: len(partial.glossary)]
    assert partial.extra == {"truncated": "glossary"}
    assert partial.warnings == [
        f"zh.txt: line 7999: the file ends inside the glossary (after {len(partial.glossary)} whole entries):"
        " rules kept, glossary incomplete, credits missing"
    ]


def test_a_file_cut_in_its_credits_is_kept_and_says_so(zh):
    """Only credits can be lost after the glossary: the file is kept, with the doubt said."""
    assert "此规则于2024年2月7日起生效" in TXT.read_text(encoding="utf-8").split("\n")[8981]
    cut = cr_zh.parse(cut_before_line(8982), "zh.txt")
    assert (cut.rules, cut.glossary) == (zh.rules, zh.glossary)
    assert cut.warnings == ["zh.txt: the credits ('版权信息') end before the closing '此规则于…起生效' line: cut short?"]
    assert cr_zh.parse(cut_before_line(8983), "zh.txt").warnings == []


def test_aligned_matches_plain_text(zh, aligned):
    assert aligned.effective_date == "2025-02-07"
    assert [rule.number for rule in aligned.rules] == [rule.number for rule in zh.rules]
    differing = [
        a.number for a, b in zip(zh.rules, aligned.rules, strict=True) if (a.text, a.title, a.examples) != (b.text, b.title, b.examples)
    ]
    # Five rules were reworded between the two files the translators published.
    assert differing == ["111.8", "120.3a", "303.4m", "702.177b", "704.5z"]
    assert [(e.term, e.text) for e in aligned.glossary] == [(e.term, e.text) for e in zh.glossary]


def test_aligned_answer_key(aligned):
    key = aligned.extra["alignment"]
    assert len(key["rules"]) == 3175
    assert key["rules"]["702.78"] == ("Conspire", "协力")
    assert key["rules"]["702.78a"][0].startswith("Conspire is a keyword that represents two abilities.")
    assert len(key["glossary"]) == 703
    assert key["glossary"][:2] == [("Abandon", "撤废"), ("Ability", "异能")]
    assert aligned.extra["version"] == "20250207"
    assert len(aligned.extra["translated_terms"]) == 40


def test_aligned_english_side():
    english = cr_zh_aligned.parse_english(ALIGNED.read_bytes(), ALIGNED.name)
    rules = rules_by_number(english)
    assert (english.lang, english.effective_date, english.raw_date) == ("en", "2025-02-07", "February 7, 2025")
    assert rules["702.78"].title == "Conspire"
    assert sum(len(rule.examples) for rule in english.rules) == 274
    assert english.glossary[0].term == "Abandon"


def test_symbols_are_in_english_codes_and_the_rules_own_notations_as_printed(zh, aligned) -> None:
    """Both files print 702.107a's tap symbol as "{横置}", where the English prints "{T}" (a SQL
    user's review: ``text like '%{T}%'`` missed it). The saga's "{rN}" and the level symbol's
    "{等级N1-N2}" are the rules' notations, and stay."""
    for document in (zh, aligned):
        rules = rules_by_number(document)
        assert "[费用]，{T}：在此生物上放置一个+1/+1指示物" in rules["702.107a"].text
        braced = {mark for rule in document.rules for mark in re.findall(r"\{[^}]*\}", rule.text)}
        assert {mark for mark in braced if not re.fullmatch(r"\{[A-Z0-9/]+\}", mark)} == {
            "{rN}", "{rN1}", "{rN2}", "{等级N1-N2}", "{等级N3+}"}
