"""The glossary of an English CR text file: term line, definition lines, blank line."""
from __future__ import annotations

import re

from kb.normalise.refs import english_cr_refs
from kb.records import GlossaryEntry, ParseError

MAX_TERM_LENGTH = 60
SENTENCE_END = tuple(".:;!?,\"”’)]")
# A term may end in a one-word note in brackets, which no definition line does: "Cast (Obsolete)",
# "Dual Land (Informal)".
TERM_NOTE = re.compile(r"\s\(\w+\)$")
# A term with its first numbered definition glued on: "Ability1. Text on an object that…" (eleven
# entries of the 2021-06-09 file lost that line break).
FUSED_FIRST_DEFINITION = re.compile(r"(?P<term>\S.*?[^\s\d])(?P<definition>1\. \S.*)")


def is_title(text: str, max_length: int = MAX_TERM_LENGTH) -> bool:
    """Short, one line, no final stop: "Conspire", "Brawl Option", "Handling "Infinite" Loops"."""
    return bool(text) and "\n" not in text and len(text) <= max_length and not text.endswith(SENTENCE_END)


def reads_as_term(text: str) -> bool:
    """A line that may start an entry inside a block: a title, or a short one ending in a note."""
    return is_title(text) or ("\n" not in text and len(text) <= MAX_TERM_LENGTH and TERM_NOTE.search(text) is not None)


def blank_lines_warning(name: str, lines: list[str], entries: list[GlossaryEntry]) -> list[str]:
    """A warning when the glossary's entries are not set apart by blank lines, as every official
    file sets them (a copy that lost them): each entry was then told from its term line alone."""
    warning = blank_lines_lost(name, len(entries), len(_blocks(lines)))
    return [warning] if warning else []


def blank_lines_lost(name: str, entries: int, runs: int) -> str | None:
    """The warning for a glossary (English or translated) of ``entries`` entries in ``runs`` runs
    of lines between blank lines, when fewer than two entries a run says its blank lines were lost."""
    if entries < 20 or runs * 2 > entries:
        return None
    return (
        f"{name}: the glossary's {entries} entries are not set apart by blank lines ({runs} runs of lines):"
        " each was told from its term line alone; a term that reads like a sentence was read into the entry before it"
    )


def split_fused_terms(lines: list[str]) -> tuple[list[str], list[tuple[int, str]]]:
    """The glossary's lines with each term line that holds its first numbered definition split in
    two, and (index in ``lines``, term) of each split, for the warning that tells of the repair.

    Only where the entry goes on with "2. ": that tells a numbered definition from a term that
    merely ends in a 1 followed by a sentence.
    """
    split: list[str] = []
    repairs: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        match = FUSED_FIRST_DEFINITION.fullmatch(line)
        if match and is_title(match["term"]) and _next_text(lines, index).startswith("2. "):
            split.extend((match["term"], match["definition"]))
            repairs.append((index, match["term"]))
        else:
            split.append(line)
    return split, repairs


def _next_text(lines: list[str], index: int) -> str:
    return next((line.strip() for line in lines[index + 1:] if line.strip()), "")


def parse_glossary(name: str, lines: list[str]) -> list[GlossaryEntry]:
    terms: list[tuple[str, list[str]]] = []
    for block in _blocks(lines):
        if terms and (block[0][0].isspace() or len(block) == 1):
            # Older files continue a definition over blank lines: indented paragraphs, and
            # one-line subheadings of a table ("Expansions and Editions" under Expansion Symbol).
            terms[-1][1].extend(line.strip() for line in block)
            continue
        if len(block) == 1:
            raise ParseError(f"{name}: glossary term {block[0].strip()!r} has no definition")
        terms.extend(_split_entries(block))
    if not terms:
        raise ParseError(f"{name}: the glossary is empty")
    entries = []
    for term, definition in terms:
        text = "\n".join(definition)
        entries.append(GlossaryEntry(term=term, text=text, refs=english_cr_refs(text)))
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
            and reads_as_term(line)
            and definition[-1].endswith(SENTENCE_END)
            and position + 1 < len(block)
        )
        if starts_entry:
            entries.append((line.strip(), []))
        else:
            definition.append(line.strip())
    return entries


