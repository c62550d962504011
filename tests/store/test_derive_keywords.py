"""The keyword dictionary the snapshot build derives (kb.store.derive_keywords): exact rows."""
from __future__ import annotations

import json
import sqlite3


def test_keyword_dictionary_rows_by_language(snapshot_conn: sqlite3.Connection) -> None:
    counts = dict(snapshot_conn.execute("select lang, count(*) from keyword_dictionary group by lang"))
    # zhs: the Chinese CR's keyword titles and glossary (headings of two words left out); es: the Spanish
    # per-rule page (Conspirar);
    # the rest mined from printed texts of localized printings (de, es, fr, it, pt, ru: four
    # keywords more each from MTGJSON's UGIN texts, which lost their line breaks, and the action
    # Manifest, printed inside their sentences; ja, ko, zht: Morph, from the UGIN texts read as
    # their lines in those scripts too; ja 接死 and 先制攻撃, ko 치명타, zht 死觸 and 先攻: a first keyword
    # line glued to a Morph line, read through Morph's agreed term; ko: the twelve keywords the
    # Korean CR's 122.1b lists in the English rule's order).
    assert counts == {"de": 11, "es": 12, "fr": 10, "it": 10, "ja": 9, "ko": 14, "pt": 6, "ru": 6, "zhs": 237, "zht": 4}


