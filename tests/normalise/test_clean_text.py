"""clean_text's fast path (return the text untouched) agrees with the full clean-up."""
from __future__ import annotations

import random

import kb.normalise.text as text_module
from kb.normalise.text import clean_text


def full_clean_up(text: str) -> str:
    text = text_module.ZERO_WIDTH.sub("", text_module.nfc(text))
    text = text_module.LINE_BREAK.sub("\n", text)
    lines = [text_module.HORIZONTAL_SPACE.sub(" ", line).strip() for line in text.split("\n")]
    return text_module.BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def test_fast_path_agrees_with_the_full_clean_up_on_random_texts() -> None:
    generator = random.Random(20261130)
    alphabet = "ab \n\r\t\u00a0\u200b\u2019e\u0301\u2028.\x85"
    texts = ["a  b", " a", "a ", "a\r\nb", "a\n\n\nb", "x\u00a0y", "curly \u2019 text", "e\u0301", "", "\n"]
    texts += ["".join(generator.choice(alphabet) for _ in range(generator.randint(0, 9))) for _ in range(20_000)]
    for text in texts:
        assert clean_text(text) == full_clean_up(text), repr(text)


def test_a_text_cleaned_twice_is_cleaned_as_often_as_before() -> None:
    """The store cleans what a parser cleaned: the object last found clean is returned at once,
    and a text that had to be cleaned is checked again (cleaning is not always idempotent)."""
    clean = "The creature\u2019s controller sacrifices it."
    assert clean_text(clean) is clean and clean_text(clean) is clean
    # Without its zero-width space the accent is composed only by a second clean-up.
    odd = "\u0301\u0327e\u200b\u0301\u0327"
    once = clean_text(odd)
    assert once == full_clean_up(odd) and once != full_clean_up(once)
    assert clean_text(once) == full_clean_up(once)
    generator = random.Random(20261203)
    alphabet = "ab \u200be\u0301\u0327\n"
    for _ in range(20_000):
        text = "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 8)))
        first = clean_text(text)
        assert first == full_clean_up(text) and clean_text(first) == full_clean_up(first), repr(text)


def test_punctuation_twins_are_the_one_for_one_mapping() -> None:
    generator = random.Random(15)
    alphabet = "ab '\"-`" + "".join(chr(code) for code in text_module.PUNCTUATION_TWINS) + "é\u2026"
    texts = ["".join(generator.choice(alphabet) for _ in range(generator.randint(0, 12))) for _ in range(20_000)]
    for text in texts:
        assert text_module.punctuation_twins(text) == text.translate(text_module.PUNCTUATION_TWINS), repr(text)
