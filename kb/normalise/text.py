"""Text clean-up shared by every parser, and the keys that tell two copies of one ruling apart.

Sources print the same ruling with different typography: Scryfall uses curly apostrophes, old
Gatherer pages straight ones and stray double spaces, page captures lose symbols. ``identity_key``
erases exactly those differences (never a changed word), and ``quality_score`` ranks the copies so
the store can keep the best one.
"""
from __future__ import annotations

import re
import unicodedata

from kb.normalise.symbols import normalise_symbols
from kb.records import FACE_TEXT_SEPARATOR

# Horizontal whitespace, including the no-break and thin spaces French pages put before colons.
HORIZONTAL_SPACE = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f]+")
ZERO_WIDTH = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff]")
LINE_BREAK = re.compile(r"\r\n|\r|\u2028|\u2029|\x85")
BLANK_LINES = re.compile(r"\n{3,}")
# Characters clean_text replaces or drops; with the substring checks in _is_clean they say
# whether a text can be returned as it is (a character class scans far faster than the subs).
ODD_CHARACTERS = re.compile(r"[\t\u00a0\u2000-\u200d\u202f\u205f\u2060\ufeff\r\u2028\u2029\x85]")

# One character for one character, so positions survive the mapping (restore_from_reference
# relies on that).
PUNCTUATION_TWINS = str.maketrans(
    {
        "\u2018": "'",  # ‘
        "\u2019": "'",  # ’
        "\u201a": "'",  # ‚
        "\u201b": "'",  # ‛
        "\u2032": "'",  # ′
        "\u00b4": "'",  # ´
        "\u0060": "'",  # `
        "\u201c": '"',  # “
        "\u201d": '"',  # ”
        "\u201e": '"',  # „
        "\u201f": '"',  # ‟
        "\u2033": '"',  # ″
        "\u00ab": '"',  # «
        "\u00bb": '"',  # »
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",  # horizontal bar
        "\u2212": "-",  # minus sign
    }
)
# The typography of official texts: curly quotes and apostrophes, dashes, the ellipsis.
CURLY_MARKS = ("\u2018", "\u2019", "\u201c", "\u201d", "\u2014", "\u2013", "\u2026")
CURLY_PUNCTUATION = re.compile(f"[{''.join(CURLY_MARKS)}]")
SPACE_BEFORE_PUNCTUATION = re.compile(r" +([,.;:!?])")
TRAILING_PERIODS = re.compile(r"[\s.]+$")
BRACED_SYMBOL = re.compile(r"\{[^{}\s]{1,12}\}")


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C (composed accents), the form every stored text uses."""
    return unicodedata.normalize("NFC", text)


def _is_clean(text: str) -> bool:
    return (
        bool(text)
        and not text[0].isspace()
        and not text[-1].isspace()
        and "  " not in text
        and " \n" not in text
        and "\n " not in text
        and "\n\n\n" not in text
        and "\r" not in text
        and "\t" not in text
        and (text.isascii() or (_no_odd_characters(text) and unicodedata.is_normalized("NFC", text)))
    )


def _no_odd_characters(text: str) -> bool:
    # Every odd character is unprintable (spaces other than the plain one, controls, format
    # characters): a printable text has none, told without scanning it with the pattern.
    return text.isprintable() or not ODD_CHARACTERS.search(text)


def clean_text(text: str) -> str:
    """NFC, one space where runs of spaces were, no spaces at line ends, line breaks kept.

    Line breaks separate abilities in card text and paragraphs in rulings, so they stay; more
    than one blank line in a row becomes one.
    """
    global _last_clean
    # A parser cleans a text and the store cleans it again (whatever parser made it): the
    # string object last found clean is not scanned twice. Identity, not equality: the
    # reference kept here means no other string can have its id. (A cleaned text is not
    # kept: cleaning is not always idempotent, so it is checked again as before.)
    if text is _last_clean:
        return text
    if _is_clean(text):
        _last_clean = text
        return text  # the common case in bulk files: nothing to change, no copies made
    text = ZERO_WIDTH.sub("", nfc(text))
    text = LINE_BREAK.sub("\n", text)
    lines = [HORIZONTAL_SPACE.sub(" ", line).strip() for line in text.split("\n")]
    return BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


_last_clean: str | None = None


def punctuation_twins(text: str) -> str:
    """Curly quotes, apostrophes and dashes replaced by their plain ASCII twins, one for one."""
    if text.isascii() and "`" not in text:
        return text
    # str.translate with a dict costs ~0.2 µs a character even where nothing changes, and a
    # character-class substitution calls back into Python for every quote: replace each twin
    # the text holds (most hold one or two kinds). The twins' replacements are never twins
    # themselves, so one after the other is the same as all at once.
    for char, twin in _TWIN_PAIRS:
        if char in text:
            text = text.replace(char, twin)
    return text


_TWIN_PAIRS = tuple((chr(code), str(twin)) for code, twin in PUNCTUATION_TWINS.items())


def identity_key(text: str) -> str:
    """The key that copies of one ruling share across sources.

    Equal for differences of typography only: curly vs straight quotes and apostrophes, kinds of
    dash, runs of spaces and line breaks, a space before punctuation, a missing final period, the
    case of letters inside braces. Any changed, added or removed word gives a different key.
    """
    text = punctuation_twins(clean_text(text)).replace("\u2026", "...")
    text = normalise_symbols(text)
    text = " ".join(text.split())
    text = SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)
    return TRAILING_PERIODS.sub("", text)


def quality_score(text: str) -> tuple[int, int, int, int, int]:
    """A sortable score; of several copies of one text, the highest is the best to keep.

    In order of weight: no sign of symbols lost in rendering, how many braced symbols it
    carries, no runs of spaces, typographic punctuation (the official texts use it), and
    finally NFC form.
    """
    from kb.normalise.losses import (
        detect_dropped_symbols,  # losses builds on this module
    )

    no_losses = 0 if detect_dropped_symbols(text) else 1
    symbols = len(BRACED_SYMBOL.findall(text))
    no_double_spaces = -len(re.findall(r"[ \u00a0]{2,}", text))
    typographic = len(CURLY_PUNCTUATION.findall(text))
    is_nfc = 1 if unicodedata.is_normalized("NFC", text) else 0
    return (no_losses, symbols, no_double_spaces, typographic, is_nfc)


# -- texts whose line breaks were lost upstream -------------------------------------------------
#
# MTGJSON's foreignData texts print every line of a card glued to the next: "InitiativeMue {4}{R}
# (…)" for "First strike\nMorph {4}{R} (…)", "Vuela.Metamorfosis—…", "ПолетОборотень — …". Within
# a line a space always follows a word, a stop or a closing bracket before the next word, so such
# a character directly followed by an upper-case letter (or a stop directly followed by a symbol
# or a loyalty cost: "controlas.{3}{W}:", "objetivo.−X:", "tour.-3 :") can only be where a line ended.
# Scripts without letter case have signs of their own. Korean spaces its sentences as European
# languages do, so a stop directly followed by a letter ("없다.변이 {2}{U}") ended a line. Chinese and
# Japanese write no space between sentences; what no sentence of a line begins with is a loyalty cost
# ("…受ける。−3：…"), a symbol ("…出る。{1}, {T}, …"), or a word right after a reminder text, which
# ends its keyword's line ("…よい。）休息地の見張りが…"). Their other full stops may end a line or a
# sentence within one: they are read as line ends only where every line of the English text ends
# with a stop or a closing bracket (so no line can have ended without one) and they are then exactly
# as many as the lines (``restored_lines``).

CASELESS_LETTER = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
HANGUL = re.compile(r"[\uac00-\ud7af]")
IDEOGRAPHIC_STOP = "。"


def _line_ends_before(text: str, index: int) -> bool:
    """Whether a line plainly ended between ``text[index - 1]`` and ``text[index]``."""
    before, after = text[index - 1], text[index]
    if after.isupper():
        return before.islower() or before in ".)]}"
    if before in ".。" and after == "{":
        return True
    if CASELESS_LETTER.match(after):
        # A reminder text closed ("…。）休息地", "…있다.)당신이"), or a Korean stop unspaced.
        if before in ")）" and index >= 2 and text[index - 2] in ".。":
            return True
        if before == "." and HANGUL.match(after):
            return True
    # A planeswalker's loyalty cost: "+2:", "−X:", "-3 :", "－３："; after an ideographic stop too.
    return before in ".。" and after in "+−-＋－" and index + 1 < len(text) and (
        text[index + 1].isdigit() or text[index + 1] in "XＸ")


def glued_line_starts(text: str) -> list[int]:
    """Where ``text`` holds a line glued to the line before it: the index of each such line's
    first character (none in a text that has its line breaks)."""
    return [index for index in range(1, len(text)) if _line_ends_before(text, index)]


def _sentence_starts(text: str) -> list[int]:
    """Where a sentence begins after an ideographic full stop outside brackets and quotes: a line's
    end or a sentence's within a line (Chinese and Japanese tell them apart by no sign)."""
    starts, depth = [], 0
    for index, char in enumerate(text):
        if char in "（(「『“‘":
            depth += 1
        elif char in "）)」』”’":
            depth = max(depth - 1, 0)
        elif char == IDEOGRAPHIC_STOP and depth == 0 and index + 1 < len(text):
            after = text[index + 1]
            if CASELESS_LETTER.match(after) or after == "{":
                starts.append(index + 1)
    return starts


