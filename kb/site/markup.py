"""Scraped text into safe HTML: escaped first, then rule numbers and glossary terms become links and symbols read as words; word diffs."""
from __future__ import annotations

import html
import re
from collections.abc import Collection, Mapping
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from kb.link.cr_compare import ITALICS
from kb.site.glossary_linker import GlossaryLinker

# {T}, {2}, {W/U}, {B/P}, {2/W}, {X}, {10}, {½}: at most a few characters inside braces.
SYMBOL = r"\{[^{}\s]{1,6}\}"

# Dotted rule numbers (601.2b, 702.78) and "rule 104"/"section 7"; not "1201.5" or "v.601.2".
RULE_REF = r"(?<![0-9A-Za-z.])[1-9]\d{2}\.\d+[a-z]?(?![A-Za-z0-9]|\.\d)"

# A rule or section named after the word "rule" in the languages we hold: "rule 104", "rules
# 306–311", "规则806", "規則 702.78", "규칙 100", "regla 702"; the second number of a range too.
RULE_WORD = r"(?:[Rr]ules?|[Ss]ections?|规则|規則|규칙|[Rr]eglas?|[Rr]ègles?|[Rr]egeln?|[Rr]egole|[Rr]egras?)"
NUMBER = r"[1-9]\d{2}(?:\.\d+[a-z]?)?"
SECTION_REF = (
    rf"(?P<word>{RULE_WORD})(?P<space>\s?)(?P<first>{NUMBER})(?![\d.]\d)"
    rf"(?:(?P<sep>\s?[–—-]\s?|\s(?:to|through|and|or|à|bis|a|y|e)\s)(?P<second>{NUMBER})(?![\d.]\d))?"
)

# The lookaheads let the engine skip, with one character test, every position where none of
# the three can start (a page's hundred rulings: 14 → 5 ms), and then with one or two more every
# "r" and "s" that begins no word of RULE_WORD ("creature", "spell": an eighth of English letters)
# before trying the three (a busy rule page's rulings and the current rules: 79–96 → 59–60 ms for
# 4,227 texts). The same matches on every ruling, rule and translation of a 200k-ruling database
# and of the 1M-ruling benchmark's (1.44M texts).
TOKEN = re.compile(
    f"(?=[{{1-9RrSs规規규])(?=[{{1-9规規규]|[Rr](?:u|eg|èg)|[Ss]ec)"
    f"(?:(?P<symbol>{SYMBOL})|(?P<section>{SECTION_REF})|(?P<rule>{RULE_REF}))"
)

# The last subrule of a range printed after a linked one: "601.2f–h" (601.2f to 601.2h), a hyphen
# or an en dash, printed tight. Its letter is linked to that subrule.
RANGE_END = re.compile(r"(?P<dash>[-‐‑–])(?P<letter>[a-z])(?![A-Za-z0-9])")

COLOURS = {"W": "w", "U": "u", "B": "b", "R": "r", "G": "g", "C": "c"}
COLOUR_WORDS = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green", "C": "colorless", "S": "snow"}
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"]
# {P} alone and {H} as the current CR writes them: 107.18 "The pawprint symbol is {P}", 107.4g "the
# Phyrexian symbol {H} with no colored background" (half mana is {½}).
OTHER_SYMBOLS = {"T": "tap", "Q": "untap", "E": "energy", "CHAOS": "chaos", "PW": "planeswalker", "A": "acorn",
                 "TK": "ticket", "P": "pawprint", "H": "Phyrexian symbol"}


# Today's token of each symbol read aloud by its name ("Phyrexian symbol" -> "{H}").
TOKEN_OF_WORDS = {words: "{" + inner + "}" for inner, words in OTHER_SYMBOLS.items()}


def as_today(token: str, readings: Mapping[str, str] | None) -> str:
    """An older edition's token as today's notation writes the same symbol: ``readings`` (what the
    edition's symbols that changed meaning are, ``kb.site.symbol_readings``) turn 2022's ``{P}``,
    "Phyrexian symbol", into ``{H}``."""
    reading = readings.get(token[1:-1].upper()) if readings else None
    return TOKEN_OF_WORDS.get(reading or "", token)


def symbol_words(token: str) -> str:
    """What a symbol says aloud: {U} "one blue mana", {2} "two generic mana", {T} "tap",
    {W/U} "one white or blue mana", {B/P} "one Phyrexian black mana", {2/W} "two generic or one white mana"."""
    inner = token.strip("{}").upper()
    if inner in OTHER_SYMBOLS:
        return OTHER_SYMBOLS[inner]
    if inner.isdigit():
        count = int(inner)
        return f"{NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else count} generic mana"
    parts = inner.split("/")
    phyrexian = "P" in parts
    parts = [part for part in parts if part != "P"]
    words = []
    for part in parts:
        if part.isdigit():
            words.append(f"{NUMBER_WORDS[int(part)] if int(part) < len(NUMBER_WORDS) else part} generic")
        elif part in COLOUR_WORDS:
            words.append(("one " if not words else "") + COLOUR_WORDS[part])
        elif part in ("X", "Y", "Z"):
            words.append(f"{part} generic")
        elif part == "½":
            words.append("half a generic")
        else:
            return token
    if not words:
        return token
    if phyrexian:
        words[0] = words[0].replace("one ", "one Phyrexian ", 1) if words[0].startswith("one ") else "Phyrexian " + words[0]
    if len(words) == 2 and words[0].endswith("generic") and not words[1].startswith("one "):
        words[1] = "one " + words[1]
    return " or ".join(words) + " mana"


