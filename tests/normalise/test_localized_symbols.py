"""Localized braced symbols to Scryfall codes; the Chinese forms are those of the real MH1 notes."""
from __future__ import annotations

import pytest

from kb.normalise.localized_symbols import (
    chinese_numeral_value,
    localized_symbols_to_braces,
)


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("{三}{白}", "{3}{W}"),
        ("{横置}", "{T}"),
        ("{重置}", "{Q}"),
        ("{无}", "{C}"),
        ("{零}", "{0}"),
        ("{十五}", "{15}"),
        ("{二十}", "{20}"),
        ("{白/蓝}{黑/绿}", "{W/U}{B/G}"),
        ("{雪}", "{S}"),
        ("{X}{二}{红}", "{X}{2}{R}"),
        ("{橫置}{藍}{綠}{紅}", "{T}{U}{G}{R}"),  # traditional Chinese
        ("｛Ｔ｝：{２}{Ｗ}", "{T}：{2}{W}"),  # Japanese full-width braces, letters, digits
        ("{b/r}", "{B/R}"),  # lowercase hybrid as printed in the Korean M20 notes
        ("{白/P}", "{W/P}"),
    ],
)
def test_conversions(printed: str, expected: str) -> None:
    assert localized_symbols_to_braces(printed, "zhs") == (expected, [])


def test_real_sentence_from_the_mh1_notes() -> None:
    text = "如果某个所选类别之咒语费用为{二}{白/蓝}{白/蓝}，你可以选择要以{二}{白}{蓝}来支付该费用"
    assert localized_symbols_to_braces(text, "zhs") == (
        "如果某个所选类别之咒语费用为{2}{W/U}{W/U}，你可以选择要以{2}{W}{U}来支付该费用",
        [],
    )


def test_unknown_symbol_is_left_and_reported() -> None:
    assert localized_symbols_to_braces("支付{龙}", "zhs") == ("支付{龙}", ["unknown symbol '{龙}' (zhs)"])


def test_chinese_numerals() -> None:
    assert [chinese_numeral_value(n) for n in ("三", "十", "十五", "二十一", "一百零五", "白")] == [3, 10, 15, 21, 105, None]
