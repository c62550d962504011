"""The sets printings name (kb.store.save.save_sets): read from real Scryfall card objects and real
Gatherer pages; the precedence between the two is shown with CONSTRUCTED card records (the
fixtures hold no Scryfall object of a set a Gatherer page also names), each marked below."""
from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from kb.parse.rulings import gatherer_old, scryfall
from kb.records import CardRecord
from kb.store.save import save_cards
from kb.store.schema import ensure_db_shape

FIXTURES = Path(__file__).parent.parent / "fixtures"
JACE_SEARCH = FIXTURES / "scryfall" / "api-2025-11-01" / "search-langany-594f6881-jace-vryn-s-prodigy-jace-telepath-unboun.json"


def database() -> sqlite_utils.Database:
    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    db["sources"].insert({"id": "test"})
    for document_id in (1, 2, 3):
        db["documents"].insert({"id": document_id, "source_id": "test"})
    return db


def sets(db: sqlite_utils.Database) -> list[tuple]:
    return list(db.execute("select code, name, released_at, document_id from sets order by code"))


def test_card_objects_give_each_set_once_with_its_earliest_day() -> None:
    db = database()
    # Jace's printings in every language (Scryfall's search with lang:any): 16 objects, 6 sets.
    save_cards(db, scryfall.parse(JACE_SEARCH.read_bytes()).cards, 1)
    assert sets(db) == [
        ("ORI", "Magic Origins", "2015-07-17", 1),
        ("PIO", "Pioneer Masters", "2024-12-10", 1),
        ("PLST", "The List", "2020-09-26", 1),
        ("PORI", "Magic Origins Promos", "2015-07-17", 1),
        ("PS15", "San Diego Comic-Con 2015", "2015-07-09", 1),
        ("V17", "From the Vault: Transform", "2017-11-24", 1),
    ]


def test_a_gatherer_page_in_any_language_names_its_set_in_english_without_a_day() -> None:
    db = database()
    page = gatherer_old.parse((FIXTURES / "gatherer" / "old" / "birdsofparadise_de.html").read_bytes())
    save_cards(db, page.cards, 1)
    assert sets(db) == [("M12", "Magic 2012", None, 1)]


def test_a_printed_page_naming_its_set_without_its_code_keeps_the_name_on_its_printing() -> None:
    """The real French page of Ange du vol d'albâtre names its set "Innistrad" with no set image
    (no code) and lists no other printings: its set was lost (set_code and set_name null: a
    review). No code is made up; the name stays on the printing, and no set row is made."""
    db = database()
    page = gatherer_old.parse((FIXTURES / "gatherer" / "old" / "angeduvoldalbatre_fr.html").read_bytes())
    save_cards(db, page.cards, 1)
    save_cards(db, gatherer_old.parse((FIXTURES / "gatherer" / "old" / "birdsofparadise_de.html").read_bytes()).cards, 2)
    assert list(db.execute("select id, set_code, set_name, collector_number from printings order by id")) == [
        ("multiverse:263789", "M12", None, "165"), ("multiverse:273000", None, "Innistrad", "2")]
    assert sets(db) == [("M12", "Magic 2012", None, 2)]


def m12(name: str, day: str | None) -> CardRecord:
    """CONSTRUCTED: a printing of Magic 2012 as card data would give it (lowercase code, a day)."""
    return CardRecord(name="Birds of Paradise", set_code="m12", set_name=name, released_at=day)


def test_card_data_with_a_day_is_taken_over_a_page_naming_the_set_whichever_came_first() -> None:
    page = gatherer_old.parse((FIXTURES / "gatherer" / "old" / "birdsofparadise_de.html").read_bytes())
    before, after = database(), database()
    save_cards(before, page.cards, 1)
    save_cards(before, [m12("Magic 2012", "2011-07-15")], 2)
    save_cards(after, [m12("Magic 2012", "2011-07-15")], 2)
    save_cards(after, page.cards, 1)
    assert sets(before) == sets(after) == [("M12", "Magic 2012", "2011-07-15", 2)]
    # A later card file with an earlier printing of the set moves its day back, keeping its name.
    save_cards(after, [m12("Magic 2012 (renamed)", "2011-07-01"), m12("Magic 2012", "2011-07-20")], 3)
    assert sets(after) == [("M12", "Magic 2012", "2011-07-01", 2)]