# Where a cited number leads when it is not read in the text's version: (number, version).
Citations = Mapping[str, tuple[str, str | None]]


def render_text(
    text: str | None, version: str | None = None, linker: GlossaryLinker | None = None,
    readings: Mapping[str, str] | None = None, citations: Citations | None = None,
    absent: Collection[str] | None = None,
) -> str:
    """Scraped text as safe HTML: escaped, rule numbers linked, symbols as labelled tokens,
    and (with a ``linker``) glossary terms linked at their first use. ``readings``: what symbols
    that changed meaning mean in the CR version the text is from (``kb.site.symbol_readings``).
    ``citations``: the rule a cited number stands for where it is not that number in ``version``
    (a translation's citations, numbered as in the edition it translates). ``absent``: numbers the
    text's own version does not hold (an official text's slip, 2006's 405.1 citing 402.9): shown
    as printed and said to lead nowhere, not linked to a page that is not there."""
    if not text:
        return ""
    escaped = linker.link if linker is not None else html.escape
    # The 2009 and 2013 files mark italics with underscores ("These _Magic_ rules"): shown as such,
    # as the comparison reads them (kb.link.cr_compare.ITALICS), not as underscores.
    plain = (lambda part: ITALICS.sub(r"<em>\1</em>", escaped(part))) if "_" in text else escaped

    def link(number: str, shown: str | None = None) -> str:
        if absent and number in absent and not (citations and number in citations):
            return ('<span class="rule-ref rule-ref-absent" title="No rule of this number in the version this'
                    f' text is from: cited as printed">{html.escape(shown or number)}</span>')
        target, target_version = (citations or {}).get(number, (number, version))
        return rule_link_html(number, target_version, target, shown)

    def range_end(start: str, at: int) -> tuple[str, int] | None:
        """The end of a range "601.2f–h" after ``start`` at ``at``: its link and where it ends.
        It leads where the start leads, one subrule on (a translation's 601.2f that is the English
        601.2f of its edition: that edition's 601.2h)."""
        found = range_end_after(text, start, at)
        if not found:
            return None
        number = start[:-1] + found.group("letter")
        if citations and start in citations and number not in citations:
            target, target_version = citations[start]
            if target[-1:].isalpha():
                linked = rule_link_html(number, target_version, target[:-1] + found.group("letter"), found.group("letter"))
                return html.escape(found.group("dash")) + linked, found.end()
        return html.escape(found.group("dash")) + link(number, found.group("letter")), found.end()

    out: list[str] = []
    cursor = 0
    for match in TOKEN.finditer(text):
        out.append(plain(text[cursor : match.start()]))
        if match.group("symbol"):
            out.append(symbol_html(match.group(0), readings))
        elif match.group("section"):
            out.append(html.escape(match.group("word") + match.group("space")))
            out.append(link(match.group("first")))
            if match.group("second"):
                out.append(html.escape(match.group("sep")) + link(match.group("second")))
        else:
            out.append(link(match.group(0)))
        ended = None if match.group("symbol") else range_end(last_number(match), match.end())
        if ended:
            out.append(ended[0])
            cursor = ended[1]
            continue
        cursor = match.end()
    out.append(plain(text[cursor:]))
    return "".join(out).replace("\n", "<br>\n")


LINKABLE_SCHEMES = ("http", "https")


def http_url(url: str | None) -> str | None:
    """``url`` when it is an http(s) URL (safe to render as a link), else None: a scraped
    ``javascript:`` or ``data:`` URL is shown as text, never made clickable."""
    if not url:
        return None
    scheme, _sep, rest = url.strip().partition(":")
    if scheme.lower() not in LINKABLE_SCHEMES or not rest.startswith("//") or any(ord(c) < 0x20 for c in url):
        return None
    return url


def cited_in_order(text: str | None, range_ends: bool = False) -> list[str]:
    """The rule numbers a text cites, in order, as ``render_text`` links them; with
    ``range_ends``, the last subrule of each range too ("601.2f–h": 601.2h), which
    ``render_text`` also links (but a translation's citations are paired without it)."""
    text = text or ""
    cited: list[str] = []
    for match in TOKEN.finditer(text):
        if match.group("symbol"):
            continue
        if match.group("section"):
            cited += [number for number in (match.group("first"), match.group("second")) if number]
        else:
            cited.append(match.group(0))
        if range_ends:
            start = last_number(match)
            found = range_end_after(text, start, match.end())
            if found:
                cited.append(start[:-1] + found.group("letter"))
    return cited


