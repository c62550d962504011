"""The Comprehensive Rules of 1999–2000 in the text layout crystalkeep.com converted them to.

The Sixth Edition era CR was published as a Word document; the text copy that survives reads:
a banner ("COMPREHENSIVE RULES    04/23/99" between rows of "="), a contents list, then boxed
headings (a row of "-", the heading, a row of "-") for the introduction, each part, the glossary,
the index, the credits and the copyrights; sections are underlined ("100. General" over "-----").
Every paragraph is wrapped at 78 columns and paragraphs are separated by blank lines; subrules
and examples ("EXAMPLE:") are indented by two spaces; glossary definitions too. The closing
"These rules are current as of April 23, 1999." gives the effective date.

The 2001 (Odyssey) edition already has the later layout and is read by ``kb.parse.cr.txt``.
"""
from __future__ import annotations

import re

from kb.normalise.dates import parse_date
from kb.normalise.decode import decode_text
from kb.normalise.refs import extract_refs
from kb.parse.cr.gaps import numbering_gaps, refuse_rules_lost
from kb.parse.cr.txt import DATE_LINE, NUMBERED_LINE, PART_LINE, SECTION_LINE
from kb.parse.cr.txt_glossary import is_title, parse_glossary
from kb.parse.cr.txt_lines import DASHES
from kb.records import CRDocument, ParseError, Rule

FORMAT_NAME = "cr-txt-1999"
DESCRIPTION = "English Comprehensive Rules of 1999–2000 as converted to text by crystalkeep.com (boxed headings)"

BANNER = re.compile(r"^COMPREHENSIVE RULES\s+(?P<date>\d\d/\d\d/\d\d)\s*$")
RULER = re.compile(r"^-{10,}\s*$")
# Any row of dashes ends a paragraph: a section's underline is as long as its heading ("202. Name"
# over nine), a table's under its header ("Expansion and Editions", indented); both were read as
# words of the heading ("Name ---------").
UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
# Indentation is two spaces: a wrapped line with one stray space (" stack." of 314.1b) goes on
# with its paragraph.
INDENT = ("  ", "\t")
# The tap symbol as this conversion spells it ("{Tap}: Add one mana"); every later file, "{T}".
TAP = re.compile(r"\{Tap\}")
EXAMPLE_LINE = re.compile(r"^EXAMPLES?:", re.IGNORECASE)
# The conversion read the Word file's Mac Roman bytes as Latin-1: its right quote (0xD5) became
# "Õ" ("itÕs"), its double quotes "Ò…Ó", its dash "Ñ", its ™ "ª", its ® "¨".
MAC_ROMAN_APOSTROPHE = re.compile(r"(?<=[A-Za-z])Õ(?=[a-z])")
SNIFF_LINES = 12


def sniff(data: bytes, name: str = "") -> bool:
    """True for the crystalkeep text: a "COMPREHENSIVE RULES  mm/dd/yy" banner at the top."""
    try:
        head = data[:2048].decode("utf-8", errors="replace")
    except Exception:
        return False
    lines = [line.strip() for line in head.replace("\r", "\n").split("\n") if line.strip()]
    return any(BANNER.match(line) for line in lines[:SNIFF_LINES])


