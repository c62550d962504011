"""Characters encoded as UTF-8 twice ("â€™" for "’"): found and undone exactly, and never found in
real text. Every real text of the fixtures, in every language we hold, is left as it is; its double
encoding (through Windows-1252 and through Latin-1) is undone to the very same text."""
from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from kb.normalise.decode import DOUBLE_ENCODED, decode_text, describe_decoding
from kb.normalise.mojibake import double_encoded_runs, undo_double_encoding

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Real texts outside ASCII: English CR editions (curly quotes, "Dandân", "™"), the Chinese and
# Korean CR, Gatherer pages in other languages, Scryfall printings in 11 languages.
REAL_TEXTS = sorted(
    [*FIXTURES.glob("cr/en-raw/*.txt"), *FIXTURES.glob("cr-zh/*.txt"), *FIXTURES.glob("cr-ko/*"),
     *FIXTURES.glob("gatherer/*.html"), *FIXTURES.glob("scryfall/**/*.json")]
)


def windows_1252(data: bytes) -> str:
    """``data`` read as Windows does: the five bytes Windows-1252 leaves undefined become U+0081,
    U+008D, U+008F, U+0090 and U+009D (Python's codec refuses them)."""
    return data.decode("cp1252", errors="windows-undefined")


codecs.register_error("windows-undefined", lambda error: (chr(error.object[error.start]), error.start + 1))


def real_text(path: Path) -> str:
    text = decode_text(path.read_bytes(), str(path))[0]
    if path.suffix == ".json":  # the strings, not their \\u escapes
        text = json.dumps(json.loads(text), ensure_ascii=False)
    return text


def test_the_fixtures_hold_text_in_many_scripts() -> None:
    texts = "".join(real_text(path) for path in REAL_TEXTS)
    for sample in ("’", "â", "ü", "ç", "Ж", "あ", "规", "한", "—", "™"):
        assert sample in texts, sample


@pytest.mark.long_proof
@pytest.mark.parametrize("path", REAL_TEXTS, ids=lambda path: path.name)
def test_real_text_is_never_taken_for_double_encoding_and_its_double_encoding_is_undone(path: Path) -> None:
    text = real_text(path)
    assert double_encoded_runs(text) == []
    assert undo_double_encoding(text) == text
    if text.isascii():
        return
    encoded = text.encode("utf-8")
    assert undo_double_encoding(encoded.decode("latin-1")) == text
    assert undo_double_encoding(windows_1252(encoded)) == text


def test_ordinary_text_that_looks_like_a_run_is_kept() -> None:
    # "à" + no-break space + "«" is E0 A0 AB in Windows-1252: valid UTF-8 for Samaritan U+082B.
    for text in ("à\u00a0« citation »", "Æther Vial", "Ãã", "Ma’rûf", "São Paulo"):
        assert double_encoded_runs(text) == [], text
        assert undo_double_encoding(text) == text


def test_a_double_encoded_cr_file_is_read_as_meant_and_said_so() -> None:
    path = FIXTURES / "cr/en-raw/2026-01-16.txt"
    text, encoding = decode_text(path.read_bytes(), path.name)
    damaged = windows_1252(text.encode("utf-8")).encode("utf-8")  # every "’" now "â€™"
    read, damaged_encoding = decode_text(damaged, "cr.txt")
    assert read == text
    assert damaged_encoding == "utf-8" + DOUBLE_ENCODED
    [line] = describe_decoding(damaged, "cr.txt", damaged_encoding)
    count = sum(not char.isascii() for char in text)
    assert line.startswith(f"cr.txt: {count} characters were encoded as UTF-8 twice (lines ")
    assert "'â€™' → '’'" in line
    assert describe_decoding(path.read_bytes(), path.name, encoding) == []
    # Through Latin-1 each "’" holds two control characters: too many for text, until undone.
    assert decode_text(text.encode("utf-8").decode("latin-1").encode("utf-8"), "cr.txt")[0] == text
