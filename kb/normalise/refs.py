"""Cross-references between Comprehensive Rules: which rule numbers a piece of text cites.

Dotted rule numbers ("601.2b", "702.19", "601.2f–h") are recognised whatever the words around them,
so the same code serves translations ("reglas 601.2b y 601.2f–h", "规则601.2b", "규칙 601.2b").
Bare section numbers ("rule 113", "section 7") are only taken after a word for "rule(s)" or
"section(s)" (English, or the languages our translations use: 规则, 규칙, regla, règle, Regel, …):
without that word a bare number is as likely to be "20 life" as a section.
"""
from __future__ import annotations

import re
import string
from functools import lru_cache

# Subrule letters skip "l" and "o" (too easily read as 1 and 0), as the CR itself says.
SUBRULE_LETTERS = "".join(letter for letter in string.ascii_lowercase if letter not in "lo")

# Ranges are printed tight ("601.2f–h", "119.7–8"); a spaced dash is prose ("601.2b - a player …").
RANGE_DASH = r"[-‐‑–]"
# Every pattern starts with a character class and keeps its word-boundary test for after it:
# the regex engine then skips ahead to candidate characters instead of trying every position,
# which made a pattern led by \b or a look-behind cost ~5× the rest of the CR parse.
#
# 601.2b, 702.19, 601.2f–h, 601.2a-e, 418.5b-418.5g, 119.7–8, 903.6–903.11. The look-behind keeps
# "1201.5" and "v.601.2" out but is ASCII-only, so "规则601.2b" counts; the lookahead refuses
# "601.2bis" and "100.25.3".
DOTTED_RULE = re.compile(
    r"(?P<base>[1-9](?<![0-9A-Za-z.][1-9])\d{2}\.(?P<rule>\d+))(?P<letter>[a-z])?"
    r"(?:" + RANGE_DASH + r"(?:"
    r"(?:(?P<end_base>[1-9]\d{2}\.\d+)(?=[a-z]))?(?P<end_letter>[a-z])(?![a-zA-Z])"
    r"|(?:(?P<end_section>[1-9]\d{2})\.)?(?P<end_rule>\d+)(?![a-zA-Z]|\.\d|\d)"
    r"))?"
    r"(?![a-zA-Z]|\.\d|\d)"
)
# "rule 113", "rules 113 and 602", "rules 306–311", "section 7", "sections 8 and 9": only these
# name whole sections. Spelled out rather than re.IGNORECASE, which makes this scan twice as slow.
_SECTION_ITEM = r"\d{1,3}(?!\d|\.\d)(?:" + RANGE_DASH + r"\d{1,3}(?!\d|\.\d))?"
# A list's comma is followed by a space: "rule 419,8" (2003-10-01's misprint of 419.8) cites 419,
# not 419 and a part 8.
SECTION_LIST = re.compile(
    r"[RrSs](?<=\b[RrSs])(?:ule|ULE|ection|ECTION)[sS]?\s+"
    r"(?P<list>" + _SECTION_ITEM + r"(?:(?:\s*,\s+|\s*,?\s+(?:and|or)\s+)" + _SECTION_ITEM + r")*)",
)
# A section cited by its number and title without the word "rule": 'See 706, "Rolling a Die."'
# (901.9d of 2022-02-18 on; 702.160a of 2026-01-16 'See 718, "Prototype Cards."'), or as the
# next of a list led by a rule: 'See rules 701.42, “Meld,” and 729, “Merging with Permanents.”'
# (701.27g of 2026: 729 was missed, a data review). Two patterns, each led by a character class
# (one with a leading alternation tripled the citations' scan of a text holding ', “').
SEE_SECTION = re.compile(r"S(?<=\bS)ee (?P<number>[1-9]\d{2}),\s*[\"“]")
NEXT_SECTION = re.compile(r"[”\"] (?:and|or) (?P<number>[1-9]\d{2}),\s*[\"“]")
SECTION_NUMBER = re.compile(r"(?P<first>\d{1,3})(?:" + RANGE_DASH + r"(?P<last>\d{1,3}))?")
# The same in the languages our translations use: "规则903", "규칙 704", "reglas 113 y 602",
# "règles 113 et 602", "Regel 704", "regole 113 e 602", "regras 113 e 602"; and whole parts:
# "第7章", "sección 7", "Abschnitt 7", "sezione 7", "seção 7", "7절" (Korean 100.1b of 2021-02-15:
# 8절 "Multiplayer Rules."을 보세요).
TRANSLATED_SECTION_LIST = re.compile(
    r"(?:规则|規則|규칙|[Rr](?<=\b[Rr])(?:egla|ègle|egel|egol[ae]|egra))(?:s|n)?\s*"
    r"(?P<list>\d{3}(?![\d.]\d|\d)(?:(?:\s*[,、，]\s*|\s+(?:y|et|und|e|o|ou|oder)\s+|\s*(?:和|与|與|及|및)\s*)"
    r"(?:规则|規則|규칙)?\d{3}(?![\d.]\d|\d))*)"
)
TRANSLATED_PART = re.compile(
    r"第(?P<part>[1-9])章"
    r"|[SsAa](?<=\b[SsAa])(?:ecci[oó]n|bschnitt|ezione|e[cç][cç]?[aã]o)\s+(?P<word_part>[1-9])(?!\d|\.\d)"
    r"|(?P<ko_part>[1-9])(?<![\d.][1-9])절"
)
# The next of a Chinese list led by a rule, a section cited by its number and title: "参见规则703，
# “回合动作”和704，“状态动作”" (116.1 of 2025-02-07), as NEXT_SECTION reads the English.
TRANSLATED_NEXT_SECTION = re.compile(r"[”\"]\s*(?:和|与|與|及|或)\s*(?P<number>[1-9]\d{2})\s*[,，]\s*[\"“]")
# Every match of SECTION_LIST contains one of these; ``in`` tests them far faster than the
# pattern scans text that has none (about half the rules).
_SECTION_HINTS = ("ule", "ULE", "ection", "ECTION")
# The same for the other patterns: a dotted number has an ASCII digit 1–9 and a full stop; the
# translated lists and parts have one of these words or endings (the two scans were two thirds
# of reading an English ruling's citations, and no English ruling holds any of them).
_DIGITS = tuple("123456789")
_TRANSLATED_SECTION_HINTS = ("规则", "規則", "규칙", "egla", "ègle", "egel", "egol", "egra")
_TRANSLATED_PART_HINTS = ("第", "ecci", "bschnitt", "ezione", "cao", "cão", "çao", "ção", "절")
# A number range wider than this is not a list of rules someone meant to cite one by one.
MAX_RANGE = 40


