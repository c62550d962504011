"""Korean CR (youbeebee.net Markdown/HTML), on the real 2021-02-15 posts."""
from __future__ import annotations

import collections
from pathlib import Path

import pytest

from kb.parse.cr import ko as cr_ko
from kb.parse.cr import zh as cr_zh
from kb.records import ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr-ko"


def parse(name: str):
    return cr_ko.parse((FIXTURES / name).read_bytes(), name)


@pytest.fixture(scope="module")
def chapter():
    return parse("2021-02-15-100.md")


@pytest.fixture(scope="module")
def merged():
    return cr_ko.merge_documents(
        [parse(name) for name in ("2021-02-15-index.md", "2021-02-15-100.md", "2021-02-15-700-excerpt.md")]
    )


def test_chapter_counts(chapter):
    assert chapter.lang == "ko" and chapter.method == "community"
    assert collections.Counter(rule.kind for rule in chapter.rules) == {
        "part": 1, "section": 23, "rule": 179, "subrule": 257,
    }
    assert sum(len(rule.examples) for rule in chapter.rules) == 26
    assert chapter.effective_date is None  # the date line lives in the index post
    # Two subrules printed twice, each a paragraph of its own with its own anchor: the second is
    # the English 101.4e and 120.4d, whose letters the post never prints. (They were appended to
    # the first as "unmarked" paragraphs, and 101.4 and 120.4 then lacked a subrule.)
    assert chapter.warnings == [
        "2021-02-15-100.md: line 134: 101.4d printed twice: the second read as 101.4e, a letter the file never prints",
        "2021-02-15-100.md: line 1744: 120.4c printed twice: the second read as 120.4d, a letter the file never prints",
    ]
    rules = {rule.number: rule for rule in chapter.rules}
    assert rules["101.4e"].text.startswith("게임을 시작하는 동안 여러명의 플레이어가 선택 또는 행동을 취하는 경우")
    assert "게임을 시작하는" not in rules["101.4d"].text
    assert (rules["101.4e"].number_confidence, rules["120.4d"].number_confidence, rules["101.4d"].number_confidence) == (
        0.5, 0.5, 1.0)


def test_chapter_rules(chapter):
    rules = {rule.number: rule for rule in chapter.rules}
    assert (rules["1"].title, chapter.extra["english_titles"]["1"]) == ("게임의 컨셉", "Game Concepts")
    assert (rules["100"].kind, rules["100"].title) == ("section", "일반")
    assert rules["100.1"].text == "이 Magic 규칙은 두 명 혹은 그 이상의 플레이어가 참여하는 모든 Magic 게임에 적용됩니다."
    # Markdown links become their text; the cited section is a reference.
    assert rules["100.2c"].text.endswith('See rule 903, "Commander".')
    assert rules["100.2c"].refs == ["903"]
    assert rules["101.2"].examples == [
        'Example: "당신은 이번 턴에 추가적인 대지를 놓을 수 있다."라는 효과가 있고 "당신은 이번 턴에 대지를 놓을 수 없다."라는'
        " 효과가 있다면 후자가 우선합니다."
    ]
    # Symbol images become braces: ![{T}](/assets/symbols/T.gif) → {T}.
    assert rules["106.5"].examples[0].startswith('Example: Meteor Crater는 다음과 같은 능력을 가지고 있습니다. "{T}:')


def test_translator_footnotes_stand_in_brackets_where_their_markers_were(chapter):
    # The post's two Kramdown footnotes ("[^2]" in 117.7, "[^2]:  주-흔히 …" below it) were left as
    # "[^2]" in the text, and the notes were lost.
    rules = {rule.number: rule for rule in chapter.rules}
    assert rules["117.7"].text.endswith("\"Resolving Spells and Abilities. (주-흔히 '스택 쌓고'라고 하지요)")
    assert "복사본이 될 수 있습니다. (주-Jushi Apprentice와 Tomoya the Revealer는 서로 플립되는 관계) 이 지속물이" in (
        rules["110.5c"].examples[0])
    assert not [rule.number for rule in chapter.rules if "[^" in rule.text or any("[^" in e for e in rule.examples)]


def test_a_footnote_marker_without_its_note_is_dropped_and_named():
    post = (FIXTURES / "2021-02-15-100.md").read_text().replace("[^2]:  주-흔히 '스택 쌓고'라고 하지요", "")
    document = cr_ko.parse(post.encode(), "100.md")
    rules = {rule.number: rule for rule in document.rules}
    assert rules["117.7"].text.endswith('"Resolving Spells and Abilities.')
    assert "100.md: footnote markers without a note: [^2]" in document.warnings


