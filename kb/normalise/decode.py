"""Turn the bytes of a text document into clean text, choosing the encoding deliberately.

Official Comprehensive Rules files have been published in ASCII, Mac Roman, Windows-1252, CP437,
UTF-16 (BE and LE, with and without a BOM) and UTF-8 (with a BOM), with CRLF, bare CR and
``\\r\\r\\n`` line endings. A wrong single-byte guess does not fail: it silently gives other
letters ("Dandƒn" instead of "Dandân"), so single-byte candidates are compared on what they make
of the file's high bytes and on phrases that real files are known to contain.
"""
from __future__ import annotations

import codecs
import re
import unicodedata
from functools import lru_cache

from kb.normalise.mojibake import describe_double_encoding, undo_double_encoding
from kb.records import ParseError, QualityIssue, first_few

# Phrases real CR files contain outside ASCII (card names in the Arabian Nights list, marks).
DEFAULT_KNOWN_PHRASES: tuple[str, ...] = (
    "Dandân",
    "Ma’rûf",
    "Ma'rûf",
    "Ghazbán",
    "Junún",
    "Khabál",
    "™",
    "®",
)

# Tried in this order; on equal scores the earlier one wins (Windows-1252 is the most common).
SINGLE_BYTE_CANDIDATES: tuple[str, ...] = ("cp1252", "mac_roman", "cp437", "latin-1")

# \r\r\n comes from Word's page breaks: it ends one line, it is not a blank line. A form feed
# (a page break) or a vertical tab beside a line break is part of it (a blank line between a
# glossary term and its definition refused the file: a code review).
LINE_BREAK = re.compile(r"[\x0b\x0c]*(?:\r\r\n|\r\n|\r|\n)[\x0b\x0c]*")
# Within a line, one is a space: kept, it reached a published rule's text (a review of damaged
# input); read as a break, it split the rule and moved every later line's number.
PAGE_BREAK_IN_LINE = re.compile(r"[\x0b\x0c]+")

HIGH_BYTE = re.compile(rb"[\x80-\xff]")
TYPOGRAPHIC_PUNCTUATION = frozenset("’‘“”„‚—–…•·«»")
MARKS = frozenset("™®©")
PHRASE_BONUS = 50
# UTF-8 with a few bytes that are not: each such byte is read alone (as Windows-1252), never
# the whole file in a single-byte encoding, and the document says so (a quality issue).
REPAIRED_UTF8 = "utf-8 (repaired)"
# Windows-1252 with a few of the five bytes it leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D):
# each read as U+FFFD, the rest as Windows-1252, and the document says so (a quality issue). One
# stray 0x9D made the 2014 CR Mac Roman, its 2,083 apostrophes "í" in 919 rules, with no word
# (a review of damaged input).
REPAIRED_CP1252 = "cp1252 (repaired)"
CP1252_UNDEFINED = re.compile(rb"[\x81\x8d\x8f\x90\x9d]")
# What each undefined byte costs the repaired reading: as much as a control character, so that a
# real Mac Roman file, where those bytes are letters, stays Mac Roman.
UNDEFINED_BYTE_PENALTY = 20.0
# Appended to the encoding of a text whose characters were found encoded twice, and read as the
# characters they stand for (kb.normalise.mojibake).
DOUBLE_ENCODED = " (double-encoded, repaired)"
LONE_SURROGATE = re.compile("[\udc80-\udcff]")

# Share of control characters above which bytes are not text whatever the encoding.
MAX_CONTROL_SHARE = 0.01
ALLOWED_CONTROLS = frozenset("\t\n\r\x0c\x0b")
# Unicode's control characters (category Cc: U+0000-U+001F and U+007F-U+009F) but the allowed
# ones, as one character class: counting them char by char through unicodedata took ~14 ms a
# document (3 s of reading the 115-edition CR archive).
REFUSED_CONTROL = re.compile(
    "[" + "".join(re.escape(chr(code)) for code in [*range(0x20), *range(0x7F, 0xA0)] if chr(code) not in ALLOWED_CONTROLS) + "]"
)


def decode_text(
    data: bytes, name: str = "<bytes>", known_phrases: tuple[str, ...] = DEFAULT_KNOWN_PHRASES
) -> tuple[str, str]:
    """Decode ``data`` to NFC text with ``\\n`` line ends and no BOM; return (text, encoding).

    The encoding is one of "utf-8-sig", "utf-16-be", "utf-16-le", "ascii", "utf-8" or a single-byte
    codec name from SINGLE_BYTE_CANDIDATES. Raises ParseError naming ``name`` when the bytes are
    not text in any of these encodings.
    """
    text, encoding = _decode_raw(data, name, known_phrases)
    if encoding not in SINGLE_BYTE_CANDIDATES and encoding != REPAIRED_CP1252:
        # Valid UTF-8 whose characters were encoded twice: no decoder fails on it. Undone before
        # the check for binary data: read through Latin-1, each "’" holds two control characters.
        repaired = undo_double_encoding(text)
        if repaired != text:
            text, encoding = repaired, encoding + DOUBLE_ENCODED
    _refuse_binary(text, name)
    text = LINE_BREAK.sub("\n", text.lstrip("\ufeff"))
    if "\x0b" in text or "\x0c" in text:
        text = PAGE_BREAK_IN_LINE.sub(" ", text)
    return unicodedata.normalize("NFC", text), encoding


