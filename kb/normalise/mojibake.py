"""Text that was encoded as UTF-8 twice: "’" published as "â€™", "é" as "Ã©".

A file whose UTF-8 bytes were read as Windows-1252 (or Latin-1) and written out as UTF-8 again is
valid UTF-8, so no decoder fails on it: every non-ASCII character silently becomes two to four
others. Each such run is undone only when it is exactly that: the Windows-1252 (or Latin-1) bytes
of its characters are one valid UTF-8 sequence of a character such texts hold (Latin letters,
punctuation, symbols, CJK), so ordinary text ("à « » ¡", "Ä€") is never touched.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

from kb.records import first_few


def _reading(byte: int) -> str:
    """The character Windows-1252 reads ``byte`` as; Latin-1's for the five bytes it leaves
    undefined (a tool reading them so writes U+0081 and the like)."""
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return chr(byte)


def _readings(first: int, last: int) -> str:
    return "".join(re.escape(_reading(byte)) + re.escape(chr(byte)) for byte in range(first, last + 1))


def _run_pattern(continuation: str) -> re.Pattern[str]:
    return re.compile(
        f"[{_readings(0xC2, 0xDF)}]{continuation}"
        f"|[{_readings(0xE0, 0xEF)}]{continuation}{{2}}"
        f"|[{_readings(0xF0, 0xF4)}]{continuation}{{3}}"
    )


DOUBLE_ENCODED_RUN = _run_pattern(f"[{_readings(0x80, 0xBF)}]")
# Byte 0xA0 reads as a no-break space, which a parser's cleaning makes a plain one ("à" is
# "Ã\xa0", then "Ã "; "신" is "ì\x8b\xa0"): taken as 0xA0 only in a text that holds runs
# without it, so that "IRMÃ DE" in capitals stays as it is.
_SPACED_RUN = _run_pattern(f"[{_readings(0x80, 0xBF)} ]")
_BYTE_OF = {_reading(byte): byte for byte in range(0x80, 0x100)} | {chr(byte): byte for byte in range(0x80, 0x100)}
_SPACED_BYTE_OF = _BYTE_OF | {" ": 0xA0}

# The blocks of the characters texts of the game hold, in the languages they are printed in:
# Latin (with its accents and extensions), Greek and Cyrillic, general punctuation, letter-like
# symbols, arrows and shapes, CJK, kana and Hangul. A run that would mean a character of another
# script ("à\xa0«" reads as Samaritan U+082B) is ordinary text.
MEANT_RANGES = (
    ("\u00a0", "\u036f"), ("\u0370", "\u04ff"), ("\u1e00", "\u1eff"), ("\u2000", "\u2bff"),
    ("\u3000", "\u30ff"), ("\u3130", "\u318f"), ("\u3400", "\u9fff"), ("\uac00", "\ud7af"),
    ("\uff00", "\uffef"),
)


@dataclass(frozen=True)
class DoubleEncoded:
    position: int
    run: str
    meant: str


@lru_cache(maxsize=1 << 16)
def _meant(run: str, spaced: bool = False) -> str | None:
    """The one character ``run`` is the double encoding of, or None (``spaced``: a space stands
    for 0xA0). Cached: a text encoded twice repeats a few hundred runs thousands of times."""
    byte_of = _SPACED_BYTE_OF if spaced else _BYTE_OF
    try:
        char = bytes(byte_of[c] for c in run).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return None
    if len(char) != 1 or not any(first <= char <= last for first, last in MEANT_RANGES):
        return None
    return char


# Every run starts with the reading of a lead byte (0xC2-0xF4), the same in both encodings.
_LEAD = re.compile("[\u00c2-\u00f4]")
# ... and then of a continuation byte. Searched in the text's UTF-8, where the pair starts with
# byte 0xC3 (a search for it is a scan for one byte): a third of the time the three-way pattern
# takes on a printing's texts, and what a bulk file of 500k printings costs.
_LEAD_AND_CONTINUATION = re.compile(
    b"\xc3[\x82-\xb4](?:"
    + b"|".join(re.escape(char.encode()) for char in sorted({_reading(byte) for byte in range(0x80, 0xC0)} | {chr(byte) for byte in range(0x80, 0xC0)}))
    + b")"
)


def might_hold_runs(text: str) -> bool:
    """False when ``text`` holds no run encoded twice (without a space standing for 0xA0)."""
    return not text.isascii() and _LEAD_AND_CONTINUATION.search(text.encode("utf-8", "surrogatepass")) is not None


def _runs(text: str, pattern: re.Pattern[str], spaced: bool) -> list[DoubleEncoded]:
    found = []
    for match in pattern.finditer(text):
        meant = _meant(match.group(0), spaced)
        if meant is not None:
            found.append(DoubleEncoded(match.start(), match.group(0), meant))
    return found


def double_encoded_runs(text: str, spaced: bool = False) -> list[DoubleEncoded]:
    """Every run of ``text`` that is exactly the double encoding of one character. ``spaced``:
    the text comes from a document known to hold runs, so a space may stand for 0xA0 whether or
    not the text holds runs without it."""
    if not spaced:
        if not might_hold_runs(text):
            return []
        if not any(_meant(match.group(0)) for match in DOUBLE_ENCODED_RUN.finditer(text)):
            return []
    if not _LEAD.search(text):
        return []
    # A no-break space at the very end was stripped with the text's trailing spaces ("Realtà"
    # read "RealtÃ\xa0", then "RealtÃ"): matched against one put back, which no run keeps.
    return [
        replace(run, run=run.run[: len(text) - run.position]) if run.position + len(run.run) > len(text) else run
        for run in _runs(text + " ", _SPACED_RUN, True)
    ]


def undo_double_encoding(text: str, spaced: bool = False) -> str:
    """``text`` with each double-encoded run replaced by the character it meant (NFC)."""
    runs = double_encoded_runs(text, spaced)
    if not runs:
        return text
    parts, end = [], 0
    for run in runs:
        parts.append(text[end:run.position])
        parts.append(run.meant)
        end = run.position + len(run.run)
        if run.run.endswith(" ") and "\u00c0" <= run.meant <= "\u024f" and text[end:end + 1].isalnum():
            # "à une" became "Ã\xa0 une", cleaned to "Ã une": its space stood for both.
            parts.append(" ")
    parts.append(text[end:])
    return unicodedata.normalize("NFC", "".join(parts))


def describe_double_encoding(text: str, name: str) -> str:
    """One line: how many characters were found encoded twice, on which lines, as what."""
    runs = double_encoded_runs(text)
    lines = sorted({text.count("\n", 0, run.position) + 1 for run in runs[:200]})
    shown = first_few(lines)
    commonest = Counter((run.run, run.meant) for run in runs).most_common(3)
    examples = ", ".join(f"{run!r} → {meant!r}" for (run, meant), _ in commonest)
    return (
        f"{name}: {len(runs)} characters were encoded as UTF-8 twice (lines {shown}; {examples}); "
        "each was read as the character it stands for: check the source's encoding"
    )
