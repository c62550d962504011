"""Localized official release notes: the real Korean M20 HTML and the real Chinese MH1 DOCX."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from kb.parse.release_notes import ko as release_notes_ko
from kb.parse.release_notes import zhs as release_notes_zhs
from kb.parse.release_notes.common import split_card_name
from kb.parse.rulings import card_page_capture
from kb.records import ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "release-notes"
KOREAN = (FIXTURES / "ko-m20-2019-05-31.html").read_bytes()
CHINESE = (FIXTURES / "zhs-mh1.docx").read_bytes()


@pytest.fixture(scope="module")
def korean():
    return release_notes_ko.parse(KOREAN, "ko-m20-2019-05-31.html")


@pytest.fixture(scope="module")
def chinese():
    return release_notes_zhs.parse(CHINESE, "zhs-mh1.docx")


def test_korean_document(korean) -> None:
    assert korean.format == "release-notes-html"
    assert korean.lang == "ko"
    assert korean.extra["title"] == "코어세트 2020 출시 노트"
    assert (korean.extra["raw_date"], korean.extra["date"]) == ("2019년 5월 31일 금요일", "2019-05-31")
    assert korean.extra["card_blocks"] == 170
    assert len(korean.card_names) == 170
    assert len(korean.rulings) == 406
    # Every card as printed, kept by its place (no English name, no id: before, none was kept; a
    # release-notes review); a creature's power and toughness and a planeswalker's loyalty, printed
    # before the text, are not its text but its numbers.
    assert len(korean.cards) == 170
    assert [(card.name, card.printed_name, card.mana_cost, card.printed_type_line, card.printed_text, card.place,
             card.lang) for card in korean.cards[3:4]] == [(
        "배반 공작 요원", "배반 공작 요원", "{5}{U}{U}", "생물 — 인간 도적",
        "배반 공작 요원이 전장에 들어올 때, 지속물을 목표로 정한다. 그 지속물의 조종권을 얻는다.\n당신의 종료단 시작에,"
        " 당신이 소유하지 않은 지속물을 당신이 세 개 이상 조종한다면, 카드 세 장을 뽑는다.", 4, "ko")]
    assert (korean.cards[3].power, korean.cards[3].toughness, korean.cards[3].loyalty) == ("2", "3", None)  # Agent of Treachery, 2/3
    ajani = next(card for card in korean.cards if card.printed_name == "영감을 주는 지도자, 아자니")
    assert (ajani.printed_type_line, ajani.printed_text.splitlines()[0][:3]) == ("전설적 플레인즈워커 — 아자니", "+2:")
    assert (ajani.power, ajani.toughness, ajani.loyalty) == (None, None, "5")
    warlord = next(card for card in korean.cards if card.printed_name == "철뿌리 전쟁군주")
    assert (warlord.power, warlord.toughness) == ("*", "5")
    # Every creature has its numbers, every planeswalker its loyalty, nothing else has either.
    assert Counter(
        ("creature" if "생물" in card.printed_type_line.split("—")[0] else
         "planeswalker" if "플레인즈워커" in card.printed_type_line else "other",
         bool(card.power and card.toughness), bool(card.loyalty))
        for card in korean.cards
    ) == Counter({("creature", True, False): 92, ("planeswalker", False, True): 12, ("other", False, False): 66})
    # The general section's notes (protection, leylines, the new mulligan; four more are sub-points
    # of these) are about no one card: said, not dropped quietly.
    assert [(issue.kind, issue.detail) for issue in korean.issues] == [
        ("general-notes", "ko-m20-2019-05-31.html: 16 notes of the general section, before the card-specific notes, are about no one card:"
         " not kept as rulings")]


def test_korean_rulings(korean) -> None:
    first, last = korean.rulings[0], korean.rulings[-1]
    assert (first.position, first.card_name, first.text) == (
        1, "반역 행위", "이미 당신이 조종하거나 언탭된 생물도 반역 행위의 목표로 지정할 수 있습니다.")
    assert (last.position, last.card_name) == (406, "야로크의 파도강타병")
    assert last.text == ("격발 능력이 해결될 때 당신이 다른 생물을 조종하고 있지 않은 경우, 당신은 단순히 "
                         "아무 것도 되돌리지 않습니다. 손으로 되돌릴 수 없다고 해서 페널티가 적용되지는 않습니다.")
    assert {(r.lang, r.card_name_lang, r.method, r.source, r.published_at, r.raw_date) for r in korean.rulings} == {
        ("ko", "ko", "official", "wotc", "2019-05-31", "2019년 5월 31일 금요일")}
    per_card = Counter(r.card_name for r in korean.rulings)
    assert len(per_card) == 170
    assert per_card["더럽혀진 자, 야로크"] == 9


def test_korean_card_names_drop_printed_notes(korean) -> None:
    names = [c.name for c in korean.card_names]
    assert "영감을 주는 지도자, 아자니" in names
    assert korean.extra["card_notes"]["영감을 주는 지도자, 아자니"] == "플레인즈워커 덱 전용"
    assert korean.extra["card_notes"]["재탄생의 대천사, 리엔"] == "박스 구매 프로모션 카드"
    assert len(korean.extra["card_notes"]) == 22


def test_chinese_document(chinese) -> None:
    assert chinese.format == "release-notes-docx"
    assert chinese.lang == "zhs"
    assert chinese.extra["title"] == "摩登新篇发布释疑"
    assert (chinese.extra["raw_date"], chinese.extra["date"]) == ("2019年4月29日", "2019-04-29")
    assert len(chinese.card_names) == 144
    assert len(chinese.rulings) == 411
    assert len(chinese.cards) == 144
    morophon = chinese.cards[0]
    assert (morophon.printed_name, morophon.mana_cost, morophon.printed_type_line, morophon.place) == (
        "无形莫洛丰", "{7}", "传奇生物～变形兽", 1)
    assert morophon.printed_text.splitlines()[0] == "化形（此牌是所有生物类别。）"  # not its "6/6"
    assert (morophon.power, morophon.toughness) == ("6", "6")
    sarah = next(card for card in chinese.cards if card.printed_name == "善心撒拉")
    assert (sarah.printed_type_line, sarah.loyalty) == ("传奇鹏洛客～撒拉", "4")
    assert [(issue.kind, issue.detail.split(":")[1].strip()) for issue in chinese.issues] == [
        ("general-notes", "19 notes of the general section, before the card-specific notes, are about no one card")]
    assert chinese.extra["card_notes"] == {"躁乱风暴": "「买一盒」赠卡"}


def test_chinese_rulings(chinese) -> None:
    first, last = chinese.rulings[0], chinese.rulings[-1]
    assert (first.position, first.card_name, first.text) == (
        1, "无形莫洛丰", "你必须选择现有的生物类别，例如裂片妖或战士。你不能选择牌的类别（如神器），也不能选择超类别（如传奇或雪境）。")
    assert (last.position, last.card_name, last.text) == (
        411, "躁乱风暴", "风暴异能及其产生的复制品都会比原本具风暴异能的咒语先一步结算。就算原本具风暴的咒语被反击，它们仍会结算。")
    assert {(r.lang, r.card_name_lang, r.method, r.source, r.published_at) for r in chinese.rulings} == {
        ("zhs", "zhs", "official", "wotc", "2019-04-29")}


def test_chinese_symbols_are_converted_and_field_codes_do_not_leak(chinese) -> None:
    assert chinese.rulings[2].text == (
        "如果某咒语的法术力费用中有混血法术力符号，则在确定咒语的总费用之前，你需要先确定你要支付哪一半。"
        "举例来说，如果某个所选类别之咒语费用为{2}{W/U}{W/U}，你可以选择要以{2}{W}{U}来支付该费用，然后该费用最后减少为{2}。")
    # Counted independently with python-docx on the raw paragraphs: {X}×14 {蓝}×5 {二}×4 {白}×4
    # {横置}×3 {重置}×3 {四}×2 {白/蓝}×2 {一}×1 {红}×1.
    symbols = Counter(s for r in chinese.rulings for s in re.findall(r"\{[^}]+\}", r.text))
    assert symbols == Counter({"{X}": 14, "{U}": 5, "{2}": 4, "{W}": 4, "{T}": 3, "{Q}": 3, "{4}": 2,
                               "{W/U}": 2, "{1}": 1, "{R}": 1})
    assert not any("HYPERLINK" in r.text or "http" in r.text for r in chinese.rulings)


def test_split_card_name() -> None:
    assert split_card_name("반역 행위 (Act of Treason)") == ("반역 행위", "Act of Treason", None)
    assert split_card_name("躁乱风暴（「买一盒」赠卡）") == ("躁乱风暴", None, "「买一盒」赠卡")
    assert split_card_name("冰霜瓦拉") == ("冰霜瓦拉", None, None)


def test_sniffers_claim_only_their_own() -> None:
    assert release_notes_ko.sniff(KOREAN) and not release_notes_ko.sniff(CHINESE)
    assert release_notes_zhs.sniff(CHINESE) and not release_notes_zhs.sniff(KOREAN)
    assert not card_page_capture.sniff(KOREAN)


def test_a_card_header_lost_between_two_lists_is_said(korean) -> None:
    """The header of 에테르 돌풍 (Aether Gust) gone: its two notes were credited to the card before,
    with no word (a damaged-input review). No card of the real page has two lists."""
    assert not [issue for issue in korean.issues if issue.kind == "card-header-missing"]
    header = re.search(rb'\t<p class="block_9">\xec\x97\x90\xed\x85\x8c\xeb\xa5\xb4 \xeb\x8f\x8c\xed\x92\x8d<br.*?</p>\n', KOREAN)
    assert header is not None
    damaged = release_notes_ko.parse(KOREAN.replace(header.group(0), b"", 1), "ko-m20.html")
    issues = [issue.detail for issue in damaged.issues if issue.kind == "card-header-missing"]
    assert len(issues) == 1 and issues[0].startswith("ko-m20.html: the notes of '공중 강습' come in 2 lists (blocks "), issues
    assert issues[0].endswith("its notes are credited to '공중 강습'")


def test_a_card_name_run_into_its_cost_is_read_as_two_lines(korean) -> None:
    """A lost <br> after the name stored the card as "에테르 돌풍{1}{U}" (a damaged-input review)."""
    assert not [issue for issue in korean.issues if issue.kind == "joined-lines"]
    damaged = release_notes_ko.parse(
        KOREAN.replace("에테르 돌풍<br class=\"calibre5\" />{1}{U}".encode(), "에테르 돌풍{1}{U}".encode(), 1), "ko-m20.html")
    assert [name.name for name in damaged.card_names] == [name.name for name in korean.card_names]
    assert [ruling.card_name for ruling in damaged.rulings] == [ruling.card_name for ruling in korean.rulings]
    assert [issue.detail for issue in damaged.issues if issue.kind == "joined-lines"] == [
        "ko-m20.html: block 58: the card's name runs into its mana cost ('에테르 돌풍{1}{U}'): read as two lines"]


def test_a_page_cut_short_is_refused(korean) -> None:
    """Cut at a line end half way, the page still read as 187 of its 406 rulings: refused instead."""
    cut = KOREAN[: KOREAN.rfind(b"\n", 0, len(KOREAN) // 2) + 1]
    with pytest.raises(ParseError, match=r"^ko\.html: truncated: the page ends before its closing </html> tag$"):
        release_notes_ko.parse(cut, "ko.html")
    # What the cut page alone would have given, nothing saying that the rest is missing.
    assert (len(release_notes_ko.parse(cut + b"</html>", "ko.html").rulings), len(korean.rulings)) == (187, 406)


def test_not_release_notes_raise() -> None:
    with pytest.raises(ParseError, match="x.docx: not a readable DOCX"):
        release_notes_zhs.parse(b"PK\x03\x04 broken", "x.docx")
    with pytest.raises(ParseError, match="x.html: no card-specific notes heading found"):
        release_notes_ko.parse("<html><body><h1>제목</h1><p>마지막 수정일: 2019년 5월 31일</p></body></html>".encode(), "x.html")


def test_a_text_line_that_starts_with_a_power_and_toughness_is_kept() -> None:
    """Only a line that is nothing but a power and toughness ("2/3") or a loyalty ("5") is left
    out of a card's text; "1/1 백색 병사 생물 토큰…" (a token spell's text) was dropped as one
    (constructed card blocks; the diff review)."""
    from kb.parse.release_notes.common import _card_record

    spell = _card_record(["X", "{1}{W}", "집중마법", "1/1 백색 병사 생물 토큰 두 개를 만든다."], "X", None, "ko", 1)
    assert spell.printed_text == "1/1 백색 병사 생물 토큰 두 개를 만든다."
    creature = _card_record(["X", "{1}{W}", "생물 — 병사", "1/1", "비행"], "X", None, "ko", 2)
    assert (creature.printed_text, creature.power, creature.toughness) == ("비행", "1", "1")
    battle = _card_record(["X", "{2}{R}", "전투 — 공성", "5", "비행"], "X", None, "ko", 3)
    assert (battle.defense, battle.loyalty, battle.printed_text) == ("5", None, "비행")
    planeswalker = _card_record(["X", "{X}{G}{G}", "전설적 플레인즈워커 — 니사", "X", "+2: 비행"], "X", None, "ko", 4)
    assert (planeswalker.loyalty, planeswalker.printed_text) == ("X", "+2: 비행")
    # A lone number under a type line that has no numbers is kept as the text it is (a code review).
    artifact = _card_record(["X", "{4}", "마법물체", "4", "text"], "X", None, "ko", 5)
    assert (artifact.power, artifact.loyalty, artifact.defense, artifact.printed_text) == (None, None, None, "4\ntext")
