"""Localized mana and game symbols in braces to the English brace codes Scryfall uses.

Chinese release notes write symbols with Chinese words inside braces: ``{三}{白}`` is ``{3}{W}``,
``{横置}`` is ``{T}``, ``{白/蓝}`` is ``{W/U}``. Japanese texts use full-width braces, digits and
letters (``｛Ｔ｝``, ``{２}``). Anything we cannot read is left as printed and reported, so a
reader sees the original instead of a guess.
"""
from __future__ import annotations

import re
import unicodedata

from kb.records import CRDocument

# Colour words, simplified and traditional Chinese (and the Japanese kanji, which agree).
_COLOUR_WORDS = {
    "白": "W",
    "蓝": "U",
    "藍": "U",
    "青": "U",  # Japanese and some Chinese texts write blue as 青
    "黑": "B",
    "黒": "B",  # Japanese form of 黑
    "红": "R",
    "紅": "R",
    "赤": "R",  # Japanese
    "绿": "G",
    "綠": "G",
    "緑": "G",  # Japanese
}

_WORD_SYMBOLS = {
    "横置": "T",
    "橫置": "T",
    "重置": "Q",
    "无": "C",
    "無": "C",
    "无色": "C",
    "無色": "C",
    "雪": "S",
    "能量": "E",
    "费用": "X",
    "混沌": "CHAOS",
    "鹏洛客": "PW",
    "鵬洛客": "PW",
}

# Single-letter names of the Phyrexian mana marker in Chinese texts ("{白/非}" style is not
# attested in our files; "{白/P}" with a Latin P is, and the full-width Ｐ normalises to it).
_PHYREXIAN_WORDS = {"P", "非瑞", "非"}

_CHINESE_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
                   "六": 6, "七": 7, "八": 8, "九": 9}
_CHINESE_NUMBER = re.compile(r"^[零〇一二两兩三四五六七八九十百]+$")

_BRACED = re.compile(r"[{｛]([^{}｛｝]{1,12})[}｝]")
_ENGLISH_SYMBOL = re.compile(r"^(?:\d+|[WUBRGCSXYZTQEP]|HALF|CHAOS|PW|∞|½|[WUBRGC2]/[WUBRGCP](?:/P)?|H[WUBRG])$")
_VARIABLE_LETTERS = {"X", "Y", "Z"}


def chinese_numeral_value(numeral: str) -> int | None:
    """The integer a Chinese numeral names (三 -> 3, 十五 -> 15, 二十 -> 20, 一百 -> 100)."""
    if not _CHINESE_NUMBER.match(numeral):
        return None
    total = 0
    current = 0
    for char in numeral:
        if char in _CHINESE_DIGITS:
            current = current * 10 + _CHINESE_DIGITS[char]
        else:  # a unit: 十 or 百 multiplies what came before it (一 when nothing did)
            total += (current or 1) * (10 if char == "十" else 100)
            current = 0
    return total + current


def _symbol_part(part: str) -> str | None:
    """The English code of one half of a symbol (a hybrid has two), or None when unknown."""
    if part in _COLOUR_WORDS:
        return _COLOUR_WORDS[part]
    if part in _WORD_SYMBOLS:
        return _WORD_SYMBOLS[part]
    if part in _PHYREXIAN_WORDS:
        return "P"
    value = chinese_numeral_value(part)
    if value is not None:
        return str(value)
    upper = part.upper()
    if _ENGLISH_SYMBOL.match(upper) or upper in _VARIABLE_LETTERS:
        return upper
    return None


def _convert_symbol(inner: str) -> str | None:
    # NFKC turns full-width digits, letters and slashes (Ｔ ２ ／) into ASCII.
    inner = unicodedata.normalize("NFKC", inner).strip()
    parts = [part.strip() for part in inner.split("/")]
    codes = [_symbol_part(part) for part in parts]
    if any(code is None for code in codes):
        return None
    return "{" + "/".join(codes) + "}"  # type: ignore[arg-type]


def localized_symbols_to_braces(text: str, lang: str) -> tuple[str, list[str]]:
    """``text`` with every braced symbol in English codes, and warnings for symbols left as printed.

    ``lang`` is accepted for the callers' sake and for future per-language tables; the tables
    here do not clash between languages, so every language gets the same treatment.
    """
    warnings: list[str] = []

    def replace(match: re.Match[str]) -> str:
        converted = _convert_symbol(match.group(1))
        if converted is None:
            warnings.append(f"unknown symbol {match.group(0)!r} ({lang})")
            return match.group(0)
        return converted

    return _BRACED.sub(replace, text), warnings


def translated_cr_symbols(document: CRDocument) -> None:
    """A translated CR's symbols in English codes, in place: the Chinese 702.107a prints
    "{横置}" where every English edition prints "{T}" (a reviewer's SQL, ``text like '%{T}%'``,
    missed it). Braced notations of the rules' own (the saga's "{rN}", the level symbol
    "{等级N1-N2}") are no symbols of this module's and stay as printed."""
    def english_codes(text: str) -> str:
        return _BRACED.sub(lambda match: _convert_symbol(match.group(1)) or match.group(0), text)

    for rule in document.rules:
        rule.text = english_codes(rule.text)
        rule.examples = [english_codes(example) for example in rule.examples]
    for entry in document.glossary:
        entry.text = english_codes(entry.text)
