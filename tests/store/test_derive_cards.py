"""Card-name resolution (kb.store.derive_cards) on the real Gatherer printed pages, with one
CONSTRUCTED row: the snapshot holds no English Birds of Paradise, so the test inserts a printing
row of Oracle id "birds-oracle-id" for Magic 2012 #165 as Scryfall would (lowercase set code).
The names it resolves are the real pages' names."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
import sqlite_utils

from kb.parse.rulings import gatherer_old
from kb.store.derive_cards import (
    _POSSESSIVE_NAME,
    _may_name,
    name_cards_from_rulings,
    name_in_rulings,
    resolve_card_names,
)
from kb.store.save import save_card_names, save_cards
from kb.store.schema import ensure_db_shape

GATHERER = Path(__file__).parent.parent / "fixtures" / "gatherer" / "old"


def database_with_birds_pages() -> sqlite_utils.Database:
    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    db["sources"].insert({"id": "gatherer"})
    for number, lang in enumerate(("de", "fr", "ja"), 1):
        document = gatherer_old.parse((GATHERER / f"birdsofparadise_{lang}.html").read_bytes())
        db["documents"].insert({"id": number, "source_id": "gatherer", "lang": lang})
        save_cards(db, document.cards, number)
        save_card_names(db, document.card_names, number)
    return db


def test_printed_pages_resolve_through_the_same_printing_in_card_data() -> None:
    db = database_with_birds_pages()
    db["cards"].insert({"oracle_id": "birds-oracle-id", "name": "Birds of Paradise"})
    db["printings"].insert({"id": "constructed", "oracle_id": "birds-oracle-id", "lang": "en",
                            "set_code": "m12", "collector_number": "165"})
    resolve_card_names(db)
    assert sorted(db.execute("select lang, name, source from card_names where oracle_id = 'birds-oracle-id'")) == [
        ("de", "Paradiesvögel", "gatherer"), ("en", "Birds of Paradise", "oracle"),
        ("fr", "Oiseaux de paradis", "gatherer"), ("ja", "極楽鳥", "gatherer"),
    ]


def test_no_card_data_no_guess() -> None:
    db = database_with_birds_pages()
    db["cards"].insert({"oracle_id": "other-oracle-id", "name": "Other"})
    db["printings"].insert({"id": "constructed", "oracle_id": "other-oracle-id", "lang": "en",
                            "set_code": "m11", "collector_number": "165"})
    resolve_card_names(db)
    assert list(db.execute("select name from card_names where lang != 'en'")) == []


def test_a_card_named_by_its_rulings_only_when_they_keep_naming_it() -> None:
    deathrite = [
        "Because the first ability requires a target, it is not a mana ability.",
        "If the target of any of Deathrite Shaman’s three abilities is an illegal target when that"
        " ability tries to resolve, it won’t resolve.",
    ]
    assert name_in_rulings(deathrite, set()) == "Deathrite Shaman"
    # Another card named once among many rulings is not the card's name.
    assert name_in_rulings(deathrite + ["A second ruling.", "A third ruling."], set()) is None
    # Nor a known card's name.
    assert name_in_rulings(deathrite, {"Deathrite Shaman"}) is None


@pytest.mark.long_proof
def test_rulings_left_unread_are_those_the_name_pattern_cannot_match() -> None:
    # Every line of the real fixtures, and constructed phrases of capitalised words, connectors,
    # commas and both apostrophes (texts the pattern does match included).
    texts = []
    for path in (Path(__file__).parent.parent / "fixtures").rglob("*"):
        if path.is_file() and path.suffix in (".json", ".txt", ".html"):
            texts += path.read_text(encoding="utf-8", errors="replace").splitlines()
    rng = random.Random(15)
    pieces = "Big Mc McDonald of the and ’s 's , Ka123 it a The If X-Ray _A Éclair".split()
    for _ in range(30_000):
        texts.append("".join(rng.choice(["", " ", ", ", "  "]) + rng.choice(pieces) for _ in range(rng.randint(1, 8))))
    matched = [text for text in texts if _POSSESSIVE_NAME.search(text)]
    assert len(matched) > 1_000
    assert [text for text in matched if not _may_name(text)] == []


def test_cards_named_from_their_rulings_read_card_by_card() -> None:
    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    texts = {
        "a": ["If the target of Deathrite Shaman’s ability is illegal, it won’t resolve.", "Deathrite Shaman’s ability."],
        "b": ["Nothing names it."],
        "c": ["Kaloun Ka123’s ability triggers.", "Kaloun Ka123’s second ability.", "Another ruling."],
    }
    rows = [(oracle_id, text, position) for oracle_id, card_texts in texts.items() for position, text in enumerate(card_texts)]
    db.conn.executemany("insert into rulings (id, oracle_id, text, position) values (?,?,?,?)", [(number, *row) for number, row in enumerate(rows, 1)])
    assert name_cards_from_rulings(db, ["a", "b", "c", "d"]) == 2
    assert db.execute("select oracle_id, name, source from card_names order by oracle_id").fetchall() == [
        ("a", "Deathrite Shaman", "rulings"), ("c", "Kaloun Ka123", "rulings"),
    ]


def test_names_found_while_deriving_are_those_the_stored_rulings_give(tmp_path: Path) -> None:
    from kb.build.inputs import path_inputs
    from kb.build.publish import build_database
    from kb.store.derive_cards import _names_from_stored_rulings

    scryfall = Path(__file__).parent.parent / "fixtures" / "scryfall"
    files = [scryfall / "misc" / "rulings-deathrite-shaman.json", *sorted((scryfall / "api-2025-11-01").glob("rulings-*.json"))]
    db_path = tmp_path / "kb.db"
    build_database(path_inputs(files, source_id="scryfall"), db_path)
    db = sqlite_utils.Database(db_path)
    found = dict(db.execute("select oracle_id, name from card_names where source = 'rulings'").fetchall())
    assert "Deathrite Shaman" in found.values()
    # Read back as the step did before: from the stored rulings, with the names it added unknown.
    unnamed = [row[0] for row in db.execute("select oracle_id from cards where name is null order by oracle_id")]
    assert len(unnamed) == 6  # two pairs of the files are rulings of one card
    db.execute("delete from card_names where source = 'rulings'")
    assert _names_from_stored_rulings(db, unnamed) == found


def test_the_card_row_names_the_document_whose_oracle_text_it_shows() -> None:
    # A source that lost a card's text (its type line given alone) was credited with the other
    # source's text on the card's page (a code review). Smite the Monstrous as both give it.
    from kb.records import CardRecord

    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    oracle_id = "649512ed-4908-450a-9652-b2c80df5e24d"
    text = "Destroy target creature with power 4 or greater."
    whole = CardRecord(name="Smite the Monstrous", oracle_id=oracle_id, type_line="Instant", oracle_text=text)
    lost = CardRecord(name="Smite the Monstrous", oracle_id=oracle_id, type_line="Instant", text_missing=True)
    save_cards(db, [whole], 1)
    save_cards(db, [lost], 2)
    assert db.execute("select oracle_text, oracle_document_id from cards").fetchall() == [(text, 1)]
    save_cards(db, [whole], 3)  # given again, later: the text is that document's
    assert db.execute("select oracle_text, oracle_document_id from cards").fetchall() == [(text, 3)]
