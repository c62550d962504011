"""The typography-blind key a ruling record stores: null exactly when it is the plain-punctuation text."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kb.normalise.text import clean_text, identity_key
from kb.store.save import _single_spaced, plain_text_key, stored_text_key

FIXTURES = Path(__file__).parent.parent / "fixtures"


def real_ruling_texts() -> list[str]:
    """Every ruling text of the recorded Scryfall and MTGJSON files (and the snapshot's)."""
    texts = []
    for path in [*sorted((FIXTURES / "scryfall").rglob("*.json")), *sorted((Path(__file__).parents[2] / "data" / "snapshot" / "scryfall").glob("rulings-*.json"))]:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data.get("data", []) if isinstance(data, dict) else data
        texts += [entry["comment"] for entry in entries if isinstance(entry, dict) and isinstance(entry.get("comment"), str)]
    for card_set in json.loads((FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_text(encoding="utf-8"))["data"]["cards"]:
        texts += [ruling["text"] for ruling in card_set.get("rulings", [])]
    return [clean_text(text) for text in texts]


def test_the_shortcut_gives_the_full_key_on_every_real_ruling() -> None:
    texts = real_ruling_texts()
    assert len(texts) > 300
    for text in texts:
        full = identity_key(text)
        assert stored_text_key(text) == (None if full == plain_text_key(text) else full), text


@pytest.mark.parametrize(("text", "stored"), [
    ("Tap it \u2014 then untap it.", None),  # dashes and a final period: the plain key
    ("Pay {t} to add {g}.", "Pay {T} to add {G}"),  # symbols spelled as Scryfall does
    ("One line\nand another.", "One line and another"),  # line breaks folded
    ("A space , before a comma.", "A space, before a comma"),
])
def test_stored_key_is_kept_only_where_it_differs(text: str, stored: str | None) -> None:
    assert stored_text_key(text) == stored


def test_single_spacing_is_told_without_splitting_as_splitting_tells_it() -> None:
    # Constructed strings of letters and every kind of white space and invisible character.
    rng = random.Random(15)
    alphabet = [" ", "  ", "a", "\n", "\u00a0", "\x00", "\u200b", "b", "\t", "\u2028", "\x1c", ""]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) for _ in range(50_000)]
    assert [_single_spaced(text) for text in texts] == [" ".join(text.split()) == text for text in texts]
    assert sum(map(_single_spaced, texts)) > 1_000
