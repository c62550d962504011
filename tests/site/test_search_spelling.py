"""A misspelt word of the rules in a query (kb.site.search_spelling): read as the word it misspells."""
from __future__ import annotations

import sqlite3

import pytest

from kb.site.search import search
from kb.site.search_spelling import one_edit_away, rules_word_for, vocabulary


def test_one_edit_away() -> None:
    near = one_edit_away("comander")
    assert {"commander", "comandr", "comadner", "comandex"} <= near
    assert "comander" not in near
    # A letter missing, extra or wrong (26 letters), or two swapped: 8 + 7 + 8·26 + 9·26, less repeats.
    assert 400 < len(near) <= 8 + 7 + 8 * 26 + 9 * 26


@pytest.mark.parametrize(
    ("typed", "word"),
    [("comander", "commander"), ("sacrafice", "sacrifice"), ("indestructable", "indestructible"),
     ("hexproff", "hexproof"), ("deathtuch", "deathtouch"), ("Comander", "commander"),
     # Four letters: two swapped, and only one rules word so.
     ("mnaa", "mana"), ("lnad", "land"), ("Drwa", "draw")],
)
def test_a_misspelt_rules_word_is_read_as_the_word(snapshot_conn: sqlite3.Connection, typed: str, word: str) -> None:
    assert rules_word_for(snapshot_conn, typed, lambda candidate: 0.0) == word


# "tapd" is one edit from tap and from taps, but no swap of its letters is a rules word.
@pytest.mark.parametrize("typed", ["commander", "cat", "xyzzyq", "Kommandeur", "702.19", "comandante", "tapd", "mana"])
def test_a_rules_word_a_short_word_or_a_far_word_is_not_read_as_another(snapshot_conn: sqlite3.Connection, typed: str) -> None:
    assert rules_word_for(snapshot_conn, typed, lambda candidate: 0.0) is None


def test_the_vocabulary_is_the_rules_and_glossarys_words(snapshot_conn: sqlite3.Connection) -> None:
    words = vocabulary(snapshot_conn)
    assert {"commander", "sacrifice", "trample", "indestructible"} <= words
    expected = {row[0] for row in snapshot_conn.execute(
        "select term from search_terms where index_name in ('rules_fts', 'glossary_fts')")}
    assert words == expected


def test_a_query_with_a_misspelt_word_is_searched_as_the_rules_word(snapshot_conn: sqlite3.Connection) -> None:
    found = search(snapshot_conn, "comander damage")
    assert (found.query, found.relaxed_from, found.read_as, found.left_out) == (
        "commander damage", "comander damage", {"comander": "commander"}, [])
    assert "903.10a" in [hit.title for hit in found.groups["rules"]]
    alone = search(snapshot_conn, "comander")
    assert (alone.query, alone.read_as, alone.best.title) == ("commander", {"comander": "commander"}, "903 Commander")
    # A misspelt keyword alone keeps its "did you mean" (the keyword's page), as before.
    assert [hit.title for hit in search(snapshot_conn, "indestructable").suggestions] == ["Indestructible"]
    sacrifice = search(snapshot_conn, "sacrafice a creature")
    assert (sacrifice.query, sacrifice.left_out) == ("sacrifice creature", ["a"])
    assert [hit.title for hit in sacrifice.groups["keywords"]] == ["701.21 Sacrifice"]


async def test_the_page_says_how_a_misspelt_word_was_read(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get("/search", params={"q": "comander damage"})).text
    assert ("Nothing holds every word of “comander damage”: these hold “commander damage”. “comander” read as"
            ' <span class="kb-read-as">commander</span>.</p>') in page
    data = (await snapshot_ds.client.get("/search.json", params={"q": "comander damage"})).json()
    assert (data["query"], data["read_as"], data["left_out"]) == ("commander damage", {"comander": "commander"}, [])


def test_a_four_letter_slip_is_read_as_the_rules_word(snapshot_conn: sqlite3.Connection) -> None:
    found = search(snapshot_conn, "mnaa")
    assert (found.query, found.read_as, found.best.title) == ("mana", {"mnaa": "mana"}, "106 Mana")