def test_the_snapshot_names_the_sets_of_every_card_source(snapshot_conn) -> None:
    # Ugin's Fate from the real MTGJSON set file (its name read after its cards, the stream's
    # end), Magic 2012 from the Gatherer pages, Magic Origins from Scryfall's card objects.
    found = {row[0]: row[1:] for row in snapshot_conn.execute(
        "select code, sets.name, released_at, documents.format from sets join documents on documents.id = sets.document_id"
        " where code in ('UGIN', 'M12', 'ORI')")}
    assert found == {
        "UGIN": ("Ugin's Fate", "2015-01-17", "mtgjson"),
        "M12": ("Magic 2012", None, "gatherer-old"),
        "ORI": ("Magic Origins", "2015-07-17", "scryfall-cards"),
    }


def test_each_printing_keeps_its_own_day_and_its_set_its_first() -> None:
    """CONSTRUCTED: two Secret Lair printings of different drops. Shown with its set's first day,
    a 2024 drop read as 2019's (a code review): each printing keeps the day its source gives."""
    db = database()
    save_cards(db, [
        CardRecord(name="A", scryfall_id="a", set_code="sld", set_name="Secret Lair Drop", released_at="2019-12-02"),
        CardRecord(name="B", scryfall_id="b", set_code="sld", set_name="Secret Lair Drop", released_at="2024-03-01"),
    ], 1)
    assert sorted(db.execute("select id, released_at from printings")) == [("a", "2019-12-02"), ("b", "2024-03-01")]
    assert sets(db) == [("SLD", "Secret Lair Drop", "2019-12-02", 1)]


UGIN = FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json"


def test_a_printings_own_day_stays_when_mtgjson_names_it_after_scryfall() -> None:
    """MTGJSON names Scryfall's printings by their ids and dates them by their sets: imported after
    Scryfall's card data (as the default refresh does), it replaced the printing's own day with
    its set's first (a code review). The printing below is CONSTRUCTED as Scryfall would give
    Ugin's printing of Ugin's Fate with another day; the MTGJSON file is real."""
    from kb.build.load import stream_mtgjson

    document = json.loads(UGIN.read_text(encoding="utf-8"))
    ugin = document["data"]["cards"][0]
    db = database()
    save_cards(db, [CardRecord(name=ugin["name"], scryfall_id=ugin["identifiers"]["scryfallId"], set_code="ugin",
                               set_name="Ugin's Fate", released_at="2015-01-23")], 1)
    with UGIN.open("rb") as handle:
        stream_mtgjson(db, handle, UGIN.name, 2)
    days = dict(db.execute("select id, released_at from printings where set_code = 'UGIN' or set_code = 'ugin'").fetchall())
    assert days.pop(ugin["identifiers"]["scryfallId"]) == "2015-01-23"
    assert set(days.values()) == {"2015-01-17"} and len(days) > 100


def test_mtgjson_read_whole_dates_its_printings_as_a_stream_does() -> None:
    """The same real file saved whole (``save_rulings_document``) as streamed: the set and its
    day, and a day Scryfall gave a printing kept (the whole read gave every printing its set's
    day, over Scryfall's: a review). The Scryfall day is CONSTRUCTED, as above."""
    from kb.parse.rulings import mtgjson
    from kb.store.save import save_rulings_document

    document = json.loads(UGIN.read_text(encoding="utf-8"))
    ugin = document["data"]["cards"][0]
    db = database()
    save_cards(db, [CardRecord(name=ugin["name"], scryfall_id=ugin["identifiers"]["scryfallId"], set_code="ugin",
                               set_name="Ugin's Fate", released_at="2015-01-23")], 1)
    save_rulings_document(db, mtgjson.parse(UGIN.read_bytes(), UGIN.name), 2)
    days = dict(db.execute("select id, released_at from printings where upper(set_code) = 'UGIN'").fetchall())
    assert days.pop(ugin["identifiers"]["scryfallId"]) == "2015-01-23"
    assert set(days.values()) == {"2015-01-17"} and len(days) > 100
    assert sets(db) == [("UGIN", "Ugin's Fate", "2015-01-17", 1)]


def test_an_mtgjson_file_keeps_the_day_it_says_it_was_made_streamed_or_read_whole() -> None:
    """The real file's meta.date, 2022-04-25, the day of its Oracle wording: card pages said its
    date was not known (a review). Read whole and streamed alike."""
    from kb.build.load import stream_mtgjson
    from kb.parse.rulings import mtgjson
    from kb.store.save import save_rulings_document

    db = database()
    save_rulings_document(db, mtgjson.parse(UGIN.read_bytes(), UGIN.name), 2)
    with UGIN.open("rb") as handle:
        stream_mtgjson(db, handle, UGIN.name, 3)
    assert list(db.execute("select id, made_on from documents order by id")) == [
        (1, None), (2, "2022-04-25"), (3, "2022-04-25")]