def test_mtgjson_texts_that_lost_their_line_breaks_give_their_keywords(snapshot_conn: sqlite3.Connection) -> None:
    """Every entry MTGJSON's UGIN set file gives, each checked against its card's English keyword
    (tests/link/test_keyword_mining.py): before, none (its texts print all lines as one)."""
    found = snapshot_conn.execute(
        """select lang, term, en_term, rule_number, sources, printings, status from keyword_dictionary
        where sources like '%mtgjson%' and en_term != 'Flying' order by en_term, lang"""
    ).fetchall()
    assert [(lang, term, en_term, number, json.loads(sources), printings, status)
            for lang, term, en_term, number, sources, printings, status in found] == [
        ("de", "Todesberührung", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        ("es", "Toque mortal", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        ("fr", "Contact mortel", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        ("it", "Tocco letale", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        # Ruthless Ripper's "Deathtouch" glued to its Morph line ("接死変異 ―", "치명타변이—",
        # "死觸變身～"): read through Morph's agreed term in each language.
        ("ja", "接死", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        ("ko", "치명타", "Deathtouch", "702.2", ["cr-rule-list", "mtgjson"], 1, "agreed"),
        ("pt", "Toque mortífero", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        ("ru", "Смертельное касание", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        ("zhs", "死触", "Deathtouch", "702.2", ["cr-glossary", "cr-rule-title", "mtgjson"], 1, "agreed"),
        ("zht", "死觸", "Deathtouch", "702.2", ["mtgjson"], 1, "single printing"),
        ("de", "Ausrüsten", "Equip", "702.6", ["mtgjson"], 1, "single printing"),
        ("es", "Equipar", "Equip", "702.6", ["mtgjson"], 1, "single printing"),
        ("fr", "Équipement", "Equip", "702.6", ["mtgjson"], 1, "single printing"),
        ("it", "Equipaggiare", "Equip", "702.6", ["mtgjson"], 1, "single printing"),
        ("pt", "Equipar", "Equip", "702.6", ["mtgjson"], 1, "single printing"),
        ("ru", "Снарядить", "Equip", "702.6", ["mtgjson"], 1, "single printing"),
        ("de", "Erstschlag", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        ("es", "Daña primero", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        ("fr", "Initiative", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        ("it", "Attacco improvviso", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        ("ja", "先制攻撃", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        ("pt", "Iniciativa", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        ("ru", "Первый удар", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        ("zhs", "先攻", "First Strike", "702.7", ["cr-glossary", "cr-rule-title", "mtgjson"], 1, "agreed"),
        ("zht", "先攻", "First Strike", "702.7", ["mtgjson"], 1, "single printing"),
        # The action where a sentence or clause of nine cards begins with it
        # (tests/link/test_keyword_actions.py).
        ("de", "Manifestiere", "Manifest", "701.40", ["mtgjson"], 4, "agreed"),
        ("es", "Manifiesta", "Manifest", "701.40", ["mtgjson"], 8, "agreed"),
        ("fr", "Manifestez", "Manifest", "701.40", ["mtgjson"], 8, "agreed"),
        ("it", "Manifesta", "Manifest", "701.40", ["mtgjson"], 8, "agreed"),
        # Where a clause ends with it (…予示する, …구현화한다).
        ("ja", "予示", "Manifest", "701.40", ["mtgjson"], 7, "agreed"),
        ("ko", "구현화", "Manifest", "701.40", ["mtgjson"], 4, "agreed"),
        ("pt", "Manifeste", "Manifest", "701.40", ["mtgjson"], 4, "agreed"),
        ("ru", "Воплотите", "Manifest", "701.40", ["mtgjson"], 7, "agreed"),
        # Six printings each: Watcher of the Roost, Mystic of the Hidden Way, Grim Haruspex,
        # Ruthless Ripper, Ainok Tracker, Jeering Instigator; in Chinese, Japanese and Korean the
        # three whose Morph line is glued to a keyword without a sign ("飛行変異 ―") too, read
        # through the glued first line (Korean Ainok Tracker prints another cost: five).
        ("de", "Morph", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
        ("es", "Metamorfosis", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
        ("fr", "Mue", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
        ("it", "Metamorfosi", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
        ("ja", "変異", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
        ("ko", "변이", "Morph", "702.37", ["mtgjson"], 5, "agreed"),
        ("pt", "Metamorfose", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
        ("ru", "Оборотень", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
        ("zhs", "变身", "Morph", "702.37", ["cr-glossary", "cr-rule-title", "mtgjson"], 6, "agreed"),
        ("zht", "變身", "Morph", "702.37", ["mtgjson"], 6, "agreed"),
    ]


def test_printed_keywords_with_their_evidence(snapshot_conn: sqlite3.Connection) -> None:
    found = snapshot_conn.execute(
        """select lang, term, rule_number, sources, printings, dissent, status from keyword_dictionary
        where en_term in ('Flying', 'Trample') order by en_term, lang"""
    ).fetchall()
    assert [(lang, term, number, json.loads(sources), printings, dissent, status)
            for lang, term, number, sources, printings, dissent, status in found] == [
        # + Gatherer's printed Birds of Paradise (Magic 2012 #165) in German, French, Japanese.
        # + MTGJSON's Watcher of the Roost (UGIN) in German, Spanish, French, Italian, Portuguese, Russian.
        ("de", "Fliegend", "702.9", ["gatherer", "mtgjson", "scryfall"], 7, 0, "agreed"),
        ("es", "Vuela", "702.9", ["mtgjson", "scryfall"], 6, 0, "agreed"),
        ("fr", "Vol", "702.9", ["gatherer", "mtgjson", "scryfall"], 7, 0, "agreed"),
        ("it", "Volare", "702.9", ["mtgjson", "scryfall"], 6, 0, "agreed"),
        # + MTGJSON's Watcher of the Roost in Japanese, Korean and Chinese ("飛行変異 ―", "비행변이—").
        ("ja", "飛行", "702.9", ["gatherer", "mtgjson", "scryfall"], 7, 0, "agreed"),
        ("ko", "비행", "702.9", ["cr-rule-list", "mtgjson", "scryfall"], 2, 0, "agreed"),
        ("pt", "Voar", "702.9", ["mtgjson", "scryfall"], 2, 0, "agreed"),
        ("ru", "Полет", "702.9", ["mtgjson", "scryfall"], 2, 0, "agreed"),
        # One printing, confirmed by the Chinese CR's rule title and glossary.
        ("zhs", "飞行", "702.9", ["cr-glossary", "cr-rule-title", "mtgjson", "scryfall"], 2, 0, "agreed"),
        ("zht", "飛行", "702.9", ["mtgjson", "scryfall"], 2, 0, "agreed"),
        ("de", "verursacht Trampelschaden", "702.19", ["scryfall"], 2, 0, "agreed"),
        ("es", "arrolla", "702.19", ["scryfall"], 2, 0, "agreed"),
        ("fr", "piétinement", "702.19", ["scryfall"], 1, 0, "single printing"),
        ("it", "travolgere", "702.19", ["scryfall"], 1, 0, "single printing"),
        ("ja", "トランプル", "702.19", ["scryfall"], 1, 0, "single printing"),
        ("ko", "돌진", "702.19", ["cr-rule-list"], 0, 0, "agreed"),
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


def test_glossary_headings_give_their_word_not_their_notes(snapshot_conn: sqlite3.Connection) -> None:
    # The Chinese glossary's headings carry a translator's note or a tag ("蛮化（动作）"), or two
    # words for two senses ("使用/场上", play and in play): searching "场上" led to Play, "译注"
    # ("translator's note") to Counter.
    terms = [row[0] for row in snapshot_conn.execute("select term from keyword_dictionary where lang = 'zhs'")]
    assert not [term for term in terms if "/" in term or "（" in term or "(" in term]
    assert {row[0]: json.loads(row[1]) for row in snapshot_conn.execute(
        "select term, sources from keyword_dictionary where lang = 'zhs' and term in ('蛮化', '循环')")} == {
        "蛮化": ["cr-glossary", "cr-rule-title"], "循环": ["cr-glossary", "cr-rule-title"]}


def test_keywords_with_a_number_give_their_term(snapshot_conn: sqlite3.Connection) -> None:
    # "Graft 2" is printed "Pfropfen 2", "Greffe 2", "移植２": such lines were never read.
    rows = snapshot_conn.execute(
        "select lang, term, status from keyword_dictionary where en_term in ('Graft', 'Bloodthirst') and lang != 'zhs'"
        " order by en_term, lang"
    ).fetchall()
    assert rows == [
        ("de", "Blutdurst", "single printing"), ("es", "Sed de sangre", "single printing"),
        ("de", "Pfropfen", "agreed"), ("es", "Injertar", "agreed"), ("fr", "Greffe", "agreed"),
        ("it", "Innesto", "agreed"), ("ja", "移植", "agreed"),
    ]


def test_every_entry_names_todays_rule_of_its_keyword(snapshot_conn: sqlite3.Connection) -> None:
    """The rule number is today's: the Chinese CR of 2025 numbers Reveal 701.16, and today's 701.16
    is Investigate (57 of the 265 entries named another keyword's rule before)."""
    entries = snapshot_conn.execute("select lang, term, en_term, rule_number from keyword_dictionary").fetchall()
    today = dict(snapshot_conn.execute(
        """select title, number from rules where kind = 'rule' and version_id =
            (select id from cr_versions where lang = 'en' order by effective_date desc limit 1)"""
    ).fetchall())
    # 265 before: 3 headings of two words left out, 2 merged, 7 keywords with numbers; 24 from
    # MTGJSON's keyword lines, 6 from its sentences (Manifest); 2 keyword headings a mark ends
    # ("秘罗万岁！", "发动引擎！": read as text, without a title, before).
    # And 3 of Morph in ja, ko, zht: MTGJSON's texts read as lines there too; 5 of keywords glued to
    # their Morph line (接死, 先制攻撃, 치명타, 死觸, 先攻 in Traditional Chinese); 10 of the Korean 122.1b (its
    # other two, 비행 and 치명타, printed too); 2 of Manifest in ja and ko, where clauses end with it.
    assert len(entries) == 319
    assert [entry for entry in entries if today.get(entry[2]) != entry[3]] == []
    reveal = snapshot_conn.execute(
        "select rule_number from keyword_dictionary where lang = 'zhs' and term = '展示'").fetchone()
    assert reveal == ("701.20",)


def test_reprints_are_mined_once_and_observed_per_printing() -> None:
    """``observations`` mines each (language, printed text, Oracle text) once: the same findings,
    in the same order, as mining every printing, for reprints, a text shared by two languages, and
    one printed text under two Oracle texts; and past the memo's size alike."""
    import sqlite_utils

    import kb.store.derive_keywords as derive_keywords
    from kb.link.keywords import mine_printing
    from kb.store.schema import ensure_db_shape

    db = sqlite_utils.Database(memory=True)
    ensure_db_shape(db, search=False)
    titles = {"flying": ("Flying", "702.9"), "trample": ("Trample", "702.19"), "haste": ("Haste", "702.10")}
    db.execute("insert into cards (oracle_id, name, oracle_text) values ('a', 'A', 'Flying'), ('b', 'B', 'Trample'),"
               " ('c', 'C', 'Flying, haste')")
    db.execute("insert into documents (id, source_id) values (1, 'scryfall'), (2, 'mtgjson')")
    printings = [
        ("p1", "a", "de", "Fliegend", 1), ("p2", "a", "de", "Fliegend", 2), ("p3", "a", "fr", "Vol", 1),
        ("p4", "b", "de", "Fliegend", 1),  # the same printed words under another Oracle text: another pair
        ("p5", "c", "de", "Fliegend, Eile", 1), ("p6", "a", "ja", "飛行", 1), ("p7", "c", "de", "Fliegend, Eile", 2),
        ("p8", "b", "de", "verursacht Trampelschaden", None), ("p9", "a", "en", "Flying", 1),
    ]
    db.conn.executemany("insert into printings (id, oracle_id, lang, printed_text, document_id) values (?,?,?,?,?)",
                        [(pid, oracle, lang, text, document) for pid, oracle, lang, text, document in printings])
    sources = {1: "scryfall", 2: "mtgjson", None: "unknown"}
    oracle_of = {"a": "Flying", "b": "Trample", "c": "Flying, haste"}
    expected = [seen for pid, oracle, lang, text, document in printings
                for seen in mine_printing(pid, lang, text, oracle_of[oracle], titles, sources[document])]
    assert len(expected) == 10
    assert derive_keywords.observations(db, titles) == expected
    held = derive_keywords.MINED_TEXTS_HELD
    try:
        derive_keywords.MINED_TEXTS_HELD = 1
        assert derive_keywords.observations(db, titles) == expected
    finally:
        derive_keywords.MINED_TEXTS_HELD = held