def expand_range(start: str, end_letter: str) -> list[str]:
    """['601.2f', '601.2g', '601.2h'] for ('601.2f', 'h'); just [start] when it is no range."""
    match = re.fullmatch(r"(\d+\.\d+)([a-z])", start)
    if not match:
        return [start]
    base, first = match.groups()
    letters = SUBRULE_LETTERS if first in SUBRULE_LETTERS and end_letter in SUBRULE_LETTERS else string.ascii_lowercase
    begin, end = letters.index(first), letters.find(end_letter)
    if end <= begin:
        return [start]
    return [base + letter for letter in letters[begin : end + 1]]


def english_cr_refs(text: str) -> list[str]:
    """``extract_refs(text, lang="en")`` for the texts of English CR editions: an edition repeats
    most of the one before and a build reads every edition of the archive (115), so each distinct
    text is scanned once."""
    return list(_english_cr_refs(text))


# One edition's rules and glossary entries (~4,000) and the next one's.
@lru_cache(maxsize=8192)
def _english_cr_refs(text: str) -> tuple[str, ...]:
    return tuple(extract_refs(text, lang="en"))


def extract_refs(text: str, lang: str | None = None) -> list[str]:
    """The rule and section numbers ``text`` cites, in order of appearance, without repeats.

    ``lang="en"`` skips the translated words for "rule" and "section": each pattern is one more
    scan of the text, and an English CR has ~3,000 texts to scan.
    """
    found: list[tuple[int, str]] = []
    if _may_hold_dotted_number(text):
        for match in DOTTED_RULE.finditer(text):
            found.extend((match.start(), number) for number in _numbers_of_dotted(match))
    if any(hint in text for hint in _SECTION_HINTS):
        for match in SECTION_LIST.finditer(text):
            start = match.start("list")
            for item in SECTION_NUMBER.finditer(match.group("list")):
                found.extend((start + item.start(), number) for number in _numbers_of_sections(item))
    if "See " in text:
        found.extend((match.start("number"), match["number"]) for match in SEE_SECTION.finditer(text))
        if "” and " in text or "” or " in text or '" and ' in text or '" or ' in text:
            # After a "See", not anywhere in a text that has one (a review).
            found.extend((match.start("number"), match["number"])
                         for match in NEXT_SECTION.finditer(text, text.find("See ")))
    if lang == "en":
        return _in_order(found)
    if any(hint in text for hint in _TRANSLATED_SECTION_HINTS):
        for match in TRANSLATED_SECTION_LIST.finditer(text):
            start = match.start("list")
            found.extend(
                (start + number.start(), number.group())
                for number in re.finditer(r"\d{3}", match.group("list"))
                if _is_section_number(number.group())
            )
        if "”" in text:  # after a word for "rule", not anywhere (as NEXT_SECTION after "See")
            led = min(at for hint in _TRANSLATED_SECTION_HINTS if (at := text.find(hint)) != -1)
            found.extend((match.start("number"), match["number"])
                         for match in TRANSLATED_NEXT_SECTION.finditer(text, led))
    if any(hint in text for hint in _TRANSLATED_PART_HINTS):
        for match in TRANSLATED_PART.finditer(text):
            found.append((match.start(), match["part"] or match["word_part"] or match["ko_part"]))
    return _in_order(found)


