"""The views and tables SQL users page through: what the views hold, what counting them and
sorting the tables costs.

Datasette counts a view's rows at every view of its page (a view has no count in the inspect
file), so a view that joins to look up one value was counted through the join: 1.7 s for
``ruling_records_as_printed`` on a million rulings, past the public SQL time limit."""
from __future__ import annotations

import sqlite3

import pytest

# Each view, with what it was before its look-ups became subqueries (the left joins they are
# equal to) and the one table counting it may read.
JOINED = {
    "ruling_records_as_printed": (
        """select ruling_records.id, ruling_records.document_id, ruling_records.position,
            ruling_records.oracle_id,
            coalesce(ruling_records.resolved_oracle_id, ruling_records.oracle_id) as resolved_oracle_id,
            ruling_records.card_name, ruling_records.raw_date, ruling_records.published_at, ruling_records.source,
            coalesce(ruling_records.text, rulings.text) as text, ruling_records.declared_lang,
            ruling_records.detected_lang, ruling_records.method, ruling_records.ruling_id
        from ruling_records left join rulings on rulings.id = ruling_records.ruling_id""",
        "ruling_records",
    ),
    # A card without card data is called what its own rulings call it (card_names, "rulings").
    "rulings_with_cards": (
        """select rulings.id, rulings.oracle_id,
            coalesce(cards.name, english.name, rulings.card_name) as card,
            rulings.published_at, rulings.source, rulings.text, rulings.position
        from rulings left join cards on cards.oracle_id = rulings.oracle_id
        left join (select oracle_id, min(name) as name from card_names where lang = 'en' group by oracle_id)
            as english on english.oracle_id = rulings.oracle_id""",
        "rulings",
    ),
}

DEATHRITE = "22f1a4a4-c423-4d1c-8775-0ed604a9fa51"


def test_a_card_known_by_its_rulings_alone_is_named_by_every_view_and_query(snapshot_conn: sqlite3.Connection) -> None:
    """Deathrite Shaman's two rulings come without card data (cards.name is empty until some
    is imported); its rulings call it by name. The view and the canned queries said no name."""
    from kb.site.metadata import CANNED_QUERIES

    assert snapshot_conn.execute("select name from cards where oracle_id = ?", [DEATHRITE]).fetchone() == (None,)
    named = snapshot_conn.execute("select distinct card from rulings_with_cards where oracle_id = ?", [DEATHRITE])
    assert named.fetchall() == [("Deathrite Shaman",)]
    texts = {row[0] for row in snapshot_conn.execute("select text from rulings where oracle_id = ?", [DEATHRITE])}
    newest = snapshot_conn.execute(CANNED_QUERIES["new_rulings"]["sql"]).fetchall()
    assert len(texts) == 2 and {row[2] for row in newest if row[4] in texts} == {"Deathrite Shaman"}
    # Unnamed there: only the rulings of the French page that names no card at all.
    unnamed = snapshot_conn.execute("select count(*) from rulings where oracle_id is null and card_name is null").fetchone()[0]
    assert len([row for row in newest if row[2] is None]) == unnamed == 16
    from datasette.utils import escape_fts

    snapshot_conn.create_function("escape_fts", 1, escape_fts)  # Datasette's, as it serves the query
    found = snapshot_conn.execute(CANNED_QUERIES["search_rulings"]["sql"], {"q": "Deathrite"}).fetchall()
    assert found and {row[1] for row in found} == {"Deathrite Shaman"}


@pytest.mark.parametrize("view", sorted(JOINED))
def test_a_view_holds_what_its_join_gave(snapshot_conn: sqlite3.Connection, view: str) -> None:
    joined, _table = JOINED[view]
    rows = snapshot_conn.execute(f"select * from {view} order by id").fetchall()
    assert rows == snapshot_conn.execute(f"select * from ({joined}) order by id").fetchall()
    # The look-up is exercised: records keeping no text of their own show their ruling's, rulings
    # show their card's English name.
    looked_up = snapshot_conn.execute(LOOKED_UP[view]).fetchone()
    assert looked_up[0] > 100 and looked_up[0] == looked_up[1]


LOOKED_UP = {
    "ruling_records_as_printed": """select count(*), count(view.text) from ruling_records
        join ruling_records_as_printed as view on view.id = ruling_records.id
        where ruling_records.text is null""",
    "rulings_with_cards": """select count(*), sum(view.card = cards.name) from rulings
        join cards on cards.oracle_id = rulings.oracle_id and cards.name is not null
        join rulings_with_cards as view on view.id = rulings.id""",
}