def _mac_roman_read_as_latin_1(text: str) -> tuple[str, str | None]:
    """``text`` with what the conversion made of the Mac Roman bytes read as they were meant, and
    one line saying so (None when nothing was). Every character outside ASCII is Latin-1 in such a
    file: all are read again as Mac Roman; a file with others (typed in later) has only its
    apostrophes read again, where nothing else can be meant."""
    outside = sorted({char for char in text if not char.isascii()})
    if not outside:
        return text, None
    if all(char <= "\u00ff" for char in outside):
        meant = text.encode("latin-1").decode("mac_roman")
        pairs = ", ".join(f"'{char}' as '{char.encode('latin-1').decode('mac_roman')}'" for char in outside)
        count = sum(not char.isascii() for char in text)
        return meant, f"{count} Mac Roman characters converted as Latin-1 read as meant ({pairs})"
    repaired = len(MAC_ROMAN_APOSTROPHE.findall(text))
    if not repaired:
        return text, None
    return MAC_ROMAN_APOSTROPHE.sub("’", text), f"{repaired} Mac Roman apostrophes converted as 'Õ' read as '’'"


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
    """The CRDocument of a crystalkeep-converted CR; ParseError if it is not one or is cut."""
    if lang not in (None, "en"):
        raise ParseError(f"{name}: the {FORMAT_NAME} format is the English original, not lang {lang!r}")
    text, encoding = decode_text(data, name)
    warnings: list[str] = []
    text, repair = _mac_roman_read_as_latin_1(text)
    if repair:
        warnings.append(f"line 1: {repair}")
    text, taps = TAP.subn("{T}", text)
    if taps:
        warnings.append(f"line 1: the tap symbol printed as '{{Tap}}' written {{T}} ({taps} places)")
    lines = text.split("\n")
    boxed = _boxed_headings(lines)
    for needed in ("Contents", "1. The Game", "Glossary"):
        if needed not in boxed:
            raise ParseError(f"{name}: no boxed '{needed}' heading; not a crystalkeep Comprehensive Rules file")
    date_index = next((i for i, line in enumerate(lines) if DATE_LINE.search(line)), None)
    if date_index is None:
        raise ParseError(f"{name}: truncated: no closing 'These rules are current as of …' line")
    match = DATE_LINE.search(lines[date_index])
    assert match is not None
    raw_date = match["date"]
    effective_date = parse_date(raw_date, "en")
    if effective_date is None:
        raise ParseError(f"{name}: line {date_index + 1}: unreadable effective date {raw_date!r}")
    glossary_end = min((i for heading, i in boxed.items() if i > boxed["Glossary"]), default=None)
    if glossary_end is None:
        raise ParseError(f"{name}: truncated: nothing follows the glossary")
    # The contents list names the Introduction too: the heading is the last one before part 1.
    intro = next(
        (i for i in range(boxed["1. The Game"], boxed["Contents"], -1) if lines[i].strip() == "Introduction"), None
    )
    if intro is None:
        raise ParseError(f"{name}: no 'Introduction' before part 1; not a crystalkeep Comprehensive Rules file")
    rules = _parse_rules(lines, boxed["1. The Game"] - 1, boxed["Glossary"] - 1, warnings)
    _check_contents(name, lines[boxed["Contents"] + 1 : intro], rules)
    warnings.extend(numbering_gaps(rules, name))
    glossary = parse_glossary(name, _glossary_lines(lines[boxed["Glossary"] + 2 : glossary_end - 1]))
    refuse_rules_lost(rules, glossary, name)
    credits_index = boxed.get("Credits")
    if "Index" in boxed:
        # Navigation, not rules: said, so that what the file holds and the database does not is known.
        index_end = min((i for i in boxed.values() if i > boxed["Index"]), default=len(lines))
        entries = sum(1 for line in lines[boxed["Index"] + 2 : index_end - 1] if line.strip() and not line[0].isspace())
        warnings.append(f"line {boxed['Index'] + 1}: its Index ({entries} terms with the rules they are in) is not kept"
                        " (the glossary and the search find those terms)")
    return CRDocument(
        lang="en",
        effective_date=effective_date,
        raw_date=raw_date,
        title="Magic: The Gathering Comprehensive Rules",
        intro=_prose(lines[intro + 1 : boxed["1. The Game"] - 1]),
        rules=rules,
        glossary=glossary,
        credits=_prose(lines[credits_index + 2 :]) if credits_index else "",
        encoding=encoding,
        method="official",
        warnings=warnings,
    )


def _boxed_headings(lines: list[str]) -> dict[str, int]:
    """Heading text -> its line index, for every heading framed by two rows of dashes."""
    found: dict[str, int] = {}
    for index in range(1, len(lines) - 1):
        if RULER.match(lines[index - 1]) and RULER.match(lines[index + 1]) and lines[index].strip():
            found.setdefault(lines[index].strip(), index)
    return found


