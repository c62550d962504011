"""The Simplified Chinese Comprehensive Rules as plain text (community translation).

HeliumOctahelide/magic-comp-rules-zh-cn publishes ``plain_text/YYYYMMDD_Zh.txt``: line-for-line
parallel to the English text, Western rule numbers, Chinese headings ("702.78. 协力"), the date
line "此规则于2025年2月7日起生效。", examples starting "例如：", and the headings 目录 (contents),
词汇表 (glossary) and 版权信息 (credits). The contents list repeats every part and section
heading, so the body starts only after the contents list ends.

This module also holds the small numbering helpers the other translated-CR parsers share.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import NoReturn

from kb.normalise.dates import parse_date
from kb.normalise.decode import decode_text
from kb.normalise.localized_symbols import translated_cr_symbols
from kb.normalise.refs import SUBRULE_LETTERS, extract_refs
from kb.parse.cr.gaps import numbering_gaps
from kb.parse.cr.headings import is_keyword_heading
from kb.parse.cr.txt_glossary import blank_lines_lost
from kb.records import CRDocument, GlossaryEntry, ParseError, Rule, TruncatedCR

FORMAT_NAME = "cr-zh-txt"
DESCRIPTION = "Simplified Chinese Comprehensive Rules, plain text (HeliumOctahelide, community)"

TITLE_LINE = "万智牌完整规则"
DATE_LINE = re.compile(r"此规则于\s*(?P<raw>\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*日)\s*起生效")
CONTENTS_HEADING = "目录"
GLOSSARY_HEADING = "词汇表"
CREDITS_HEADING = "版权信息"
INTRO_HEADING = "前言"
# "例如：" is the translators' usual opening; "例如，" occurs too (rule 111.4 in 2025-02-07).
EXAMPLE_START = re.compile(r"^\s*例如\s*[：:，,]")

# "702.78. 协力", "100.1a 双人游戏…", "7. 附加规则", "702. 关键字异能". Official files also print
# "119.1d." and "606.5 " (a stray or a missing period) and "901.4.All" (no space).
NUMBERED_LINE = re.compile(
    r"^(?:(?P<subrule>[1-9]\d{2}\.\d+[a-z])\.?\s+"
    r"|(?P<rule>[1-9]\d{2}\.\d+)(?:\.\s*|\s+)"
    r"|(?P<heading>[1-9]\d{2}|[1-9])\.\s+)"
    r"(?P<text>\S.*)$"
)
# A heading (section title, keyword rule title) has no sentence-ending punctuation and is short.
SENTENCE_END = re.compile(r"[。.!?！？:：;；)）\]」』”\"]\s*$")
MAX_TITLE_CHARS = 40
# Translators add notes to terms: "放置（译注：…）".


# ---------------------------------------------------------------- numbering helpers (shared)


def rule_kind(number: str) -> str:
    """'part' ("7"), 'section' ("702"), 'rule' ("702.78") or 'subrule' ("702.78a")."""
    if "." not in number:
        return "part" if len(number) == 1 else "section"
    return "subrule" if number[-1].isalpha() else "rule"


def rule_parent(number: str) -> str | None:
    """The number one level up: 702.78a → 702.78 → 702 → 7 → None."""
    kind = rule_kind(number)
    if kind == "subrule":
        return number[:-1]
    if kind == "rule":
        return number.split(".")[0]
    if kind == "section":
        return number[0]
    return None


def rule_section(number: str) -> str | None:
    """The section a number belongs to ("702" for 702.78a and for 702 itself); None for parts."""
    return None if rule_kind(number) == "part" else number.split(".")[0]


def subrule_letter(position: int) -> str:
    """The letter of the ``position``-th subrule (0-based), skipping l and o as the CR does."""
    if position >= len(SUBRULE_LETTERS):
        raise ValueError(f"no subrule letter for position {position}")
    return SUBRULE_LETTERS[position]


def numbered_line_number(match: re.Match[str]) -> str:
    return match["subrule"] or match["rule"] or match["heading"]


def looks_like_title(text: str) -> bool:
    """Headings ("协力", "Conspire", "집요 Persist") are short and do not end a sentence."""
    stripped = text.strip()
    return 0 < len(stripped) <= MAX_TITLE_CHARS and not SENTENCE_END.search(stripped)


def make_rule(number: str, text: str, number_confidence: float = 1.0) -> Rule:
    """A Rule with kind, parent and section derived from its number.

    As the English parser (kb.parse.cr.txt) does: parts, sections and heading rules
    ("702.78. 协力") keep the heading in ``title`` and an empty ``text``.
    """
    kind = rule_kind(number)
    text = text.strip()
    title = None
    if kind in ("part", "section") or (
        kind == "rule" and (looks_like_title(text) or is_keyword_heading(rule_section(number), text))
    ):
        title, text = text, ""
    return Rule(
        number=number,
        kind=kind,
        text=text,
        title=title,
        parent=rule_parent(number),
        section=rule_section(number),
        refs=extract_refs(text),
        number_confidence=number_confidence,
    )


def append_paragraph(rule: Rule, paragraph: str) -> None:
    """An unnumbered paragraph continues the rule's text (a heading rule becomes a plain rule)."""
    if rule.kind == "rule" and rule.title and not rule.text:
        rule.text, rule.title = rule.title, None
    rule.text = f"{rule.text}\n{paragraph}" if rule.text else paragraph