@pytest.mark.parametrize("view", sorted(JOINED))
def test_counting_a_view_reads_one_table(snapshot_conn: sqlite3.Connection, view: str) -> None:
    _joined, table = JOINED[view]
    plan = [row[3] for row in snapshot_conn.execute(f"explain query plan select count(*) from {view}")]
    assert len(plan) == 1 and plan[0].startswith(f"SCAN {table}"), plan
    assert snapshot_conn.execute(f"select count(*) from {view}").fetchone() == snapshot_conn.execute(f"select count(*) from {table}").fetchone()


# Tables that stay small whatever the data: a sort of their rows at each view costs nothing.
# Tables of a few thousand rows at most at full scale (sets: Scryfall lists about a thousand).
SMALL_TABLES = {"sources", "documents", "cr_versions", "refresh_runs", "rule_lineage_links", "sets"}


def test_every_default_sort_of_a_growing_table_is_read_from_an_index(snapshot_conn: sqlite3.Connection) -> None:
    """Datasette shows a table's page in its configured order (kb.site.metadata): a table that
    grows with the cards, rulings or CR versions is read in that order from an index."""
    from kb.site.metadata import TABLE_PRESENTATION

    sorted_tables = {table: settings for table, settings in TABLE_PRESENTATION.items()
                     if "sort" in settings or "sort_desc" in settings}
    assert {"cards", "rulings", "rules", "glossary", "cr_changes"} <= set(sorted_tables)
    for table, settings in sorted_tables.items():
        if table in SMALL_TABLES:
            continue
        order = f"[{settings['sort']}]" if "sort" in settings else f"[{settings['sort_desc']}] desc"
        plan = [row[3] for row in snapshot_conn.execute(f"explain query plan select * from [{table}] order by {order} limit 51")]
        assert not any("TEMP B-TREE" in step for step in plan), (table, plan)


# What all_card_names held when it grouped the name records itself (the source of a name several
# sources printed was then whichever row SQLite read last; now the first by name).
ALL_CARD_NAMES_BEFORE = """
    select oracle_id, lang, name, name_key, source from card_names
    union all
    select null, records.lang, records.name, min(records.name_key), min(documents.source_id)
    from card_name_records as records join documents on documents.id = records.document_id
    where records.name_key not in (select name_key from card_names where name_key is not null)
    group by records.lang, records.name"""


def test_all_card_names_holds_what_it_grouped_and_counts_without_the_name_records(snapshot_conn: sqlite3.Connection) -> None:
    rows = sorted(snapshot_conn.execute("select * from all_card_names").fetchall(), key=repr)
    assert rows == sorted(snapshot_conn.execute(ALL_CARD_NAMES_BEFORE).fetchall(), key=repr)
    assert sum(1 for row in rows if row[0] is None) > 100  # names no card data identifies
    plan = " ".join(row[3] for row in snapshot_conn.execute("explain query plan select count(*) from all_card_names"))
    assert "card_name_records" not in plan and "records" not in plan, plan


def test_translations_not_linked_leave_out_the_english_copies_that_are(snapshot_conn: sqlite3.Connection) -> None:
    """The 16 English rulings of the page announced as French (status untranslated) each point at
    their ruling: the query titled "not (yet) linked" listed them among the 817 that are not."""
    from kb.site.metadata import CANNED_QUERIES

    found = snapshot_conn.execute(CANNED_QUERIES["stale_ruling_translations"]["sql"]).fetchall()
    statuses = snapshot_conn.execute(
        "select status, ruling_id is null, count(*) from ruling_translations group by 1, 2 order by 1").fetchall()
    assert statuses == [("unlinked", 1, 817), ("untranslated", 0, 16)]
    assert len(found) == 817 and {row[2] for row in found} == {"unlinked"}


def test_every_column_of_every_table_and_view_is_described(snapshot_conn: sqlite3.Connection) -> None:
    """README: "every table and column is described in the Datasette metadata". The views' columns
    were not (citations_to_check's fifteen among them)."""
    from kb.site.metadata import build_metadata

    described = build_metadata()["databases"]["kb"]["tables"]
    shown = [row[0] for row in snapshot_conn.execute(
        "select name from sqlite_master where type in ('table', 'view') and name not like '%fts%'"
        " and name not like 'sqlite_%' and name not like '\\_%' escape '\\' and name not like 'cjk_%' order by name")]
    missing = [
        f"{name}.{column}" for name in shown if not described.get(name, {}).get("hidden")
        for column in (row[1] for row in snapshot_conn.execute(f"pragma table_info('{name}')"))
        if not described.get(name, {}).get("columns", {}).get(column)
    ]
    assert len(shown) > 30 and missing == []