def linked_in_order(text: str | None) -> list[str]:
    """Every rule number ``render_text`` links in a text (``cited_in_order`` with range ends)."""
    return cited_in_order(text, range_ends=True)


def last_number(match: re.Match[str]) -> str:
    """The last rule number of a ``TOKEN`` match of a rule or a section reference."""
    return match.group("second") or match.group("first") if match.group("section") else match.group(0)


def range_end_after(text: str, start: str, at: int) -> re.Match[str] | None:
    """The letter that ends a range of subrules after ``start`` at ``at`` ("–h" after 601.2f): a
    later letter, printed tight; None where there is none."""
    found = RANGE_END.match(text, at) if start[-1:].isalpha() else None
    return found if found and found.group("letter") > start[-1] else None


def rule_link_html(number: str, version: str | None = None, target: str | None = None, shown: str | None = None) -> str:
    """A cited rule number as written (``shown``: the letter that ends a range, "h" of
    "601.2f–h"), linked to ``target`` (the number itself by default) in ``version``; a link to
    another number says so (a translation's 706.10 is 707.10 there)."""
    href = f"/rule/{quote(target or number)}" + (f"?version={quote(version)}" if version else "")
    said = (f' title="{html.escape(target)} in {html.escape(version or "the current rules")}: the English text cites it here"'
            if target and target != number else "")
    return f'<a class="rule-ref" href="{html.escape(href)}"{said}>{html.escape(shown or number)}</a>'


# The glyphs the vendored Mana font draws (static/mana.css, mana-font 1.18.0): a symbol without
# one keeps its text token only.
MANA_CSS = Path(__file__).parent / "static" / "mana.css"
MANA_NAMES = {"T": "tap", "Q": "untap", "½": "1-2", "∞": "infinity", "CHAOS": "chaos", "PW": "planeswalker",
              "A": "acorn", "TK": "ticket", "P": "paw"}


@lru_cache(maxsize=1)
def mana_classes() -> frozenset[str]:
    return frozenset(re.findall(r"\.ms-([a-z0-9-]+)::?before", MANA_CSS.read_text(encoding="utf-8")))


def mana_class(token: str) -> str | None:
    """``{W/U}`` -> "ms-wu", ``{2}`` -> "ms-2", ``{T}`` -> "ms-tap", ``{G/P}`` -> "ms-gp"; None
    when the font has no glyph for it."""
    inner = token[1:-1].upper()
    name = MANA_NAMES.get(inner) or inner.replace("/", "").lower()
    return f"ms-{name}" if name in mana_classes() else None


def symbol_html(token: str, readings: Mapping[str, str] | None = None) -> str:
    """``{W/U}`` -> the Mana font's glyph with a text token as fallback; reads as words.

    The glyph (``<i class="ms ms-cost ms-wu">``) shows once the font has loaded (the page marks
    ``<html class="kb-mana-font">``); until then, or without it, the text token styled by its
    colours shows. Screen readers get the words ("one white or blue mana"); the braces stay in
    the text for copy-paste; an older edition's token is drawn and read as the symbol it meant
    there (``readings``), and shown as it printed it.
    """
    printed = token[1:-1].upper().split("/")
    meant = as_today(token, readings)
    inner = meant[1:-1].upper()
    parts = inner.split("/")
    colours = [COLOURS[part] for part in parts if part in COLOURS]
    classes = ["sym"]
    if inner == "T":
        classes.append("sym-tap")
    elif inner == "Q":
        classes.append("sym-untap")
    elif colours:
        classes.append("sym-" + "".join(colours[:2]))
    else:
        classes.append("sym-generic")
    if "P" in parts[1:] or inner == "H":
        classes.append("sym-phyrexian")
    if len(parts) > 1:
        classes.append("sym-hybrid")
    glyph = mana_class(meant)
    if glyph:
        classes.append("sym-glyph")
    label = symbol_words(meant)
    shown = {"T": "↷", "Q": "↶"}.get(inner, "/".join(printed))
    icon = f'<i class="ms ms-cost {glyph}" aria-hidden="true"></i>' if glyph else ""
    return (
        f'<span class="{" ".join(classes)}" title="{html.escape(label)}" role="img" '
        f'aria-label="{html.escape(label)}">{icon}<span class="sym-fallback" aria-hidden="true">'
        f'<span class="sym-brace">{{</span>{html.escape(shown)}<span class="sym-brace">}}</span></span></span>'
    )


# A word diff's marks, and a character a backslash escapes (``kb.link.word_diff.escaped``).
WORD_DIFF_MARK = re.compile(r"\\(.)|\[-|-\]|\{\+|\+\}", re.S)
WORD_DIFF_TAGS = {"[-": "<del>", "-]": "</del>", "{+": "<ins>", "+}": "</ins>"}


def render_word_diff(markup: str | None) -> str:
    """``[-old-]{+new+}`` as escaped HTML with <del> and <ins>; a mark the text holds, escaped,
    as the text."""
    return WORD_DIFF_MARK.sub(lambda mark: mark.group(1) if mark.group(1) is not None else WORD_DIFF_TAGS[mark.group()],
                              html.escape(markup or ""))