def has_caseless_letters(text: str) -> bool:
    """Whether ``text`` is written in a script without letter case (Chinese, Japanese, Korean)."""
    return CASELESS_LETTER.search(text) is not None


def restored_lines(text: str, line_count: int, english_lines: list[str] | None = None) -> list[str] | None:
    """``text``, printed on one line though its card's English text has ``line_count`` lines, as
    those lines: cut where a line plainly ended (``glued_line_starts``), or in Chinese and Japanese
    at every full stop between sentences when each of ``english_lines`` ends with a stop or a
    closing bracket. None unless it has no line break and exactly ``line_count - 1`` such places:
    a text with more or fewer cannot say which were its lines, and is not guessed."""
    if line_count < 2 or "\n" in text:
        return None
    starts = glued_line_starts(text)
    if len(starts) != line_count - 1 and english_lines and has_caseless_letters(text) and all(
        line.rstrip().endswith((".", ")")) for line in english_lines
    ):
        starts = sorted(set(starts) | set(_sentence_starts(text)))
    if len(starts) != line_count - 1:
        return None
    bounds = [0, *starts, len(text)]
    return [text[start:end].strip() for start, end in zip(bounds[:-1], bounds[1:], strict=True)]


def face_pairs(printed: str, english: str) -> list[tuple[str, str]]:
    """The faces of a printed text beside its English text's, or none when their counts differ."""
    printed_faces, english_faces = printed.split(FACE_TEXT_SEPARATOR), english.split(FACE_TEXT_SEPARATOR)
    return list(zip(printed_faces, english_faces, strict=True)) if len(printed_faces) == len(english_faces) else []


def lost_line_breaks(printed: str, english: str) -> bool:
    """Whether ``printed`` shows a line glued to the next where its card's ``english`` text has
    the two apart: a face printed on one line whose English face has several lines, holding a
    glued line; in Chinese, Japanese or Korean any such face (a keyword line glued to the next,
    "飛行変異 ―", "비행변이—", shows no sign: a text printed in those scripts breaks its lines
    where the English text does)."""
    return any(
        "\n" not in face.strip() and len(english_face.strip().splitlines()) > 1
        and (has_caseless_letters(face) or bool(glued_line_starts(face)))
        for face, english_face in face_pairs(printed, english)
    )


def text_with_lines_restored(printed: str, english: str) -> str | None:
    """``printed`` with the line breaks it lost put back, face by face (``restored_lines``); None
    when no face can be read as its lines."""
    faces, restored = [], False
    for face, english_face in face_pairs(printed, english):
        english_lines = english_face.strip().splitlines()
        lines = restored_lines(face.strip(), len(english_lines), english_lines)
        restored = restored or lines is not None
        faces.append("\n".join(lines) if lines is not None else face)
    return FACE_TEXT_SEPARATOR.join(faces) if restored else None