def _may_hold_dotted_number(text: str) -> bool:
    """Whether some full stop has a digit 1-9 and two digits before it and a digit after it, as
    every ``DOTTED_RULE`` match's has ("601.2b"): most rulings hold digits and full stops ("3
    damage."), and scanning them with the pattern was a third of reading a ruling's numbers.
    ``isdigit`` takes a few more characters than ``\\d`` does, never fewer."""
    at = text.find(".", 3)
    while at != -1:
        if (text[at - 3] in _DIGITS and text[at - 2].isdigit() and text[at - 1].isdigit()
                and text[at + 1 : at + 2].isdigit()):
            return True
        at = text.find(".", at + 1)
    return False


def _in_order(found: list[tuple[int, str]]) -> list[str]:
    found.sort(key=lambda item: item[0])  # stable: a range keeps its own order
    return list(dict.fromkeys(number for _, number in found))


def _numbers_of_dotted(match: re.Match[str]) -> list[str]:
    start = match["base"] + (match["letter"] or "")
    if match["end_rule"] is not None:
        return _rule_range(match, start)
    end_letter = match["end_letter"]
    if not end_letter or not match["letter"]:
        return [start]
    if match["end_base"] and match["end_base"] != match["base"]:
        return [start, match["end_base"] + end_letter]  # 601.2h–602.1a: no letters in common
    return expand_range(start, end_letter)


def _rule_range(match: re.Match[str], start: str) -> list[str]:
    """119.7–8, 712.9–10, 903.6–903.11: every rule between; other shapes keep their endpoints."""
    section = match["base"].split(".")[0]
    end_section = match["end_section"] or section
    end = f"{end_section}.{match['end_rule']}"
    first, last = int(match["rule"]), int(match["end_rule"])
    if match["letter"] or end_section != section:
        return [start, end]  # 601.2h–3 is no range we can read; 601.2–602.1 has no rules in common
    if not first < last <= first + MAX_RANGE:
        return [start]
    return [f"{section}.{number}" for number in range(first, last + 1)]


def _numbers_of_sections(item: re.Match[str]) -> list[str]:
    first, last = item["first"], item["last"]
    if last is None:
        return [first] if _is_section_number(first) else []
    if not (_is_section_number(first) and _is_section_number(last)):
        return []
    low, high = int(first), int(last)
    if len(first) != len(last) or not low < high <= low + MAX_RANGE or first[0] != last[0]:
        return [first, last]  # "rules 306–411" spans parts: keep what is printed
    return [str(number) for number in range(low, high + 1)]


def _is_section_number(number: str) -> bool:
    """Parts are 1–9 and sections 100–999; "rule 20" is not a reference."""
    return len(number) == 1 and number != "0" or len(number) == 3 and number[0] != "0"
