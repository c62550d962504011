"""Card-name resolution (kb.store.derive_cards) on the real Gatherer printed pages, with one
CONSTRUCTED row: the snapshot holds no English Birds of Paradise, so the test inserts a printing
row of Oracle id "birds-oracle-id" for Magic 2012 #165 as Scryfall would (lowercase set code).
The names it resolves are the real pages' names."""
from __future__ import annotations

from pathlib import Path

import sqlite_utils

from kb.parse.rulings import gatherer_old
from kb.store.derive_cards import name_in_rulings, resolve_card_names
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
