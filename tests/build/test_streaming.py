"""Bulk files are streamed: both bulk shapes give the same rulings.

The 200 MB bounded-memory proof is a benchmark: ``python -m bench.bulk_import --megabytes 200``.

The bulk file is generated (see bench/bulk_import.py): the real Scryfall rulings bulk file is
not stored anywhere we can reach offline. Its records have the real bulk shape.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from bench.bulk_import import run


@pytest.mark.long_proof
def test_json_lines_gzip_and_json_array_give_the_same_rulings(tmp_path: Path) -> None:
    (tmp_path / "array").mkdir()
    (tmp_path / "lines").mkdir()
    array = run(3, jsonl_gz=False, workdir=tmp_path / "array")
    lines = run(3, jsonl_gz=True, workdir=tmp_path / "lines")
    assert array["rulings_in_file"] == lines["rulings_in_file"]
    rows = [
        list(sqlite_utils.Database(tmp_path / name / "kb.db").query(
            "select id, oracle_id, source, published_at, text, position from rulings order by id"
        ))
        for name in ("array", "lines")
    ]
    assert rows[0] == rows[1]
    assert len(rows[0]) == array["rulings_in_file"]


ALL_CARDS = Path(__file__).parent.parent / "fixtures" / "site" / "scryfall-data" / "constructed" / "all-cards-20230404212042.json"


def test_a_card_bulk_file_writes_each_name_record_once(tmp_path: Path) -> None:
    """The 229 real printings name 266 distinct (language, name, card) records 291 times (a card
    printed twice in one language; a reversible printing of one card is named once, not also
    "Okaun, Eye of Chaos // Okaun, Eye of Chaos"): each is sent to SQLite once, and the table
    holds what saving every name with ``insert or replace`` gave."""
    from kb.build.load import stream_bulk_cards
    from kb.parse.bounds import bounded_json_stream
    from kb.parse.rulings.scryfall import iter_bulk_card_names
    from kb.store.save import save_card_names
    from kb.store.schema import ensure_db_shape

    streamed, reference = sqlite_utils.Database(tmp_path / "a.db"), sqlite_utils.Database(tmp_path / "b.db")
    for db in (streamed, reference):
        ensure_db_shape(db, search=False)
    statements: list[str] = []
    streamed.conn.set_trace_callback(statements.append)
    with open(ALL_CARDS, "rb") as raw:
        stream_bulk_cards(streamed, bounded_json_stream(raw, str(ALL_CARDS)), str(ALL_CARDS), 7)
    streamed.conn.set_trace_callback(None)
    with open(ALL_CARDS, "rb") as raw:
        names = [name for _card, card_names in iter_bulk_card_names(bounded_json_stream(raw, str(ALL_CARDS)), "x")
                 for name in card_names]
    save_card_names(reference, names, 7)
    assert (len(names), len({(n.lang, n.name, n.oracle_id, n.english_name) for n in names})) == (291, 266)
    assert sum(statement.startswith("insert or replace into card_name_records") for statement in statements) == 266
    table = "select * from card_name_records order by id"
    assert list(streamed.query(table)) == list(reference.query(table))
    assert streamed.execute("select count(*) from card_name_records").fetchone()[0] == 266
