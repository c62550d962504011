"""A card page shows the issues about its own rulings, not every issue of the files they came from.

The load's checks name a ruling by its place in the file ("ruling 2 is dated 2099-01-01"), before
the ruling has an id. A card page listed every issue of every document its rulings were seen in:
with a bulk file, each card's page named the problems of every other card in it.
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from kb.build.inputs import path_inputs
from kb.build.publish import build_database
from kb.site.card_page import card_page

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# The real Scryfall bulk sample: 54 rulings of five cards, in file order.
SAMPLE = FIXTURES / "scryfall" / "bulk" / "rulings-sample.json"


def built(path: Path, document: object, source_id: str) -> tuple[Path, Callable[[str], list[tuple[str, str]]]]:
    """``document`` written to ``path`` and built alone; and the (kind, detail) of the issues a
    card's page shows, by oracle id."""
    path.write_text(json.dumps(document), encoding="utf-8")
    db = path.with_name("kb.db")
    build_database(path_inputs([path], source_id=source_id), db)
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row

    def issues(oracle_id: str) -> list[tuple[str, str]]:
        page = card_page(conn, oracle_id)
        assert page is not None
        return [(issue["kind"], issue["detail"]) for issue in page["issues"]]

    return path, issues


def test_a_card_page_shows_the_issues_of_its_own_rulings_only(tmp_path: Path) -> None:
    rulings = json.loads(SAMPLE.read_bytes())
    first = rulings[0]["oracle_id"]
    other = next(index for index, ruling in enumerate(rulings) if ruling["oracle_id"] != first)
    third = next(ruling["oracle_id"] for ruling in rulings if ruling["oracle_id"] not in (first, rulings[other]["oracle_id"]))
    rulings[other]["published_at"] = "2099-01-01"  # a date no ruling can have: kept undated, flagged
    path, issues = built(tmp_path / "rulings.json", rulings, "scryfall")
    flagged = (f"{path}: ruling {other + 1} is dated 2099-01-01; kept without a date (raw date '2099-01-01')")
    assert ("implausible-date", flagged) in issues(rulings[other]["oracle_id"])
    assert [kind for kind, _detail in issues(first)] == [] == [kind for kind, _detail in issues(third)]


