"""A CR glossary copied without the blank lines that set its entries apart (English and Chinese
files): read by its term lines, and named. Read as before, 38 of 2026-01-16's terms ending in
"(Obsolete)" or "(Informal)" went into the entry before them, and the Chinese glossary was one
entry (701 terms gone), without a word."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.parse.cr import txt as cr_txt
from kb.parse.cr import zh as cr_zh

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.mark.parametrize(
    ("relative", "parser", "line_end", "entries", "bracketed", "still_joined"),
    [
        ("cr/en-raw/2026-01-16.txt", cr_txt, b"\r", 719, "Caster (Obsolete)", [
            "Banding, “Bands with Other”", "For Mirrodin!", "Partner, “Partner—[text],” “Partner with [name]”",
            "Remove from the Game, Removed, Removed-from-the-Game Zone (Obsolete)", "Start Your Engines!",
            "Venture into [Quality]",
        ]),
        ("cr-zh/2025-02-07-zh.txt", cr_zh, b"\n", 698, "埋葬（已废止）", [
            "结合，“与…结合”", "秘罗万岁！", "移出游戏，移除，移出游戏区（已废止）", "发动引擎！", "深入[特性]",
        ]),
    ],
)
def test_a_glossary_without_blank_lines_is_read_by_its_term_lines_and_named(
    relative: str, parser, line_end: bytes, entries: int, bracketed: str, still_joined: list[str]
) -> None:
    data = (FIXTURES / relative).read_bytes()
    whole = parser.parse(data, "whole.txt")
    bare = parser.parse(line_end.join(line for line in data.split(line_end) if line.strip()), "bare.txt")
    assert [warning for warning in bare.warnings if "blank lines" in warning] == [
        f"bare.txt: the glossary's {entries} entries are not set apart by blank lines (1 runs of lines): each was told"
        " from its term line alone; a term that reads like a sentence was read into the entry before it"
    ]
    assert not [warning for warning in whole.warnings if "blank lines" in warning]
    read = {entry.term: entry.text for entry in bare.glossary}
    # A term ending in a bracketed note starts its own entry, its definition whole.
    assert read[bracketed] == {entry.term: entry.text for entry in whole.glossary}[bracketed]
    # Still read into the entry before: terms ending as a sentence or a quotation does, or
    # longer than a term line is read to be.
    assert [entry.term for entry in whole.glossary if entry.term not in read] == still_joined