def finish_rules(rules: list[Rule]) -> list[Rule]:
    """Cross-references from the text and the examples, as the English parser records them."""
    for rule in rules:
        rule.refs = extract_refs("\n".join([rule.text, *rule.examples]))
    return rules


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# ---------------------------------------------------------------- detection


def sniff(data: bytes, name: str = "") -> bool:
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"{", b"[", b"<", b"---")):
        return False  # the aligned JSON and the Korean Markdown carry Chinese/Korean text too
    lines = [line.strip() for line in head.decode("utf-8", errors="ignore").splitlines() if line.strip()]
    # The title opens the document and the date line follows within a few lines.
    return bool(lines) and (lines[0] == TITLE_LINE or any(DATE_LINE.search(line) for line in lines[:5]))


# ---------------------------------------------------------------- parsing


@dataclass
class _Layout:
    """Line indexes of the document's landmarks."""

    body_start: int
    glossary_start: int | None
    credits_start: int | None
    contents_start: int | None = None
    warnings: list[str] = field(default_factory=list)


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
    text, encoding = decode_text(data, name)
    lines = [line.rstrip() for line in text.split("\n")]
    layout = _find_layout(lines, name)
    title = next((line.strip() for line in lines if line.strip()), None)
    raw_date, effective_date = _find_date(lines[: layout.contents_start or layout.body_start])
    warnings = list(layout.warnings)
    if raw_date is None:
        warnings.append(f"{name}: no effective-date line ('此规则于…起生效')")
    elif effective_date is None:
        warnings.append(f"{name}: effective date {raw_date!r} could not be read")
    # The translation is line for line the English file, which always closes its rules with the
    # glossary, the credits and the date line again: a file without them was cut short
    # (kb.parse.cr.txt refuses the English file alike).
    if layout.glossary_start is None:
        raise ParseError(f"{name}: truncated: no '{GLOSSARY_HEADING}' (glossary) after the numbered rules")
    rules = _parse_rules(lines, layout.body_start, layout.glossary_start, name, warnings)
    warnings.extend(numbering_gaps(rules, name))
    cr = CRDocument(
        lang=lang or "zhs",
        effective_date=effective_date,
        raw_date=raw_date,
        title=title,
        intro=_intro(lines, layout),
        rules=rules,
        encoding=encoding,
        method="community",
        warnings=warnings,
    )
    translated_cr_symbols(cr)  # its rules (a file cut in its glossary keeps them)
    if layout.credits_start is None:
        _truncated_in_glossary(lines, layout.glossary_start, cr, name)
    cr.glossary = parse_glossary_blocks(lines[layout.glossary_start + 1 : layout.credits_start], name, cr.warnings)
    translated_cr_symbols(cr)
    credits = lines[layout.credits_start + 1 :]
    # Present, whatever its date: the 2025-02-07 credits repeat a stale "2024年2月7日". Only the
    # credits can be missing after it, so the file is kept and the doubt said (we hold one real file
    # of this source: a translation may leave that line out).
    if not any(DATE_LINE.search(line) for line in credits):
        cr.warnings.append(f"{name}: the credits ('{CREDITS_HEADING}') end before the closing '此规则于…起生效' line: cut short?")
    cr.credits = "\n".join(credits).strip()
    return cr


def _truncated_in_glossary(lines: list[str], glossary_start: int, cr: CRDocument, name: str) -> NoReturn:
    """Refuse a file cut off in its glossary, handing over its rules part, which is whole; the
    glossary kept is every entry but the last, which may have been cut mid-definition."""
    entries = parse_glossary_blocks(lines[glossary_start + 1 :])[:-1]
    last_line = max(index for index, line in enumerate(lines) if line.strip()) + 1
    raise TruncatedCR.in_glossary(
        f"{name}: truncated: no '{CREDITS_HEADING}' (credits) after the glossary", cr, entries, f"{name}: line {last_line}"
    )


