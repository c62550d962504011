"""The official English Comprehensive Rules as Wizards publishes them in plain text.

The document reads: title line, "These rules are effective as of <date>." (before mid-2009
"current as of"), Introduction, Contents (a table of contents that repeats every heading: it is
skipped), then parts ("1. Game Concepts"), sections ("100. General"), rules ("100.1. text"),
subrules ("100.1a text") and "Example:" lines, then Glossary (term line, definition lines, blank
line) and Credits, which close with the date line again.

Numbers are printed by hand and not always the same way ("119.1d.", "606.5 text", "901.4.All",
"201.3.  text"); files before 2009 use an older numbering with other shapes ("102.8 text",
indented continuation paragraphs). Every number is normalised and each fix is a warning.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kb.normalise.decode import decode_text
from kb.normalise.dates import parse_date
from kb.records import CRDocument, GlossaryEntry, ParseError, Rule
from kb.normalise.refs import extract_refs

FORMAT_NAME = "cr-txt"
DESCRIPTION = "Official English Magic: The Gathering Comprehensive Rules, plain text (any encoding)"

# 2009-09 to about 2013 the title was italicised with underscores.
TITLE_LINE = re.compile(r"^_?Magic: The Gathering_?\s+Comprehensive Rules$")
DATE_LINE = re.compile(
    r"These rules are (?:effective|current) as of\s+(?P<date>[A-Z][a-z]+\.? \d{1,2}, \d{4})\.?"
)
PART_LINE = re.compile(r"^(?P<number>[1-9])\.\s+(?P<title>\S.*)$")
SECTION_LINE = re.compile(r"^(?P<number>[1-9]\d{2})\.\s+(?P<title>\S.*)$")
# Loose on purpose: the period, the letter's period and the space vary between files.
NUMBERED_LINE = re.compile(
    r"^(?P<section>[1-9]\d{2})\.(?P<rule>\d+)(?P<letter>[a-z]?)(?P<dot>\.?)(?P<space>\s*)(?P<text>.*)$"
)
SPACED_NUMBERED_LINE = re.compile(
    r"^(?P<section>[1-9]\d{2})\.\s(?P<rule>\d+)(?P<letter>[a-z]?)(?P<dot>\.?)(?P<space>\s+)(?P<text>.*)$"
)
EXAMPLE_LINE = re.compile(r"^Examples?:")
HEADING_INTRODUCTION = "Introduction"
HEADING_CONTENTS = "Contents"
HEADING_GLOSSARY = "Glossary"
HEADING_CREDITS = "Credits"
# Keyword and option rules are headings ("702.78. Conspire", "903.12. Brawl Option"); a longer
# text without a final stop ("The phrase “to gain a Class level” means …”) is still a sentence.
MAX_TITLE_LENGTH = 60
MAX_HEADING_LENGTH = 80
SENTENCE_END = tuple(".:;!?,\"”’)]")
HEAD_LINES = 40
SNIFF_BYTES = 16384


@dataclass
class _Lines:
    """The decoded document as lines, with 1-based numbers for messages."""

    name: str
    lines: list[str]

    def find(self, heading: str, start: int, stop: int | None = None) -> int | None:
        stop = len(self.lines) if stop is None else stop
        for index in range(start, stop):
            if self.lines[index].strip() == heading:
                return index
        return None


@dataclass
class _Body:
    rules: list[Rule] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def sniff(data: bytes, name: str = "") -> bool:
    """True for an English CR text file: its first line is the title, a date line follows."""
    text = _decode_prefix(data, name or "<bytes>")
    if text is None:
        return False
    head = [line.strip() for line in text.split("\n")[:HEAD_LINES] if line.strip()]
    return bool(head) and bool(TITLE_LINE.match(head[0])) and any(DATE_LINE.search(l) for l in head[1:6])


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
    """The CRDocument of an official English CR text file; ParseError if it is not one or is cut."""
    if lang not in (None, "en"):
        raise ParseError(f"{name}: the cr-txt format is the English original, not lang {lang!r}")
    if not data.strip():
        raise ParseError(f"{name}: empty file")
    text, encoding = decode_text(data, name)
    doc = _Lines(name, [line.rstrip() for line in text.split("\n")])
    title_index = _title_index(doc)
    raw_date, date_index = _header_date(doc, title_index)
    effective_date = parse_date(raw_date, "en")
    if effective_date is None:
        raise ParseError(f"{name}: line {date_index + 1}: unreadable effective date {raw_date!r}")
    contents_index = doc.find(HEADING_CONTENTS, date_index)
    if contents_index is None:
        raise ParseError(f"{name}: no '{HEADING_CONTENTS}' heading; not a Comprehensive Rules file")
    body_start = _body_start(doc, contents_index)
    glossary_index = doc.find(HEADING_GLOSSARY, body_start)
    if glossary_index is None:
        raise ParseError(f"{name}: truncated: no '{HEADING_GLOSSARY}' after the numbered rules")
    credits_index = doc.find(HEADING_CREDITS, glossary_index + 1)
    if credits_index is None:
        raise ParseError(f"{name}: truncated: no '{HEADING_CREDITS}' after the glossary")
    body = _parse_body(doc, body_start, glossary_index)
    _check_contents_complete(doc, contents_index, body_start, body.rules, body.warnings)
    glossary = _parse_glossary(doc, glossary_index + 1, credits_index)
    credits = _paragraphs(doc.lines[credits_index + 1 :])
    _check_closing_date(doc, credits_index, raw_date, body.warnings)
    intro_index = doc.find(HEADING_INTRODUCTION, date_index, contents_index)
    intro_start = date_index + 1 if intro_index is None else intro_index + 1
    return CRDocument(
        lang="en",
        effective_date=effective_date,
        raw_date=raw_date,
        title=doc.lines[title_index].strip().replace("_", ""),
        intro=_paragraphs(doc.lines[intro_start:contents_index]),
        rules=body.rules,
        glossary=glossary,
        credits=credits,
        encoding=encoding,
        method="official",
        warnings=body.warnings,
        extra={"contents": _paragraphs(doc.lines[contents_index + 1 : body_start])},
    )


def _decode_prefix(data: bytes, name: str) -> str | None:
    """Decode the start of ``data``, cut where it does not split a UTF-8 character."""
    prefix = data[:SNIFF_BYTES]
    if len(data) > len(prefix) and not prefix.startswith((b"\xfe\xff", b"\xff\xfe")):
        prefix = _without_partial_utf8_tail(prefix)
    try:
        return decode_text(prefix, name)[0]
    except ParseError:
        return None


def _without_partial_utf8_tail(prefix: bytes) -> bytes:
    for trim in range(4):
        try:
            prefix[: len(prefix) - trim].decode("utf-8")
            return prefix[: len(prefix) - trim]
        except UnicodeDecodeError:
            continue
    return prefix  # not UTF-8 at all: a single-byte encoding cannot be cut inside a character


def _title_index(doc: _Lines) -> int:
    for index, line in enumerate(doc.lines[:HEAD_LINES]):
        if line.strip():
            if TITLE_LINE.match(line.strip()):
                return index
            break
    raise ParseError(f"{doc.name}: line 1: no 'Magic: The Gathering Comprehensive Rules' title")


def _header_date(doc: _Lines, title_index: int) -> tuple[str, int]:
    for index in range(title_index + 1, min(len(doc.lines), title_index + HEAD_LINES)):
        match = DATE_LINE.search(doc.lines[index])
        if match:
            return match["date"], index
    raise ParseError(f"{doc.name}: no 'These rules are effective as of …' line after the title")


def _body_start(doc: _Lines, contents_index: int) -> int:
    """The part heading just before the first numbered rule: the table of contents ends there."""
    first_rule = next(
        (i for i in range(contents_index, len(doc.lines)) if NUMBERED_LINE.match(doc.lines[i])), None
    )
    if first_rule is None:
        raise ParseError(f"{doc.name}: no numbered rules after the table of contents")
    for index in range(first_rule - 1, contents_index, -1):
        if PART_LINE.match(doc.lines[index]):
            return index
    raise ParseError(f"{doc.name}: line {first_rule + 1}: numbered rule before any part heading")


def _parse_body(doc: _Lines, start: int, stop: int) -> _Body:
    body = _Body()
    part: str | None = None
    section: str | None = None
    for index in range(start, stop):
        line = doc.lines[index]
        stripped = line.strip()
        if not stripped:
            continue
        numbered = None if line[0].isspace() else _match_numbered(stripped, section)
        if numbered:
            rule = _numbered_rule(index, numbered, section, body.warnings)
            section = rule.section
            body.rules.append(rule)
            continue
        heading = _match_heading(line, part)
        if heading:
            rule = _heading(heading["number"], heading["title"], part)
            part = part if rule.kind == "section" else rule.number
            section = rule.number if rule.kind == "section" else section
            body.rules.append(rule)
            continue
        current = body.rules[-1]  # the body starts at a part heading, so there is one
        if current.kind in ("part", "section"):
            body.warnings.append(f"line {index + 1}: text under heading {current.number} kept as its text")
        if EXAMPLE_LINE.match(stripped):
            current.examples.append(stripped)
        else:
            # Continuation paragraphs (indented in older files) belong to the rule's own text.
            current.text = f"{current.text}\n{stripped}" if current.text else stripped
    for rule in body.rules:
        _finish_rule(rule)
    return body


def _match_numbered(line: str, section: str | None) -> re.Match[str] | None:
    match = NUMBERED_LINE.match(line)
    if match:
        return match
    # "606. 8b Players win …" (2006): a stray space, believed only inside the current section,
    # since "606. 8 Players" could otherwise be a section title starting with a digit.
    spaced = SPACED_NUMBERED_LINE.match(line)
    if spaced and spaced["section"] == section:
        return spaced
    return None


def _match_heading(line: str, part: str | None) -> re.Match[str] | None:
    """A part or section heading, if it comes where one can: a numbered list line ("1. Text …")
    is not part 1 again, and "500. cards" is no section inside part 2."""
    following_part = str(int(part) + 1) if part else "1"
    match = PART_LINE.match(line)
    if match and match["number"] == following_part:
        return match
    match = SECTION_LINE.match(line)
    if match and match["number"][0] == part:
        return match
    return None


def _heading(number: str, printed: str, part: str | None) -> Rule:
    if len(number) == 1:
        return Rule(number=number, kind="part", text="", title=printed)
    parent = part if part == number[0] else number[0]
    # "215. This section is now empty. See rule 205.4c …" (2006) is a sentence, not a title.
    title, text = (printed, "") if _is_title(printed, MAX_HEADING_LENGTH) else (None, printed)
    return Rule(number=number, kind="section", text=text, title=title, parent=parent, section=number)


def _numbered_rule(
    index: int, match: re.Match[str], section: str | None, warnings: list[str]
) -> Rule:
    number = f"{match['section']}.{match['rule']}{match['letter']}"
    printed = match.group(0)[: match.start("text")]
    expected = f"{number} " if match["letter"] else f"{number}. "
    # A bare number line ("100.1.") has no space to check; otherwise the whole prefix must match.
    if printed.rstrip() != expected.rstrip() or (match["text"] and printed != expected):
        warnings.append(f"line {index + 1}: rule number {printed!r} normalised to {number!r}")
    if match["section"] != section:
        warnings.append(f"line {index + 1}: rule {number} outside its section heading ({section})")
    if match["letter"]:
        parent = f"{match['section']}.{match['rule']}"
        return Rule(number=number, kind="subrule", text=match["text"], parent=parent, section=match["section"])
    return Rule(number=number, kind="rule", text=match["text"], parent=match["section"], section=match["section"])


def _finish_rule(rule: Rule) -> None:
    if rule.kind == "rule" and _is_title(rule.text):
        rule.title, rule.text = rule.text, ""
    rule.refs = extract_refs("\n".join([rule.text, *rule.examples]), lang="en")


def _is_title(text: str, max_length: int = MAX_TITLE_LENGTH) -> bool:
    """Short, one line, no final stop: "Conspire", "Brawl Option", "Handling "Infinite" Loops"."""
    return bool(text) and "\n" not in text and len(text) <= max_length and not text.endswith(SENTENCE_END)


def _check_contents_complete(
    doc: _Lines, contents_index: int, body_start: int, rules: list[Rule], warnings: list[str]
) -> None:
    """The parts and sections the table of contents lists must be in the body.

    Missing ones at the end mean the file was cut short: refused. One missing between others
    that are present is a slip of that edition (a heading typed differently), not a truncation:
    kept, with a warning, so a real file is never refused for it.
    """
    present = {rule.number for rule in rules if rule.kind in ("part", "section")}
    listed = []
    for index in range(contents_index + 1, body_start):
        heading = SECTION_LINE.match(doc.lines[index]) or PART_LINE.match(doc.lines[index])
        if heading:
            listed.append((index, heading["number"]))
    last_present = max((position for position, (_, number) in enumerate(listed) if number in present), default=-1)
    for position, (index, number) in enumerate(listed):
        if number in present:
            continue
        if position > last_present:
            raise ParseError(
                f"{doc.name}: truncated or damaged: '{doc.lines[index].strip()}' is in the contents "
                "but not in the rules"
            )
        warnings.append(f"line {index + 1}: '{doc.lines[index].strip()}' is in the contents but not in the rules")


def _parse_glossary(doc: _Lines, start: int, stop: int) -> list[GlossaryEntry]:
    terms: list[tuple[str, list[str]]] = []
    for block in _blocks(doc.lines[start:stop]):
        if terms and (block[0][0].isspace() or len(block) == 1):
            # Older files continue a definition over blank lines: indented paragraphs, and
            # one-line subheadings of a table ("Expansions and Editions" under Expansion Symbol).
            terms[-1][1].extend(line.strip() for line in block)
            continue
        if len(block) == 1:
            raise ParseError(f"{doc.name}: glossary term {block[0].strip()!r} has no definition")
        terms.extend(_split_entries(block))
    if not terms:
        raise ParseError(f"{doc.name}: the glossary is empty")
    entries = []
    for term, definition in terms:
        text = "\n".join(definition)
        entries.append(GlossaryEntry(term=term, text=text, refs=extract_refs(text, lang="en")))
    return entries


def _blocks(lines: list[str]) -> list[list[str]]:
    """Runs of non-blank lines, leading indentation kept (it marks continuation paragraphs)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _split_entries(block: list[str]) -> list[tuple[str, list[str]]]:
    """One block is normally one entry; where a page break ate the blank line it holds several.

    A line starts a new entry when it reads like a term (short, no final stop, not indented),
    follows a finished sentence and is itself followed by a definition line.
    """
    entries: list[tuple[str, list[str]]] = [(block[0].strip(), [])]
    for position, line in enumerate(block[1:], start=1):
        definition = entries[-1][1]
        starts_entry = (
            definition
            and not line[0].isspace()
            and _is_title(line)
            and definition[-1].endswith(SENTENCE_END)
            and position + 1 < len(block)
        )
        if starts_entry:
            entries.append((line.strip(), []))
        else:
            definition.append(line.strip())
    return entries


def _check_closing_date(doc: _Lines, credits_index: int, raw_date: str, warnings: list[str]) -> None:
    """The credits close with the date line again; without it the file was cut short."""
    for index in range(credits_index + 1, len(doc.lines)):
        match = DATE_LINE.search(doc.lines[index])
        if match:
            if match["date"] != raw_date:
                warnings.append(f"line {index + 1}: closing date {match['date']!r} differs from {raw_date!r}")
            return
    raise ParseError(f"{doc.name}: truncated: the credits end before the closing 'These rules are … as of' line")


def _paragraphs(lines: list[str]) -> str:
    """Lines joined with newlines, outer blank lines dropped and inner runs of them collapsed."""
    text = "\n".join(line.strip() for line in lines).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)