def test_symbols_with_slashes(chapter):
    symbols = set()
    for rule in chapter.rules:
        for text in [rule.text, *rule.examples]:
            symbols.update(part.split("}")[0] for part in text.split("{")[1:])
    assert {"2/B", "B/P", "G/W", "W/U", "T", "Q", "X", "C"} <= symbols
    assert not {"2B", "BP", "GW"} & symbols


def test_index(merged):
    index = parse("2021-02-15-index.md")
    assert (index.raw_date, index.effective_date) == ("2021년 2월 15일", "2021-02-15")
    assert index.title == "매직: 더 개더링 종합 규칙서"
    assert index.intro.startswith("이 문서는 Magic: The Gathering® 경쟁 게임 플레이에서 최고의 권위를 가집니다.")
    # Its links, inline and by reference ("[Magic.Wizards.com/Rules][Rules]"), keep only their text.
    assert index.intro.split("\n")[1] == (
        "이 문서가 발표된 이후로 변경이 있을 수 있습니다. 최신 규칙을 매직 규칙 웹사이트 Magic.Wizards.com/Rules에서"
        " 다운로드 받으실 수 있습니다. 질문이 있다면 Support.Wizards.com에서 답변을 얻을 수 있습니다."
    )
    assert len(index.intro.split("\n")) == 2
    assert collections.Counter(rule.kind for rule in index.rules) == {"part": 9, "section": 133}
    assert index.extra["english_titles"]["702"] == "Keyword Abilities"


def test_keyword_titles_are_split(merged):
    rules = {rule.number: rule for rule in merged.rules}
    english = merged.extra["english_titles"]
    assert (rules["702.78"].title, english["702.78"]) == ("집요", "Persist")
    assert (rules["702.77"].title, english["702.77"]) == ("Conspire", "Conspire")
    assert (rules["702.85"].title, english["702.85"]) == ("절멸자/절멸", "Annihilator")
    assert rules["702.78a"].text.startswith("집요는 격발 능력입니다.")
    assert rules["702.77a"].refs == ["601.2b", "601.2e", "601.2f", "601.2g", "601.2h"]
    # The unmarked "702.85 같은 생물에…" paragraph (really 702.85b) is kept, with a warning.
    assert rules["702.85a"].text.endswith("각 능력이 따로 격발됩니다.")
    assert merged.effective_date == "2021-02-15"
    assert len(merged.rules) == 591


def test_split_bilingual_title():
    assert cr_ko.split_bilingual_title("집요 Persist") == ("집요", "Persist")
    assert cr_ko.split_bilingual_title("두 배로 하다Double") == ("두 배로 하다", "Double")
    assert cr_ko.split_bilingual_title("Hidden Agenda") == ("Hidden Agenda", "Hidden Agenda")
    assert cr_ko.split_bilingual_title("일반") == ("일반", None)


# Constructed, not captured: the same paragraphs as the live site would serve them inside an
# HTML page (Kramdown renders **…** as <strong>, images as <img>), to show that the parser does
# not depend on the Jekyll front matter. The texts are copied from the real 100.md post.
LIVE_PAGE = """<!DOCTYPE html><html><head><title>1. 게임의 컨셉</title></head><body>
<h3 id="106-마나">106. 마나</h3>
<a name="106.5"></a>
<p class="paragraph"><strong>106.5.</strong> 어떤 능력이 정의되지 않은 타입의 마나(들)를 생성하려 한다면, 그 능력은 그 대신 마나를 생산하지 않습니다.</p>
<p class="example"> <strong>Example:</strong> Meteor Crater는 다음과 같은 능력을 가지고 있습니다. "<img src="/assets/symbols/T.gif" alt="{T}" />: 당신이 조종하고 있는 지속물의 색 중 하나를 선택한다."</p>
<a name="106.5a"></a>
<p class="clause"><strong>106.5a</strong> 예시 <a href="/900#903">903</a> 참조.</p>
</body></html>"""


def test_live_html_page():
    assert cr_ko.sniff(LIVE_PAGE.encode(), "106.html")
    doc = cr_ko.parse(LIVE_PAGE.encode(), "106.html")
    assert [(rule.number, rule.kind) for rule in doc.rules] == [
        ("106", "section"), ("106.5", "rule"), ("106.5a", "subrule"),
    ]
    assert doc.rules[1].examples == [
        'Example: Meteor Crater는 다음과 같은 능력을 가지고 있습니다. "{T}: 당신이 조종하고 있는 지속물의 색 중 하나를 선택한다."'
    ]
    assert doc.rules[2].text == "예시 903 참조."


