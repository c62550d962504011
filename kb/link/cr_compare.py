"""Rules in comparison form: folded typography, masked rule numbers, words, and their similarity.

What the CR pairing, diffs and traces compare: two texts that differ only in whitespace,
typography (curly quotes, dashes, _italics_) or the rule numbers they cite say the same thing.
Pure functions; a text is folded once however many comparisons read it.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from cydifflib import SequenceMatcher

from kb.records import CRDocument, Rule

# Rule numbers inside a text, masked before content comparison so that a renumbered
# cross-reference alone does not hide a move: a dotted number anywhere; a section's after "rule"
# or "rules", or as the next of a list of
# rules cited with their titles ('See rules 701.42, "Meld," and 729, "Merging with Permanents."':
# 729 → 730 in 2026-04-17 read as a change of wording, not of the numbers cited: a review).
NUMBER_IN_TEXT = re.compile(
    r"(?<![\w.])[1-9]\d{2}\.\d+[a-z]?(?:[-–][a-z])?(?![\w])|(?<=[Rr]ule )[1-9]\d{2}\b|(?<=[Rr]ules )[1-9]\d{2}\b"
    r"|(?<=[,\"”] and )[1-9]\d{2}(?=,\s*[\"“])|(?<=[,\"”] or )[1-9]\d{2}(?=,\s*[\"“])")
DOTTED_NUMBER = re.compile(r"(?<![\w.])[1-9]\d{2}\.\d+[a-z]?(?![\w])")
NUMBER_MASK = "#"
MAY_HOLD_NUMBER = re.compile(r"\d\.\d|[Rr]ules? \d|(?:and|or) [1-9]\d\d,")
# Typography is not content: 2014 switched to curly quotes and dropped "_Magic_" italics,
# and ranges went from "601.2e-g" to "601.2e–g"; files set in ASCII (2009, and 2019-01-25 among
# curly-quoted ones) print "--" for a dash and "(r)" for "®". Comparison folds these; display keeps them.
# (str.translate with a dict is slow on long texts; a few str.replace calls are not.)
TYPOGRAPHY = (
    ("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-"), ("‑", "-"), ("--", "-"),
    ("\u00a0", " "), ("(TM)", "™"), ("(tm)", "™"), ("(R)", "®"), ("(r)", "®"),
)
ITALICS = re.compile(r"(?<!\w)_(\S(?:[^_\n]*\S)?)_(?!\w)")
WORD = re.compile(r"\S+")


def rule_display_text(rule: Rule) -> str:
    """Title, text and examples of a rule as one text (what a reader sees under its number)."""
    return "\n".join(part for part in (rule.title or "", rule.text or "", *rule.examples) if part)


def collapse(text: str) -> str:
    """Whitespace runs as one space, typography folded: the comparison form of a text."""
    text = unicodedata.normalize("NFC", text)
    for printed, folded in TYPOGRAPHY:
        if printed in text:
            text = text.replace(printed, folded)
    if "_" in text:
        text = ITALICS.sub(r"\1", text)
    return " ".join(text.split())


def masked(text: str) -> str:
    """The text with every cited rule number replaced by ``#``."""
    if not MAY_HOLD_NUMBER.search(text):  # the masking pattern is slow; most texts cite nothing
        return text
    return NUMBER_IN_TEXT.sub(NUMBER_MASK, text)


@dataclass
class Entry:
    """A rule prepared for comparison."""

    rule: Rule
    index: int
    parts: tuple[str, str, tuple[str, ...]]  # title, text, examples in comparison form
    masked: str
    words: list[str]

    @property
    def number(self) -> str:
        return self.rule.number

    def cited(self) -> list[str]:
        """Dotted rule numbers the entry cites, in reading order."""
        title, text, examples = self.parts
        return DOTTED_NUMBER.findall(" ".join([title, text, *examples]))

    @cached_property
    def statement(self) -> list[str]:
        """Words of the title and text without the examples (all words if that leaves none)."""
        title, text = self.masked.split("\x1f")[:2]
        return WORD.findall(f"{title} {text}") or self.words

    def statement_words(self) -> list[str]:
        return self.statement

    @cached_property
    def word_set(self) -> frozenset[str]:
        return frozenset(self.words)

    @cached_property
    def word_counts(self) -> Counter[str]:
        return Counter(self.words)

    @cached_property
    def statement_counts(self) -> Counter[str]:
        return Counter(self.statement)


ASPECT_NAMES = ("title", "text", "examples")


def entry(rule: Rule, index: int = 0) -> Entry:
    """``rule`` in comparison form; ``index`` is its position in its document."""
    parts, masked_text, words = _comparison_form(rule.title or "", rule.text or "", tuple(rule.examples))
    return Entry(rule=rule, index=index, parts=parts, masked=masked_text, words=list(words))


def entries_of(document: CRDocument) -> dict[str, Entry]:
    """Each rule of ``document`` in comparison form, by number (a number printed twice: the last)."""
    return {rule.number: entry(rule, i) for i, rule in enumerate(document.rules)}


