"""The keyword dictionary the snapshot build derives (kb.store.derive_keywords): exact rows."""
from __future__ import annotations

import json
import sqlite3


def test_keyword_dictionary_rows_by_language(snapshot_conn: sqlite3.Connection) -> None:
    counts = dict(snapshot_conn.execute("select lang, count(*) from keyword_dictionary group by lang"))
    # zhs: the Chinese CR's keyword titles and glossary; es: the Spanish per-rule page (Conspirar);
    # the rest mined from printed texts of localized printings.
    assert counts == {"de": 4, "es": 5, "fr": 4, "it": 4, "ja": 4, "ko": 1, "pt": 1, "ru": 1, "zhs": 240, "zht": 1}


def test_printed_keywords_with_their_evidence(snapshot_conn: sqlite3.Connection) -> None:
    found = snapshot_conn.execute(
        """select lang, term, rule_number, sources, printings, dissent, status from keyword_dictionary
        where en_term in ('Flying', 'Trample') order by en_term, lang"""
    ).fetchall()
    assert [(lang, term, number, json.loads(sources), printings, dissent, status)
            for lang, term, number, sources, printings, dissent, status in found] == [
        # + Gatherer's printed Birds of Paradise (Magic 2012 #165) in German, French, Japanese.
        ("de", "Fliegend", "702.9", ["gatherer", "scryfall"], 6, 0, "agreed"),
        ("es", "Vuela", "702.9", ["scryfall"], 5, 0, "agreed"),
        ("fr", "Vol", "702.9", ["gatherer", "scryfall"], 6, 0, "agreed"),
        ("it", "Volare", "702.9", ["scryfall"], 5, 0, "agreed"),
        ("ja", "飛行", "702.9", ["gatherer", "scryfall"], 6, 0, "agreed"),
        ("ko", "비행", "702.9", ["scryfall"], 1, 0, "single printing"),
        ("pt", "Voar", "702.9", ["scryfall"], 1, 0, "single printing"),
        ("ru", "Полет", "702.9", ["scryfall"], 1, 0, "single printing"),
        # One printing, confirmed by the Chinese CR's rule title and glossary.
        ("zhs", "飞行", "702.9", ["cr-glossary", "cr-rule-title", "scryfall"], 1, 0, "agreed"),
        ("zht", "飛行", "702.9", ["scryfall"], 1, 0, "single printing"),
        ("de", "verursacht Trampelschaden", "702.19", ["scryfall"], 2, 0, "agreed"),
        ("es", "arrolla", "702.19", ["scryfall"], 2, 0, "agreed"),
        ("fr", "piétinement", "702.19", ["scryfall"], 1, 0, "single printing"),
        ("it", "travolgere", "702.19", ["scryfall"], 1, 0, "single printing"),
        ("ja", "トランプル", "702.19", ["scryfall"], 1, 0, "single printing"),
        ("zhs", "践踏", "702.19", ["cr-glossary", "cr-rule-title"], 0, 0, "agreed"),
    ]


def test_gatherer_printed_pages_counted_once_each(snapshot_conn: sqlite3.Connection) -> None:
    # Their Oracle text is not in the snapshot: each page's "Fliegend"/"Vol"/"飛行" line is read
    # through what the other two pages' same line means. The lone French Ange du vol d'albâtre
    # page has no sibling and no card data: it gives nothing.
    rows = snapshot_conn.execute(
        "select lang, term, en_term from keyword_dictionary where sources like '%gatherer%' order by lang"
    ).fetchall()
    assert rows == [("de", "Fliegend", "Flying"), ("fr", "Vol", "Flying"), ("ja", "飛行", "Flying")]


def test_translated_cr_keywords_join_the_dictionary(snapshot_conn: sqlite3.Connection) -> None:
    row = snapshot_conn.execute(
        "select en_term, rule_number, sources, status from keyword_dictionary where lang = 'zhs' and term = '协力'"
    ).fetchone()
    assert row[0:2] == ("Conspire", "702.78") and "cr-rule-title" in json.loads(row[2]) and row[3] == "agreed"
