"""The logical lines of an English CR text file: one paragraph a line, however it was printed.

Most official files put each paragraph on one line. Some editions (late 2003, early 2004) and
text copied out of a PDF are hard-wrapped: a paragraph runs over several lines, each wrapped line
but the last ending in a space (or in a hyphen or dash inside a compound: "State-" / "Based").
Copies taken from a web page or a PDF may indent every line. Both are undone here, keeping the
original line number of each logical line for messages.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# A file is hard-wrapped when this share of its non-blank lines end in a space and run on into
# the next line. Unwrapped files have a handful such lines (0–5 in 2003–2026); wrapped ones > 40%.
WRAPPED_SHARE = 0.2
# A line is wrapped only if it reaches near the wrap width: "Enchant Creature " (a glossary term
# with a stray space) is not, whatever its trailing space says.
WRAPPED_MIN_WIDTH = 0.6
NUMBER_START = re.compile(r"^[1-9]\d{2}\.\s?\d")
DASHES = ("-", "—", "–")


@dataclass
class Lines:
    """The decoded document as logical lines, with the 1-based line number each starts on."""

    name: str
    lines: list[str]
    numbers: list[int]
    warnings: list[str] = field(default_factory=list)

    def find(self, heading: str, start: int, stop: int | None = None) -> int | None:
        stop = len(self.lines) if stop is None else stop
        for index in range(start, stop):
            if self.lines[index].strip() == heading:
                return index
        return None

    def at(self, index: int) -> str:
        """'line 321' for messages: the physical line where logical line ``index`` starts."""
        return f"line {self.numbers[index]}"


ADDRESS_START = re.compile(r"\(?(?:www\.|https?://)")


def logical_lines(text: str, name: str) -> Lines:
    physical = text.split("\n")
    warnings: list[str] = []
    physical = _dedent(physical, warnings)
    if not _is_hard_wrapped(physical):
        return Lines(name, [line.rstrip() for line in physical], list(range(1, len(physical) + 1)), warnings)
    lengths = sorted(len(line.rstrip()) for line in physical if line.strip())
    min_wrapped = WRAPPED_MIN_WIDTH * lengths[int(len(lengths) * 0.9)]
    lines: list[str] = []
    numbers: list[int] = []
    joined = 0
    previous_raw = ""
    for number, raw in enumerate(physical, start=1):
        # A short line goes on only into an address: "They can be found at" / "www.wizards.com/…"
        # (a short line is otherwise a heading or a glossary term, "Enchant Creature " over its text).
        goes_on = len(previous_raw.rstrip()) >= min_wrapped or ADDRESS_START.match(raw)
        separator = _run_on(previous_raw, raw) if goes_on else None
        if separator is None:
            lines.append(raw.rstrip())
            numbers.append(number)
        else:
            joined += 1
            if NUMBER_START.match(raw):
                # "See rule\n419.8 …": the number is part of a sentence, not rule 419.8.
                warnings.append(
                    f"line {number}: wrapped line {raw.strip()[:30]!r} joined to the paragraph of line "
                    f"{numbers[-1]}, not read as a rule"
                )
            lines[-1] = lines[-1].rstrip() + separator + raw.strip()
        previous_raw = raw
    warnings.insert(0, f"line 1: hard-wrapped text: {joined} wrapped lines joined into their paragraphs")
    return Lines(name, lines, numbers, warnings)


def _dedent(lines: list[str], warnings: list[str]) -> list[str]:
    """Every non-blank line indented alike (a copy out of a PDF or web page): indentation removed."""
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    common = min(indents, default=0)
    if common == 0:
        return lines
    warnings.append(f"line 1: every line indented by {common} characters; indentation removed")
    return [line[common:] if line.strip() else "" for line in lines]


def _is_hard_wrapped(lines: list[str]) -> bool:
    non_blank = sum(1 for line in lines if line.strip())
    run_on = sum(
        1
        for line, following in zip(lines, lines[1:], strict=False)
        if line.strip() and line != line.rstrip() and following.strip()
    )
    return non_blank > 0 and run_on / non_blank >= WRAPPED_SHARE


def _run_on(previous: str, line: str) -> str | None:
    """How ``line`` joins ``previous`` when it continues its paragraph; None when it does not.

    An indented line starts a continuation paragraph and "Example:" a new one, as in unwrapped
    editions; otherwise a line continues the one before if that one stopped mid-sentence (a
    trailing space) or mid-compound ("State-", "resolves—").
    """
    if not previous.strip() or not line.strip() or line[0].isspace() or line.startswith("Example"):
        return None
    if previous != previous.rstrip():
        return " "
    if previous.endswith(DASHES) and (line[0].isalnum() or line[0] in "\"“"):
        return ""
    return None