class HeldEntries:
    """``entries_of`` for documents that do not change while this is held: a history pairs each
    version twice (with the one before and the one after), and an entry's words, counts and word
    set, once read, serve both pairings."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[CRDocument, dict[str, Entry]]] = {}

    def __call__(self, document: CRDocument) -> dict[str, Entry]:
        held = self._held.get(id(document))
        if held is None or held[0] is not document:
            held = self._held[id(document)] = (document, entries_of(document))
        return held[1]

    def release(self, document: CRDocument) -> None:
        self._held.pop(id(document), None)


# Most rules read the same in consecutive versions, and a build compares each version twice
# (with the one before and the one after): folding a text once serves every comparison. One
# version's rules fit (3,294 at most); twice that cost a build of the snapshot 20 MB more and no time.
@lru_cache(maxsize=4096)
def _comparison_form(
    title: str, text: str, examples: tuple[str, ...]
) -> tuple[tuple[str, str, tuple[str, ...]], str, tuple[str, ...]]:
    title, text = collapse(title), collapse(text)
    folded_examples = tuple(collapse(example) for example in examples)
    masked_text = masked("\x1f".join([title, text, *folded_examples]))
    return (title, text, folded_examples), masked_text, tuple(WORD.findall(masked_text.replace("\x1f", " ")))


def similarity(old: Sequence[str], new: Sequence[str]) -> float:
    """Ratio of matching words (0..1) between two word lists."""
    if not old and not new:
        return 1.0
    return SequenceMatcher(None, old, new, autojunk=False).ratio()


def matched_words(old: Sequence[str], new: Sequence[str]) -> int:
    """How many words of the two lists ``difflib`` matches, in order."""
    return sum(block.size for block in SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks())


def containment(part: Sequence[str], whole: Sequence[str]) -> float:
    """Share of ``part``'s words that appear, in order, in ``whole`` (0..1)."""
    return matched_words(part, whole) / len(part) if part else 0.0


def shorter_held(old: Sequence[str], new: Sequence[str]) -> float:
    """The share of the shorter word list found, in order, in the longer (0..1): a rule that grew
    a clause (or lost one) keeps all of its words, whatever its ``similarity``."""
    if not old or not new:
        return 0.0
    return matched_words(old, new) / min(len(old), len(new))


def similarity_bound(old: Counter[str], new: Counter[str]) -> float:
    """An upper bound of ``similarity`` from word counts alone (difflib's ``quick_ratio``).

    Pairing compares thousands of candidates and keeps few; a candidate whose bound is already
    below what it must reach is skipped without the costly ratio, which changes no result."""
    total = old.total() + new.total()
    if not total:
        return 1.0
    return 2.0 * (old & new).total() / total


def aspects(old: Entry, new: Entry) -> list[str]:
    """What differs between two entries once whitespace and typography are folded."""
    found = [name for name, a, b in zip(ASPECT_NAMES, old.parts, new.parts, strict=True) if a != b]
    if found and old.masked == new.masked:
        found.append("numbers-only")
    return found


# A comparison digest: 8 bytes of each aspect's comparison form and 8 of the masked whole.
DIGEST_PART = 8


def comparison_digest(entry: Entry) -> bytes:
    """What ``aspects`` compares of an entry, as 32 bytes: its title, text and examples in
    comparison form and the masked whole, each hashed. Stored with a rule
    (``rule_comparisons.digest``), it lets two versions years apart be compared without folding
    every text of both again (``digest_aspects``)."""
    return _digest(entry.parts, entry.masked)


# Most rules read the same in consecutive versions: a build digests each of their texts once.
# Room for two versions (3,294 rules at most): at one version's size a repeat is found only while
# the newest fits (a review: 3,200 kept, 10,966 digests instead of 7,130 for the snapshot).
@lru_cache(maxsize=8192)
def _digest(parts: tuple[str, str, tuple[str, ...]], masked_text: str) -> bytes:
    title, text, examples = parts
    # Folded text holds no "\x1d" or "\x1e" (whitespace to str.split): joined and counted, two
    # lists of examples are one text only if they are the same ("" alone is not none: a review).
    listed = f"{len(examples)}\x1d" + "\x1e".join(examples)
    return b"".join(
        hashlib.blake2b(part.encode(), digest_size=DIGEST_PART).digest() for part in (title, text, listed, masked_text)
    )


# Most entries read the same in consecutive versions: a build digests each text once.
@lru_cache(maxsize=4096)
def glossary_digest(text: str) -> bytes:
    """A glossary entry's text as a diff compares it, as 16 bytes: its comparison form and that
    form with cited rule numbers masked, each hashed (``glossary_comparisons.digest``: two
    versions' glossaries are compared without reading or folding their texts again)."""
    folded = collapse(text)
    return b"".join(
        hashlib.blake2b(part.encode(), digest_size=DIGEST_PART).digest() for part in (folded, masked(folded))
    )


def digest_aspects(old: bytes, new: bytes) -> list[str]:
    """``aspects`` of two entries from their ``comparison_digest``s."""
    found = [
        name for i, name in enumerate(ASPECT_NAMES)
        if old[i * DIGEST_PART : (i + 1) * DIGEST_PART] != new[i * DIGEST_PART : (i + 1) * DIGEST_PART]
    ]
    if found and old[3 * DIGEST_PART :] == new[3 * DIGEST_PART :]:
        found.append("numbers-only")
    return found


def same_content(old: Rule, new: Rule) -> bool:
    """True when two rules say the same once whitespace and typography are folded."""
    return entry(old).parts == entry(new).parts


def same_but_numbers(old: Rule, new: Rule) -> bool:
    """True when two rules say the same but for the rule numbers they cite (which follow the
    renumbering of the rules cited: "see rule 701.47a" in Connive is "701.50a" today)."""
    return entry(old).masked == entry(new).masked
