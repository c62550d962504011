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
from typing import NoReturn

from kb.normalise.dates import parse_date
from kb.normalise.decode import decode_text
from kb.normalise.refs import SUBRULE_LETTERS, english_cr_refs
from kb.normalise.symbols import braced_old_codes, braced_plain_symbols
from kb.parse.cr.gaps import numbering_gaps, refuse_rules_lost, unfinished_rules
from kb.parse.cr.headings import is_keyword_heading
from kb.parse.cr.txt_glossary import blank_lines_warning, is_title, parse_glossary, split_fused_terms
from kb.parse.cr.txt_lines import Lines, logical_lines
from kb.records import CRDocument, ParseError, Rule, TruncatedCR

FORMAT_NAME = "cr-txt"
DESCRIPTION = "Official English Magic: The Gathering Comprehensive Rules, plain text (any encoding)"

# 2009-09 to about 2013 the title was italicised with underscores.
TITLE_LINE = re.compile(r"^_?Magic: The Gathering(?:®|\(r\)|r)?_?\s+Comprehensive Rules$")
DATE_LINE = re.compile(
    r"These rules are (?:effective|current) as of\s+(?P<date>[A-Z][a-z]+\.? \d{1,2}, \d{4})\.?"
)
# The closing line may be misprinted: "effective as of June18, 2021." (2021-06-09).
CLOSING_DATE_LINE = re.compile(
    r"These rules are (?:effective|current) as of\s+(?P<date>[A-Z][a-z]+\.?\s*\d{1,2}, \d{4})"
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
MAX_HEADING_LENGTH = 80
HEAD_LINES = 40
SNIFF_BYTES = 16384
# A parse that reads fewer of the body's numbered-looking lines as rules than this lost the
# layout (every rule glued into section text) and must not pass for a CR.
MIN_RULES_READ = 0.9


@dataclass
class _Body:
    rules: list[Rule] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # rule number -> where it was first printed, to flag a number printed twice
    seen: dict[str, int] = field(default_factory=dict)


def sniff(data: bytes, name: str = "") -> bool:
    """True for an English CR text file: its first line is the title, a date line follows."""
    text = _decode_prefix(data, name or "<bytes>")
    if text is None:
        return False
    head = [line.strip() for line in text.split("\n")[:HEAD_LINES] if line.strip()]
    return bool(head) and bool(TITLE_LINE.match(head[0])) and any(DATE_LINE.search(l) for l in head[1:6])


def effective_date_of(data: bytes, name: str = "<bytes>") -> str | None:
    """The ISO date a CR text file's header says it is effective from (None where it says none),
    read from its first lines only."""
    text = _decode_prefix(data, name)
    if text is None:
        return None
    for line in text.split("\n")[:HEAD_LINES]:
        match = DATE_LINE.search(line)
        if match:
            return parse_date(match["date"], "en")
    return None


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
    """The CRDocument of an official English CR text file; ParseError if it is not one or is cut."""
    if lang not in (None, "en"):
        raise ParseError(f"{name}: the cr-txt format is the English original, not lang {lang!r}")
    if not data.strip():
        raise ParseError(f"{name}: empty file")
    text, encoding = decode_text(data, name)
    text, plain_symbols = braced_plain_symbols(braced_old_codes(text))
    doc = logical_lines(text, name)
    title_index = _title_index(doc)
    raw_date, date_index = _header_date(doc, title_index)
    effective_date = parse_date(raw_date, "en")
    if effective_date is None:
        raise ParseError(f"{name}: {doc.at(date_index)}: unreadable effective date {raw_date!r}")
    contents_index = doc.find(HEADING_CONTENTS, date_index)
    if contents_index is None:
        raise ParseError(f"{name}: no '{HEADING_CONTENTS}' heading; not a Comprehensive Rules file")
    body_start = _body_start(doc, contents_index)
    glossary_index = doc.find(HEADING_GLOSSARY, body_start)
    if glossary_index is None:
        raise ParseError(f"{name}: truncated: no '{HEADING_GLOSSARY}' after the numbered rules")
    body = _parse_body(doc, body_start, glossary_index)
    body.warnings[:0] = doc.warnings
    _check_rules_read(doc, body_start, glossary_index, body.rules)
    _check_contents_complete(doc, contents_index, body_start, body.rules, body.warnings)
    body.warnings.extend(numbering_gaps(body.rules, name))
    body.warnings.extend(unfinished_rules(body.rules, name))
    if plain_symbols:
        body.warnings.append(
            f"{name}: prints mana and tap symbols as plain letters (\"2W\", \"T:\"): {plain_symbols} passages"
            " where they can only be symbols braced (\"2, T:\" as \"{2}, {T}:\", \"3UU\" as \"{3}{U}{U}\"); other"
            " mentions in prose (\"such as 1\") kept as printed"
        )
    intro_index = doc.find(HEADING_INTRODUCTION, date_index, contents_index)
    intro_start = date_index + 1 if intro_index is None else intro_index + 1
    cr = CRDocument(
        lang="en",
        effective_date=effective_date,
        raw_date=raw_date,
        # The title line varies only in marks ("_Magic: The Gathering_", "Gatheringr" for ®).
        title="Magic: The Gathering Comprehensive Rules",
        intro=_paragraphs(doc.lines[intro_start:contents_index]),
        rules=body.rules,
        encoding=encoding,
        method="official",
        warnings=body.warnings,
        extra={"contents": _paragraphs(doc.lines[contents_index + 1 : body_start])},
    )
    credits_index = doc.find(HEADING_CREDITS, glossary_index + 1)
    if credits_index is None:
        _truncated_in_glossary(doc, glossary_index, cr)
    glossary_lines, repairs = split_fused_terms(doc.lines[glossary_index + 1 : credits_index])
    cr.glossary = parse_glossary(name, glossary_lines)
    refuse_rules_lost(cr.rules, cr.glossary, name)
    cr.warnings.extend(
        f"{doc.at(glossary_index + 1 + index)}: glossary term {term!r} printed on one line with its first definition; split"
        for index, term in repairs
    )
    cr.warnings.extend(blank_lines_warning(name, glossary_lines, cr.glossary))
    cr.credits = _paragraphs(doc.lines[credits_index + 1 :])
    _check_closing_date(doc, credits_index, raw_date, body.warnings)
    return cr


def _truncated_in_glossary(doc: Lines, glossary_index: int, cr: CRDocument) -> NoReturn:
    """Refuse a file cut off in its glossary, handing over its rules part, which is whole.

    The glossary kept is every entry but the last, which may have been cut mid-definition.
    """
    message = f"{doc.name}: truncated: no '{HEADING_CREDITS}' after the glossary"
    try:
        entries = parse_glossary(doc.name, split_fused_terms(doc.lines[glossary_index + 1 :])[0])[:-1]
    except ParseError:
        entries = []
    raise TruncatedCR.in_glossary(message, cr, entries, doc.at(len(doc.lines) - 1))


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


def _title_index(doc: Lines) -> int:
    for index, line in enumerate(doc.lines[:HEAD_LINES]):
        if line.strip():
            if TITLE_LINE.match(line.strip()):
                return index
            break
    raise ParseError(f"{doc.name}: line 1: no 'Magic: The Gathering Comprehensive Rules' title")


def _header_date(doc: Lines, title_index: int) -> tuple[str, int]:
    for index in range(title_index + 1, min(len(doc.lines), title_index + HEAD_LINES)):
        match = DATE_LINE.search(doc.lines[index])
        if match:
            return match["date"], index
    raise ParseError(f"{doc.name}: no 'These rules are effective as of …' line after the title")


def _body_start(doc: Lines, contents_index: int) -> int:
    """The part heading just before the first numbered rule: the table of contents ends there."""
    first_rule = next(
        (i for i in range(contents_index, len(doc.lines)) if NUMBERED_LINE.match(doc.lines[i].strip())), None
    )
    if first_rule is None:
        raise ParseError(f"{doc.name}: no numbered rules after the table of contents")
    for index in range(first_rule - 1, contents_index, -1):
        if PART_LINE.match(doc.lines[index]):
            return index
    raise ParseError(f"{doc.name}: {doc.at(first_rule)}: numbered rule before any part heading")


def _parse_body(doc: Lines, start: int, stop: int) -> _Body:
    body = _Body()
    part: str | None = None
    section: str | None = None
    for index in range(start, stop):
        line = doc.lines[index]
        stripped = line.strip()
        if not stripped:
            continue
        numbered = _match_numbered(stripped, section)
        if numbered and line[0].isspace() and not _follows(numbered, body.rules):
            numbered = None  # an indented paragraph that happens to open with a number
        if numbered:
            rule = _numbered_rule(doc, index, numbered, section, body.warnings)
            if line[0].isspace():
                body.warnings.append(f"{doc.at(index)}: rule {rule.number} starts with a stray space; read as a rule")
            _flag_repeat(doc, index, rule, body)
            section = rule.section
            body.rules.append(rule)
            continue
        heading = _match_heading(line, part)
        if heading:
            rule = _heading(heading["number"], heading["title"], part)
            part = part if rule.kind == "section" else rule.number
            section = rule.number if rule.kind == "section" else section
            _flag_repeat(doc, index, rule, body)
            body.rules.append(rule)
            continue
        current = body.rules[-1]  # the body starts at a part heading, so there is one
        if current.kind in ("part", "section"):
            body.warnings.append(f"{doc.at(index)}: text under heading {current.number} kept as its text")
        if EXAMPLE_LINE.match(stripped):
            current.examples.append(stripped)
        else:
            if current.examples:
                # A rule holds its text, then its examples: a paragraph printed after an example
                # (2003-03-15's 410.10d, the one such in 31 editions) is shown before it; said so.
                body.warnings.append(f"{doc.at(index)}: a paragraph of rule {current.number} printed after its example is"
                                     " kept with its text, shown before the example")
            # Continuation paragraphs (indented in older files) belong to the rule's own text.
            current.text = f"{current.text}\n{stripped}" if current.text else stripped
    for rule in body.rules:
        _finish_rule(rule)
    return body


def _flag_repeat(doc: Lines, index: int, rule: Rule, body: _Body) -> None:
    """A number printed twice (a misprint, a pasted block): both rules are kept, and said so.

    A subrule printed with the letter of the subrule just before it, whose next letter the file
    never prints (702.30d twice in 2009-10-01, then 702.31), is read as that next letter: two
    rules under one number would share one identity across versions, and one of them could not be
    reached by its number. Its number is then marked as recovered (``number_confidence``)."""
    first = body.seen.setdefault(rule.number, index)
    if first == index:
        return
    following = _next_letter(rule, body.rules)
    if following is not None and following not in body.seen and not _printed_after(doc, index, following):
        printed = rule.number
        rule.number, rule.number_confidence = following, RECOVERED_NUMBER
        body.seen[following] = index
        body.warnings.append(
            f"{doc.at(index)}: rule number {printed} printed a second time (first at {doc.at(first)});"
            f" read as {following}, the next letter, which the file does not print"
        )
        return
    body.warnings.append(
        f"{doc.at(index)}: duplicate rule number {rule.number} (first printed at {doc.at(first)}); "
        "both kept"
    )


# The confidence of a number the file does not print (the letter after its twin's).
RECOVERED_NUMBER = 0.5


def _next_letter(rule: Rule, rules: list[Rule]) -> str | None:
    """The number after ``rule``'s when the rule just before it is its twin (same subrule number)."""
    if rule.kind != "subrule" or not rules or rules[-1].number != rule.number:
        return None
    position = SUBRULE_LETTERS.find(rule.number[-1])
    if position < 0 or position + 1 >= len(SUBRULE_LETTERS):
        return None
    return rule.number[:-1] + SUBRULE_LETTERS[position + 1]


def _printed_after(doc: Lines, index: int, number: str) -> bool:
    return any(_starts_with_number(line, number) for line in doc.lines[index + 1 :])


def _starts_with_number(line: str, number: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(number) and stripped[len(number) : len(number) + 1] in (" ", ".", "")


def _number_key(section: str, rule: str, letter: str) -> tuple[int, int, str]:
    return int(section), int(rule), letter


def _follows(match: re.Match[str], rules: list[Rule]) -> bool:
    """An indented number is a rule only where the next rule belongs: after the last one read,
    in its part or the next ("  509.1c" after 509.1b; not "  103.4" after 409.2)."""
    last = next((rule for rule in reversed(rules) if rule.kind in ("rule", "subrule")), None)
    if last is None:
        return True
    last_match = NUMBERED_LINE.match(f"{last.number} ")
    assert last_match is not None
    current = _number_key(match["section"], match["rule"], match["letter"])
    previous = _number_key(last_match["section"], last_match["rule"], last_match["letter"])
    return previous < current and current[0] // 100 - previous[0] // 100 <= 1


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
    title, text = (printed, "") if is_title(printed, MAX_HEADING_LENGTH) else (None, printed)
    return Rule(number=number, kind="section", text=text, title=title, parent=parent, section=number)


def _numbered_rule(
    doc: Lines, index: int, match: re.Match[str], section: str | None, warnings: list[str]
) -> Rule:
    number = f"{match['section']}.{match['rule']}{match['letter']}"
    printed = match.group(0)[: match.start("text")]
    expected = f"{number} " if match["letter"] else f"{number}. "
    # A bare number line ("100.1.") has no space to check; otherwise the whole prefix must match.
    if printed.rstrip() != expected.rstrip() or (match["text"] and printed != expected):
        warnings.append(f"{doc.at(index)}: rule number {printed!r} normalised to {number!r}")
    if match["section"] != section:
        warnings.append(f"{doc.at(index)}: rule {number} outside its section heading ({section})")
    if match["letter"]:
        parent = f"{match['section']}.{match['rule']}"
        return Rule(number=number, kind="subrule", text=match["text"], parent=parent, section=match["section"])
    return Rule(number=number, kind="rule", text=match["text"], parent=match["section"], section=match["section"])


def _finish_rule(rule: Rule) -> None:
    if rule.kind == "rule" and (is_title(rule.text) or is_keyword_heading(rule.section, rule.text)):
        rule.title, rule.text = rule.text, ""
    rule.refs = english_cr_refs("\n".join([rule.text, *rule.examples]))


def _check_rules_read(doc: Lines, start: int, stop: int, rules: list[Rule]) -> None:
    """Refuse a body whose numbered lines were mostly not read as rules (a layout we do not
    know, e.g. every line indented differently): its rules would vanish into section text."""
    looks_numbered = sum(1 for line in doc.lines[start:stop] if NUMBERED_LINE.match(line.strip()))
    read = sum(1 for rule in rules if rule.kind in ("rule", "subrule"))
    if looks_numbered and read < MIN_RULES_READ * looks_numbered:
        raise ParseError(
            f"{doc.name}: only {read} of {looks_numbered} numbered lines could be read as rules "
            "(indented or re-flowed copy?); refusing rather than losing rules"
        )


def _check_contents_complete(
    doc: Lines, contents_index: int, body_start: int, rules: list[Rule], warnings: list[str]
) -> None:
    """The parts and sections the table of contents lists must be in the body.

    A listed section with no heading but with its rules is a slip of that edition (a heading
    typed differently): kept, with a warning. A listed section of which no rule at all is
    present lost its contents (a block cut out, a file cut short): refused.
    """
    headings = {rule.number for rule in rules if rule.kind in ("part", "section")}
    with_rules = {rule.section for rule in rules if rule.kind in ("rule", "subrule")}
    with_rules |= {number[0] for number in with_rules if number}
    for index in range(contents_index + 1, body_start):
        listed = SECTION_LINE.match(doc.lines[index]) or PART_LINE.match(doc.lines[index])
        if not listed or listed["number"] in headings:
            continue
        entry = doc.lines[index].strip()
        if listed["number"] not in with_rules:
            raise ParseError(
                f"{doc.name}: truncated or damaged: '{entry}' is in the contents but neither its heading "
                "nor any of its rules is in the body"
            )
        warnings.append(f"{doc.at(index)}: '{entry}' is in the contents but its heading is not in the rules")


def _check_closing_date(doc: Lines, credits_index: int, raw_date: str, warnings: list[str]) -> None:
    """The credits close with the date line again; without it the file was cut short."""
    for index in range(credits_index + 1, len(doc.lines)):
        match = CLOSING_DATE_LINE.search(doc.lines[index])
        if match:
            if match["date"] != raw_date:
                warnings.append(f"{doc.at(index)}: closing date {match['date']!r} differs from {raw_date!r}")
            return
    raise ParseError(f"{doc.name}: truncated: the credits end before the closing 'These rules are … as of' line")


def _paragraphs(lines: list[str]) -> str:
    """Lines joined with newlines, outer blank lines dropped and inner runs of them collapsed."""
    text = "\n".join(line.strip() for line in lines).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)