def describe_decoding(data: bytes, name: str, encoding: str) -> list[str]:
    """What reading ``data`` as ``encoding`` (from ``decode_text``) had to repair, one line each:
    the document's quality issues (a CR's warnings)."""
    return [line for _kind, line in _repairs(data, name, encoding)]


def decoding_issues(data: bytes, name: str, encoding: str) -> list[QualityIssue]:
    """``describe_decoding`` as the quality issues of a rulings page."""
    return [QualityIssue(kind, line) for kind, line in _repairs(data, name, encoding)]


def _repairs(data: bytes, name: str, encoding: str) -> list[tuple[str, str]]:
    found = []
    if encoding.startswith(REPAIRED_UTF8):
        found.append(("invalid-utf8", describe_repairs(data, name)))
    if encoding == REPAIRED_CP1252:
        found.append(("invalid-cp1252", describe_undefined_bytes(data, name)))
    if encoding.endswith(DOUBLE_ENCODED):
        text, _ = _decode_raw(data, name, DEFAULT_KNOWN_PHRASES)
        found.append(("double-encoded", describe_double_encoding(LINE_BREAK.sub("\n", text.lstrip("\ufeff")), name)))
    return found


def _decode_raw(data: bytes, name: str, known_phrases: tuple[str, ...]) -> tuple[str, str]:
    if data.startswith(codecs.BOM_UTF8):
        body = data[len(codecs.BOM_UTF8):]
        try:
            return body.decode("utf-8"), "utf-8-sig"
        except UnicodeDecodeError as error:
            # A few damaged bytes in a file that says it is UTF-8 (the official CR files open with
            # a BOM) are repaired as in one that does not say so, and named (a docs review).
            repaired = _mostly_utf8(body)
            if repaired is None:
                raise ParseError(f"{name}: not valid utf-8 at byte {error.start}") from None
            return repaired, REPAIRED_UTF8
    if data.startswith(codecs.BOM_UTF16_BE):
        return _strict(data[2:], "utf-16-be", name), "utf-16-be"
    if data.startswith(codecs.BOM_UTF16_LE):
        return _strict(data[2:], "utf-16-le", name), "utf-16-le"
    utf16 = _utf16_by_nul_pattern(data)
    if utf16:
        return _strict(data, utf16, name), utf16
    if b"\x00" in data:
        raise ParseError(f"{name}: contains NUL bytes but is not UTF-16; not a text file")
    if data.isascii():
        return data.decode("ascii"), "ascii"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    repaired = _mostly_utf8(data)
    if repaired is not None:
        return repaired, REPAIRED_UTF8
    return _best_single_byte(data, name, known_phrases)


def _mostly_utf8(data: bytes) -> str | None:
    """``data`` as UTF-8 with its invalid bytes read one by one, when valid UTF-8 sequences
    outnumber invalid bytes (a UTF-8 file with a few damaged bytes); None otherwise."""
    text = data.decode("utf-8", errors="surrogateescape")
    invalid = len(LONE_SURROGATE.findall(text))
    valid_high = sum(1 for char in text if char > "\x7f") - invalid
    if valid_high < max(invalid, 1):
        return None
    return LONE_SURROGATE.sub(lambda m: bytes([ord(m.group(0)) - 0xDC00]).decode("cp1252", errors="replace"), text)


def describe_repairs(data: bytes, name: str) -> str:
    """One line: how many bytes of a mostly-UTF-8 file were not UTF-8, and on which lines."""
    text = LINE_BREAK.sub("\n", data.decode("utf-8", errors="surrogateescape"))
    positions = [m.start() for m in LONE_SURROGATE.finditer(text)]
    shown = first_few(_line_numbers(text, positions))
    return (
        f"{name}: {len(positions)} bytes are not valid UTF-8 (lines {shown}); each was read alone as "
        "Windows-1252, the rest of the file as UTF-8: check those lines"
    )


def describe_undefined_bytes(data: bytes, name: str) -> str:
    """One line: how many bytes of a Windows-1252 file that encoding leaves undefined, and on
    which lines."""
    text = LINE_BREAK.sub("\n", data.decode("latin-1"))
    positions = [m.start() for m in re.finditer("[\x81\x8d\x8f\x90\x9d]", text)]
    lines = _line_numbers(text, positions)
    return (
        f"{name}: {len(positions)} {'byte is' if len(positions) == 1 else 'bytes are'} undefined in Windows-1252"
        f" (line{'' if len(lines) == 1 else 's'} {first_few(lines)}); each was read as"
        " U+FFFD (�), the rest of the file as Windows-1252: check those lines"
    )


