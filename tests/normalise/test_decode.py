"""kb.normalise.decode on the real CR files: encodings, line endings, card names, refusal of non-text."""
from __future__ import annotations

import random
import unicodedata
from pathlib import Path

import pytest

from kb.normalise.decode import REPAIRED_CP1252, REPAIRED_UTF8, decode_text, decoding_issues, describe_decoding
from kb.records import ParseError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cr"


def read(relative: str) -> bytes:
    return (FIXTURES / relative).read_bytes()


# file -> (encoding reported, number of "\n" in the decoded text)
# Line counts: CRLF, bare CR and CRCRLF each end exactly one line (2003: 1,924 CRLF + 303 CR +
# 6 CRCRLF; 2026-01-16: 9,233 CR + 12 CRCRLF; 2026-04-17: 9,323 CRCRLF).
EXPECTED = {
    "en-raw/2003-03-15.txt": ("ascii", 2233),
    "en-raw/2006-02-01.txt": ("ascii", 3512),
    "en-raw/2013-04-29.txt": ("utf-16-be", 6055),
    "en-raw/2014-09-26.txt": ("cp1252", 6242),
    "en-raw/2019-01-25.txt": ("cp437", 7076),
    "en-raw/2022-02-18.txt": ("utf-8-sig", 7888),
    "en-raw/2022-04-29.txt": ("utf-8-sig", 7954),
    "en-raw/2024-02-06.txt": ("utf-8-sig", 8727),
    "en-raw/2025-02-07.txt": ("utf-8-sig", 8991),
    "en-raw/2026-01-16.txt": ("utf-8-sig", 9245),
    "en-derived/2025-02-07-cleaned-lf.txt": ("utf-8", 8990),
    "en-derived/2026-04-17-bom-crcrlf.txt": ("utf-8-sig", 9323),
}


@pytest.fixture(scope="module")
def decoded() -> dict[str, tuple[str, str]]:
    return {name: decode_text(read(name), name) for name in EXPECTED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_encoding_and_line_count(decoded: dict[str, tuple[str, str]], name: str) -> None:
    text, encoding = decoded[name]
    assert (encoding, text.count("\n")) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_clean_text(decoded: dict[str, tuple[str, str]], name: str) -> None:
    text, _ = decoded[name]
    assert "\r" not in text
    assert "\ufffd" not in text
    assert "\ufeff" not in text
    assert text.startswith(("Magic: The Gathering Comprehensive Rules\n", "_Magic: The Gathering_"))
    assert unicodedata.is_normalized("NFC", text)


def test_cp437_card_names_2019(decoded: dict[str, tuple[str, str]]) -> None:
    text, _ = decoded["en-raw/2019-01-25.txt"]
    for name in ("Dandân", "Ma'rûf", "Ghazbán", "Junún", "Khabál", "El-Hajjâj"):
        assert name in text
    # What Windows-1252 would have made of the same bytes.
    assert "Dandƒn" not in text and "Ma'r–f" not in text


def test_cp1252_typography_2014(decoded: dict[str, tuple[str, str]]) -> None:
    text, _ = decoded["en-raw/2014-09-26.txt"]
    # One character per 0x92 / 0x93 / 0x94 / 0x97 byte of the file.
    assert (text.count("’"), text.count("“"), text.count("”"), text.count("—")) == (2083, 1706, 1706, 63)
    assert "Magic: The Gathering® game" in text
    assert "Dandân" in text


@pytest.mark.parametrize("stray", [b"\x9d", b"\x81"])
def test_a_byte_windows_1252_leaves_undefined_is_repaired_and_named_not_another_encoding(stray: bytes) -> None:
    # One stray 0x9D in the 2014 file made it Mac Roman: 2,083 apostrophes "í", 919 rules, no
    # word of it (a review of damaged input).
    data = read("en-raw/2014-09-26.txt").replace(b"100.1. These", b"100.1." + stray + b" These", 1)
    text, encoding = decode_text(data, "cr.txt")
    assert encoding == REPAIRED_CP1252
    assert (text.count("’"), text.count("\ufffd"), "cardís" in text) == (2083, 1, False)
    assert describe_decoding(data, "cr.txt", encoding) == [
        "cr.txt: 1 byte is undefined in Windows-1252 (line 172); each was read as U+FFFD (�), the rest of the file as"
        " Windows-1252: check those lines"]
    # Where those bytes are letters, the file is Mac Roman: "è" is 0x8F there. Read as Windows-1252
    # without the undefined byte's cost, "í" (0x92) is an apostrophe between letters, and won.
    assert decode_text("así así así así così è".encode("mac_roman"), "x", known_phrases=())[1] == "mac_roman"


def test_single_byte_choice_without_known_phrases() -> None:
    """The per-byte plausibility score alone tells CP437 from Windows-1252 on the real files."""
    assert decode_text(read("en-raw/2019-01-25.txt"), "x", known_phrases=())[1] == "cp437"
    assert decode_text(read("en-raw/2014-09-26.txt"), "x", known_phrases=())[1] == "cp1252"


def test_one_high_byte_decided_by_known_phrase() -> None:
    """One line of the real 2019 file: a single 0x96 among ASCII; "r–f", "rûf" and "rñf" are all
    plausible letters in context, so only the known card name can decide."""
    data = read("en-raw/2019-01-25.txt")
    start = data.index(b"Ring of Ma'r")
    line = data[start : data.index(b"\r\n", start)]
    text, encoding = decode_text(line, "x")
    assert text.startswith("Ring of Ma'rûf, Rukh Egg, ") and encoding == "cp437"


def test_utf16_without_bom_found_by_nul_pattern() -> None:
    big_endian = read("en-raw/2013-04-29.txt")[2:]  # the real file minus its BOM
    little_endian = big_endian.decode("utf-16-be").encode("utf-16-le")
    expected, _ = decode_text(read("en-raw/2013-04-29.txt"), "x")
    assert decode_text(big_endian, "x") == (expected, "utf-16-be")
    assert decode_text(little_endian, "x") == (expected, "utf-16-le")


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"a\r\r\nb", "a\nb"),
        (b"a\r\r\r\nb", "a\n\nb"),
        (b"a\rb\r\nc\nd", "a\nb\nc\nd"),
        (b"\xef\xbb\xbfa\r\n", "a\n"),
        ("Danda\u0302n".encode(), "Dandân"),
        # A page break or vertical tab is a space within a line (a form feed reached a rule's text:
        # a review), and part of the line break beside it.
        (b"a,\x0cb\x0bc", "a, b c"),
        (b"a\r\n\x0cb\x0c\r\nc\x0c\x0cd", "a\nb\nc d"),
    ],
)
def test_line_endings_bom_nfc(raw: bytes, text: str) -> None:
    assert decode_text(raw, "x")[0] == text


