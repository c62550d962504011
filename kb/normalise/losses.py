"""Symbols that vanished when a page was rendered to text, and putting them back.

Page captures drop the images Gatherer-style sites use for symbols, leaving sentences such as
"a mana ability with in the cost" ({T} vanished) or "will pay for or one mana" ({1} vanished).
Detection works on the shape of the sentence only and is deliberately conservative: each
pattern is a construction that English rulings never use without a symbol in the gap.
"""
from __future__ import annotations

import os
import re

from kb.normalise.text import clean_text, punctuation_twins

# Each pattern matches the words around a gap where a symbol must have stood.
GAP_PATTERNS: list[re.Pattern[str]] = [
    # "an ability with {T} in the cost" / "with {2} in its activation cost"
    re.compile(r"\bwith\s+in\s+(?:the|its|their|that\s+ability's)\s+(?:activation\s+|mana\s+|total\s+)?costs?\b", re.I),
    # "pay for {1} or one mana of …": a mana payment alternative with its first half missing
    re.compile(r"\bfor\s+or\s+(?:one|two|three|\d+)\s+mana\b", re.I),
    # "Add {G} or {U}." → "Add  or ."; "Add {C}." → "Add ."
    re.compile(r"\badds?\s+(?:or|and)\s*[.,;]", re.I),
    re.compile(r"\badds?\s*[.;]", re.I),
    # "costs {1} less/more to cast" keeps its sense without the symbol, so it is not used; but
    # "costs {1}{U} less" losing both symbols leaves "costs  less" with a double space.
    re.compile(r"\bcosts?\s{2,}(?:less|more)\b", re.I),
    # A quoted ability whose cost vanished: "{T}: Draw" → ": Draw", "{1}, {T}:" → ", :"
    re.compile(r"[\"“]\s*[,:]\s+[A-Z]"),
    re.compile(r"(?<![\w)\]])\s,\s*:"),
    # "{X} is …" / "where {X} is" lose their subject: "where is the number"
    re.compile(r"\bwhere\s+is\s+the\b", re.I),
]
# A word each pattern cannot match without: checking for it first is far cheaper than running
# the pattern, and this runs on every ruling of a bulk file.
PATTERN_TRIGGERS: list[tuple[tuple[str, ...], re.Pattern[str]]] = list(
    zip(
        [("with",), ("for",), ("add",), ("add",), ("cost",), ('"', "\u201c"), (":",), ("where",)],
        GAP_PATTERNS,
        strict=True,
    )
)
# Tighter: what each pattern's match must contain once the text is lowered and every run of
# white space is one space (``_squeezed``). Common words ("with", "for", "add", a colon) still
# ran the patterns on most rulings, and Python's case-blind patterns scan slowly: a tenth of a
# bulk import. Exact for every text without a character the case-blind patterns equate with
# an ASCII letter (CASE_TWINS): those are checked with the word triggers only.
PATTERN_NEEDLES: list[tuple[str, ...]] = [
    ("with in ",),
    ("for or ",),
    ("add or", "adds or", "add and", "adds and"),
    ("add.", "add;", "add .", "add ;", "adds.", "adds;", "adds .", "adds ;"),
    ("cost less", "costs less", "cost more", "costs more"),
    ('",', '":', '" ,', '" :', "\u201c,", "\u201c:", "\u201c ,", "\u201c :"),
    (" ,:", " , :"),
    ("where is the",),
]
# Non-ASCII characters that case-blind patterns match to an ASCII letter (İ ı ſ K: i, i, s, k);
# İ is also the one character that lowers to two.
CASE_TWINS = ("\u0130", "\u0131", "\u017f", "\u212a")


