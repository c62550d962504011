"""Keyword rules are headings, whatever mark ends them: shared by the English and Chinese readers."""
from __future__ import annotations

import re

# The sections whose rules (not subrules) are each one keyword's heading: 701 and 702 since 2009,
# 502 (keyword abilities) before.
KEYWORD_SECTIONS = frozenset({"502", "701", "702"})
MAX_KEYWORD_HEADING = 40
# A sentence inside or at the end: "701.1. Most actions … use the standard English definitions."
SENTENCE = re.compile(r"[.。]\s|[.。]$")


def is_keyword_heading(section: str | None, text: str) -> bool:
    """A keyword rule's text that is its name: "702.163. For Mirrodin!", "702.179. Start Your
    Engines!", "702.186. ∞ (Infinity)", "702.163. 秘罗万岁！" (a heading's test that no mark ends
    it read these three as rules of text without a title: no title to search or list them by)."""
    stripped = text.strip()
    return (
        section in KEYWORD_SECTIONS and 0 < len(stripped) <= MAX_KEYWORD_HEADING and "\n" not in stripped
        and SENTENCE.search(stripped) is None
    )