def _line_numbers(text: str, positions: list[int]) -> list[int]:
    """The lines (from 1) of the first 200 ``positions`` of ``text``, each once."""
    return sorted({text.count("\n", 0, position) + 1 for position in positions[:200]})


def _strict(data: bytes, encoding: str, name: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise ParseError(f"{name}: not valid {encoding} at byte {error.start}") from None


def _utf16_by_nul_pattern(data: bytes) -> str | None:
    """'utf-16-be'/'utf-16-le' when NULs sit on one parity only, as in mostly-ASCII UTF-16."""
    sample = data[:4096]
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even_nuls = sample[0 : pairs * 2 : 2].count(0)
    odd_nuls = sample[1 : pairs * 2 : 2].count(0)
    if even_nuls > pairs * 0.3 and odd_nuls < pairs * 0.02:
        return "utf-16-be"
    if odd_nuls > pairs * 0.3 and even_nuls < pairs * 0.02:
        return "utf-16-le"
    return None


def _best_single_byte(data: bytes, name: str, known_phrases: tuple[str, ...]) -> tuple[str, str]:
    best: tuple[float, str, str] | None = None
    for encoding in SINGLE_BYTE_CANDIDATES:
        penalty = 0.0
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            if encoding != "cp1252":
                continue
            # cp1252 leaves five bytes undefined: read with those as U+FFFD, and said.
            text, encoding = data.decode(encoding, errors="replace"), REPAIRED_CP1252
            penalty = UNDEFINED_BYTE_PENALTY * len(CP1252_UNDEFINED.findall(data))
        score = _high_byte_score(data, text) + PHRASE_BONUS * sum(p in text for p in known_phrases) - penalty
        if best is None or score > best[0]:
            best = (score, encoding, text)
    if best is None:  # latin-1 decodes anything, so this is a safeguard only
        raise ParseError(f"{name}: no candidate encoding decodes these bytes")
    return best[2], best[1]


def _high_byte_score(data: bytes, text: str) -> float:
    """How plausible the characters a codec gives for the bytes >= 0x80 are, in their context.

    Single-byte codecs map byte i to character i, so positions in ``data`` and ``text`` agree.
    Most files hold only a handful of high bytes among ASCII, so each occurrence counts.
    """
    score = 0.0
    for match in HIGH_BYTE.finditer(data):
        index = match.start()
        before = text[index - 1] if index else " "
        after = text[index + 1] if index + 1 < len(text) else " "
        score += _char_plausibility(before, text[index], after)
    return score


@lru_cache(maxsize=4096)
def _char_plausibility(before: str, char: str, after: str) -> float:
    category = unicodedata.category(char)
    if category in ("Cc", "Cn", "Co"):
        return -20.0  # C1 controls and unassigned code points do not occur in real text
    if char == "\u00a0":
        return -6.0 if before.isalpha() and after.isalpha() else 0.0
    if char in TYPOGRAPHIC_PUNCTUATION:
        return _punctuation_plausibility(before, char, after)
    if char in MARKS:
        return 3.0 if before.isalnum() or before in ")”\"" else 1.0
    if category.startswith("L"):
        return _letter_plausibility(before, char, after)
    if "\u2500" <= char <= "\u259f" or category == "Sm":
        return -5.0  # box drawing and maths symbols (CP437, Mac Roman) do not occur in prose
    return -1.0


def _punctuation_plausibility(before: str, char: str, after: str) -> float:
    if char in "’‘" and before.isalpha() and after.isalpha():
        return 3.0  # don’t
    if char in "“‘„‚" and not before.isalnum() and (after.isalnum() or after in "[{("):
        return 3.0
    if char in "”’" and (before.isalnum() or before in ".,!?)]}") and not after.isalnum():
        return 3.0
    if char in "—–":
        return 2.0
    return 0.0


def _letter_plausibility(before: str, char: str, after: str) -> float:
    score = 0.0
    if "\u00c0" <= char <= "\u00ff":
        score += 1.0  # the accented letters of Western European names
    elif char not in "ŒœŠšŽžŸ":
        score -= 3.0  # ƒ, Greek and the like
    if char.isupper() and before.islower():
        score -= 4.0  # "DandÉn"
    if char.islower() and after.isupper():
        score -= 2.0
    if before.isalpha() or after.isalpha():
        score += 1.0
    return score


def _refuse_binary(text: str, name: str) -> None:
    sample = text[:65536]
    if not sample:
        return
    controls = len(REFUSED_CONTROL.findall(sample))
    if controls > len(sample) * MAX_CONTROL_SHARE:
        raise ParseError(f"{name}: {controls} control characters in the first {len(sample)}; not text")