def test_a_file_that_numbers_rulings_card_by_card_names_the_card(tmp_path: Path) -> None:
    # MTGJSON numbers each card's rulings from 1: "ruling 1" alone would be every card's first.
    data = json.loads((FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_bytes())
    cards = [card for card in data["data"]["cards"] if card.get("rulings")]
    damaged, other = cards[0], next(card for card in cards[1:] if card["name"] != cards[0]["name"])
    damaged["rulings"][0]["date"] = "2099-01-01"
    path, issues = built(tmp_path / "UGIN.json", data, "mtgjson")

    def dates(card: dict) -> list[str]:
        return [detail for kind, detail in issues(card["identifiers"]["scryfallOracleId"]) if kind == "implausible-date"]

    assert dates(damaged) == [f"{path}: ruling 1 of {damaged['name']!r} is dated 2099-01-01; kept without a date (raw date '2099-01-01')"]
    assert dates(other) == []


def test_an_mtgjson_card_without_its_oracle_id_shows_the_wording_its_file_gave(tmp_path: Path) -> None:
    # Its Oracle text and type line had nowhere to go (no Oracle id to keep them under): kept with
    # its printing now, and its page shows them as the file's, not as card data.
    data = json.loads((FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_bytes())
    card = next(card for card in data["data"]["cards"] if card["name"] == "Jeskai Infiltrator")
    del card["identifiers"]["scryfallOracleId"]
    path = tmp_path / "UGIN.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    build_database(path_inputs([path], source_id="mtgjson"), tmp_path / "kb.db")
    conn = sqlite3.connect(tmp_path / "kb.db")
    conn.row_factory = sqlite3.Row
    page = card_page(conn, name="Jeskai Infiltrator")
    assert page is not None and page["linked"] is False
    shown = page["oracle_as_shown"]
    assert (shown["type_line"], shown["power"], shown["toughness"], shown["source_id"], shown["format"]) == (
        card["type"], "2", "3", "mtgjson", "mtgjson")
    assert shown["oracle_text"] == card["text"]


def test_a_card_without_rulings_names_only_documents_read_whole_that_list_them() -> None:
    # A bulk rulings file that failed (cut short, kept with --keep-going) was said to "list none"
    # on every card; a rulings list is known to be a printing's by the card id its URL ends in.
    import sqlite_utils

    from kb.site.card_documents import rulings_checked_in
    from kb.store.schema import ensure_db_shape

    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    db["sources"].insert({"id": "scryfall"})
    oracle_id, printing = "2d6186a6-5236-4fb9-bcb6-f6825b148886", "b443504e-1b25-4565-bad7-2575826c7bb9"
    db["documents"].insert_all([
        {"id": 1, "source_id": "scryfall", "format": "scryfall-bulk-rulings", "status": "failed", "url": "https://x/rulings.json"},
        {"id": 2, "source_id": "scryfall", "format": "scryfall-rulings", "status": "parsed",
         "url": f"https://api.scryfall.com/cards/{printing}/rulings"},
        {"id": 3, "source_id": "scryfall", "format": "scryfall-rulings", "status": "parsed",
         "url": "https://api.scryfall.com/cards/b751cf69-0a02-4cd2-abd4-cdb65ca620a8/rulings"},
    ])
    db["printings"].insert({"id": printing, "oracle_id": oracle_id, "lang": "en", "name": "A-Alrund", "document_id": 2})
    db.conn.row_factory = sqlite3.Row
    assert [document["id"] for document in rulings_checked_in(db.conn, oracle_id)] == [2]
    db.execute("update documents set status = 'parsed' where id = 1")
    assert [document["id"] for document in rulings_checked_in(db.conn, oracle_id)] == [1, 2]


def test_a_bulk_file_older_than_the_card_is_not_said_to_have_been_read_for_its_rulings() -> None:
    # CONSTRUCTED rows: a bulk rulings file of 2023-04-04 (Scryfall's name for it) and a card whose
    # only printing we hold was released on 2024-12-10 (Pioneer Masters, as Scryfall dates it).
    import sqlite_utils

    from kb.site.card_documents import rulings_checked_in
    from kb.store.schema import ensure_db_shape

    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    db["sources"].insert({"id": "scryfall"})
    db["documents"].insert({"id": 1, "source_id": "scryfall", "format": "scryfall-bulk-rulings", "status": "parsed",
                            "url": "https://data.scryfall.io/rulings/rulings-20230404210031.json"})
    db["printings"].insert({"id": "p", "oracle_id": "o", "lang": "en", "name": "Card", "set_code": "pio",
                            "document_id": 1, "released_at": "2024-12-10"})
    db.conn.row_factory = sqlite3.Row
    (document,) = rulings_checked_in(db.conn, "o")
    assert (document["made_on"], document["made_before_printings"]) == ("2023-04-04", "2024-12-10")
    # Scryfall's newer names (JSON Lines, gzipped) give the day alike.
    db.execute("update documents set url = 'https://data.scryfall.io/rulings/rulings-20230404210031.jsonl.gz'")
    (document,) = rulings_checked_in(db.conn, "o")
    assert (document["made_on"], document["made_before_printings"]) == ("2023-04-04", "2024-12-10")
    # An earlier printing held: the file is not older than every printing we hold.
    db["printings"].insert({"id": "q", "oracle_id": "o", "lang": "en", "name": "Card", "set_code": "abc",
                            "document_id": 1, "released_at": "2023-01-01"})
    (document,) = rulings_checked_in(db.conn, "o")
    assert (document["made_on"], document["made_before_printings"]) == ("2023-04-04", None)