def _anchored(needles: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``needles`` as (anchor, tails): the needles that start alike share their longest common
    start as the anchor, each needle that anchor followed by one of the tails."""
    by_first: dict[str, list[str]] = {}
    for needle in needles:
        by_first.setdefault(needle[0], []).append(needle)
    anchored = []
    for alike in by_first.values():
        anchor = os.path.commonprefix(alike)
        anchored.append((anchor, tuple(needle[len(anchor):] for needle in alike)))
    return tuple(anchored)


# The needles again, each pattern's found by one scan for their anchor and, where it occurs,
# one ``startswith`` of the tails: a word trigger and then a scan per needle took 11.6 µs a
# ruling of the generated 100k corpus, this 8.4 (no pattern ran on any of them).
ANCHORED_CHECKS = [
    (anchor, tails, pattern)
    for needles, pattern in zip(PATTERN_NEEDLES, GAP_PATTERNS, strict=True)
    for anchor, tails in _anchored(needles)
]
EVIDENCE_MARGIN = 25
BRACED = re.compile(r"(\{[^{}\s]{1,12}\})")


def _fragment(text: str, start: int, end: int) -> str:
    """The match with a few whole words of context either side, spaces collapsed."""
    left = text.rfind(" ", 0, max(0, start - EVIDENCE_MARGIN)) + 1 if start > EVIDENCE_MARGIN else 0
    right = text.find(" ", min(len(text), end + EVIDENCE_MARGIN))
    return " ".join(text[left : right if right != -1 else len(text)].split())


def detect_dropped_symbols(text: str) -> list[str]:
    """Fragments of ``text`` (with some context) where a symbol seems to have vanished.

    Empty when nothing suspicious is found. A text that still holds braced symbols can be
    checked too: only the gaps are reported.
    """
    lowered = text.lower()
    evidence: list[str] = []
    if text.isascii() or not any(twin in text for twin in CASE_TWINS):
        squeezed = _squeezed(lowered)
        matched: list[re.Pattern[str]] = []
        # A pattern with two anchors (both kinds of quote) runs once.
        for anchor, tails, pattern in ANCHORED_CHECKS:
            at = squeezed.find(anchor)
            while at != -1:
                if squeezed.startswith(tails, at + len(anchor)):
                    if pattern not in matched:
                        matched.append(pattern)
                        evidence.extend(_fragment(text, m.start(), m.end()) for m in pattern.finditer(text))
                    break
                at = squeezed.find(anchor, at + 1)
        return evidence
    for triggers, pattern in PATTERN_TRIGGERS:
        if _holds_one(lowered, triggers):
            evidence.extend(_fragment(text, m.start(), m.end()) for m in pattern.finditer(text))
    return evidence


def _holds_one(text: str, needles: tuple[str, ...]) -> bool:
    for needle in needles:  # a plain loop: a generator per pattern per ruling cost more
        if needle in text:
            return True
    return False


def _squeezed(text: str) -> str:
    """Every run of white space as one space, at the ends too (``\\s`` and ``str.split`` agree
    on what white space is)."""
    # The one printable white space character is the plain space: most texts are left as they
    # are without splitting them into words (that was most of the cost).
    if text.isprintable() and "  " not in text:
        return text
    squeezed = " ".join(text.split())
    if text[:1].isspace():
        squeezed = " " + squeezed
    if text[-1:].isspace() and squeezed != " ":
        squeezed += " "
    return squeezed


def _segment_pattern(segment: str) -> str:
    """A regex for one stretch of reference text, flexible about spacing only."""
    words = segment.split()
    return r"\s+".join(re.escape(word) for word in words)


def restore_from_reference(broken: str, reference: str) -> tuple[str, list[str]] | None:
    """``broken`` with the symbols it lost put back, using ``reference`` (the same ruling intact).

    Returns ``(restored_text, missing_symbols)`` when ``reference`` is the same text with
    symbols and ``broken`` equals it word for word once those symbols are taken out (quotes,
    dashes and spacing may differ; ``broken`` keeps its own). None when the texts differ in
    any word, or when nothing is missing.
    """
    pieces = BRACED.split(clean_text(reference))
    texts = pieces[0::2]
    symbols = pieces[1::2]
    if not symbols:
        return None
    # Adjacent symbols ("{G}{U}") leave empty stretches between them: group them into one gap.
    gaps: list[list[str]] = []
    segments: list[str] = [texts[0]]
    for symbol, following in zip(symbols, texts[1:], strict=True):
        if gaps and not segments[-1].strip():
            gaps[-1].append(segments.pop() + symbol)
        else:
            gaps.append([symbol])
        segments.append(following)
    pattern = r"\s*"
    for index, segment in enumerate(segments):
        pattern += f"({_segment_pattern(punctuation_twins(segment))})"
        if index < len(gaps):
            # Where the reference has a space beside the symbol, the broken text must still
            # have one: "within" is another word, not "with {T} in" without its symbol.
            spaced = segment[-1:].isspace() or segments[index + 1][:1].isspace()
            pattern += r"\s+" if spaced and segment.strip() and segments[index + 1].strip() else r"\s*"
    pattern += r"\s*"
    target = clean_text(broken)
    match = re.fullmatch(pattern, punctuation_twins(target))
    if match is None:
        return None
    restored: list[str] = []
    for index, segment in enumerate(segments):
        start, end = match.span(index + 1)
        restored.append(target[start:end])
        if index < len(gaps):
            before = " " if segment[-1:].isspace() else ""
            after = " " if segments[index + 1][:1].isspace() else ""
            restored.append(before + "".join(gaps[index]) + after)
    return "".join(restored).strip(), list(symbols)