def test_random_binary_refused_with_file_name() -> None:
    noise = random.Random(7).randbytes(20000)
    with pytest.raises(ParseError, match="noise.bin"):
        decode_text(noise, "noise.bin")


def test_binary_without_nul_refused() -> None:
    noise = bytes(b for b in random.Random(3).randbytes(20000) if b)
    with pytest.raises(ParseError, match="noise.bin: .*control characters"):
        decode_text(noise, "noise.bin")


def test_the_refused_controls_are_unicodes_controls_but_the_allowed_ones() -> None:
    from kb.normalise.decode import ALLOWED_CONTROLS, REFUSED_CONTROL

    for code in range(0x10000):  # every Cc is in the first plane; the class names single characters
        char = chr(code)
        refused = unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS
        assert bool(REFUSED_CONTROL.fullmatch(char)) == refused, hex(code)


def test_nul_laden_text_that_is_not_utf16_refused() -> None:
    data = read("en-raw/2006-02-01.txt")[:3000].replace(b"e", b"\x00")
    with pytest.raises(ParseError, match="nul.txt: contains NUL bytes"):
        decode_text(data, "nul.txt")


def test_bytes_after_a_bom_mostly_not_utf8_refused() -> None:
    # A file that says it is UTF-8 and is not: Windows-1252 text behind a BOM.
    data = b"\xef\xbb\xbf" + "Dandân, Jötun Grunt, Æther Vial, Lim-Dûl".encode("cp1252")
    with pytest.raises(ParseError, match="cut.txt: not valid utf-8 at byte 4"):
        decode_text(data, "cut.txt")


def test_a_few_bad_bytes_after_a_bom_are_repaired_and_named() -> None:
    """The official CR files open with a BOM; one damaged byte in one (2026-01-16, in 702.19b)
    made the import fail ("not valid utf-8 at byte 498641"), where the same file without its BOM
    was read with that byte repaired and named, as the README says (a docs review)."""
    data = read("en-raw/2026-01-16.txt")
    at = data.index(b"controller of an attacking creature with trample") + 8
    damaged = data[:at] + b"\xff" + data[at + 1:]
    text, encoding = decode_text(damaged, "damaged.txt")
    assert encoding == REPAIRED_UTF8
    assert "controllÿr of an attacking creature with trample" in text
    assert text == decode_text(damaged[3:], "damaged.txt")[0]
    (issue,) = decoding_issues(damaged, "damaged.txt", encoding)
    assert issue.kind == "invalid-utf8" and issue.detail.startswith("damaged.txt: 1 bytes are not valid UTF-8 (lines ")