def _paragraphs(lines: list[str], start: int, stop: int) -> list[tuple[int, str, bool]]:
    """(line index, text, indented) per paragraph: blank-separated blocks, wrapped lines joined;
    an "EXAMPLE:" line opens a paragraph of its own."""
    paragraphs: list[tuple[int, str, bool]] = []
    open_paragraph = False
    for index in range(start, stop):
        raw = lines[index].rstrip()
        if not raw.strip() or UNDERLINE.match(raw):
            open_paragraph = False
            continue
        stripped = raw.strip()
        indented = raw.startswith(INDENT)
        # A change of indentation opens a paragraph: a glossary term, then its indented definition.
        same_indent = bool(paragraphs) and paragraphs[-1][2] == indented
        if open_paragraph and same_indent and not EXAMPLE_LINE.match(stripped):
            at, text, indented = paragraphs[-1]
            joiner = "" if text.endswith(DASHES) and not text.endswith("--") else " "
            paragraphs[-1] = (at, text + joiner + stripped, indented)
            continue
        paragraphs.append((index, stripped, indented))
        open_paragraph = True
    return paragraphs


def _parse_rules(lines: list[str], start: int, stop: int, warnings: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    part: str | None = None
    seen: dict[str, int] = {}
    for index, text, _indented in _paragraphs(lines, start, stop):
        heading = PART_LINE.match(text) or SECTION_LINE.match(text)
        numbered = NUMBERED_LINE.match(text)
        if numbered:
            number = f"{numbered['section']}.{numbered['rule']}{numbered['letter']}"
            letter = numbered["letter"]
            printed = text[: numbered.start("text")]
            if printed != (f"{number} " if letter else f"{number}. "):
                warnings.append(f"line {index + 1}: rule number {printed!r} normalised to {number!r}")
            rule = Rule(
                number=number,
                kind="subrule" if letter else "rule",
                text=numbered["text"],
                parent=f"{numbered['section']}.{numbered['rule']}" if letter else numbered["section"],
                section=numbered["section"],
            )
        elif heading and len(heading["number"]) == 1:
            part = heading["number"]
            rule = Rule(number=part, kind="part", text="", title=heading["title"])
        elif heading and heading["number"][0] == part:
            number = heading["number"]
            rule = Rule(number=number, kind="section", text="", title=heading["title"], parent=part, section=number)
        elif rules:
            current = rules[-1]
            if EXAMPLE_LINE.match(text):
                current.examples.append("Example:" + text.split(":", 1)[1])
            else:
                current.text = f"{current.text}\n{text}" if current.text else text
            continue
        else:
            continue
        first = seen.setdefault(rule.number, index)
        if first != index:
            warnings.append(f"line {index + 1}: duplicate rule number {rule.number} (first printed at line {first + 1}); both kept")
        rules.append(rule)
    for rule in rules:
        # "502.5. Haste", "214.6. Artifacts": a heading rule's text is its title, as in every later
        # edition (its keyword rules were found by no title, their name read as their rule text).
        if rule.kind == "rule" and is_title(rule.text):
            rule.title, rule.text = rule.text, ""
        rule.refs = extract_refs("\n".join([rule.text, *rule.examples]), lang="en")
    return rules


def _check_contents(name: str, contents: list[str], rules: list[Rule]) -> None:
    """Every part and section the contents list names must be in the rules."""
    present = {rule.number for rule in rules}
    for line in contents:
        listed = SECTION_LINE.match(line.strip()) or PART_LINE.match(line.strip())
        if listed and listed["number"] not in present:
            raise ParseError(f"{name}: truncated or damaged: '{line.strip()}' is in the contents but not in the rules")


def _glossary_lines(lines: list[str]) -> list[str]:
    """The glossary as parse_glossary reads it: a term line, then each of its definition
    paragraphs on one indented line, a blank line before the next term."""
    result: list[str] = []
    for _index, text, indented in _paragraphs(lines, 0, len(lines)):
        if not indented and result:
            result.append("")
        result.append("  " + text if indented else text)
    return result


def _prose(lines: list[str]) -> str:
    return "\n".join(text for _, text, _ in _paragraphs(lines, 0, len(lines)))