def test_sniff_and_errors():
    chapter_bytes = (FIXTURES / "2021-02-15-100.md").read_bytes()
    assert cr_ko.sniff(chapter_bytes, "100.md")
    assert cr_ko.sniff((FIXTURES / "2021-02-15-index.md").read_bytes(), "index.md")
    zh = Path(__file__).parent.parent / "fixtures" / "cr-zh" / "2025-02-07-zh.txt"
    assert not cr_ko.sniff(zh.read_bytes(), zh.name)
    assert not cr_zh.sniff(chapter_bytes, "100.md")
    # A document that only quotes the markup and the date line (a README) is not claimed.
    quoting = 'Rules look like `<p class="paragraph" markdown="1">**702.78.** 집요 Persist</p>`;\n"此规则于2025年2月7日起生效。"\n'
    assert not cr_ko.sniff(quoting.encode(), "README.md")
    assert not cr_zh.sniff(("# Notes\n\n" + "x\n" * 10 + quoting).encode(), "README.md")
    with pytest.raises(ParseError, match="empty.md"):
        cr_ko.parse("---\ntitle: x\n---\n\n그냥 글입니다.\n".encode(), "empty.md")
    with pytest.raises(ParseError, match=r"bad.md: line \d+: '1OO\.1\.' is not a rule number"):
        cr_ko.parse('<p class="paragraph" markdown="1">**1OO.1.** 글</p>\n'.encode(), "bad.md")


def test_a_post_cut_short_is_refused_naming_where():
    """A cut inside a paragraph leaves it open; the index post must list part 9. (A chapter post
    cut exactly between two paragraphs is not seen: the source prints nothing after its last rule.)"""
    chapter_bytes = (FIXTURES / "2021-02-15-100.md").read_bytes()
    with pytest.raises(ParseError, match=r"^100\.md: line 1028: truncated: the paragraph opened here never closes$"):
        cr_ko.parse(chapter_bytes[: len(chapter_bytes) // 2], "100.md")
    index_lines = (FIXTURES / "2021-02-15-index.md").read_bytes().splitlines(keepends=True)
    # Inside part 9's contents list (it opens on line 190).
    with pytest.raises(ParseError, match=r"^index\.md: line 190: truncated: the paragraph opened here never closes$"):
        cr_ko.parse(b"".join(index_lines[:194]) + index_lines[194][:20], "index.md")
    # Right after part 8's list closes: every paragraph is whole, part 9 is missing.
    assert index_lines[186].strip() == b"</p>"
    with pytest.raises(ParseError, match=r"^index\.md: truncated: the contents list ends before part 9 \(Casual Variants\)$"):
        cr_ko.parse(b"".join(index_lines[:187]), "index.md")
    whole = cr_ko.parse(b"".join(index_lines), "index.md")
    assert [rule.number for rule in whole.rules if rule.kind == "part"][-1] == "9"


def test_a_page_of_the_live_site_is_judged_by_its_closing_tag():
    """HTML may leave a paragraph open: a page (the constructed LIVE_PAGE above) is judged by its
    closing </html> instead."""
    open_paragraph = LIVE_PAGE.replace("</body></html>", "<p class=\"clause\">footer, never closed\n</body></html>")
    assert [rule.number for rule in cr_ko.parse(open_paragraph.encode(), "106.html").rules] == ["106", "106.5", "106.5a"]
    with pytest.raises(ParseError, match=r"^106\.html: truncated: the page ends before its closing </html> tag$"):
        cr_ko.parse(LIVE_PAGE[: LIVE_PAGE.index("<a name=\"106.5a\">")].encode(), "106.html")


@pytest.mark.parametrize("cls", ["clause", "paragraph", "example"])
def test_a_paragraph_class_renamed_is_read_by_what_it_holds_and_named(chapter, cls):
    """The parser read three classes: a "clause" renamed lost all 255 subrules with no word.
    A class the real posts never use is read by what its paragraphs hold, and named once."""
    data = (FIXTURES / "2021-02-15-100.md").read_bytes().replace(f'class="{cls}"'.encode(), b'class="item"')
    renamed = cr_ko.parse(data, "100.md")
    assert [(rule.number, rule.kind, rule.title, rule.text, rule.examples) for rule in renamed.rules] == [
        (rule.number, rule.kind, rule.title, rule.text, rule.examples) for rule in chapter.rules
    ]
    count = {"clause": 257, "paragraph": 179, "example": 26}[cls]
    # Lines as the parser counts them: the post ends its lines in CRLF, CR and LF.
    line = next(number for number, text in enumerate(data.decode().splitlines(), 1) if 'class="item"' in text)
    assert renamed.warnings[-1] == (
        f"100.md: line {line}: {count} paragraphs of class 'item', which the source never used"
        " (the markup may have changed): read by what they hold (a rule number, an example's label)"
    )