def _find_layout(lines: list[str], name: str) -> _Layout:
    """Where the body, glossary and credits start, skipping the contents list.

    The contents list names the glossary and credits headings too; the body's own headings are
    the last occurrences of those lines.
    """
    stripped = [line.strip() for line in lines]
    contents = stripped.index(CONTENTS_HEADING) if CONTENTS_HEADING in stripped else None
    body_start = 0
    if contents is not None:
        # The contents list ends with its own "版权信息" entry (or, failing that, its glossary one).
        end_marks = [i for i in range(contents + 1, len(stripped)) if stripped[i] == CREDITS_HEADING]
        if not end_marks:
            end_marks = [i for i in range(contents + 1, len(stripped)) if stripped[i] == GLOSSARY_HEADING]
        if not end_marks:
            raise ParseError(f"{name}: line {contents + 1}: contents list ('目录') never ends")
        body_start = end_marks[0] + 1
    first_numbered = next(
        (i for i in range(body_start, len(lines)) if NUMBERED_LINE.match(stripped[i])), None
    )
    if first_numbered is None:
        raise ParseError(f"{name}: no numbered rules found")
    glossary = _last_index(stripped, GLOSSARY_HEADING, first_numbered)
    credits = _last_index(stripped, CREDITS_HEADING, glossary or first_numbered)
    return _Layout(first_numbered, glossary, credits, contents)


def _last_index(lines: list[str], heading: str, after: int) -> int | None:
    found = [i for i in range(after, len(lines)) if lines[i] == heading]
    return found[0] if found else None


def _find_date(lines: list[str]) -> tuple[str | None, str | None]:
    # Only the front matter counts: the 2025-02-07 credits repeat a stale "2024年2月7日" line.
    for line in lines:
        match = DATE_LINE.search(line)
        if match:
            raw = re.sub(r"\s+", "", match["raw"])
            return raw, parse_date(raw, "zhs")
    return None, None


def _intro(lines: list[str], layout: _Layout) -> str:
    end = layout.contents_start if layout.contents_start is not None else layout.body_start
    kept = []
    for line in lines[:end]:
        stripped = line.strip()
        if stripped in (TITLE_LINE, INTRO_HEADING) or DATE_LINE.search(stripped):
            continue
        kept.append(stripped)
    return "\n".join(kept).strip()


def _parse_rules(lines: list[str], start: int, end: int, name: str, warnings: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    seen: set[str] = set()
    for index in range(start, end):
        line = lines[index].strip()
        if not line:
            continue
        match = NUMBERED_LINE.match(line)
        if match and not lines[index].startswith((" ", "\t")):
            number = numbered_line_number(match)
            if number in seen:
                warnings.append(f"{name}: line {index + 1}: rule {number} printed twice; second kept as text")
                append_paragraph(rules[-1], nfc(line))
                continue
            seen.add(number)
            rules.append(make_rule(number, nfc(match["text"])))
            continue
        if not rules:
            raise ParseError(f"{name}: line {index + 1}: text before the first rule: {line[:40]!r}")
        if EXAMPLE_START.match(line):
            rules[-1].examples.append(nfc(line))
        else:
            # Indented paragraphs continue the rule above (205.4c, 509.1b in 2025-02-07).
            append_paragraph(rules[-1], nfc(line))
    return finish_rules(rules)


# A definition line ends a sentence; a term line does not, nor does it number a sense or refer.
_DEFINITION_END = tuple("。！？；：，.!?;:,”」』）)]")
_TERM_LINE_LENGTH = 40
# A term with a note in brackets: "埋葬（已废止）", "反击/指示物（译注：在英文中这两个词是相同的。）".
_TERM_WITH_NOTE = re.compile(r"^[^。，；：（]{1,20}（[^（）]+）$")


def parse_glossary_blocks(lines: list[str], name: str = "", warnings: list[str] | None = None) -> list[GlossaryEntry]:
    """Blank-line separated entries: the term on the first line, its definition below. A copy
    that lost its blank lines (every entry in one run of lines) is read by its term lines instead,
    and said so in ``warnings``: read by blocks, its glossary had been one entry."""
    blocks = _blocks(lines)
    apart = [entry for block in blocks for entry in _entries_by_term_lines(block)]
    lost = blank_lines_lost(name, len(apart), len(blocks))
    if lost:
        if warnings is not None:
            warnings.append(lost)
        blocks = apart
    entries: list[GlossaryEntry] = []
    for block in blocks:
        term, definition = nfc(block[0]), nfc("\n".join(block[1:]))
        entries.append(GlossaryEntry(term=term, text=definition, refs=extract_refs(definition)))
    return entries


def _blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            block.append(line.strip())
        elif block:
            blocks.append(block)
            block = []
    return blocks


def _entries_by_term_lines(block: list[str]) -> list[list[str]]:
    """A run of lines cut where a line reads as a term: short, not ending a sentence, not a
    numbered sense or a reference, after a finished definition and before the next line."""
    entries = [[block[0]]]
    for position, line in enumerate(block[1:], start=1):
        current = entries[-1]
        if (
            len(current) > 1
            and current[-1].endswith(_DEFINITION_END)
            and len(line) <= _TERM_LINE_LENGTH
            and (not line.endswith(_DEFINITION_END) or _TERM_WITH_NOTE.match(line) is not None)
            and not re.match(r"\d+\.\s", line)
            and not line.startswith("参见")
            and position + 1 < len(block)
        ):
            entries.append([line])
        else:
            current.append(line)
    return entries
