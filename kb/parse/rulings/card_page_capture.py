"""Text captures of a rulings site's card page, in any page language.

A capture is plain text: optional chrome lines (card name, a header announcing what the rulings
are), then rulings, each introduced by a date, then optional footer chrome. Two shapes occur:

    • 29.04.2022If a resolving spell…          (bullet, date glued to the text)
    23 août 2016 · source : wotc               (date and source on their own line,
    You must name a Magic card.                 the text on the next one)

The page language comes from the chrome (and from month names in the dates); it decides how
ambiguous numeric dates are read. The page's claim about the texts ("nur auf Englisch",
"générée automatiquement (IA)") is recorded, but each text's language is detected: a "French
translation" that is really English is stored as English. Lines that are not rulings (card text
fragments, lowercase or punctuation continuations) become quality issues, never rulings.
Whitespace inside a text is kept as captured: a double space is often the trace of a mana
symbol the capture lost, which kb.normalise.losses can detect.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache

from kb.normalise.dates import parse_date
from kb.normalise.lang import SCRYFALL_LANGS, detect_lang
from kb.records import CardName, ParseError, QualityIssue, RulingRecord, RulingsDocument, first_few

FORMAT_NAME = "card-page-capture"
DESCRIPTION = "Text capture of a rulings site's card page: dated rulings with localized page chrome"

_DATE_PATTERNS = (
    r"\d{4}\s*[年년]\s*\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일]",  # 2024年1月12日, 2024년 1월 12일
    r"\d{4}\.\s*\d{1,2}\.\s*\d{1,2}\.?",  # 2024. 1. 12. (Korean short form)
    r"\d{4}[./-]\d{1,2}[./-]\d{1,2}",  # ISO-like
    r"\d{1,2}[./-]\d{1,2}[./-]\d{4}",  # 29.04.2022, 4/29/2022
    r"\d{1,2}(?:\.|º|er|-?го)?\s+(?:de\s+)?[^\W\d_]{3,}\.?\s+(?:de\s+)?\d{4}(?:\s*г\.?)?",  # 23 août 2016
    r"[^\W\d_]{3,}\.?\s+\d{1,2},?\s+\d{4}",  # April 29, 2022
)
_DATE = "(?:" + "|".join(_DATE_PATTERNS) + ")"
_SOURCE_WORDS = r"source|quelle|fuente|fonte|origine|origen|出典|出处|出處|来源|來源|출처|источник"
_BULLET = r"[•·\-*–—▪◦‣]"
# A line that starts a ruling: optional bullet, a date, optional "· source : X", then the
# text glued on or nothing (the text is then on the next line).
_RULING_HEADER = re.compile(
    rf"^(?:{_BULLET}\s*)?(?P<date>{_DATE})"
    rf"(?:\s*[·|•–—-]?\s*(?:{_SOURCE_WORDS})\s*[:：]\s*(?P<source>[\w.-]+))?"
    r"\s*(?:[·|•–—:：-]\s*)?(?P<text>.*)$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")
_WORD = re.compile(r"\w+")

# What a page may say about its rulings, in our page languages.
_ENGLISH_ONLY = re.compile(
    r"nur auf englisch|only in english|english only|en anglais uniquement|uniquement en anglais"
    r"|s[oó]lo en ingl[eé]s|solo in inglese|(?:apenas|somente) em ingl[eê]s|英語のみ|英語版のみ"
    r"|영어로만|영어만|только на английском|[仅僅](?:提供|有)?英文",
    re.IGNORECASE,
)
_MACHINE = re.compile(
    r"automatiquement|automatisch|maschinell|autom[aá]ticamente|automatically|machine[- ]translat"
    r"|\b(?:IA|AI|KI|ИИ)\b|機械翻訳|自動翻訳|기계 ?번역|자동 ?번역|машинн|автоматическ|机器翻译|自动翻译|機器翻譯|自動翻譯",
    re.IGNORECASE,
)
_COMMUNITY = re.compile(
    r"communaut[eé]|community|comunidad|comunit[aà]|comunidade|gemeinschaft|コミュニティ|커뮤니티|сообществ|社区|社群",
    re.IGNORECASE,
)
_OFFICIAL = re.compile(r"offiziell|officiel|official|oficial|ufficial|公式|공식|официальн|官方", re.IGNORECASE)
_WIZARDS = re.compile(r"wizards of the coast|\bwotc\b|威世智|위저즈", re.IGNORECASE)


@dataclass
class _Header:
    line_number: int
    raw_date: str
    source: str | None
    text: str | None


@dataclass
class _Layout:
    headers: list[_Header] = field(default_factory=list)
    chrome_before: list[tuple[int, str]] = field(default_factory=list)
    chrome_after: list[tuple[int, str]] = field(default_factory=list)
    fragments: list[tuple[int, str]] = field(default_factory=list)


def _decode(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ParseError(f"{name}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def _looks_like_markup(text: str) -> bool:
    head = text.lstrip()[:1]
    return head in ("<", "{", "[")


def _header_of(line: str, line_number: int) -> _Header | None:
    match = _RULING_HEADER.match(line.strip())
    if not match:
        return None
    # A date spelled with a word must name a month, or "Pay 2 life 2024…" would be a date.
    if re.search(r"[^\W\d_]{3,}", match.group("date")) and not re.search(r"[年년]", match.group("date")):
        if not _langs_of_month_words([match.group("date")]):
            return None
    text = match.group("text").strip() or None
    return _Header(line_number, match.group("date").strip(), match.group("source"), text)


def _is_continuation(line: str) -> bool:
    """A line that cannot start a ruling: it continues something cut off (". If you do…")."""
    first = line.lstrip()[:1]
    return bool(first) and (first.islower() or unicodedata.category(first)[0] in "PS")


def _split_layout(lines: list[tuple[int, str]]) -> _Layout:
    """``lines``: (line number in the file, line)."""
    layout = _Layout()
    blank_since_last_ruling = False
    for number, raw in lines:
        line = raw.strip()
        if not line:
            blank_since_last_ruling = bool(layout.headers)
            continue
        header = _header_of(line, number)
        if header is not None:
            layout.headers.append(header)
            blank_since_last_ruling = False
            continue
        if not layout.headers:
            layout.chrome_before.append((number, line))
            continue
        last = layout.headers[-1]
        if last.text is None:  # the text of a "date · source" line is the next line
            last.text = line
        elif blank_since_last_ruling and not _is_continuation(line):
            layout.chrome_after.append((number, line))
        else:
            layout.fragments.append((number, line))
    return layout


def _card_name_of(chrome_before: list[tuple[int, str]]) -> str | None:
    """The first chrome line when it is shaped like a card name (short, not a sentence)."""
    if not chrome_before:
        return None
    _, line = chrome_before[0]
    if len(line) > 60 or len(_WORD.findall(line)) > 8 or _SENTENCE_END.search(line):
        return None
    if _is_continuation(line) or _header_of(line, 0) is not None:
        return None
    return line


@cache
def _month_words(lang: str) -> frozenset[str]:
    from babel import Locale
    from babel.dates import get_month_names

    from kb.normalise.dates import LOCALE_OF_LANG

    locale = Locale.parse(LOCALE_OF_LANG.get(lang, lang))
    words: set[str] = set()
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            words.update(name.lower().rstrip(".") for name in get_month_names(width, context, locale).values())
    return frozenset(words)


def _langs_of_month_words(raw_dates: list[str]) -> set[str]:
    """Languages whose month names every word-month date on the page uses."""
    candidates: set[str] | None = None
    for raw in raw_dates:
        for word in re.findall(r"[^\W\d_]{3,}", raw):
            word = word.lower().rstrip(".")
            if word in ("de",):
                continue
            langs = {lang for lang in ("en", "es", "fr", "de", "it", "pt", "ru") if word in _month_words(lang)}
            candidates = langs if candidates is None else candidates & langs
    return candidates or set()


def _page_lang(chrome: list[str], raw_dates: list[str]) -> tuple[str | None, float]:
    month_langs = _langs_of_month_words(raw_dates)
    chrome_text = " ".join(chrome)
    if chrome_text.strip():
        lang, confidence = detect_lang(chrome_text)
        if lang in SCRYFALL_LANGS and (not month_langs or lang in month_langs):
            return lang, confidence
    if len(month_langs) == 1:
        return next(iter(month_langs)), 0.9
    for raw in raw_dates:  # CJK dates name their script
        if re.search(r"[년월일]", raw):
            return "ko", 0.9
        if re.search(r"[年月日]", raw):
            return None, 0.0  # ja, zhs or zht: the dates alone cannot tell
    return None, 0.0


def _claims(chrome_text: str, page_lang: str | None) -> tuple[str | None, str | None]:
    """(language the page says its texts are in, method it claims) from its chrome."""
    if _MACHINE.search(chrome_text):
        return page_lang, "machine"
    if _ENGLISH_ONLY.search(chrome_text):
        return "en", "official"
    if _COMMUNITY.search(chrome_text):
        return page_lang, "community"
    if _OFFICIAL.search(chrome_text):
        return page_lang, "official"
    return page_lang, None


def _is_ambiguous_numeric(raw: str) -> bool:
    match = re.fullmatch(r"(\d{1,2})[./-](\d{1,2})[./-]\d{4}", raw)
    if match is None:
        return False
    return match[1] != match[2] and int(match[1]) <= 12 and int(match[2]) <= 12


def _date_of(header: _Header, page_lang: str | None, name: str, issues: list[QualityIssue]) -> str | None:
    if page_lang is None and _is_ambiguous_numeric(header.raw_date):
        issues.append(QualityIssue("ambiguous-date", f"{name}: line {header.line_number}: "
                                   f"{header.raw_date!r} reads two ways and the page language is unknown"))
        return None
    # An unreadable date stays None; the build reports it once per ruling (unparseable-date).
    return parse_date(header.raw_date, page_lang or "en")


def _text_lang(text: str, claimed: str | None) -> str:
    detected, confidence = detect_lang(text)
    if detected == "und" or (confidence < 0.5 and claimed):
        return claimed or "en"
    return detected


# A ruling's start inside a line, as each ruling of such a page begins: a bullet and a date, or a
# date and its source ("23 août 2016 · source : wotc").
_INNER_START = re.compile(
    rf"\s(?=•\s*{_DATE}|{_DATE}\s*[·|•–—-]\s*(?:{_SOURCE_WORDS})\s*[:：])", re.IGNORECASE
)


def _apart(lines: list[str]) -> tuple[list[tuple[int, str]], list[int]]:
    """(line number, line) with each inner ruling start made a line of its own (under the number
    of the line it was in), and the numbers of the lines that held one. Two rulings on one line
    were read as one ruling, quietly."""
    out: list[tuple[int, str]] = []
    joined: list[int] = []
    for number, line in enumerate(lines, 1):
        parts = _INNER_START.split(line)
        if len(parts) > 1:
            joined.append(number)
        out.extend((number, part) for part in parts)
    return out, joined


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> RulingsDocument:
    """The rulings of one card page capture. ``lang``, if given, overrides the page language."""
    text = _decode(data, name)
    if _looks_like_markup(text):
        raise ParseError(f"{name}: markup or JSON, not a text capture of a card page")
    lines, joined = _apart(text.split("\n"))
    layout = _split_layout(lines)
    if not layout.headers:
        raise ParseError(f"{name}: no dated ruling found (no line starts with a date)")
    issues: list[QualityIssue] = []
    if joined:
        shown = first_few(joined)
        issues.append(QualityIssue("joined-lines", f"{name}: lines {shown} each held more than one ruling (a ruling's"
                                   " bullet and date, or date and source, inside a line: its line breaks were lost); read apart"))
    card_name = _card_name_of(layout.chrome_before)
    chrome = [line for _, line in layout.chrome_before + layout.chrome_after]
    page_lang, page_confidence = (lang, 1.0) if lang else _page_lang(chrome, [h.raw_date for h in layout.headers])
    chrome_text = " ".join(chrome)
    claimed_lang, claimed_method = _claims(chrome_text, page_lang)
    page_source = "wotc" if _WIZARDS.search(chrome_text) else None

    for number, line in layout.fragments:
        issues.append(QualityIssue("non-ruling-fragment", f"{name}: line {number}: {line[:80]!r}"))
    rulings: list[RulingRecord] = []
    mismatches: list[int] = []
    for header in layout.headers:
        if header.text is None:
            issues.append(QualityIssue("non-ruling-fragment", f"{name}: line {header.line_number}: "
                                       f"date {header.raw_date!r} without a ruling text"))
            continue
        source = (header.source or page_source or "").lower() or None
        text_lang = _text_lang(header.text, claimed_lang)
        position = len(rulings) + 1
        if claimed_lang and text_lang != claimed_lang:
            mismatches.append(position)
        if text_lang == claimed_lang:
            method = claimed_method
        else:  # the page's claim does not describe this text; an English text from Wizards is theirs
            method = "official" if text_lang == "en" and source == "wotc" else None
        rulings.append(RulingRecord(
            text=header.text,
            raw_date=header.raw_date,
            position=position,
            published_at=_date_of(header, page_lang, name, issues),
            source=source,
            card_name=card_name,
            card_name_lang=page_lang if card_name else None,
            lang=text_lang,
            method=method,
        ))
    if mismatches:
        issues.append(QualityIssue("claimed-language-mismatch", f"{name}: the page claims {claimed_lang!r} "
                                   f"({claimed_method}) but {len(mismatches)} texts are in another language"))
    card_names = [CardName(lang=page_lang, name=card_name)] if card_name and page_lang else []
    return RulingsDocument(
        format=FORMAT_NAME,
        lang=page_lang,
        card_names=card_names,
        rulings=rulings,
        issues=issues,
        extra={
            "page_lang": page_lang,
            "page_lang_confidence": page_confidence,
            "claimed_text_lang": claimed_lang,
            "claimed_method": claimed_method,
            "card_name": card_name,
            "chrome": chrome,
            "language_mismatch_positions": mismatches,
        },
    )


def sniff(data: bytes, name: str = "") -> bool:
    """True for plain text with at least one line that starts a dated ruling and has a text."""
    try:
        text = data[:65536].decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    if _looks_like_markup(text):
        return False
    lines = [line.strip() for line in text.replace("\r", "\n").split("\n")]
    for index, line in enumerate(lines):
        header = _header_of(line, index)
        if header is None:
            continue
        if header.text or (index + 1 < len(lines) and lines[index + 1] and _header_of(lines[index + 1], 0) is None):
            return True
    return False
