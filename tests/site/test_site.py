"""Our Datasette pages through ``ds.client``: search, card, rule, feed, JSON, escaping, robots."""
from __future__ import annotations

import copy
import re
import sqlite3
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest

import kb.site
from kb.site.glossary_linker import GlossaryLinker
from kb.site.markup import linked_in_order, render_text, symbol_html
from kb.site.search_text import linked_as_a_noun
from site_databases import JACE, PHELDDAGRIF, make_datasette, open_immutable

REALITY_SHIFT = "70dc830e-d05b-4fc7-88dd-879e140b3fbf"

KOMPLOTT = "/card?name=" + quote("Tödliches Komplott")


def count_rulings(html: str) -> int:
    return len(re.findall(r'<li class="kb-ruling" id="ruling-\d+">', html))


# -- rendering ----------------------------------------------------------------------------------


def test_render_text_escapes_then_links_rules_and_symbols() -> None:
    html = render_text("<b>Pay {W/U}</b> & see rule 702.78a, rule 104 or 20 life.")
    assert html.startswith("&lt;b&gt;Pay <span class=\"sym sym-wu sym-hybrid sym-glyph\"")
    assert '<a class="rule-ref" href="/rule/702.78a">702.78a</a>' in html
    assert '<a class="rule-ref" href="/rule/104">104</a>' in html
    assert "&amp; see" in html and "20 life" in html and "<b>" not in html


@pytest.mark.parametrize(
    ("token", "glyph", "words"),
    [
        ("{T}", "ms-tap", "tap"),
        ("{W}", "ms-w", "one white mana"),
        ("{2}", "ms-2", "two generic mana"),
        ("{X}", "ms-x", "X generic mana"),
        ("{W/U}", "ms-wu", "one white or blue mana"),
        ("{2/W}", "ms-2w", "two generic or one white mana"),
        ("{G/P}", "ms-gp", "one Phyrexian green mana"),
        ("{W/U/P}", "ms-wup", "one Phyrexian white or blue mana"),
        # The current CR: 107.18 "The pawprint symbol is {P}", 107.4g "the Phyrexian symbol {H}".
        ("{P}", "ms-paw", "pawprint"),
        ("{H}", "ms-h", "Phyrexian symbol"),
    ],
)
def test_symbols_drawn_with_the_mana_font_and_read_as_words(token: str, glyph: str, words: str) -> None:
    html = symbol_html(token)
    # The glyph, hidden from screen readers; the words as the accessible name; the token as
    # text fallback (shown until the font loads) with its braces for copy-paste.
    assert f'<i class="ms ms-cost {glyph}" aria-hidden="true"></i>' in html
    assert f'role="img" aria-label="{words}"' in html
    fallback = re.search(r'<span class="sym-fallback" aria-hidden="true">(.*)</span></span>$', html)
    assert fallback and re.sub(r"<[^>]+>", "", fallback.group(1)) == "{" + {"{T}": "↷"}.get(token, token[1:-1]) + "}"


def test_every_symbol_the_snapshot_holds_renders(snapshot_conn) -> None:
    """Each braced token of every text a page shows (rules, glossary, rulings, translations,
    Oracle and printed texts) renders as a symbol that reads as words, or stays its own text."""
    texts = snapshot_conn.execute(
        """select text from rules union all select text from glossary union all select text from rulings
        union all select text from ruling_translations union all select oracle_text from cards
        union all select printed_text from printings"""
    )
    tokens = {token for (text,) in texts for token in re.findall(r"\{[^{}]{1,12}\}", text or "")}
    assert {"{P}", "{H}", "{T}", "{W/P}"} <= tokens
    for token in sorted(tokens):
        label = re.search(r'aria-label="([^"]*)"', render_text(token))
        assert label is None or label.group(1), token


async def test_rules_that_print_the_pawprint_symbol_answer(snapshot_ds) -> None:
    # 107.18 and 700.2i print {P} alone: reading it as a Phyrexian symbol with no colour left
    # no words at all, and these pages (and 107, 700.2 above them, which show the same texts)
    # answered 500.
    for number in ("107.18", "700.2i"):
        response = await snapshot_ds.client.get(f"/rule/{number}")
        assert response.status_code == 200, number
    assert 'aria-label="pawprint"' in (await snapshot_ds.client.get("/rule/107.18")).text


def test_symbol_without_a_glyph_keeps_its_text_token() -> None:
    html = symbol_html("{?}")
    assert "<i " not in html and "sym-glyph" not in html and "{</span>?<span" in html


def test_token_lookahead_skips_no_match(snapshot_conn) -> None:
    # The lookahead only lets the engine skip positions: every ruling, glossary entry and
    # translation of the snapshot, and the rules of the newest English CR and of every
    # translation, get the same tokens as from the three patterns alone.
    from kb.site import markup

    plain = re.compile(f"(?P<symbol>{markup.SYMBOL})|(?P<section>{markup.SECTION_REF})|(?P<rule>{markup.RULE_REF})")
    texts = [row[0] or "" for table in ("rulings", "glossary", "ruling_translations")
             for row in snapshot_conn.execute(f"select text from {table}")]
    texts += [row[0] or "" for row in snapshot_conn.execute(
        """select text from rules where version_id in (select id from cr_versions where lang != 'en')
        or version_id = (select id from cr_versions where lang = 'en' order by effective_date desc limit 1)""")]
    assert len(texts) > 10000
    for text in texts:
        assert [(m.span(), m.groupdict()) for m in markup.TOKEN.finditer(text)] == [
            (m.span(), m.groupdict()) for m in plain.finditer(text)], text


def test_render_text_keeps_version_in_links() -> None:
    assert render_text("See 601.2b.", "en-2019-01-25") == (
        'See <a class="rule-ref" href="/rule/601.2b?version=en-2019-01-25">601.2b</a>.'
    )


def test_the_last_subrule_of_a_range_is_linked_too() -> None:
    # 702.78a (the real CR): "the rules for paying additional costs in rules 601.2b and 601.2f–h".
    link = '<a class="rule-ref" href="/rule/{}?version=v">{}</a>'
    assert render_text("rules 601.2b and 601.2f–h.", "v") == (
        "rules " + link.format("601.2b", "601.2b") + " and " + link.format("601.2f", "601.2f") + "–"
        + link.format("601.2h", "h") + "."
    )
    assert render_text("601.2a-e", "v") == link.format("601.2a", "601.2a") + "-" + link.format("601.2e", "e")
    # Prose, a backwards "range", a symbol: nothing more is linked.
    for text, links in (("see 702.19b - a player", 1), ("601.2h–f", 1), ("{T}-a", 0)):
        assert render_text(text, "v").count("<a ") == links, text
    assert linked_in_order("rules 601.2b and 601.2f–h and 118.7a–b") == ["601.2b", "601.2f", "601.2h", "118.7a", "118.7b"]
    # A version without the last rule shows its letter as printed; a translation's start that leads
    # elsewhere takes its end along (the Chinese CR's "规则601.2f-h").
    assert render_text("601.2f–h", "v", absent=["601.2h"]).endswith('–<span class="rule-ref rule-ref-absent" title="No rule'
                                                                    ' of this number in the version this text is from: cited as printed">h</span>')
    assert render_text("规则601.2f-h", "zh", citations={"601.2f": ("601.2f", "en")}).endswith(
        '-<a class="rule-ref" href="/rule/601.2h?version=en">h</a>')


async def test_a_rule_page_links_the_end_of_a_range(snapshot_ds) -> None:
    html = (await snapshot_ds.client.get("/rule/702.78a")).text
    assert '<a class="rule-ref" href="/rule/601.2f?version=en-2026-04-17">601.2f</a>–<a class="rule-ref"' \
        ' href="/rule/601.2h?version=en-2026-04-17">h</a>' in html


# -- home and search ----------------------------------------------------------------------------


async def test_home_has_one_search_box(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/")
    assert response.status_code == 200
    assert response.text.count('name="q"') == 1
    assert 'action="/search"' in response.text
    assert "Comprehensive Rules of 2026-04-17" in response.text
    # Each example in another language says which (the German one did not).
    assert '<a href="/search?q=Trampelschaden" lang="de">Trampelschaden</a>' in response.text


async def test_search_redirects_an_exact_card_name(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/search?q=" + quote("Джейс, Гений из Врина"))
    assert response.status_code == 302
    # The query rides along, so the header box still shows it on the card page.
    assert response.headers["location"] == f"/card/{JACE}?q=" + quote("Джейс, Гений из Врина")


async def test_search_redirects_a_rule_number(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/search?q=702.78a")
    assert response.status_code == 302
    assert response.headers["location"] == "/rule/702.78a?q=702.78a"


async def test_search_lists_keyword_results_grouped(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/search?q=conspirar")
    assert response.status_code == 200
    assert 'class="kb-best" href="/rule/702.78#lang-es"' in response.text
    assert "kb-group-keywords" in response.text and "kb-group-rules" in response.text
    data = (await snapshot_ds.client.get("/search.json?q=conspirar")).json()
    assert data["best"]["url"] == "/rule/702.78#lang-es"
    assert [group["kind"] for group in data["groups"]] == ["keywords", "rules"]


async def test_json_pages_carry_the_page_data_as_utf8(snapshot_ds, snapshot_db) -> None:
    """The site's JSON (orjson) is the data the page functions give, the standard library's
    reading of it included, with text as UTF-8 rather than escaped."""
    import json

    from kb.site.card_page import card_page
    from kb.site.diff_page import diff_page
    from kb.site.rule_page import rule_page
    from kb.site.search import search
    from kb.site.version_page import version_page

    conn = open_immutable(snapshot_db)
    conn.row_factory = sqlite3.Row
    query = "zerstören"
    response = await snapshot_ds.client.get("/search.json?q=" + quote(query))
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert json.loads(response.content) == json.loads(json.dumps(search(conn, query).to_dict(), default=str))
    assert "zerstören".encode() in response.content
    pages = {
        f"/card/{JACE}.json": card_page(conn, JACE),
        "/rule/702.78.json": rule_page(conn, "702.78", None, None),
        "/version/en-2026-04-17.json": version_page(conn, "en-2026-04-17"),
        "/diff.json?from=en-2026-01-16&to=en-2026-04-17": diff_page(conn, "en-2026-01-16", "en-2026-04-17", None, 0),
    }
    conn.close()
    for url, page in pages.items():
        assert page, url
        assert json.loads((await snapshot_ds.client.get(url)).content) == json.loads(json.dumps(page, default=str)), url


async def test_search_shows_the_section_a_title_names_without_landing_on_it(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/search?q=" + quote("state-based actions"))
    assert response.status_code == 200  # a list: the query may be about the rulings that mention it
    assert 'class="kb-best" href="/rule/704"' in response.text
    assert '<span class="kb-best-title">704 State-Based Actions</span>' in response.text


async def test_a_glossary_entry_no_longer_defined_says_which_edition_defined_it_last(snapshot_ds) -> None:
    """"fizzle" showed 2006's entry, "See rule 413.2a", as the best match with nothing to say it was
    not today's glossary: 413.2a is 608.2b today, which the rules group lists. Said of the name, not
    of the entry: "summoning sickness" is 2006's Summoning Sickness (Informal), which today's
    glossary calls Summoning Sickness Rule ("not in today's glossary" above it: an English judge's
    review)."""
    page = (await snapshot_ds.client.get("/search?q=fizzle")).text
    said = "a name today's glossary no longer has; last defined under it in the Comprehensive Rules of 2006-02-01"
    best, _, groups = page.partition('<section class="kb-group')
    assert said in best and 'href="/rule/608.2b"' in groups
    assert groups.count(said) == 1  # Fizzle (Informal); Fizzle (Obsolete) is 2003's
    assert "last defined under it in the Comprehensive Rules of 2003-03-15" in groups
    # Today's entries say nothing of the kind, nor an older spelling of one (straight quotes).
    assert "today's glossary no longer has" not in (await snapshot_ds.client.get("/search?q=trample")).text
    banding = (await snapshot_ds.client.get("/search?q=banding")).text
    assert 'href="/glossary/Banding%2C%20%22Bands%20with%20Other%22"' in banding and "today's glossary no longer has" not in banding
    # Nor another spelling of it: 2006's '"As though"' is today's As Though, 2024's Damage
    # Assignment Order today's "(Obsolete)" one (a docs review).
    for query in ["as though", "damage assignment order", "remove from combat"]:
        assert "today's glossary no longer has" not in (await snapshot_ds.client.get("/search?q=" + quote(query))).text, query
    # But an older entry of a term today's glossary defines as obsolete says it: 2006's "Mana
    # Burn" ("The player loses 1 life for each mana lost") was shown unlabelled beside today's
    # "Mana Burn (Obsolete)" (a player's review); so is 2024's Damage Assignment Order.
    mana_burn = (await snapshot_ds.client.get("/search?q=mana+burn")).text
    assert ('<a href="/glossary/Mana%20Burn">Mana Burn</a>' in mana_burn
            and "as the Comprehensive Rules of 2006-02-01 last defined it; today's glossary marks it obsolete" in mana_burn)
    order = (await snapshot_ds.client.get("/search?q=damage+assignment+order")).text
    assert "today's glossary marks it obsolete" in order


@pytest.mark.parametrize("query", ['"', "(a", "-x", "*", "a:b", "NEAR(", '<script>alert(1)</script>'])
async def test_search_never_errors_and_escapes_the_query(snapshot_ds, query: str) -> None:
    response = await snapshot_ds.client.get("/search?q=" + quote(query))
    assert response.status_code == 200
    assert "<script>alert(1)</script>" not in response.text


# -- card pages ---------------------------------------------------------------------------------


async def test_card_page_of_jace(snapshot_ds) -> None:
    response = await snapshot_ds.client.get(f"/card/{JACE}")
    assert response.status_code == 200
    html = response.text
    assert count_rulings(html) == 16
    assert "Джейс, Гений из Врина" in html and "Jace, Wunderkind von Vryn" in html
    assert "https://api.scryfall.com/cards/02d6d693-f1f3-4317-bcc0-c21fa8490d38/rulings" in html
    assert "Not yet linked" not in html


async def test_card_json_of_jace(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()
    assert page["linked"] is True
    assert len(page["rulings"]) == 16
    assert Counter(ruling["source"] for ruling in page["rulings"]) == {"wotc": 15, "scryfall": 1}
    dates = [ruling["published_at"] for ruling in page["rulings"]]
    assert dates == sorted(dates)
    assert {"lang": "ru", "name": "Джейс, Гений из Врина", "source": "scryfall"} in page["names"]
    assert all(ruling["sightings"] for ruling in page["rulings"])


async def test_a_card_shows_its_power_and_toughness_or_loyalty_each_face_its_own(snapshot_ds) -> None:
    # As the real Scryfall files give them: Jace's front 0/2, its back loyalty 5; Phelddagrif 4/4.
    faces = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()["card"]["card_faces"]
    assert [(face["power"], face["toughness"], face["loyalty"]) for face in faces] == [("0", "2", None), (None, None, "5")]
    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    front, back = html.split('<div class="kb-oracle kb-face">')[1:]
    assert '<div class="kb-stats" title="Power/toughness">0/2</div>' in front and "Loyalty" not in front
    assert '<div class="kb-stats">Loyalty 5</div>' in back
    card = (await snapshot_ds.client.get(f"/card/{PHELDDAGRIF}.json")).json()["card"]
    assert (card["power"], card["toughness"], card["loyalty"]) == ("4", "4", None)
    assert '<div class="kb-stats" title="Power/toughness">4/4</div>' in (await snapshot_ds.client.get(f"/card/{PHELDDAGRIF}")).text


async def test_a_translated_wording_whose_symbols_differ_from_oracle_says_so(snapshot_ds) -> None:
    # MTGJSON's Korean Ainok Tracker prints "변이 {4}{B}", Oracle Morph {4}{R}: shown without a
    # word (a player's review). A modal card's hint of its other face's cost is no difference.
    tracker = (await snapshot_ds.client.get("/card/bf84a598-12d3-406d-8eeb-40592e782b87.json")).json()
    differ = [(language["lang"], wording["symbols_differ"]) for language in tracker["printed"]
              for wording in language["wordings"] if wording["symbols_differ"]]
    assert differ == [("ko", {"printed": "{B}", "oracle": "{R}"})]
    alrund = (await snapshot_ds.client.get("/card/0a69c3dd-52a3-4ef6-b53f-b0780e0dc5f8.json")).json()
    assert alrund["printed"] and not [wording for language in alrund["printed"] for wording in language["wordings"]
                                      if wording["symbols_differ"]]
    html = (await snapshot_ds.client.get("/card/bf84a598-12d3-406d-8eeb-40592e782b87?lang=ko")).text
    assert "Its symbols differ from the Oracle text: it prints" in html and "a misprint, or an older wording" in html


async def test_each_ruling_names_the_rules_it_relies_on_beside_it(snapshot_ds) -> None:
    # Only the list below the rulings named them, for all at once (a player's review).
    page = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()
    madness = [ruling for ruling in page["rulings"] if any(rule["title"] == "Madness" for rule in ruling["relies_on"])]
    assert madness and all(ruling["relies_on"] == [{
        "number": "702.35", "title": "Madness", "version_id": "en-2026-04-17", "removed": False,
        "then_number": "702.34", "then_version_id": "en-2015-11-13",
        "paired_by_number": False, "number_uncertain": False, "not_in_force": False}] for ruling in madness)
    relied = {rule["number"] for ruling in page["rulings"] for rule in ruling["relies_on"]}
    assert relied == {rule["number"] for rule in page["rules"] if rule["number"]}
    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    assert ('<p class="kb-relies">Relies on <a class="rule-ref" href="/rule/702.35">702.35</a> Madness'
            ' <span class="kb-muted">(702.34 in en-2015-11-13)</span></p>') in html


async def test_a_card_without_rulings_says_whether_any_source_we_hold_lists_them(snapshot_ds) -> None:
    # "Rulings 0" read as "no rulings" where no rulings file was imported (a player's review).
    urzas_saga = (await snapshot_ds.client.get("/card/4c6a0c30-b547-4eff-8ff4-0ca25803c076.json")).json()
    assert (urzas_saga["rulings"], urzas_saga["rulings_checked_in"]) == ([], [])
    html = (await snapshot_ds.client.get("/card/4c6a0c30-b547-4eff-8ff4-0ca25803c076")).text
    assert "no document we hold is known to list its rulings" in html and "it may have rulings we do not hold" in html
    a_alrund = (await snapshot_ds.client.get("/card/2d6186a6-5236-4fb9-bcb6-f6825b148886.json")).json()
    assert [(document["source_id"], document["url"]) for document in a_alrund["rulings_checked_in"]] == [
        ("scryfall", "https://api.scryfall.com/cards/b443504e-1b25-4565-bad7-2575826c7bb9/rulings")]
    smite = (await snapshot_ds.client.get("/card/649512ed-4908-450a-9652-b2c80df5e24d.json")).json()
    assert [(document["source_id"], document["format"]) for document in smite["rulings_checked_in"]] == [("mtgjson", "mtgjson")]
    jace = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()
    assert jace["rulings"] and jace["rulings_checked_in"] == []


async def test_a_bulk_file_older_than_the_card_says_it_could_not_list_its_rulings(snapshot_db, tmp_path) -> None:
    # CONSTRUCTED: a bulk rulings file of 2019 added to a copy of the snapshot; Urza's Saga's one
    # printing we hold is of Modern Horizons 2 (2021-06-18, Scryfall's day for it).
    import shutil

    import sqlite_utils

    db_path = tmp_path / "kb.db"
    shutil.copy(snapshot_db, db_path)
    sqlite_utils.Database(db_path)["documents"].insert({
        "id": 1, "source_id": "scryfall", "format": "scryfall-bulk-rulings", "status": "parsed",
        "url": "https://data.scryfall.io/rulings/rulings-20190101210031.json"})
    html = (await make_datasette(db_path).client.get("/card/4c6a0c30-b547-4eff-8ff4-0ca25803c076")).text
    assert ("(made on 2019-01-01) lists none: it was made before the earliest printing of the card we hold"
            " (2021-06-18), so it may have been made before the card's rulings were.") in html


async def test_a_card_says_which_file_its_oracle_text_was_read_from_and_when(snapshot_ds) -> None:
    # Progenitor Mimic's "enter the battlefield" is the wording of a 2019 file, given as today's
    # with neither date nor source (a player's review).
    mimic = (await snapshot_ds.client.get("/card/88929ea9-900f-4dbb-b16c-cf3bad4e410c.json")).json()
    assert "enter the battlefield" in mimic["card"]["oracle_text"]
    assert mimic["oracle_source"]["source_id"] == "scryfall"
    assert mimic["oracle_source"]["path"].endswith("data/snapshot/scryfall/cards-page3-multilang-2019.json")
    jace = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()["oracle_source"]
    assert (jace["source_id"], jace["fetched_at"][:10]) == ("scryfall", "2025-11-01")
    assert jace["url"].startswith("https://api.scryfall.com/cards/search?")
    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    assert 'id="oracle-source">Oracle text as scryfall gave it in' in html and "read on 2025-11-01: the wording of that day" in html
    mimic_html = (await snapshot_ds.client.get("/card/88929ea9-900f-4dbb-b16c-cf3bad4e410c")).text
    assert "(a file whose date this database does not hold: the wording of the day it was made)" in mimic_html


async def test_a_cards_rulings_are_shown_oldest_first_and_said_to_be(snapshot_ds) -> None:
    # Scryfall's list of Jace's rulings (the real snapshot file) opens with 2017-07-17, 2017-09-29,
    # 2016-04-08; the page sorts by date, and said only "rulings in order" (a review): it says how.
    import json

    listed = json.loads((Path(__file__).parent.parent.parent / "data" / "snapshot" / "scryfall"
                         / "rulings-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json").read_text(encoding="utf-8"))
    assert [ruling["published_at"] for ruling in listed["data"]][:5] == [
        "2017-07-17", "2017-09-29", "2016-04-08", "2016-04-08", "2015-06-22"]
    jace = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()
    assert [ruling["published_at"] for ruling in jace["rulings"]] == ["2015-06-22"] * 12 + ["2016-04-08"] * 2 + [
        "2017-07-17", "2017-09-29"]
    # Those of one day in the list's order: the 2015 rulings' places in Scryfall's list, 4 to 15.
    assert [ruling["sightings"][0]["position"] for ruling in jace["rulings"][:12]] == list(range(4, 16))
    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    assert ('<p class="kb-muted" id="ruling-order">Oldest first, whatever order a source lists them in; those of one day'
            " in the order their source gives.</p>") in html
    api = (Path(__file__).parent.parent.parent / "docs" / "api.md").read_text(encoding="utf-8")
    assert "rulings in order" not in api and "rulings oldest first (an undated one before them; those of one" in api


async def test_a_card_read_from_mtgjson_states_the_files_day_and_how_its_text_differs(snapshot_ds) -> None:
    # The real UGIN file opens with "meta": {"date": "2022-04-25", …}; the page said "a file of no
    # known date", and "as mtgjson gave it" of a text whose "[+2]:" it writes "+2:" (a review).
    ugin = (await snapshot_ds.client.get("/card/eecb3047-a563-441a-9175-200421981ac3.json")).json()
    source = ugin["oracle_source"]
    assert (source["source_id"], source["format"], source["made_on"], source["fetched_at"]) == (
        "mtgjson", "mtgjson", "2022-04-25", None)
    assert ugin["card"]["oracle_text"].startswith("+2: Ugin, the Spirit Dragon deals 3 damage to any target.\n−X: Exile")
    html = (await snapshot_ds.client.get("/card/eecb3047-a563-441a-9175-200421981ac3")).text
    assert ("id=\"oracle-source\">Oracle text from mtgjson's file <a href=\"https://mtgjson.com/api/v5/UGIN.json\">"
            "https://mtgjson.com/api/v5/UGIN.json</a>, made on 2022-04-25: the wording of the day it was made, which"
            " Oracle updates may have changed since; its loyalty costs are written as Oracle writes them"
            " (“+2:” where the file writes “[+2]:”).</p>") in html
    assert "no known date" not in html and "gave it" not in html


async def test_a_card_known_only_from_its_gatherer_page_shows_what_the_page_showed(snapshot_ds) -> None:
    # The real Gatherer pages in their Oracle view: cost, type line, text and P/T were read and
    # dropped (no card data holds these cards), and no printing was listed (a review of the cards).
    page = (await snapshot_ds.client.get("/card.json?name=" + quote("Vault Skirge"))).json()
    assert page["linked"] is False and page["card"] is None
    shown = page["oracle_as_shown"]
    assert (shown["mana_cost"], shown["type_line"], shown["power"], shown["toughness"]) == (
        "{1}{B/P}", "Artifact Creature — Imp", "1", "1")
    assert shown["oracle_text"].startswith("({B/P} can be paid with either {B} or 2 life.)\nFlying\nLifelink")
    assert shown["source_path"].endswith("gatherer/vaultskirge.html")
    assert [(p["printed_name"], p["set_code"], p["collector_number"], p["multiverse_id"]) for p in page["printings"]] == [
        ("Vault Skirge", "NPH", "76", 217984)]
    html = (await snapshot_ds.client.get("/card?name=" + quote("Vault Skirge"))).text
    assert 'id="oracle-as-shown"' in html and "Artifact Creature — Imp" in html
    # Not "the name a localized page printed": the page is English (a code review).
    assert "known only by the document that gave its Oracle wording below" in html and "localized page" not in html
    # The page's own address (its form's action: data/snapshot/README.md), not the local file.
    assert shown["source_url"] == "https://gatherer.wizards.com/Pages/Card/Details.aspx?multiverseid=217984"
    assert ('The Oracle wording as <a href="https://gatherer.wizards.com/Pages/Card/Details.aspx?multiverseid=217984">'
            "the card&#39;s page</a> gave it") in html
    # A card of two faces, each with its multiverse id and number: the page's id is its back face's,
    # the number both faces' (the back's "81b" alone was shown as the whole card's: a review).
    werewolf = (await snapshot_ds.client.get("/card.json?name=" + quote("Afflicted Deserter // Werewolf Ransacker"))).json()
    assert [(p["multiverse_id"], p["collector_number"], p["power"], p["toughness"]) for p in werewolf["printings"]] == [
        (262698, "81a // 81b", "3 // 5", "2 // 4")]
    werewolf_html = (await snapshot_ds.client.get("/card?name=" + quote("Afflicted Deserter // Werewolf Ransacker"))).text
    assert '<div class="kb-stats" title="Power/toughness">3/2 // 5/4</div>' in werewolf_html
    assert '<span class="tag">Dark Ascension <span class="kb-nowrap">(DKA) #81a // 81b</span></span>' in werewolf_html


async def test_a_transforming_card_shows_each_face_with_its_own_cost_type_and_text(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()
    faces = page["card"]["card_faces"]
    assert [(face["name"], face["mana_cost"], face["type_line"]) for face in faces] == [
        ("Jace, Vryn's Prodigy", "{1}{U}", "Legendary Creature — Human Wizard"),
        ("Jace, Telepath Unbound", None, "Legendary Planeswalker — Jace"),
    ]
    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    blocks = html.split('<div class="kb-oracle kb-face">')[1:]
    assert len(blocks) == 2
    front, back = (block.split("</div>\n  </div>")[0] for block in blocks)
    assert '<h2 class="kb-face-name">Jace, Vryn&#39;s Prodigy</h2>' in front and "kb-cost" in front
    assert "transformed under his owner" in front and "emblem" not in front
    assert '<h2 class="kb-face-name">Jace, Telepath Unbound</h2>' in back and "kb-cost" not in back
    assert "Legendary Planeswalker — Jace" in back and "emblem" in back
    # Each language's names: the whole name, then its faces front first.
    english = [row["name"] for row in page["names"] if row["lang"] == "en"]
    assert english == ["Jace, Vryn's Prodigy // Jace, Telepath Unbound", "Jace, Vryn's Prodigy", "Jace, Telepath Unbound"]
    german = [row["name"] for row in page["names"] if row["lang"] == "de"]
    assert german == ["Jace, Wunderkind von Vryn // Jace, der entfesselte Telepath", "Jace, Wunderkind von Vryn",
                      "Jace, der entfesselte Telepath"]
    assert [row["lang"] for row in page["names"]][:3] == ["en", "en", "en"]
    # A one-faced card keeps the single box.
    html = (await snapshot_ds.client.get(f"/card/{PHELDDAGRIF}")).text
    assert "kb-face" not in html and '<div class="kb-oracle">' in html


async def test_a_printed_text_that_lost_its_line_breaks_is_shown_with_them_marked(snapshot_ds) -> None:
    """MTGJSON prints Ainok Tracker's French text "InitiativeMue {4}{R} (…)" (UGIN.json): the page
    shows it cut where its lines ended, says so, and keeps the text as printed beside it; the
    Japanese text ("先制攻撃変異{4}{R}…", First strike glued to Morph) shows no sign of its lines: it is
    shown as printed, with the note that its lines were lost (before: no note, as if whole)."""
    ainok = "bf84a598-12d3-406d-8eeb-40592e782b87"
    page = (await snapshot_ds.client.get(f"/card/{ainok}.json")).json()
    wordings = {language["lang"]: language["wordings"] for language in page["printed"]}
    (french,) = [wording for wording in wordings["fr"] if wording["printed_text"].startswith("InitiativeMue")]
    assert french["lines_lost"] is True
    assert french["restored_text"].splitlines()[0] == "Initiative"
    assert french["restored_text"].splitlines()[1].startswith("Mue {4}{R} (Vous pouvez lancer")
    assert french["restored_text"].replace("\n", "") == french["printed_text"]
    japanese = [wording for wording in wordings["ja"] if wording["printed_text"].startswith("先制攻撃変異")]
    assert [(wording["lines_lost"], wording["restored_text"]) for wording in japanese] == [(True, None)]
    html = (await snapshot_ds.client.get(f"/card/{ainok}")).text
    assert html.count("(its line breaks were lost upstream): shown as printed.") == 4  # ja, ko, zhs, zht
    # Marked on the printing itself, not as an issue of every card of the set file.
    assert "joined-printed-lines" not in [issue["kind"] for issue in page["issues"]]
    ugins_construct = (await snapshot_ds.client.get("/card/6b87a933-b0d2-4120-b4a0-65ab0f3dbe48.json")).json()
    assert not [issue for issue in ugins_construct["issues"] if "line" in issue["kind"]]
    html = (await snapshot_ds.client.get(f"/card/{ainok}")).text
    assert '<div class="kb-oracle-text">Initiative<br>\nMue ' in html
    assert "Line breaks restored here: the source printed this text on one line" in html
    assert '<details><summary>As the source printed it</summary><div class="kb-oracle-text" lang="fr">InitiativeMue ' in html


async def test_a_card_page_lists_its_printings_language_by_language(snapshot_ds) -> None:
    # The real printings of Jace in the snapshot: six English ones (Oracle text, no printed text of
    # their own) and Magic Origins #60 in ten other languages.
    page = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()
    printed = page["printed"]
    assert [language["lang"] for language in printed] == ["en", "de", "es", "fr", "it", "ja", "ko", "pt", "ru", "zhs", "zht"]
    (english,) = printed[0]["wordings"]
    assert english["printed_name"] is None and english["printed_text"] is None
    # In the order they were released, each with its set's name and day (Scryfall's card objects).
    assert [(p["set_code"], p["collector_number"], p["set_name"], p["released_at"]) for p in english["printings"]] == [
        ("PS15", "60", "San Diego Comic-Con 2015", "2015-07-09"),
        ("ORI", "60", "Magic Origins", "2015-07-17"),
        ("PORI", "60s", "Magic Origins Promos", "2015-07-17"),
        ("V17", "12", "From the Vault: Transform", "2017-11-24"),
        ("PLST", "ORI-60", "The List", "2020-09-26"),
        ("PIO", "60", "Pioneer Masters", "2024-12-10"),
    ]
    (german,) = printed[1]["wordings"]
    assert german["printed_name"] == "Jace, Wunderkind von Vryn // Jace, der entfesselte Telepath"
    assert german["printed_type_line"] == "Legendäre Kreatur — Mensch, Zauberer // Planeswalker — Jace"
    assert german["printed_text"].startswith("{T}: Ziehe eine Karte und wirf dann eine Karte ab.")
    assert german["printings"] == [
        {"set_code": "ORI", "collector_number": "60", "set_name": "Magic Origins", "released_at": "2015-07-17"}]
    # Each field holds both faces: shown face by face.
    assert [(face["name"], face["type_line"]) for face in german["faces"]] == [
        ("Jace, Wunderkind von Vryn", "Legendäre Kreatur — Mensch, Zauberer"),
        ("Jace, der entfesselte Telepath", "Planeswalker — Jace"),
    ]
    assert german["faces"][1]["text"].startswith("+1: Bis zu eine Kreatur")
    assert english["faces"] == []
    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    section = html.split('<section class="kb-printed"', 1)[1].split("</section>", 1)[0]
    assert 'Printed in each language <span class="count">11</span>' in section
    assert section.count('class="kb-oracle kb-printed-wording"') == 11
    assert '<div class="kb-oracle kb-printed-wording" lang="de">' in section
    # Each printing's code, day and number on one line (a phone broke "2015-07-" from "09").
    assert re.sub(r"<[^>]+>", "", section).count(
        "San Diego Comic-Con 2015 (PS15, 2015-07-09) #60 · Magic Origins (ORI, 2015-07-17) #60"
        " · Magic Origins Promos (PORI, 2015-07-17) #60s · From the Vault: Transform (V17, 2017-11-24) #12"
        " · The List (PLST, 2020-09-26) #ORI-60 · Pioneer Masters (PIO, 2024-12-10) #60") == 1
    assert 'San Diego Comic-Con 2015 <span class="kb-nowrap">(PS15, 2015-07-09) #60</span>' in section
    assert section.count('class="kb-printed-face"') == 20  # ten languages, two faces each


SULTAI_EMISSARY = "0274f286-46a1-4028-878a-88c2146a895c"


async def test_an_english_printing_shows_only_a_wording_of_its_own_and_its_sets_day(snapshot_ds) -> None:
    """Sultai Emissary's English printing (MTGJSON's originalText, today's Oracle wording) was
    said to carry "Oracle text above" and then printed it again; Ugin's Fate's printings showed
    no day, the set's coming after its cards in the file (a player's review)."""
    page = (await snapshot_ds.client.get(f"/card/{SULTAI_EMISSARY}.json")).json()
    (english,) = page["printed"][0]["wordings"]
    assert (english["printed_type_line"], english["printed_text"]) == (None, None)
    assert {(p["set_name"], p["released_at"]) for language in page["printed"] for wording in language["wordings"]
            for p in wording["printings"]} == {("Ugin's Fate", "2015-01-17")}
    html = (await snapshot_ds.client.get(f"/card/{SULTAI_EMISSARY}")).text
    assert html.count("When Sultai Emissary dies, manifest the top card of your library.") == 1
    # Ugin's printed wording is not today's: shown, and said to be the card's wording then.
    ugin = (await snapshot_ds.client.get("/card?name=" + quote("Ugin, the Spirit Dragon"))).headers["location"]
    ugin_html = (await snapshot_ds.client.get(ugin)).text
    assert "As printed on the card: its wording then; the Oracle text above is Oracle's, as read from its source" in ugin_html


async def test_a_card_searched_by_its_local_name_shows_that_languages_printing_first(snapshot_ds) -> None:
    """A judge in Berlin searching "Gesandter der Sultai" landed on the English page, the German
    text after all 13 rulings. The searched language's printing now stands under the Oracle text
    (the real MTGJSON foreign data of UGIN #85)."""
    response = await snapshot_ds.client.get("/search?q=" + quote("gesandter der sultai"))
    assert response.headers["location"] == f"/card/{SULTAI_EMISSARY}?q=" + quote("gesandter der sultai")
    html = (await snapshot_ds.client.get(response.headers["location"])).text
    reading = html.split('<section class="kb-read-in"', 1)[1].split("</section>", 1)[0]
    assert 'In German: <span lang="de">Gesandter der Sultai</span>' in reading
    assert '<div class="kb-oracle kb-printed-wording" lang="de">' in reading
    assert "Wenn der Gesandte der Sultai stirbt, manifestiere die oberste Karte" in reading
    assert html.index('class="kb-read-in"') < html.index('class="kb-rulings"')
    # Punctuation and spacing aside, as the lookup finds the card; ?lang= asks for it directly.
    japanese = (await snapshot_ds.client.get(f"/card/{SULTAI_EMISSARY}?q=" + quote("スゥルタイ の 使者"))).text
    assert 'In Japanese: <span lang="ja">スゥルタイの使者</span>' in japanese
    korean = (await snapshot_ds.client.get(f"/card/{SULTAI_EMISSARY}?lang=ko")).text
    assert 'In Korean: <span lang="ko">술타이 사절</span>' in korean
    # The other names lead to their languages.
    assert f'<a href="/card/{SULTAI_EMISSARY}?lang=de#read-in">Gesandter der Sultai</a>' in korean
    # The name lookup keeps the name asked for too (it was dropped: a review of the change).
    response = await snapshot_ds.client.get("/card?name=" + quote("Gesandter der Sultai"))
    assert response.headers["location"] == f"/card/{SULTAI_EMISSARY}?q=" + quote("Gesandter der Sultai")
    # A language asked for rides along the lookup's redirect.
    response = await snapshot_ds.client.get("/card?name=" + quote("Gesandter der Sultai") + "&lang=ja")
    assert response.headers["location"] == f"/card/{SULTAI_EMISSARY}?q=" + quote("Gesandter der Sultai") + "&lang=ja"
    # A tag as the site's own pages write it, or in capitals.
    for tag in ("zh-Hans", "ZHS", "zh_hans", "zh-Hans-CN", "zh-CN"):
        html = (await snapshot_ds.client.get(f"/card/{SULTAI_EMISSARY}?lang={tag}")).text
        assert 'In Simplified Chinese: <span lang="zh-Hans">苏勒台密使</span>' in html, tag
    # English, a language the card was never printed in, or an English query: the page as it was.
    for url in (f"/card/{SULTAI_EMISSARY}?lang=en", f"/card/{SULTAI_EMISSARY}?lang=xx",
                f"/card/{SULTAI_EMISSARY}?q=" + quote("Sultai Emissary"), f"/card/{SULTAI_EMISSARY}"):
        assert 'class="kb-read-in"' not in (await snapshot_ds.client.get(url)).text, url


async def test_a_name_two_languages_print_alike_shows_both(snapshot_ds) -> None:
    """"Hakka, Corvo Sussurrante" is the Italian and the Portuguese name (Scryfall's printings):
    a Portuguese reader was shown the Italian printing only."""
    hakka = "0a69c3dd-52a3-4ef6-b53f-b0780e0dc5f8"
    html = (await snapshot_ds.client.get(f"/card/{hakka}?q=" + quote("Hakka, Corvo Sussurrante"))).text
    assert '<section class="kb-read-in" id="read-in-it"' in html and '<section class="kb-read-in" id="read-in-pt"' in html
    # A card of two faces is named once, whole, not then face by face again.
    jace = (await snapshot_ds.client.get(f"/card/{JACE}?lang=ja")).text
    heading = jace.split('<h2 id="read-in-title-ja">', 1)[1].split("</h2>", 1)[0]
    assert heading.count("ジェイス") == 2 and " // " in heading
    # No rulings: nothing is said of them.
    smite = (await snapshot_ds.client.get("/card/649512ed-4908-450a-9652-b2c80df5e24d?lang=de")).text
    assert 'id="read-in-de"' in smite and "The rulings below are in English" not in smite


def test_a_searched_name_is_read_face_by_face_too() -> None:
    from kb.site.card_language import read_in

    page = {"names": [{"lang": "en", "name": "A // B"}, {"lang": "de", "name": "Aa // Bb"}], "printed": []}
    assert [(reading["lang"], reading["name"]) for reading in read_in(page, "bb", None)] == [("de", "Aa // Bb")]
    assert read_in(page, "b", None) == []  # an English face: the page as it is


def test_a_printing_is_shown_face_by_face_only_where_every_field_holds_every_face() -> None:
    from kb.site.card_printings import printed_faces

    assert printed_faces("A // B", "Creature // Planeswalker", "a text\n//\nb text") == [
        {"name": "A", "type_line": "Creature", "text": "a text"},
        {"name": "B", "type_line": "Planeswalker", "text": "b text"},
    ]
    # A back face without text was left out of the join: whose is the one text is not known.
    assert printed_faces("A // B", "Creature // Creature", "a text") == []
    assert printed_faces("A", "Creature", "a text") == []


def test_a_card_with_more_printings_than_a_page_lists_says_its_list_is_cut(snapshot_conn, monkeypatch) -> None:
    from kb.site import card_page as card_page_module
    from kb.site import card_printings

    monkeypatch.setattr(card_printings, "CARD_PAGE_PRINTINGS_LIMIT", 7)
    page = card_page_module.card_page(snapshot_conn, JACE)
    assert page is not None and page["printed_capped"] is True and page["printings_shown"] == 7
    # English first (six printings), then the first language after it.
    assert [(language["lang"], sum(len(w["printings"]) for w in language["wordings"])) for language in page["printed"]] == [
        ("en", 6), ("de", 1),
    ]
    monkeypatch.setattr(card_printings, "CARD_PAGE_PRINTINGS_LIMIT", 16)
    page = card_page_module.card_page(snapshot_conn, JACE)
    assert page is not None and page["printed_capped"] is False and page["printings_shown"] == 16


async def test_card_cites_rules_by_identity_not_number(snapshot_ds) -> None:
    # Rulings of 2015 about transform, manifest and madness: under today's numbers (701.27,
    # 701.40, 702.35), not the numbers they had (701.25, 701.31, 702.34), which today are
    # Surveil, Planeswalk and Flashback.
    page = (await snapshot_ds.client.get(f"/card/{JACE}.json")).json()
    cited = {(rule["number"], rule["title"]) for rule in page["rules"]}
    assert {("701.27", "Transform"), ("701.40", "Manifest"), ("702.35", "Madness")} <= cited
    assert not {"Surveil", "Planeswalk", "Flashback"} & {title for _number, title in cited}
    then = {rule["number"]: [(t["number"], t["version_id"], t["not_in_force"]) for t in rule["then"]] for rule in page["rules"]}
    # The rulings of 2015-06-22 cite the CR in force then: Dragons of Tarkir's (2015-03-27).
    assert then["701.27"] == [("701.25", "en-2015-03-27", False)]
    assert then["701.40"] == [("701.31", "en-2015-03-27", False)]
    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    assert '<a class="rule-ref" href="/rule/701.40">701.40</a>' in html


async def test_a_keyword_newer_than_the_ruling_cites_the_first_version_having_it(snapshot_ds) -> None:
    # Khans of Tarkir's manifest rulings (2014-11-24) are older than the CR that added manifest
    # (Fate Reforged, 2015-01-23): the CR in force on their date (2014-09-25) had no manifest.
    page = (await snapshot_ds.client.get(f"/card/{REALITY_SHIFT}.json")).json()
    then = {rule["number"]: [(t["number"], t["version_id"], t["not_in_force"]) for t in rule["then"]] for rule in page["rules"]}
    assert then["701.40"] == [("701.31", "en-2015-01-23", True)]
    html = (await snapshot_ds.client.get(f"/card/{REALITY_SHIFT}")).text
    # Not "in force on the ruling's date": the newest version held then (a links review).
    assert "701.31 in en-2015-01-23; not in en-2014-09-25, the newest version held before the ruling's date" in html


async def test_a_number_between_two_held_versions_that_number_the_rule_otherwise_is_not_claimed(snapshot_ds, snapshot_conn) -> None:
    # Ainok Tracker's Morph rulings of 2014-09-20: the newest CR held before then is 2013-05-01
    # (Morph 702.35); the next held, 2014-09-25, numbers it 702.36 and calls 702.35 Fear. An
    # edition of July 2013 not held had already made the change: 702.35 was not Morph then.
    page = (await snapshot_ds.client.get("/card/bf84a598-12d3-406d-8eeb-40592e782b87.json")).json()
    morph = next(rule for rule in page["rules"] if rule["title"] == "Morph")
    assert [(t["number"], t["version_id"], t["number_uncertain"]) for t in morph["then"]] == [
        ("702.35", "en-2013-05-01", {"version_id": "en-2014-09-25", "number": "702.36"})]
    html = (await snapshot_ds.client.get("/card/bf84a598-12d3-406d-8eeb-40592e782b87")).text
    assert ("en-2013-05-01 is the newest version held before the ruling's date, and the next held, en-2014-09-25,"
            " numbers this rule 702.36: whether it was 702.35 on the ruling's date is not known") in html
    # Every link of the snapshot in doubt (the reviewer's bracket check found the same 15, before
    # Crackleburr's "summoning sickness" rule was linked: 212.3d of 2006, 302.6 since 2009).
    assert snapshot_conn.execute(
        "select rule_number, version_id, published_at, count(*) from ruling_rules where number_uncertain = 1"
        " group by 1, 2, 3 order by 1"
    ).fetchall() == [("212.3d", "en-2006-02-01", "2008-08-01", 1), ("502.5", "en-2006-02-01", "2008-08-01", 2),
                     ("701.11", "en-2009-10-01", "2011-01-22", 1),
                     ("702.35", "en-2013-05-01", "2014-09-20", 12)]
    # Where the next version held agrees, nothing is in doubt (Jace's 2015 rulings, 2015-03-27).
    assert snapshot_conn.execute(
        "select count(*) from ruling_rules where number_uncertain = 0 and version_id = 'en-2015-03-27'").fetchone()[0] > 0


async def test_german_card_cites_connive_under_its_current_number(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get(KOMPLOTT + "&_format=json")).json()
    cited = {rule["number"]: rule["title"] for rule in page["rules"]}
    assert cited["701.50"] == "Connive"
    assert "701.47" not in cited  # Amass today
    connive = next(rule for rule in page["rules"] if rule["number"] == "701.50")
    assert [(t["number"], t["version_id"]) for t in connive["then"]] == [("701.47", "en-2022-04-29")]


async def test_card_by_any_language_name_redirects(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/card?name=" + quote("jace, vryn's prodigy"))
    assert response.status_code == 302
    assert response.headers["location"] == f"/card/{JACE}"


async def test_a_redirect_asked_for_as_json_leads_to_json(snapshot_ds) -> None:
    """api.md: "?_format=json works on every page with a JSON column". Redirected, such a request
    landed on the HTML page (the .json forms redirected to JSON already)."""
    for url, location in [
        ("/card?name=Phelddagrif&_format=json", f"/card/{PHELDDAGRIF}.json"),
        ("/card?name=" + quote("oiseaux de paradis") + "&_format=json", "/card.json?name=" + quote("Paradiesvögel")),
        ("/rule/702.78?version=zhs-2025-02-07&_format=json", "/rule/702.78.json?version=en-2025-02-07"),
        ("/rule/702.78.json?version=zhs-2025-02-07", "/rule/702.78.json?version=en-2025-02-07"),
    ]:
        response = await snapshot_ds.client.get(url)
        assert (response.status_code, response.headers["location"]) == (302, location), url
    html = await snapshot_ds.client.get("/rule/702.78?version=zhs-2025-02-07")
    # Its page opens at its top, the title and the version's banner (an anchor to the rule, which
    # heads the page, opened a phone's page below them: a UX review).
    assert html.headers["location"] == "/rule/702.78?version=en-2025-02-07"


async def test_card_known_only_by_its_german_name(snapshot_ds) -> None:
    response = await snapshot_ds.client.get(KOMPLOTT)
    assert response.status_code == 200
    assert count_rulings(response.text) == 11
    assert "Not yet linked to an Oracle card" in response.text
    page = (await snapshot_ds.client.get(KOMPLOTT + "&_format=json")).json()
    assert page["linked"] is False
    assert Counter(ruling["published_at"] for ruling in page["rulings"]) == {"2022-04-29": 5, "2024-01-12": 6}
    assert {ruling["source"] for ruling in page["rulings"]} == {"wotc"}
    assert [document["path"].rsplit("/", 1)[-1] for document in page["documents"]] == ["de-toedliches-komplott.txt"]


async def test_one_birds_of_paradise_page_under_every_name(snapshot_ds) -> None:
    # Gatherer's German, French and Japanese printed pages of Magic 2012 #165 are one card.
    canonical = "/card?name=" + quote("Paradiesvögel")
    for name in ("極楽鳥", "Oiseaux de paradis", "oiseaux de paradis", "paradiesvogel"):
        response = await snapshot_ds.client.get("/card?name=" + quote(name))
        # The name asked for rides along: the page is titled in its language, its printing first.
        assert (response.status_code, response.headers["location"]) == (302, canonical + "&q=" + quote(name)), name
    japanese = (await snapshot_ds.client.get(canonical + "&q=" + quote("極楽鳥"))).text
    assert '<h1 lang="ja">極楽鳥</h1>' in japanese
    assert japanese.index("<strong>極楽鳥</strong>") < japanese.index("<strong>Paradiesvögel</strong>")
    page = (await snapshot_ds.client.get(canonical + "&_format=json")).json()
    assert page["title"] == "Paradiesvögel" and page["linked"] is False
    assert [(n["lang"], n["name"]) for n in page["names"]] == [
        ("de", "Paradiesvögel"), ("fr", "Oiseaux de paradis"), ("ja", "極楽鳥")]
    assert [(p["lang"], p["set_code"], p["collector_number"]) for p in page["printings"]] == [
        ("de", "M12", "165"), ("fr", "M12", "165"), ("ja", "M12", "165")]
    html = (await snapshot_ds.client.get(canonical)).text
    assert "3 languages, the same printing: M12 #165" in html


async def test_deathrite_shaman_named_by_its_rulings(snapshot_ds) -> None:
    # Only its rulings are in the snapshot: the page is titled by the name they call it by.
    oracle_id = "22f1a4a4-c423-4d1c-8775-0ed604a9fa51"
    page = (await snapshot_ds.client.get(f"/card/{oracle_id}.json")).json()
    assert (page["title"], page["linked"], page["named_from_rulings"]) == ("Deathrite Shaman", False, True)
    assert page["names"] == [{"lang": "en", "name": "Deathrite Shaman", "source": "rulings"}]
    html = (await snapshot_ds.client.get(f"/card/{oracle_id}")).text
    assert "<h1>Deathrite Shaman</h1>" in html and "the name above is the one its rulings call it by" in html
    response = await snapshot_ds.client.get("/card?name=" + quote("Deathrite Shaman"))
    assert (response.status_code, response.headers["location"]) == (302, f"/card/{oracle_id}")


async def test_unknown_card_is_404(snapshot_ds) -> None:
    assert (await snapshot_ds.client.get("/card/00000000-0000-0000-0000-000000000000")).status_code == 404
    missing = await snapshot_ds.client.get("/card.json?name=nonexistent")
    assert (missing.status_code, missing.json()["found"]) == (404, [])
    assert 'href="/search?q=nonexistent">Search everything for “nonexistent”' in (
        await snapshot_ds.client.get("/card?name=nonexistent")).text


@pytest.mark.parametrize(
    ("typed", "card"),
    [
        ("bete de guerre d arashin", "/card/75c81ce4-ca1d-464a-bb39-e568f8ebf71f"),  # Bête de guerre d'Arashin
        ("Аинок Следопыт", "/card/bf84a598-12d3-406d-8eeb-40592e782b87"),  # Аинок-Следопыт
        ("hakka el cuervo susurrante", "/card/0a69c3dd-52a3-4ef6-b53f-b0780e0dc5f8"),  # Hakka, el cuervo susurrante
        # A name of a card not linked yet, which rides along (the page is titled in its language).
        ("Paradies vögel", "/card?name=Paradiesv%C3%B6gel&q=Paradies%20v%C3%B6gel"),
    ],
)
async def test_a_name_spaced_or_punctuated_otherwise_finds_its_card(snapshot_ds, typed: str, card: str) -> None:
    # The search calls each of these the exact name; /card?name= answered 404. A name in another
    # language than English rides along, so the page shows the card's printing in it.
    response = await snapshot_ds.client.get("/card?name=" + quote(typed))
    expected = card if "?" in card else f"{card}?q={quote(typed)}"
    assert (response.status_code, response.headers["location"]) == (302, expected)


async def test_a_card_name_not_found_offers_the_cards_it_may_mean(snapshot_ds) -> None:
    # Part of a name, in English or Russian: the cards whose names hold it.
    for name, url in (("Jace", f"/card/{JACE}"), ("Джейс", f"/card/{JACE}?lang=ru")):
        response = await snapshot_ds.client.get("/card.json?name=" + quote(name))
        assert response.status_code == 404
        # A card found by a name in another language leads to its page in that language.
        assert [hit["url"] for hit in response.json()["found"]] == [url], name
    page = (await snapshot_ds.client.get("/card?name=Jace")).text
    assert f'<li><a href="/card/{JACE}">Jace, Vryn&#39;s Prodigy // Jace, Telepath Unbound</a></li>' in page
    # A misspelt name: the names it resembles, in their language.
    misspelt = (await snapshot_ds.client.get("/card?name=" + quote("Toedliches Komplot"))).text
    assert '<li><a href="/card?name=T%C3%B6dliches%20Komplott" lang="de">Tödliches Komplott</a></li>' in misspelt
    # Each card once: the card found was offered again as the name it resembles (a player's review).
    found = (await snapshot_ds.client.get("/card.json?name=" + quote("ugin spirit dragon"))).json()["found"]
    assert [hit["url"] for hit in found] == ["/card/eecb3047-a563-441a-9175-200421981ac3"]


# -- rule pages ---------------------------------------------------------------------------------


async def test_rule_page_shows_translations_side_by_side(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/rule/702.78")
    assert response.status_code == 200
    html = response.text
    assert 'id="lang-es"' in html and 'id="lang-zhs"' in html
    assert "Conspirar" in html and "协力" in html
    assert 'id="r-702.78a"' in html and 'id="r-702.78b"' in html
    assert '<a class="rule-ref" href="/rule/601.2b">601.2b</a>' in html


async def test_a_keyword_the_translated_rules_name_is_on_its_rule_and_glossary_pages(snapshot_ds) -> None:
    """The Korean 122.1b lists the keywords a keyword counter can be: 돌진 is Trample, which no
    Korean card we hold prints, and the search names it "in the translated rules". Trample's pages
    showed it nowhere (a Korean judge's review): each names it now, with the rule that says it.
    Lifelink's is 120.3f, the first Korean rule beside an English one that says "lifelink"."""
    said = {"lang": "ko", "term": "돌진", "number": "122.1b", "version_id": "ko-2021-02-15", "effective_date": "2021-02-15"}
    rule = (await snapshot_ds.client.get("/rule/702.19.json")).json()
    assert rule["in_translated_rules"] == [said]
    for path in ("/rule/702.19", "/glossary/Trample"):
        html = (await snapshot_ds.client.get(path)).text
        assert ('<span lang="ko">돌진</span> <span class="kb-muted">in <a class="rule-ref" '
                'href="/rule/122.1b?version=ko-2021-02-15">122.1b</a> of the Korean rules of 2021-02-15</span>') in html, path
    lifelink = (await snapshot_ds.client.get("/glossary/Lifelink")).text
    assert '<span lang="ko">생명연결</span> <span class="kb-muted">in <a class="rule-ref" href="/rule/120.3f?version=ko-2021-02-15">' in lifelink
    # Not where the page shows the language already: Flying is printed on Korean cards, and
    # Conspire's rule page has the Spanish rules beside the English.
    assert (await snapshot_ds.client.get("/rule/702.9.json")).json()["in_translated_rules"] == []
    assert (await snapshot_ds.client.get("/rule/702.78.json")).json()["in_translated_rules"] == []


async def test_a_section_a_ruling_names_says_it_changed_not_that_it_was_reworded(snapshot_ds) -> None:
    """Rulings saying "This is a special action" name 2014's 115, 116 today, which lists twelve
    special actions where 115 listed eight: the section changed (a rule under it reworded, added
    or removed), which "reworded since" did not say (a review of the change)."""
    html = (await snapshot_ds.client.get("/rule/116")).text
    assert 'The section, <a href="/rule/115?version=en-2014-09-25">115 in the Comprehensive Rules of 2014-09-25</a>, has changed since' in html
    assert "the rule has been reworded since" not in html
    card = (await snapshot_ds.client.get("/card/ae0701c1-7a99-46fe-bcb1-ea33ad2a0fc9")).text  # Mastery of the Unseen
    assert 'changed since (a rule under it reworded, added or removed): <a href="/rule/115?version=en-2014-09-25">' in card


def test_the_translated_rule_naming_a_keyword_is_the_one_titled_with_it_first(snapshot_conn: sqlite3.Connection) -> None:
    """Asked with no language shown yet: the Chinese 践踏 is 702.19, the rule it titles, not 111.10k,
    the first rule to mention it (a review of the change)."""
    from kb.site.glossary_page import keywords_in_translated_rules

    named = {row["lang"]: row["number"] for row in keywords_in_translated_rules(snapshot_conn, "Trample")}
    assert named == {"ko": "122.1b", "zhs": "702.19"}


async def test_a_translation_column_says_which_english_edition_it_translates_only_where_known(snapshot_ds) -> None:
    """The Korean CR is effective 2021-02-15 and its 116.2h is foretell, which 2020-11-20 lacks:
    it sits beside 2020-11-20 as the nearest edition held, and the header said it translated that
    one (a Korean judge's review). The Chinese CR of 2025-02-07 translates the English one of that date."""
    korean = (await snapshot_ds.client.get("/rule/100.2a?version=en-2020-11-20")).text
    assert "Korean translation of 2021-02-15, beside the Comprehensive Rules of 2020-11-20, the nearest English edition held" in korean
    assert "translating the Comprehensive Rules of 2020-11-20" not in korean
    assert "Simplified Chinese translation of 2025-02-07, translating the Comprehensive Rules of 2025-02-07" in korean


async def test_rule_json(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get("/rule/702.78.json")).json()
    assert page["version"]["id"] == "en-2026-04-17"
    assert page["rule"]["title"] == "Conspire"
    assert [child["number"] for child in page["children"]] == ["702.78a", "702.78b"]
    columns = {column["version_id"]: column for column in page["translations"]["columns"]}
    assert sorted(columns) == ["es-pages-cr-page", "zhs-2025-02-07"]
    assert sorted(columns["es-pages-cr-page"]["rules"]) == ["702.78", "702.78a", "702.78b"]
    assert columns["zhs-2025-02-07"]["rules"]["702.78"]["title"] == "协力"
    assert [ref["number"] for ref in page["references"]] == ["601.2b", "601.2f", "601.2g", "601.2h"]
    # History by identity: keyword rules are renumbered as keywords are added; Conspire was 702.75
    # in 2009, 702.76 in 2013 and 702.77 until Hideaway came in 2021, while 702.78 was Retrace,
    # then Wither, then Persist.
    assert [(e["number"], e["title"], e["effective_date"], e["until"]) for e in page["history"]] == [
        ("702.75", "Conspire", "2009-10-01", "2009-10-01"),
        ("702.76", "Conspire", "2013-05-01", "2013-05-01"),
        ("702.77", "Conspire", "2014-09-25", "2020-11-20"),
        ("702.78", "Conspire", "2021-06-18", "2026-04-17"),
    ]
    assert [(o["title"], o["from"], o["until"], o["current_number"]) for o in page["same_number"]] == [
        ("Retrace", "2009-10-01", "2009-10-01", "702.81"),
        ("Wither", "2013-05-01", "2013-05-01", "702.80"),
        ("Persist", "2014-09-25", "2020-11-20", "702.79"),
    ]


async def test_convert_is_not_connives_translation(snapshot_ds) -> None:
    # 701.50 is Connive today; in the Chinese CR (2025-02-07) 701.50 is Convert and Connive is 701.47.
    page = (await snapshot_ds.client.get("/rule/701.50.json")).json()
    chinese = next(c for c in page["translations"]["columns"] if c["version_id"] == "zhs-2025-02-07")
    assert (chinese["rules"]["701.50"]["number"], chinese["rules"]["701.50"]["title"]) == ("701.47", "筹谋")
    assert chinese["rules"]["701.50"]["status"] == "renumbered"
    assert all(rule["english_lineage"] == page["lineage"] for rule in chinese["rules"].values() if rule["number"] == "701.47")
    convert = (await snapshot_ds.client.get("/rule/701.28.json")).json()
    chinese = next(c for c in convert["translations"]["columns"] if c["version_id"] == "zhs-2025-02-07")
    assert chinese["rules"]["701.28"]["number"] == "701.50"
    amass = (await snapshot_ds.client.get("/rule/701.47.json")).json()
    chinese = next(c for c in amass["translations"]["columns"] if c["version_id"] == "zhs-2025-02-07")
    assert chinese["rules"]["701.47"]["number"] == "701.44"


async def test_subrule_history_follows_its_lineage(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get("/rule/701.50a.json")).json()
    assert [(t["version"], t["number"], t["change"]) for t in page["trace"]] == [
        ("en-2022-04-29", "701.47a", "added"),
        ("en-2024-02-02", "701.47a", "same"),
        ("en-2025-02-07", "701.47a", "same"),
        ("en-2026-01-16", "701.50a", "moved-changed"),
        ("en-2026-04-17", "701.50a", "same"),
    ]
    assert [(e["number"], e["effective_date"], e["until"]) for e in page["history"]] == [
        ("701.47a", "2022-04-29", "2025-02-07"), ("701.50a", "2026-01-16", "2026-04-17"),
    ]
    # Convert's 701.50a of 2024–2025 is another rule, shown as such, under its own lineage.
    (convert,) = page["same_number"]
    assert (convert["from"], convert["until"], convert["parent_title"], convert["current_number"]) == (
        "2024-02-02", "2025-02-07", "Convert", "701.28a",
    )
    assert convert["lineage_id"] != page["lineage"]
    html = (await snapshot_ds.client.get("/rule/701.50a")).text
    assert "Other rules numbered 701.50a" in html


async def test_a_history_run_holds_an_edition_set_in_straight_quotes(snapshot_ds) -> None:
    # 2019-01-25 prints "legend rule." in straight quotes: the same words, as its trace says (a
    # CR history review found it a run of its own between two runs of the same text).
    page = (await snapshot_ds.client.get("/rule/704.5j.json")).json()
    runs = [(e["number"], e["effective_date"], e["until"]) for e in page["history"]]
    assert not any(start == "2019-01-25" or until == "2019-01-25" for _, start, until in runs), runs
    (run,) = [e for e in page["history"] if "en-2019-01-25" in e["versions"]]
    assert run["versions"][0] != "en-2019-01-25" and run["versions"][-1] != "en-2019-01-25"


async def test_a_glossary_history_holds_an_edition_set_in_straight_quotes(snapshot_ds) -> None:
    # "As Though" reads the same from 2014 to today but for 2019-01-25's straight quotes.
    page = (await snapshot_ds.client.get("/glossary/As%20Though.json")).json()
    assert not any(entry["since_version_id"] == "en-2019-01-25" or entry["version_id"] == "en-2019-01-25"
                   for entry in page["history"]), page["history"]


async def test_a_history_run_ends_where_the_examples_change_as_its_trace_says(snapshot_ds) -> None:
    # 903.4 was one run of 27 versions, 2013–2026, under a trace marking 2018-04-27 and
    # 2021-06-18 changed: in their examples ("any target", "mana value"; a judge's review).
    page = (await snapshot_ds.client.get("/rule/903.4.json")).json()
    changed = {t["version"] for t in page["trace"] if t["change"] == "changed"}
    starts = {entry["versions"][0] for entry in page["history"]}
    assert {"en-2018-04-27", "en-2021-06-18"} <= changed
    assert changed <= starts, (changed, starts)
    assert all(entry["examples"] for entry in page["history"])
    html = (await snapshot_ds.client.get("/rule/903.4")).text
    assert "This rule's texts and examples under the number" in html


async def test_version_drop_down_follows_the_lineage(snapshot_ds) -> None:
    # Choosing 2013 on /rule/702.78 (Conspire) shows Conspire as it was numbered then, not Wither.
    page = (await snapshot_ds.client.get("/rule/702.78.json?version=en-2013-05-01&from=en-2026-04-17")).json()
    assert (page["rule"]["number"], page["rule"]["title"]) == ("702.76", "Conspire")
    html = (await snapshot_ds.client.get("/rule/702.78")).text
    assert '<input type="hidden" name="from" value="en-2026-04-17">' in html
    assert '<option value="en-2013-05-01">2013-05-01 (as 702.76)</option>' in html
    assert '<option value="en-2006-02-01" disabled>2006-02-01 (not in this version)</option>' in html
    # Without "from" the number is the one of the version asked for.
    assert (await snapshot_ds.client.get("/rule/702.78.json?version=en-2013-05-01")).json()["rule"]["title"] == "Wither"
    missing = await snapshot_ds.client.get("/rule/702.78.json?version=en-2006-02-01&from=en-2026-04-17")
    assert missing.status_code == 404


async def test_rule_in_an_older_version(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get("/rule/702.78a.json?version=en-2019-01-25")).json()
    assert page["version"]["id"] == "en-2019-01-25"
    assert page["is_current"] is False
    assert (await snapshot_ds.client.get("/rule/999.99")).status_code == 404


async def test_a_keyword_rule_page_shows_the_keyword_as_cards_print_it(snapshot_ds) -> None:
    # A French judge who searched "Piétinement" landed on Trample with no French on the page.
    page = (await snapshot_ds.client.get("/rule/702.19.json")).json()
    assert [(t["lang"], t["term"], t["printings"]) for t in page["printed_names"]] == [
        ("de", "verursacht Trampelschaden", 2), ("es", "arrolla", 2), ("fr", "piétinement", 1),
        ("it", "travolgere", 1), ("ja", "トランプル", 1)]
    html = (await snapshot_ds.client.get("/rule/702.19")).text
    assert '<h2 id="printed-title">As cards print it</h2>' in html
    assert '<span lang="fr">piétinement</span> <span class="kb-muted">on 1 printing (one only: unconfirmed)' in html
    # A subrule's page does not repeat them.
    assert (await snapshot_ds.client.get("/rule/702.19a.json")).json()["printed_names"] == []


def test_a_renamed_keywords_older_page_shows_it_as_cards_print_it_today(snapshot_db, tmp_path) -> None:
    """2024's 702.89 "Totem Armor" is "Umbra Armor" today, the English term the dictionary keys
    printed names by: looked up by the old title, the 2024 page showed none. (The snapshot prints
    no Umbra Armor in another language: one dictionary row is written here for the test.)"""
    import shutil

    from kb.site.rule_page import rule_page

    copy = tmp_path / "kb.db"
    shutil.copy(snapshot_db, copy)
    conn = sqlite3.connect(copy)
    conn.row_factory = sqlite3.Row
    conn.execute("insert into keyword_dictionary (lang, term, term_key, en_term, rule_number, sources, printings, dissent, status)"
                 " values ('de', 'Test-Aura', 'test-aura', 'Umbra Armor', '702.89', '[\"test\"]', 1, 0, 'single printing')")
    page = rule_page(conn, "702.89", "en-2024-02-02")
    assert page is not None and page["rule"]["title"] == "Totem Armor"
    assert [(t["lang"], t["term"]) for t in page["printed_names"]] == [("de", "Test-Aura")]


async def test_a_rule_number_not_found_offers_the_heading_it_would_sit_under(snapshot_ds) -> None:
    async def found(path: str) -> list[tuple[str, str]]:
        response = await snapshot_ds.client.get(path)
        assert response.status_code == 404, path
        return [(hit["title"], hit["url"]) for hit in response.json()["found"]]
    assert await found("/rule/702.19z.json") == [("702.19 Trample", "/rule/702.19")]
    assert await found("/rule/702.999.json") == [("702 Keyword Abilities", "/rule/702")]
    assert await found("/rule/9999.json") == []
    # In an older version, that version's rule: 2013 numbered Wither 702.78 (today Conspire's).
    assert await found("/rule/702.78z.json?version=en-2013-05-01") == [("702.78 Wither", "/rule/702.78?version=en-2013-05-01")]
    page = (await snapshot_ds.client.get("/rule/702.19z")).text
    assert '<li><a href="/rule/702.19">702.19 Trample</a></li>' in page and 'href="/search?q=702.19z"' in page
    # A glossary term in another language: the term it resembles.
    glossary = await snapshot_ds.client.get("/glossary/Trampel")
    assert glossary.status_code == 404 and '<li><a href="/rule/702.19" lang="en">Trample</a></li>' in glossary.text


# -- feed, Datasette pages, robots --------------------------------------------------------------


async def test_changes_feed_is_atom_of_the_last_weeks(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/changes.atom")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    atom = "{http://www.w3.org/2005/Atom}"
    feed = ET.fromstring(response.content)
    # Atom requires an author for every entry: the feed-level one covers them all.
    assert feed.find(f"{atom}author/{atom}name").text == "MTG Rules KB"
    entries = feed.findall(f"{atom}entry")
    # The newest data is the 2026-04-17 CR; the snapshot's newest ruling (2024-01-12) is older
    # than the feed's 13 weeks, so only the two 2026 CR versions are news.
    assert [entry.find(f"{atom}title").text for entry in entries] == [
        "Comprehensive Rules of 2026-04-17 (3138 rules)", "Comprehensive Rules of 2026-01-16 (3114 rules)",
    ]
    assert entries[0].find(f"{atom}link").get("href").endswith("/version/en-2026-04-17")
    # What changed, counted as the diff page counts it, and the diff (a judge's review: an entry
    # said only that a version exists).
    assert entries[0].find(f"{atom}summary").text == (
        "Magic: The Gathering Comprehensive Rules. Against the Comprehensive Rules of 2026-01-16, rules: 25 added,"
        " 31 changed, 118 moved, 1 moved and changed; 30 glossary entries added, removed or changed."
    )
    diff = (await snapshot_ds.client.get("/diff.json?from=en-2026-01-16&to=en-2026-04-17")).json()
    assert diff["counts"] == {"added": 25, "changed": 31, "moved": 118, "moved-changed": 1, "glossary-added": 7,
                              "glossary-changed": 20, "glossary-removed": 2, "glossary-renamed": 1}
    assert entries[0].find(f"{atom}link[@rel='related']").get("href").endswith(
        "/diff?from=en-2026-01-16&to=en-2026-04-17")


async def test_datasette_table_json_and_canned_query(snapshot_ds, snapshot_db) -> None:
    name = snapshot_db.stem
    rows = (await snapshot_ds.client.get(f"/{name}/cr_versions.json?_shape=array&lang=zhs")).json()
    assert [row["id"] for row in rows] == ["zhs-2025-02-07"]
    found = (await snapshot_ds.client.get(
        f"/{name}/rulings_by_any_name.json?_shape=array&name=" + quote("Tödliches Komplott")
    )).json()
    assert len(found) == 11 and {row["card"] for row in found} == {"Tödliches Komplott"}
    # A translation linked to no English ruling is dated by its own printed date, read: null before,
    # and "2019년 5월 31일 금요일" only in ruling_translations.raw_date (an API user's review).
    korean = (await snapshot_ds.client.get(
        f"/{name}/rulings_by_any_name.json?_shape=array&name=" + quote("고블린 밀수꾼")
    )).json()
    assert [(row["lang"], row["linked"], row["published_at"]) for row in korean] == [("ko", 0, "2019-05-31")]
    undated = (await snapshot_ds.client.get(
        f"/{name}/ruling_translations.json?_shape=array&published_at__isnull=1&_size=1"
    )).json()
    assert undated == []


@pytest.mark.parametrize("path", ["/{name}/rules", "/{name}", "/-/versions", "/rule/702.78", "/"])
async def test_the_header_links_the_tables_of_the_database_served(snapshot_ds, snapshot_db, path: str) -> None:
    # Served under another name than kb (mtgkb serve --db snap.db, datasette serve snap.db), the
    # header's "Tables" on Datasette's own pages led to /kb, a 404.
    name = snapshot_db.stem
    assert name != "kb"
    html = (await snapshot_ds.client.get(path.format(name=name))).text
    assert f'<a href="/{name}">Tables</a>' in html


async def test_robots_keep_off_search(snapshot_ds, snapshot_db) -> None:
    robots = (await snapshot_ds.client.get("/robots.txt")).text
    assert "Disallow: /search" in robots
    assert f"Disallow: /{snapshot_db.stem}" in robots


# -- scraped text is never trusted HTML ---------------------------------------------------------


async def test_script_in_a_ruling_renders_as_text(hostile_ds) -> None:
    response = await hostile_ds.client.get(f"/card/{PHELDDAGRIF}")
    assert response.status_code == 200
    html = response.text
    assert count_rulings(html) == 3
    assert "<script>document.title" not in html
    assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in html or (
        "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in html
    )
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert 'class="sym sym-wu sym-hybrid sym-glyph"' in html and 'class="sym sym-tap sym-glyph"' in html
    assert '<a class="rule-ref" href="/rule/702.78a">702.78a</a>' in html


async def test_stale_and_mismatched_translations_are_marked(snapshot_ds) -> None:
    # The Korean CR follows CR 2021-02-15, which we do not hold: its rules link by identity to
    # the versions before (2020-11-20) and after (2021-06-18), and are compared with today's.
    # 100.2a gained a sentence since (interchangeable names): stale, never "same".
    page = (await snapshot_ds.client.get("/rule/100.2.json")).json()
    korean = next(c for c in page["translations"]["columns"] if c["version_id"] == "ko-2021-02-15")
    assert korean["english_version"] == "en-2020-11-20"
    assert {number: rule["status"] for number, rule in korean["rules"].items()} == {
        "100.2": "same", "100.2a": "stale", "100.2b": "same", "100.2c": "same",
    }
    html = (await snapshot_ds.client.get("/rule/100.2")).text
    assert html.count('<td class="kb-tr status-stale"') == 1
    # 103.3 of 2021 is 103.4 today, same text.
    renumbered = (await snapshot_ds.client.get("/rule/103.4.json")).json()
    korean = next(c for c in renumbered["translations"]["columns"] if c["version_id"] == "ko-2021-02-15")
    assert (korean["rules"]["103.4"]["number"], korean["rules"]["103.4"]["status"]) == ("103.3", "renumbered")
    # Numbers cited inside a translation are resolved in the English version it was linked to.
    assert 'href="/rule/100.2a?version=en-2020-11-20"' in (await snapshot_ds.client.get("/rule/100.4")).text
    # The Korean 109.4b (emblems) is 109.4c today, reworded since: stale.
    assert '<td class="kb-tr status-stale"' in (await snapshot_ds.client.get("/rule/109.4")).text
    # The translation prints 101.4d twice: the second is the English 101.4e, and 101.4 is the same
    # rule. Its 717 keeps the English title of years before ("턴을 끝내기 Ending the Turn"), that
    # section's until 2020: the same section, 724 today, not a mismatch (a foreign judges' review).
    assert '<td class="kb-tr status-mismatch"' not in (await snapshot_ds.client.get("/rule/101.4")).text
    assert '<td class="kb-tr status-mismatch"' not in (await snapshot_ds.client.get("/rule/724")).text


async def test_a_link_the_matcher_doubts_is_marked(snapshot_db: Path, tmp_path: Path) -> None:
    """The snapshot's translations hold no mismatch: one is set by hand on a copy (constructed,
    not data) to see how a rule page marks it."""
    import shutil

    from site_databases import make_datasette

    doubted = tmp_path / "doubted.db"
    shutil.copy(snapshot_db, doubted)
    with sqlite3.connect(doubted) as conn:
        conn.execute(
            """update rule_links set status = 'mismatch', confidence = 0.3, reasons = 'constructed'
            where rule_id = (select id from rules where version_id = 'ko-2021-02-15' and number = '717')""")
    ds = make_datasette(doubted)
    html = (await ds.client.get("/rule/717?version=en-2020-11-20")).text
    assert '<td class="kb-tr status-mismatch"' in html and "may not match the English rule" in html


async def test_a_linked_translation_shows_its_own_date_and_document(snapshot_db: Path, tmp_path: Path) -> None:
    """The snapshot links no foreign ruling to an English one (its release notes are of sets whose
    English rulings it does not hold): a Korean ruling is linked to one of Jace's by hand on a copy
    (constructed, not data) to see what the card page says of it: its own date and document,
    which it did not show."""
    import shutil

    from site_databases import make_datasette

    linked = tmp_path / "linked.db"
    shutil.copy(snapshot_db, linked)
    with sqlite3.connect(linked) as conn:
        conn.execute(
            """update ruling_translations set status = 'linked', match_method = 'content', confidence = 0.9,
                ruling_id = (select id from rulings where oracle_id = ? order by position limit 1)
            where id = 224406909824672""", (JACE,))
    html = (await make_datasette(linked).client.get(f"/card/{JACE}")).text
    assert ('<span class="kb-muted kb-translation-source" lang="en">dated <time datetime="2019-05-31">2019-05-31</time>, '
            'from <a href="https://github.com/youbeebee/dbyll" rel="nofollow noopener">https://github.com/youbeebee/dbyll</a></span>') in html


async def test_translations_beside_an_older_version_are_judged_against_it(snapshot_ds) -> None:
    # The Chinese CR translates 2025-02-07. Beside the rules of 2022-04-29, its 701.47 (Connive,
    # 701.50 since 2026) is that very rule under that very number, and 701.47a, b and d are word
    # for word 2022's: the labels of today's versions ("under its earlier number", "an older
    # wording") said the opposite of what the page showed.
    page = (await snapshot_ds.client.get("/rule/701.47.json?version=en-2022-04-29")).json()
    chinese = next(c for c in page["translations"]["columns"] if c["lang"] == "zhs")
    statuses = {number: rule["status"] for number, rule in chinese["rules"].items()}
    assert statuses["701.47"] == "same"
    assert [statuses[number] for number in ("701.47a", "701.47b", "701.47d")] == ["same"] * 3
    today = (await snapshot_ds.client.get("/rule/701.50.json")).json()
    chinese_today = next(c for c in today["translations"]["columns"] if c["lang"] == "zhs")
    assert chinese_today["rules"]["701.50"]["status"] == "renumbered"
    # Beside 2009's 702.30e, the Chinese 702.33g of 2025 is the same rule under its later number.
    html = (await snapshot_ds.client.get("/rule/702.30e?version=en-2009-10-01")).text
    assert "translates this rule under its later number" in html
    assert "under its earlier number" not in html


@pytest.mark.parametrize(
    ("query", "name"),
    [("paradiesvogel", "Paradiesvögel"), ("PARADIESVÖGEL", "Paradiesvögel"), ("極楽鳥", "極楽鳥"), ("반역 행위", "반역 행위")],
)
async def test_names_of_cards_not_identified_yet_land_on_their_page(snapshot_ds, query: str, name: str) -> None:
    # Birds of Paradise is in no card data we hold: its German and Japanese names come from
    # Gatherer printed pages; 반역 행위 from the Korean release notes.
    found = await snapshot_ds.client.get("/search.json?q=" + quote(query))
    best = found.json()["best"]
    assert best["title"] == name and best["detail"] == "exact unlinked name"
    page = await snapshot_ds.client.get(best["url"])
    if page.status_code == 302:  # another name of the card: one page per card (Paradiesvögel)
        page = await snapshot_ds.client.get(page.headers["location"])
    assert page.status_code == 200
    assert "Not yet linked to an Oracle card" in page.text
    assert name in page.text


async def test_printed_page_of_an_unidentified_card_shows_its_printed_text(snapshot_ds) -> None:
    page = await snapshot_ds.client.get("/card.json?name=" + quote("Paradiesvögel"))
    data = page.json()
    assert data["linked"] is False
    (printing,) = [p for p in data["printings"] if p["lang"] == "de"]
    assert printing["printed_type_line"] == "Kreatur — Vogel"
    assert printing["printed_text"] == "Fliegend\n{T}: Erhöhe deinen Manavorrat um ein Mana einer beliebigen Farbe."


async def test_version_page_shows_what_changed(snapshot_ds) -> None:
    data = (await snapshot_ds.client.get("/version/en-2026-01-16.json")).json()
    assert data["previous"] == "en-2025-02-07"
    assert data["counts"] == {
        "added": 95, "removed": 1, "changed": 131, "moved": 358, "moved-changed": 18,
        "glossary-added": 23, "glossary-removed": 1, "glossary-changed": 90, "glossary-renamed-changed": 2,
    }
    assert {(c["old_number"], c["new_number"]) for c in data["changes"] if c["kind"] == "glossary-renamed-changed"} == {
        ("Transforming Double-Faced Cards", "Nonmodal Double-Faced Card"),
        ("Partner, “Partner with [name]”", "Partner, “Partner—[text],” “Partner with [name]”"),
    }
    moves = {(c["old_number"], c["new_number"]) for c in data["changes"] if c["kind"] == "moved"}
    assert ("701.47", "701.50") in moves  # Connive
    assert ("701.50", "701.28") in moves  # Convert
    page = await snapshot_ds.client.get("/version/en-2026-01-16?kind=changed")
    assert page.status_code == 200
    assert "<del>724,</del>" in page.text and "<ins>726,</ins>" in page.text
    home = await snapshot_ds.client.get("/")
    assert 'href="/version/en-2026-01-16"' in home.text


async def test_version_page_lists_what_reading_its_file_found(snapshot_ds) -> None:
    """The official 2009-10-01 file skips 113.8, prints 702.30d twice and cites "rules 112.5a-j",
    which it does not hold: a judge reading that edition sees it on its page, in the file's order,
    without the build's path of the file."""
    data = (await snapshot_ds.client.get("/version/en-2009-10-01.json")).json()
    notes = [(note["kind"], note["detail"]) for note in data["reading_notes"]]
    assert ("cr-format", "line 2680: rule number 702.30d printed a second time (first at line 2678);"
            " read as 702.30e, the next letter, which the file does not print") in notes
    # The notes naming no line after the others, by their text (the same wherever the file was read).
    assert notes[-2:] == [
        ("cr-format", "11 rule numbers are cited by the file's rules or glossary and are not in it:"
         " 112.5a, 112.5b, 112.5c, 112.5d, … 112.5j (cited by 112.3a); 405.3c (cited by 605.3b):"
         " rules lost from the file, or the official text's own slips"),
        ("cr-format", "rule 113.9 follows 113.7: 113.8 is not in the file"),
    ]
    page = await snapshot_ds.client.get("/version/en-2009-10-01")
    assert "10 notes on how this file was read" in page.text
    assert "rule 113.9 follows 113.7: 113.8 is not in the file" in page.text
    clean = (await snapshot_ds.client.get("/version/zhs-2025-02-07.json")).json()
    assert clean["reading_notes"] == []


async def test_a_translations_chapter_post_lists_its_reading_notes_on_its_versions_page(snapshot_ds) -> None:
    """The Korean CR of 2021 is an index post and a chapter post; the chapter prints 101.4d and
    120.4c twice. Those notes were on no page (only the index post's issues were read), though the
    README gives them as its example of a note a reader sees (the SQL user's review)."""
    data = (await snapshot_ds.client.get("/version/ko-2021-02-15.json")).json()
    assert [(note["kind"], note["file"], note["detail"][:40]) for note in data["reading_notes"]] == [
        ("cr-format", "2021-02-15-100.md", "line 134: 101.4d printed twice: the seco"),
        ("cr-format", "2021-02-15-100.md", "line 1744: 120.4c printed twice: the sec"),
    ]
    page = await snapshot_ds.client.get("/version/ko-2021-02-15")
    assert "2 notes on how its files were read" in page.text
    assert "2021-02-15-100.md: line 134: 101.4d printed twice" in page.text


async def test_a_rule_on_a_date_is_that_rule_in_the_edition_in_force_then(snapshot_ds) -> None:
    """"/rule/701.50?date=2025-06-01" showed today's Connive with no word of the date, and
    "?version=2025-06-01" was a 404 (a judge's review of the rule pages; ``mtgkb rule-at`` alone
    answered). The rule by its identity (today's 701.50 is 2025's 701.47) in the edition in force
    on that date, and how sure that is."""
    response = await snapshot_ds.client.get("/rule/701.50?date=2025-06-01")
    assert (response.status_code, response.headers["location"]) == (
        302, "/rule/701.50?version=en-2025-02-07&from=en-2026-04-17&on=2025-06-01")
    text = " ".join(re.sub(r"<[^>]+>", "", (await snapshot_ds.client.get(response.headers["location"])).text).split())
    assert "701.47 Connive" in text
    assert ("In force on 2025-06-01: the Comprehensive Rules of 2025-02-07, the newest edition we hold from before that"
            " date: an edition we do not hold may have come between it and the Comprehensive Rules of 2026-01-16.") in text
    # The rule as numbered where the reader was: 2025's 701.47 (Connive) in 2026 is 701.50.
    response = await snapshot_ds.client.get("/rule/701.47?version=en-2025-02-07&date=2026-06-01")
    assert response.headers["location"] == "/rule/701.47?version=en-2026-04-17&from=en-2025-02-07&on=2026-06-01"
    # On an edition's own date; before the rule was; before every edition; no date.
    on_the_day = " ".join(re.sub(r"<[^>]+>", "", (await snapshot_ds.client.get(
        "/rule/702.19?version=en-2025-02-07&from=en-2026-04-17&on=2025-02-07")).text).split())
    assert "In force on 2025-02-07: the Comprehensive Rules of 2025-02-07, which took effect that day." in on_the_day
    missing = await snapshot_ds.client.get("/rule/701.50?version=en-2020-11-20&from=en-2026-04-17&on=2021-01-01")
    assert missing.status_code == 404 and "is not in the Comprehensive Rules of 2020-11-20: it was added since" in missing.text
    assert "We hold no English edition in force on 1990-01-01" in (await snapshot_ds.client.get("/rule/701.50?date=1990-01-01")).text
    not_a_date = await snapshot_ds.client.get("/rule/701.50?date=June+1")
    assert not_a_date.status_code == 400 and "is not a date written YYYY-MM-DD" in not_a_date.text
    not_a_date = await snapshot_ds.client.get("/rule/701.50.json?date=notadate")
    assert (not_a_date.status_code, not_a_date.json()["ok"]) == (400, False)
    # From a code review: a day that does not exist is no date; JSON asked as JSON, other
    # arguments kept; a translation's rule followed from the English rule it translates; a version
    # we do not hold said; a rule not in the edition of the date, not another edition in silence.
    assert "is not a date written YYYY-MM-DD" in (await snapshot_ds.client.get("/rule/701.50?date=2003-02-30")).text
    response = await snapshot_ds.client.get("/rule/701.50?date=2025-06-01&_format=json&rulings=100")
    assert response.headers["location"] == (
        "/rule/701.50?version=en-2025-02-07&from=en-2026-04-17&on=2025-06-01&_format=json&rulings=100")
    response = await snapshot_ds.client.get("/rule/702.19?version=zhs&date=2021-03-01")
    assert response.headers["location"] == "/rule/702.19?version=en-2020-11-20&from=en-2025-02-07&on=2021-03-01"
    assert "We hold no rules version “garbage”" in (await snapshot_ds.client.get("/rule/702.19?version=garbage&date=2021-03-01")).text
    gone = await snapshot_ds.client.get("/rule/212.6b?version=en-2026-04-17&from=en-2026-04-17&on=2026-05-01")
    assert gone.status_code == 404 and "No rule 212.6b in the Comprehensive Rules of 2026-04-17, the edition in force on 2026-05-01" in gone.text


async def test_a_translation_of_an_edition_not_held_is_not_said_to_translate_the_nearest(snapshot_ds) -> None:
    """The Korean CR of 2021-02-15 holds Kaldheim's rules (ten special actions, foretell at 116.2h);
    its page said "Translates the Comprehensive Rules of 2020-11-20", which has nine (a review in
    the judges' languages). The Chinese CR translates an edition held."""
    text = re.sub(r"<[^>]+>", "", (await snapshot_ds.client.get("/version/ko-2021-02-15")).text)
    assert "Translates the Comprehensive Rules" not in text
    assert ("The English edition it translates is not known: its rules are shown beside the Comprehensive"
            " Rules of 2020-11-20, the nearest we hold to it.") in " ".join(text.split())
    chinese = re.sub(r"<[^>]+>", "", (await snapshot_ds.client.get("/version/zhs-2025-02-07")).text)
    assert "Translates the Comprehensive Rules of 2025-02-07." in " ".join(chinese.split())


async def test_two_rules_printed_under_one_number_keep_a_history_each(snapshot_ds) -> None:
    """2009-10-01 prints 702.30d twice. Both twins continue to this day (702.33f, 702.33g): each
    has its own history, where one shared an identity with the other and 702.33f's began in 2013.
    The first twin is 2006's kicker rule 502.21d reworded ("if the [A] kicker cost was paid" → "if
    it was kicked with its [A] kicker"); the second was added in 2009."""
    for number, as_printed_in_2009, change in (("702.33f", "702.30d", "moved-changed"), ("702.33g", "702.30e", "added")):
        data = (await snapshot_ds.client.get(f"/rule/{number}.json")).json()
        trace = [(t["version"], t["number"], t["change"]) for t in data["trace"]]
        from_2009 = [step for step in trace if step[0] >= "en-2009"]
        assert from_2009[:2] == [
            ("en-2009-10-01", as_printed_in_2009, change), ("en-2013-05-01", "702.31" + number[-1], "moved"),
        ]
        assert (trace[0][:2] == ("en-2003-03-15", "502.21d")) is (number == "702.33f")
    # The number the file did not print says so on its page; the printed one does not.
    unprinted = "The file of this version does not print this number"
    assert unprinted in (await snapshot_ds.client.get("/rule/702.30e?version=en-2009-10-01")).text
    assert unprinted not in (await snapshot_ds.client.get("/rule/702.30d?version=en-2009-10-01")).text


async def test_version_page_of_a_translation_shows_its_links(snapshot_ds) -> None:
    data = (await snapshot_ds.client.get("/version/zhs-2025-02-07.json")).json()
    assert data["version"]["translates_version_id"] == "en-2025-02-07"
    assert sum(data["links"].values()) == 3175
    # Every rule that is not matched exactly is listed, under its true count (the first 500 of 520 were).
    assert len(data["not_linked"]) == sum(n for status, n in data["links"].items() if status != "same") == 520
    assert data["not_linked"][-1]["number"] == "905.2c"
    html = (await snapshot_ds.client.get("/version/zhs-2025-02-07")).text
    assert "Rules that do not match exactly (520)" in html
    missing = await snapshot_ds.client.get("/version/xx-1999-01-01")
    assert missing.status_code == 404


async def test_rule_page_traces_renumbering_and_lists_rulings_relying_on_it(snapshot_ds) -> None:
    data = (await snapshot_ds.client.get("/rule/701.50.json")).json()
    assert [(t["version"], t["number"], t["change"]) for t in data["trace"]] == [
        ("en-2022-04-29", "701.47", "added"),
        ("en-2024-02-02", "701.47", "same"),
        ("en-2025-02-07", "701.47", "same"),
        ("en-2026-01-16", "701.50", "moved"),
        ("en-2026-04-17", "701.50", "same"),
    ]
    # The German page's rulings about conniving, linked by keyword to Connive as numbered then.
    relying = {(r["card"], r["rule_number"], r["method"]) for r in data["rulings"]}
    assert relying == {("Tödliches Komplott", "701.47", "keyword")}
    page = await snapshot_ds.client.get("/rule/701.50")
    assert "Rulings relying on this rule" in page.text and 'href="/version/en-2026-01-16"' in page.text
    # A change is dated by the first edition held that shows it, since the one held before: the
    # legend rule's per-controller change, "changed" in 2014-09-25, came in 2013 (a judge's review).
    trace = " ".join(re.sub(r"<[^>]+>", " ", page.text.split('id="trace"')[1].split("</ol>")[0]).split())
    assert ("Comprehensive Rules of 2026-01-16 701.50 Connive moved since the Comprehensive Rules of 2025-02-07, the edition we"
            " hold before it") in trace
    assert "701.47 Connive same since" not in trace
    # So is an addition: Connive came with Streets of New Capenna, after the 2022-02-18 edition
    # we hold; Flash, "added" in 2009, is older than that, from after 2006's (two reviews).
    assert ("Comprehensive Rules of 2022-04-29 701.47 Connive added since the Comprehensive Rules of 2022-02-18, the"
            " edition we hold before it") in trace
    flash = (await snapshot_ds.client.get("/rule/702.8.json")).json()["trace"][0]
    assert (flash["version"], flash["change"], flash["held_before"]) == ("en-2009-10-01", "added", "en-2006-02-01")
    first = (await snapshot_ds.client.get("/rule/100.1.json")).json()["trace"][0]
    assert (first["version"], first["change"], first["held_before"]) == ("en-2003-03-15", "first", None)


async def test_a_rule_moved_with_the_numbers_it_cites_renumbered_shows_them(snapshot_ds) -> None:
    # 601.2h became 601.2i in 2015-07-17, citing "601.2a–h" where it cited "601.2a–g": "moved"
    # with no diff read as a text unchanged (a review against Venser's diffs).
    trace = (await snapshot_ds.client.get("/rule/601.2i.json?version=en-2015-07-17")).json()["trace"]
    moved = next(t for t in trace if t["version"] == "en-2015-07-17")
    assert (moved["number"], moved["change"]) == ("601.2i", "moved")
    assert "[-601.2a–g-] {+601.2a–h+}" in moved["word_diff"]
    # Moved as it was: no diff.
    assert all(t["word_diff"] is None for t in trace if t["change"] in ("moved", "same") and t is not moved)


async def test_a_citation_whose_number_went_to_another_rule_since_its_text_was_written_says_so(snapshot_ds) -> None:
    # 607.2m's "See rule 614.12b" is 2015's words, when 614.12b was the anchor-word rule (614.12c
    # since 2026-01-16); the page linked the new 614.12b with no word (a judge's review).
    page = (await snapshot_ds.client.get("/rule/607.2m.json")).json()
    assert page["renumbered_citations"] == {
        "614.12b": {"citing": "607.2m", "written_in": "en-2015-01-23", "now": "614.12c"}}
    html = (await snapshot_ds.client.get("/rule/607.2m")).text
    assert ("607.2m reads as written in the Comprehensive Rules of 2015-01-23, where 614.12b was another rule: that rule"
            ' is <a class="rule-ref" href="/rule/614.12c">614.12c</a> here. The citation may be stale.') in html
    # A citation as written stays unremarked (702.19c cites 702.19b, written with it); so does the
    # next step, then and now ("If not, proceed to rule 616.1c"), and a rule now under the number
    # cited (903.13g's "903.6–903.11": 903.11a now), as a code review found them said stale.
    for number in ("702.19", "616.1", "903.13"):
        assert (await snapshot_ds.client.get(f"/rule/{number}.json")).json()["renumbered_citations"] == {}, number
    # The glossary's Anchor Word, "See rule 614.12b", is 2015's words too.
    anchor = (await snapshot_ds.client.get("/glossary/Anchor%20Word.json")).json()
    assert anchor["renumbered_citations"] == {
        "614.12b": {"citing": "Anchor Word", "written_in": "en-2015-01-23", "now": "614.12c"}}
    assert (await snapshot_ds.client.get("/glossary/Trample.json")).json()["renumbered_citations"] == {}


async def test_a_rule_paired_by_its_number_alone_is_shown_as_such(snapshot_ds) -> None:
    # The multiplayer mulligan (800.5) was rewritten for the London mulligan (2019-07-12): the
    # texts share a third of their words, and nothing but the number pairs them; the page says so.
    data = (await snapshot_ds.client.get("/rule/800.6.json")).json()
    trace = [(t["version"], t["change"], t["paired_by_number"], t["similarity"]) for t in data["trace"]]
    assert [step for step in trace if step[2]] == [("en-2019-07-12", "changed", True, 0.359)]
    page = (await snapshot_ds.client.get("/rule/800.6")).text
    assert page.count("paired by its number alone, the texts 36 % alike word by word") == 1
    # The Chinese (2025) 800.6 translates the London rule: beside it and later English it is its
    # translation; beside 2019-01-25's older text it is marked.
    def marked(data: dict, number: str) -> dict[str, bool]:
        return {column["lang"]: column["rules"][number]["paired_by_number"] for column in data["translations"]["columns"]}
    assert marked(data, "800.6") == {"zhs": False}
    older = (await snapshot_ds.client.get("/rule/800.5.json?version=en-2019-01-25")).json()
    assert marked(older, "800.5") == {"zhs": True}
    assert "it may translate another rule" not in page
    # The version's stored changes and the diff page read the same rows.
    changes = (await snapshot_ds.client.get("/version/en-2019-07-12.json?kind=changed")).json()["changes"]
    assert [c["old_number"] for c in changes if c["paired_by_number"]] == ["800.5", "903.11g"]
    assert "this may be another rule that took the number" in (await snapshot_ds.client.get("/version/en-2019-07-12?kind=changed")).text
    # Across versions apart, each rule follows its lineage, and a lineage paired by its number on
    # the way is marked so: 100.5 of 2013 and 2026 ("There is no maximum deck size" became a rule
    # on deck sizes in 2020-09-25, where the snapshot lacks the updates between).
    far = (await snapshot_ds.client.get("/diff.json?from=en-2013-05-01&to=en-2026-04-17&kind=changed")).json()
    assert {("100.5", "100.5"), ("107.4c", "107.4c")} <= {
        (c["old_number"], c["new_number"]) for c in far["changes"] if c["paired_by_number"]
    }
    later = (await snapshot_ds.client.get("/diff.json?from=en-2020-09-25&to=en-2026-04-17&kind=changed")).json()
    assert "100.5" not in {c["old_number"] for c in later["changes"] if c["paired_by_number"]}


async def test_the_moon_symbol_and_the_energy_symbol_are_two_rules(snapshot_ds) -> None:
    # 107.14 was the moon symbol until Magic Origins' update (2015-07-17) removed it, and the
    # energy symbol from Kaladesh's (2016-09-30) on (Venser's Journal, ORI and KLD). With the
    # updates between held, the number no longer joins them.
    energy = (await snapshot_ds.client.get("/rule/107.14.json")).json()
    assert [(t["version"], t["change"]) for t in energy["trace"]][:2] == [
        ("en-2016-09-30", "added"), ("en-2016-11-11", "same"),
    ]
    assert not any(t["paired_by_number"] for t in energy["trace"])
    moon = (await snapshot_ds.client.get("/rule/107.14.json?version=en-2014-09-25")).json()
    assert [(t["version"], t["change"]) for t in moon["trace"]][-2:] == [
        ("en-2015-03-27", "same"), ("en-2015-07-17", "removed"),
    ]


async def test_a_diff_of_versions_apart_pairs_glossary_entries_as_their_history_does(snapshot_ds) -> None:
    # Paired afresh, two glossaries twenty years apart made "Colorless mana" of 2006 into 2026's
    # "Source of Mana", and missed "Converted Mana Cost" → "Mana Value" (renamed in 2021).
    renamed = set()
    for kind in ("glossary-renamed", "glossary-renamed-changed"):
        far = (await snapshot_ds.client.get(f"/diff.json?from=en-2006-02-01&to=en-2026-04-17&kind={kind}")).json()
        renamed |= {(c["old_number"], c["new_number"]) for c in far["changes"]}
    assert ("Converted Mana Cost", "Mana Value") in renamed and ("Leaves Play", "Leaves the Battlefield") in renamed
    assert ("Colorless mana", "Source of Mana") not in renamed


# -- site pages of issue 14: contents, glossary, diff, furniture ---------------------------------


async def test_every_page_has_lang_main_skip_link_and_fan_content_notice(snapshot_ds, snapshot_db) -> None:
    for path in ("/", "/contents", "/glossary", f"/{snapshot_db.stem}/rules", "/search?q=hexproof"):
        text = (await snapshot_ds.client.get(path)).text
        assert text.startswith("<!DOCTYPE html>") and '<html lang="en">' in text, path
        assert '<main id="main"' in text and 'href="#main"' in text, path
        assert "unofficial Fan Content permitted under the" in text, path


async def test_contents_lists_parts_sections_and_rules(snapshot_ds) -> None:
    text = (await snapshot_ds.client.get("/contents")).text
    assert text.count('class="kb-part"') == 9
    assert '<summary>702. Keyword Abilities <span class="count">' in text
    assert '<a href="/rule/702">Section 702 on one page</a>' in text
    assert '<a href="/rule/702.78">702.78</a>' in text
    assert 'href="/contents"' in (await snapshot_ds.client.get("/")).text


async def test_glossary_term_page_has_rules_and_translations(snapshot_ds) -> None:
    text = (await snapshot_ds.client.get("/glossary/Trample")).text
    assert '<a class="rule-ref" href="/rule/702.19">702.19</a> Trample' in text
    assert '<span lang="de">verursacht Trampelschaden</span>' in text
    assert 'lang="zh-Hans"><a href="/glossary/%E8%B7%B5%E8%B8%8F?lang=zhs">践踏</a>' in text
    legend = (await snapshot_ds.client.get("/glossary/Legend%20Rule")).text
    assert '<a class="rule-ref" href="/rule/704.5j">704.5j</a>' in legend
    assert (await snapshot_ds.client.get("/glossary/No%20Such%20Term")).status_code == 404


async def test_an_english_term_asked_for_in_a_translated_glossary_leads_to_its_term_there(snapshot_ds) -> None:
    """/glossary/Flying?lang=zhs answered 404 and offered the English page; the Chinese glossary
    links its 飞行 to Flying."""
    for term, translated in [("Flying", "飞行"), ("Mana Value", "法术力值"), ("Converted Mana Cost", "法术力值")]:
        response = await snapshot_ds.client.get(f"/glossary/{quote(term)}?lang=zhs")
        assert (response.status_code, response.headers["location"]) == (
            302, f"/glossary/{quote(translated, safe='')}?lang=zhs"), term
        assert (await snapshot_ds.client.get(response.headers["location"])).status_code == 200
    assert (await snapshot_ds.client.get("/glossary/Nonsense?lang=zhs")).status_code == 404


async def test_nothing_found_says_which_languages_the_rules_text_is_searched_in(snapshot_ds) -> None:
    """"Friedhof" (German: graveyard) found nothing and the page did not say why (a European
    readers' review): the rules are held in English, Korean and Chinese; the Spanish page of one
    rule is not the rules in Spanish, but it is searched (a foreign judges' review: the page said
    Spanish was not)."""
    text = (await snapshot_ds.client.get("/search?q=Friedhof")).text
    assert ("The rules' own text is searched in English, Korean and Simplified Chinese (and the few rules"
            " pages captured in Spanish hold); in other languages, card names and keywords are.</p>") in text
    assert "own text is searched" not in (await snapshot_ds.client.get("/search?q=flying")).text


async def test_an_english_term_asked_for_in_a_language_we_hold_no_glossary_in(snapshot_ds) -> None:
    """/glossary/Flying?lang=de answered 404 "No glossary term 'Flying'" (a European readers'
    review): the English entry, saying we hold no German glossary and how German cards print it."""
    response = await snapshot_ds.client.get("/glossary/Flying?lang=de")
    assert response.status_code == 200
    assert ('<p class="kb-note kb-no-glossary">We hold no glossary in German: this is the English entry.'
            ' Cards printed in German call it “<span lang="de">Fliegend</span>”.</p>') in response.text
    assert '<a class="rule-ref" href="/rule/702.9">702.9</a> Flying' in response.text
    # No German printing of the term known: the note alone.
    okaun = (await snapshot_ds.client.get("/glossary/Protection?lang=ru")).text
    assert "We hold no glossary in Russian: this is the English entry.</p>" in okaun
    assert (await snapshot_ds.client.get("/glossary/Nonsense?lang=de")).status_code == 404
    # A language we hold a glossary in keeps its own answer, however it is written; a code of no
    # language is no page (it said "we hold no glossary in xx", and of "EN" that we hold no
    # English glossary: a review of the change).
    for url in ("/glossary/Flying", "/glossary/Flying?lang=EN"):
        response = await snapshot_ds.client.get(url)
        assert response.status_code == 200 and "kb-no-glossary" not in response.text
    assert "We hold no glossary in German" in (await snapshot_ds.client.get("/glossary/Flying?lang=de-DE")).text
    assert (await snapshot_ds.client.get("/glossary/Flying?lang=xx")).status_code == 404


async def test_a_language_for_a_version_and_a_translated_term_without_its_language(snapshot_ds) -> None:
    """/rule/702.19?version=zhs and /glossary/飞行 answered 404 (a CJK users' review)."""
    for url, location in [
        ("/rule/702.19?version=zhs", "/rule/702.19?version=zhs-2025-02-07"),
        ("/rule/702.19.json?version=ko", "/rule/702.19.json?version=ko-2021-02-15"),
        ("/glossary/" + quote("飞行"), "/glossary/" + quote("飞行", safe="") + "?lang=zhs"),
    ]:
        response = await snapshot_ds.client.get(url)
        assert (response.status_code, response.headers["location"]) == (302, location), url
    assert (await snapshot_ds.client.get("/rule/702.19?version=xx")).status_code == 404
    assert (await snapshot_ds.client.get("/glossary/Nonsense")).status_code == 404


async def test_a_rule_number_typed_into_the_path_as_readers_type_it_lands_on_the_rule(snapshot_ds) -> None:
    """/rule/７０２．１９ (a Japanese keyboard's full-width digits) and /rule/第702.19条 were sent by
    Datasette to a tilde-encoded path and answered its bare 404."""
    for typed, location in [
        ("７０２．１９", "/rule/702.19"),
        ("第702.19条", "/rule/702.19"),
        ("702.19 ", "/rule/702.19"),
        ("Rule 702.19B", "/rule/702.19b"),
        # A space before the letter: to itself, for ever, once the search read it (a code review).
        ("704.5 j", "/rule/704.5j"),
        ("702,9b", "/rule/702.9b"),
    ]:
        response = await snapshot_ds.client.get("/rule/" + quote(typed))
        assert (response.status_code, response.headers["location"]) == (302, location), typed
        assert (await snapshot_ds.client.get(location)).status_code == 200
    # As Datasette redirects such a path first, with the query kept and as JSON.
    response = await snapshot_ds.client.get("/rule/~E7~AC~AC702~2E19~E6~9D~A1.json?version=zhs")
    assert (response.status_code, response.headers["location"]) == (302, "/rule/702.19.json?version=zhs")
    # Any other text: the site's page not found, offering to search for it, and the keyword's
    # rule it names (a UX review).
    response = await snapshot_ds.client.get("/rule/trample")
    assert response.status_code == 404 and "/search?q=trample" in response.text
    assert 'href="/rule/702.19' in response.text
    as_json = (await snapshot_ds.client.get("/rule/trample.json")).json()
    assert as_json["ok"] is False and as_json["found"][0]["title"] == "702.19 Trample"


async def test_a_rule_a_translation_lacks_is_said_in_words_with_the_english_rule_offered(snapshot_ds) -> None:
    """The Korean CR holds a few chapters: its 702.19 was "No rule 702.19 in ko-2021-02-15", an
    internal id (a UX review)."""
    found = (await snapshot_ds.client.get("/rule/702.19.json?version=ko-2021-02-15")).json()
    assert found["error"] == "No rule 702.19 in the Korean translation of 2021-02-15"
    assert found["found"][0]["title"].startswith("702.19 Trample, in the English rules of en-2020-11-20")
    # A version that is not ours is named as typed, not as "the garbage rules", and as what is
    # missing: the version, not the rule (a review's fuzz).
    unknown = (await snapshot_ds.client.get("/rule/702.19z.json?version=garbage")).json()
    assert unknown["error"] == "We hold no rules version “garbage”"


async def test_a_translation_not_matched_to_a_ruling_leads_to_its_cards_page(snapshot_ds) -> None:
    """A search hit of the Chinese MH1 release notes led to a bare Datasette row (a CJK users'
    review): the page of the card it names lists it."""
    found = (await snapshot_ds.client.get("/search.json?q=" + quote("飞行"))).json()
    hits = next(group for group in found["groups"] if group["kind"] == "translations")["hits"]
    assert hits and all(hit["url"].startswith("/card?name=") for hit in hits[:2])
    for hit in hits[:2]:
        page, anchor = hit["url"].split("#")
        response = await snapshot_ds.client.get(page)
        assert response.status_code == 200 and f'id="{anchor}"' in response.text


async def test_two_entries_of_one_term_are_each_reached(snapshot_ds) -> None:
    """The Chinese glossary has two entries 平原行者 (cr/zh/20250207_Zh.txt: "参见类别循环" for
    Plainscycling, "参见地行者" for Plainswalk): the second was shown nowhere, and Plainswalk's
    page showed the first."""
    term = quote("平原行者", safe="")
    for english, says in [("Plainscycling", "参见类别循环"), ("Plainswalk", "参见地行者")]:
        response = await snapshot_ds.client.get(f"/glossary/{english}?lang=zhs")
        assert response.headers["location"] == f"/glossary/{term}?lang=zhs&en={english}"
        page = (await snapshot_ds.client.get(response.headers["location"])).text
        assert says in page and english in page
    index = (await snapshot_ds.client.get("/glossary?lang=zhs")).text
    assert index.count(f'href="/glossary/{term}?lang=zhs&amp;en=') == 2
    # The term asked for alone showed the first entry, "see typecycling", and nothing said another
    # exists (a foreign judges' review): each page names the other.
    alone = (await snapshot_ds.client.get(f"/glossary/{term}?lang=zhs")).text
    assert "参见类别循环" in alone and 'prints “<span lang="zh-Hans">平原行者</span>” 2 times: also for' in alone
    assert f'<a href="/glossary/{term}?lang=zhs&amp;en=Plainswalk">Plainswalk</a>' in alone
    walk = (await snapshot_ds.client.get(f"/glossary/{term}?lang=zhs&en=Plainswalk")).text
    assert f'<a href="/glossary/{term}?lang=zhs&amp;en=Plainscycling">Plainscycling</a>' in walk


async def test_a_translated_glossary_entry_says_which_rules_and_definitions_are_english(snapshot_ds) -> None:
    # 践踏 (Trample) of the 2025 translation listed rules of 2026 and English definitions as if its
    # own (a review of glossary pages).
    page = (await snapshot_ds.client.get("/glossary/%E8%B7%B5%E8%B8%8F?lang=zhs")).text
    assert '<p class="kb-muted">In the Comprehensive Rules of 2026-04-17.</p>' in page
    assert '<h2 id="history-title">Earlier definitions, in English</h2>' in page
    english = (await snapshot_ds.client.get("/glossary/Trample")).text
    assert '<h2 id="history-title">Earlier definitions</h2>' in english


async def test_an_entry_the_next_glossary_split_in_two_names_both(snapshot_ds) -> None:
    # 2003-03's "Source" was the source of an ability or of damage: the page of the source of
    # damage said "Source" was its earlier name (a review). Now its own page, naming both.
    source = (await snapshot_ds.client.get("/glossary/Source")).text
    assert '<h1 lang="en">Source</h1>' in source
    assert ("The Comprehensive Rules of 2003-10-01, the next we hold, defines it in 2 entries:"
            ' <a href="/glossary/Source%20of%20an%20Ability">Source of an Ability</a>,'
            ' <a href="/glossary/Source%20of%20Damage">Source of Damage</a>.') in source
    damage = (await snapshot_ds.client.get("/glossary/Source%20of%20Damage")).text
    assert "as “Source”" not in damage
    basic = (await snapshot_ds.client.get("/glossary/Basic%20Land.json")).json()
    assert [part["term"] for part in basic["split_into"]] == ["Basic", "Basic Land Type"]


async def test_a_renamed_glossary_term_keeps_its_history(snapshot_ds) -> None:
    mana_value = (await snapshot_ds.client.get("/glossary/Mana%20Value")).text
    assert '<p class="kb-history-term">as “Converted Mana Cost”</p>' in mana_value
    # A term the glossary no longer uses is the entry it became.
    in_play = (await snapshot_ds.client.get("/glossary/In%20Play")).text
    assert '<h1 lang="en">Battlefield</h1>' in in_play and "as “In Play”" in in_play
    # And the page says the name asked for is an earlier one (it looked like another term's page).
    assert "“<span lang=\"en\">In Play</span>” is an earlier name of this entry" in in_play
    # Asked without its qualifier: 2003's "Summoning Sickness (Obsolete)" and "(Informal)" (a 404).
    sickness = await snapshot_ds.client.get("/glossary/Summoning%20Sickness")
    assert sickness.status_code == 200 and '<h1 lang="en">Summoning Sickness Rule</h1>' in sickness.text
    assert "is an earlier name" not in mana_value
    # The Chinese CR translates the 2025 glossary, where the entry was "Removed from Combat".
    renamed = (await snapshot_ds.client.get("/glossary/Remove%20from%20Combat")).text
    assert ">移出战斗</a>" in renamed and "as “Removed from Combat”" in renamed


async def test_an_older_text_in_a_history_cites_rules_of_its_own_version(snapshot_ds) -> None:
    # 101.1's text of 2006 (103.1 then) says "see rule 102.3a": 2006's 102.3a, a number the
    # current CR does not have (a link to today's numbering was a 404, or another rule).
    page = (await snapshot_ds.client.get("/rule/101.1")).text
    assert '(see rule <a class="rule-ref" href="/rule/102.3a?version=en-2006-02-01">102.3a</a>)' in page
    # The text as it stands today links today's rules.
    assert '(see rule <a class="rule-ref" href="/rule/104.3a">104.3a</a>)' in page
    for link in sorted(set(re.findall(r'href="(/rule/[^"#]+)"', page))):
        assert (await snapshot_ds.client.get(link.replace("&amp;", "&"))).status_code == 200, link


async def test_an_older_versions_rule_leads_to_the_same_rule_today(snapshot_ds) -> None:
    # Morph was 702.36 in 2014 and is 702.37 now; today's 702.36 is Fear.
    morph = (await snapshot_ds.client.get("/rule/702.36?version=en-2014-09-25")).text
    assert '<a href="/rule/702.37">see current (702.37)</a>' in morph
    assert 'href="/rule/702.36">see current' not in morph
    # The sun symbol (2014's 107.13) is in no later version: nothing to see today.
    sun = (await snapshot_ds.client.get("/rule/107.13?version=en-2014-09-25")).text
    assert "not in the current rules" in sun and "see current" not in sun


async def test_a_term_the_glossary_dropped_shows_its_last_definition(snapshot_ds) -> None:
    # The 2003 and 2006 glossaries define "Comes into Play"; no later entry became it (its words
    # became "Enters the Battlefield" as a new entry). The old rule pages link it, and it was a 404.
    old_rule = (await snapshot_ds.client.get("/rule/410.10?version=en-2003-03-15")).text
    assert 'href="/glossary/Comes%20into%20Play"' in old_rule
    page = await snapshot_ds.client.get("/glossary/Comes%20into%20Play")
    assert page.status_code == 200
    assert '<h1 lang="en">Comes into Play</h1>' in page.text
    assert "Not in the glossary of the Comprehensive Rules of 2026-04-17: this is its last definition, from the" in page.text
    # Still a 404 for a term no version holds.
    assert (await snapshot_ds.client.get("/glossary/Comes%20into%20Plays")).status_code == 404


def test_every_english_glossary_entry_has_a_lineage(snapshot_conn) -> None:
    assert snapshot_conn.execute(
        """select count(*), count(glossary.lineage_id) from glossary
        join cr_versions on cr_versions.id = glossary.version_id where cr_versions.lang = 'en'"""
    ).fetchone() == (16547, 16547)
    assert snapshot_conn.execute(
        "select numbers, current_number from rule_lineages where id = 'en-2003-03-15/glossary:In Play'"
    ).fetchone() == ("In Play\nBattlefield", "Battlefield")


async def test_diff_between_any_two_versions(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get("/diff.json?from=en-2026-01-16&to=en-2026-04-17")).json()
    # The pairing follows cross-references since rule lineages: one rule changed in place before is
    # now moved and changed.
    # "Removed from Combat" is "Remove from Combat" now, its definition the same: renamed.
    assert page["counts"] == {"changed": 31, "moved-changed": 1, "added": 25, "moved": 118, "glossary-changed": 20,
                              "glossary-added": 7, "glossary-removed": 2, "glossary-renamed": 1}
    assert page["total"] == 205 and len(page["changes"]) == 100
    # Not consecutive: computed with kb.link.cr_diff, as `mtgkb cr-diff` does.
    far = (await snapshot_ds.client.get("/diff?from=en-2025-02-07&to=en-2026-04-17&kind=removed")).text
    assert "removed <span class=\"count\">1</span>" in far
    assert (await snapshot_ds.client.get("/diff?from=en-2026-04-17&to=zhs-2025-02-07")).status_code == 400  # both exist: the pair of languages is refused
    assert (await snapshot_ds.client.get("/diff")).status_code == 200


async def test_a_diff_across_versions_follows_each_rule_by_its_lineage(snapshot_ds) -> None:
    # 2022-02-18 and 2025-02-07 are not consecutive (2022-04-29 and 2024-02-02 lie between): the page
    # pairs the main phase's "Third, the active player gets priority" with its "Fourth, …", as the
    # rule's history does, not with the beginning phase's "Second, …" that a fresh comparison found.
    page = (await snapshot_ds.client.get("/diff.json?from=en-2022-02-18&to=en-2025-02-07&kind=moved-changed")).json()
    changes = page["changes"]
    offset = 100
    while len(changes) < page["total"]:
        more = f"/diff.json?from=en-2022-02-18&to=en-2025-02-07&kind=moved-changed&offset={offset}"
        changes += (await snapshot_ds.client.get(more)).json()["changes"]
        offset += 100
    assert [(c["old_number"], c["new_number"]) for c in changes if c["old_number"] == "505.5"] == [("505.5", "505.6")]
    # Past the end, a page offers the last page, whole; the JSON no change, so that a script
    # paging until none comes ends (the last page again looped: an API user's review).
    past = (await snapshot_ds.client.get("/diff.json?from=en-2022-02-18&to=en-2025-02-07&kind=moved-changed&offset=5000")).json()
    assert (past["offset"], past["changes"], past["total"]) == (5000, [], page["total"])
    last = (page["total"] - 1) // 100 * 100
    shown = (await snapshot_ds.client.get("/diff?from=en-2022-02-18&to=en-2025-02-07&kind=moved-changed&offset=5000")).text
    assert f"Showing {last + 1}–{page['total']} of {page['total']}." in shown
    assert [c["old_number"] for c in changes if c["new_number"] == "509.2"] == ["509.4"]
    # Aspects read as the build stores those of consecutive versions: "text,numbers-only", or null.
    moved = (await snapshot_ds.client.get("/diff.json?from=en-2022-02-18&to=en-2025-02-07&kind=moved")).json()["changes"]
    assert {c["aspects"] for c in moved} == {None, "text,numbers-only"}


async def test_each_page_of_a_diff_years_apart_shows_its_own_word_diffs(snapshot_ds, snapshot_conn) -> None:
    """A diff of versions years apart is counted from the rules' stored digests and only the page
    shown reads its texts: every page, the first, a later one and the last of one kind, shows the
    word diffs and similarities of the whole comparison (what `mtgkb cr-diff` prints)."""
    from kb.store.identity_diff import diff_by_identity

    whole = diff_by_identity(snapshot_conn, "en-2009-10-01", "en-2026-04-17") or []
    fields = ("kind", "old_number", "new_number", "word_diff", "similarity", "aspects", "paired_by_number")
    expected = [dict(zip(fields, (c.kind, c.old_number, c.new_number, c.word_diff, c.similarity, c.aspects_text,
                                  c.paired_by_number), strict=True)) for c in whole]
    for query, offset, listed in (("", 0, expected), ("", 2300, expected),
                                  ("&kind=moved-changed", 500, [c for c in expected if c["kind"] == "moved-changed"])):
        page = (await snapshot_ds.client.get(f"/diff.json?from=en-2009-10-01&to=en-2026-04-17{query}&offset={offset}")).json()
        assert page["total"] == len(listed) and page["changes"], (query, offset)
        assert [{field: change[field] for field in fields} for change in page["changes"]] == listed[offset : offset + 100]
    assert any(change["word_diff"].startswith("{+") for change in expected[2300:2400])  # added rules' texts too


async def test_canned_queries_open_before_their_parameters_are_filled(snapshot_ds, snapshot_db) -> None:
    for name in ("search_rules", "rulings_of_card", "search_rulings", "rulings_by_any_name"):
        assert (await snapshot_ds.client.get(f"/{snapshot_db.stem}/{name}")).status_code == 200, name
        for typed in ('"', '"conspire', 'con"spire'):
            parameter = "name" if name in ("rulings_of_card", "rulings_by_any_name") else "q"
            answer = await snapshot_ds.client.get(f"/{snapshot_db.stem}/{name}.json", params={parameter: typed})
            assert answer.status_code == 200, (name, typed, answer.text[:200])


async def test_datasette_rows_link_to_site_pages(snapshot_ds, snapshot_db) -> None:
    # A number is a label in one version: each row links the rule in its own version.
    text = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/rules?number=702.19")).text
    assert '<a href="/rule/702.19?version=en-2026-04-17">702.19</a>' in text
    assert '<a href="/rule/702.19?version=en-2013-05-01">702.19</a>' in text  # 2013's 702.19 is Vigilance
    cards = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/cards?oracle_id={JACE}")).text
    assert f'<a href="/card/{JACE}">Jace, Vryn&#x27;s Prodigy // Jace, Telepath Unbound</a>' in cards
    # card_names.oracle_id points at cards, whose label is the name: Datasette hands the cell
    # hook that column as {"value", "label"} (it answered 500 for the whole table page).
    names = await snapshot_ds.client.get(f"/{snapshot_db.stem}/card_names?oracle_id={JACE}&lang=ru")
    assert names.status_code == 200
    # In its language (Datasette's pages are lang="en": Chinese was drawn in the Japanese font).
    assert f'<a href="/card/{JACE}" lang="ru">Джейс, Гений из Врина // Джейс, Вольный Телепат</a>' in names.text


async def test_datasette_glossary_rows_link_each_languages_glossary(snapshot_ds, snapshot_db) -> None:
    page = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/glossary?version_id=zhs-2025-02-07&term=践踏")).text
    assert f'<a href="/glossary/{quote("践踏", safe="")}?lang=zhs" lang="zh-Hans">践踏</a>' in page
    english = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/glossary?version_id=en-2026-04-17&term=Trample")).text
    assert '<a href="/glossary/Trample">Trample</a>' in english


async def test_datasette_table_cells_in_another_language_say_which(snapshot_ds, snapshot_db) -> None:
    db = snapshot_db.stem
    printed = (await snapshot_ds.client.get(f"/{db}/printings?lang=ja&printed_name=極楽鳥")).text
    assert '<span lang="ja">極楽鳥</span>' in printed
    # The English texts a page announced as French are English.
    untranslated = (await snapshot_ds.client.get(f"/{db}/ruling_translations?status=untranslated&_size=1")).text
    assert 'lang="fr"' not in untranslated
    # With the status column left out, which rows are English is not known: none is tagged.
    hidden = (await snapshot_ds.client.get(f"/{db}/ruling_translations?lang=fr&_nocol=status&_size=3")).text
    assert 'lang="fr"' not in hidden
    # A canned query's translated column, by the version it names.
    parallel = (await snapshot_ds.client.get(f"/{db}/rule_with_translations?number=702.19")).text
    assert '<span lang="zh-Hans">践踏</span>' in parallel


async def test_every_table_and_view_page_answers(snapshot_ds, snapshot_db) -> None:
    """Datasette's page of every table and view the database shows, as a person or a JSON client
    opens it: none fails (a plugin's cell hook or a view's SQL would be found here first)."""
    listing = (await snapshot_ds.client.get(f"/{snapshot_db.stem}.json")).json()
    shown = [table["name"] for table in listing["tables"] if not table["hidden"]]
    shown += [view["name"] for view in listing["views"]]
    assert len(shown) > 30
    for name in shown:
        for suffix in ("", ".json?_labels=on"):
            response = await snapshot_ds.client.get(f"/{snapshot_db.stem}/{quote(name)}{suffix}")
            assert response.status_code == 200, (name, suffix, response.status_code)


def test_rule_numbers_in_any_language_and_ranges_are_links() -> None:
    html = render_text("见规则806；rules 306–311 and 规则 702.78a")
    assert '规则<a class="rule-ref" href="/rule/806">806</a>' in html
    assert 'rules <a class="rule-ref" href="/rule/306">306</a>–<a class="rule-ref" href="/rule/311">311</a>' in html
    assert '规则 <a class="rule-ref" href="/rule/702.78a">702.78a</a>' in html


def test_symbols_read_as_words() -> None:
    assert 'aria-label="one blue mana"' in render_text("{U}")
    assert 'aria-label="tap"' in render_text("{T}")
    assert 'aria-label="two generic mana"' in render_text("{2}")
    assert 'aria-label="one Phyrexian black mana"' in render_text("{B/P}")


def test_italics_marked_with_underscores_are_shown_as_italics() -> None:
    """The 2009 and 2013 files write "These _Magic_ rules" (a UX review showed the underscores)."""
    assert render_text("These _Magic_ rules apply; see rule 100.2.", "en-2013-05-01").startswith(
        "These <em>Magic</em> rules apply; see rule ")
    assert render_text("snake_case and 2_000") == "snake_case and 2_000"


def test_a_subtype_is_linked_only_capitalized() -> None:
    """"in that case" linked the enchantment subtype Case (a UX review)."""
    linker = GlossaryLinker([("Case", "/glossary/Case", True), ("Attack", "/glossary/Attack", False)])
    html = render_text("In that case, it attacks. Each Case is solved.", None, linker)
    assert '<a class="term-ref" href="/glossary/Case">Case</a> is solved' in html
    assert "In that case," in html and '<a class="term-ref" href="/glossary/Attack">attacks</a>' in html


def test_the_subtypes_of_the_real_glossary_are_linked_as_written(snapshot_conn: sqlite3.Connection) -> None:
    """Read from each entry's definition (a review of the change: "Creature Type" was taken for a
    subtype, so "creature types" lost its link, and Role, whose entry names it a subtype in passing,
    was missed)."""
    from kb.site.search_text import linked_as_written

    entries = snapshot_conn.execute("select term, text from glossary where version_id = 'en-2026-04-17'").fetchall()
    assert sorted(term for term, text in entries if linked_as_written(term, text)) == [
        "Attraction", "Aura", "Case", "Class", "Equipment", "Forest", "Fortification", "Infinity", "Island",
        "Legend (Obsolete)", "Mountain", "Plains", "Role", "Room", "Saga", "Siege", "Swamp", "Vehicle", "Wall"]


async def test_ordinary_words_are_not_linked_to_obsolete_or_subtype_terms(snapshot_ds) -> None:
    """702.19b's "in that case" linked Case, an enchantment subtype, and "during" linked During
    (Obsolete), whose entry says it is no game term today (a UX review)."""
    page = (await snapshot_ds.client.get("/rule/702.19")).text
    assert 'href="/glossary/Case"' not in page and 'href="/glossary/During%20%28Obsolete%29"' not in page
    assert 'href="/glossary/Trample"' in page or "/glossary/Trample" in page


async def test_words_of_another_sense_are_not_linked_to_a_glossary_term(snapshot_ds) -> None:
    # "the actions that are performed don't match" linked Match, the tournament's; the "double" of
    # "double-faced" linked Double, the keyword action (a review of glossary pages).
    assert 'href="/glossary/Match"' not in (await snapshot_ds.client.get("/rule/118.11")).text
    transform = (await snapshot_ds.client.get("/rule/111.10i")).text
    assert 'href="/glossary/Double"' not in transform and "double-faced" in transform
    linker = GlossaryLinker([("Match", "/glossary/Match", False, linked_as_a_noun("Match")),
                             ("Double", "/glossary/Double", False, linked_as_a_noun("Double"))])
    html = render_text("If the colors no longer match, or the state matches, or it is double-faced, the match is over. Double it.",
                       None, linker)
    assert html == ('If the colors no longer match, or the state matches, or it is double-faced, the <a class="term-ref"'
                    ' href="/glossary/Match">match</a> is over. <a class="term-ref" href="/glossary/Double">Double</a> it.')


async def test_everyday_words_are_linked_only_on_the_pages_of_their_terms_rules(snapshot_ds) -> None:
    # "There are four general categories of abilities" linked General, the Emperor variant's; a
    # state that "persists" linked Persist; an object that "moves" between zones linked Move, a
    # counter's (a judge's review of the glossary links).
    for number, term in (("113.3", "General"), ("603.2e", "Persist"), ("113.6m", "Move"), ("107.3h", "Unless")):
        page = (await snapshot_ds.client.get(f"/rule/{number}")).text
        assert f'href="/glossary/{term}"' not in page, number
    assert 'href="/glossary/General"' in (await snapshot_ds.client.get("/rule/809")).text
    assert 'href="/glossary/Unless"' in (await snapshot_ds.client.get("/rule/118.12a")).text
    assert 'href="/glossary/Persist"' in (await snapshot_ds.client.get("/rule/702.79")).text


async def test_a_glossary_term_is_linked_as_a_judge_reads_the_rules(snapshot_ds) -> None:
    """A second judge's review of the glossary links: "abilities" was not found for Ability (nor
    "triggered abilities" for Triggered Ability, which lost to Trigger on 75 pages); a page linked
    its first forty terms in the alphabet only; a card's or product's name linked a term within it;
    and more everyday words linked game terms."""
    def linked(page: str) -> dict[str, str]:
        return dict(re.findall(r'class="term-ref" href="/glossary/([^"]+)">([^<]+)<', page))

    assert linked((await snapshot_ds.client.get("/rule/902.7")).text)["Triggered%20Ability"] == "triggered abilities"
    assert {"Spell", "Stack", "Target"} <= set(linked((await snapshot_ds.client.get("/rule/601.2")).text))
    # "Elephant Graveyard", "Aether Storm"… ("Artifact Ward", a card of two terms, is linked: a word
    # beside a term is a type line's, "Basic Land — Mountain", more often than a card's).
    names = linked((await snapshot_ds.client.get("/rule/206.3")).text)
    assert not {"Graveyard", "Mountain", "Storm", "Party", "Protection"} & set(names), names
    assert "Commander" not in linked((await snapshot_ds.client.get("/rule/903.13e")).text).values()  # Commander Legends
    for number, term in (("509.1d", "Lock"), ("509.1d", "Locked"), ("904.12", "Play"), ("202.2c", "Requirement"),
                         ("603.6c", "Limited"), ("807.4g", "Pass"), ("903.13b", "Pass"), ("700.2", "Option"),
                         ("205.3b", "Dash")):
        assert term not in linked((await snapshot_ds.client.get(f"/rule/{number}")).text), (number, term)
    linker = GlossaryLinker([("Match", "/glossary/Match", False, linked_as_a_noun("Match"))])
    assert "term-ref" not in render_text("Look for triggers that match the event.", None, linker)
    # The game's sense of those words, and terms beside capitalised words, still linked (a code review).
    for number, term in (("613.1a", "Layer"), ("111.10j", "Aura"), ("111.10j", "Role"), ("901.14", "Grand%20Melee"),
                         ("100.6", "Tournament%20Rules"), ("702.58a", "Move"), ("508.4c", "Requirement"), ("405.5", "Pass"),
                         ("806.2", "Option"), ("100.4b", "Limited"), ("116.2m", "Locked"), ("505.6b", "Play"),
                         ("701.18b", "Play"), ("111.10t", "Play"), ("802.3a", "Requirement"), ("614", "Destroy")):
        assert term in linked((await snapshot_ds.client.get(f"/rule/{number}")).text), (number, term)


def test_a_term_opening_a_sentence_after_a_parenthesis_is_no_name() -> None:
    # "(See rule 704.) An Aura …": the sentence closed before ")" (a code review); a name goes on.
    linker = GlossaryLinker([("Aura", "/glossary/Aura", True), ("Graveyard", "/glossary/Graveyard")])
    html = render_text("It dies (see rule 704.) An Aura stays, as the card Elephant Graveyard does.", None, linker)
    assert '<a class="term-ref" href="/glossary/Aura">Aura</a>' in html and "/glossary/Graveyard" not in html


def test_a_page_of_a_subrule_shows_the_rule_an_everyday_words_entry_points_to() -> None:
    from kb.site.rule_page import _shows_its_rules

    unless = {"term": "Unless", "text": "A word used to indicate a certain style of cost. See rule 118.12a."}
    general = {"term": "General", "text": "Any player in the Emperor variant who isn’t an emperor. See rule 809."}
    assert _shows_its_rules(unless, [{"number": "118.12"}, {"number": "118.12a"}])
    assert not _shows_its_rules(unless, [{"number": "118.12"}, {"number": "118.12b"}])
    assert _shows_its_rules(general, [{"number": "809.1a"}]) and not _shows_its_rules(general, [{"number": "80.9"}])
    move = {"term": "Move", "text": "To remove a counter from one object. See rule 122.5."}
    assert _shows_its_rules(move, [{"number": "122.5a"}]) and not _shows_its_rules(move, [{"number": "122.50"}])


def test_glossary_terms_linked_at_first_use_only() -> None:
    linker = GlossaryLinker([("Attack", "/glossary/Attack"), ("Mana Ability", "/glossary/Mana%20Ability")])
    html = render_text("It attacks. Mana abilities resolve. It attacks again.", None, linker)
    assert html.count('class="term-ref"') == 2
    assert '<a class="term-ref" href="/glossary/Mana%20Ability">Mana abilities</a>' in html


async def test_card_pages_mark_lost_symbols_and_name_reversible_cards_once(snapshot_ds) -> None:
    german = (await snapshot_ds.client.get("/card?name=" + quote("Tödliches Komplott"))).text
    # The two rulings whose {T} the German page lost ("with  in the cost") say so on the ruling.
    assert german.count('class="kb-warning kb-lost-symbols"') == 2
    okaun = (await snapshot_ds.client.get("/card/7dec219b-96d1-4d4c-b3ac-15eda9d2ccc6")).text
    assert "<h1>Okaun, Eye of Chaos</h1>" in okaun
    # Its names: "Okaun, Eye of Chaos // Okaun, Eye of Chaos" and its face's name are one name.
    names = okaun.split('<section class="kb-names" id="names">')[1].split("</section>")[0]
    assert names.count("<dd") == 1 and '<dd lang="en">Okaun, Eye of Chaos</dd>' in names


def test_an_instances_own_metadata_stays_its_own() -> None:
    """Datasette merges an instance's metadata into what the plugin's hook returns, in place: the
    plugin's metadata (kept once per process) must not carry one instance's settings into the next."""
    from datasette.app import Datasette

    from kb.site.metadata import merged_metadata

    shared = copy.deepcopy(merged_metadata(("kb",)))
    own = {
        "plugins": {"mtgkb": {"read_ahead": False}}, "title": "a check",
        "databases": {"kb": {"title": "checked", "tables": {"rules": {"description": "its own"}}}},
    }
    checking = Datasette([], metadata=own)
    assert checking.plugin_config("mtgkb") == {"read_ahead": False}
    assert checking.metadata("title") == "a check"
    assert checking.metadata("title", database="kb") == "checked"
    assert checking.metadata("description", database="kb", table="rules") == "its own"
    # The instance's own settings beside the plugin's, which it did not name, are kept.
    assert checking.metadata("columns", database="kb", table="rules") == shared["databases"]["kb"]["tables"]["rules"]["columns"]
    served = Datasette([])
    assert served.plugin_config("mtgkb") is None
    assert served.metadata("title") != "a check"
    assert merged_metadata(("kb",)) == shared


async def test_tables_asked_for_as_a_whole_carry_only_the_settings_datasette_reads_so(snapshot_db) -> None:
    """Datasette deep-copies what the hook answers for the key "tables" once per table a page
    lists (the database page: 71 copies of every description). That answer holds who may see a
    table and its facet size; descriptions, columns and facets are still there per table, and an
    instance's own permissions still hold."""
    from datasette.app import Datasette

    from kb.site.metadata import ASKED_AS_TABLES
    from kb.site.plugin import get_metadata

    name = snapshot_db.stem
    ds = Datasette(immutables=[str(snapshot_db)],
                   metadata={"databases": {name: {"tables": {"cards": {"allow": {"id": "a judge"}}}}}})
    asked = get_metadata(ds, "tables", name, None)
    assert all(set(settings) <= set(ASKED_AS_TABLES) for settings in asked["databases"][name]["tables"].values())
    assert "id" in ds.metadata("columns", database=name, table="rules")
    assert ds.table_metadata(name, "rules")["facets"]
    assert ds.metadata("description", database=name, table="rulings")
    listed = {table["name"] for table in (await ds.client.get(f"/{name}.json")).json()["tables"]}
    assert "rules" in listed and "cards" not in listed
    assert (await ds.client.get(f"/{name}/cards.json")).status_code == 403
    assert (await ds.client.get(f"/{name}/rules.json?_size=1")).status_code == 200
    for db in ds.databases.values():
        db.close()


async def test_configured_facets_are_counted_on_small_tables_only(snapshot_db, monkeypatch) -> None:
    """Datasette counts a table's configured facets at every view of its page: on the served
    file's large tables (a million rulings: 0.9 s a view) they are offered, not counted."""
    from datasette.app import Datasette

    from kb.site import metadata
    from kb.site.serve import SETTINGS

    monkeypatch.setattr(metadata, "FACETED_ROWS_AT_MOST", 1_000)
    name = snapshot_db.stem
    # No inspect file (plain ``datasette -i``): the plugin counts the tables at start-up.
    ds = Datasette(immutables=[str(snapshot_db)], settings=dict(SETTINGS))
    await ds.invoke_startup()
    counts = ds.databases[name].cached_table_counts
    assert counts is not None and counts["cr_versions"] <= 1_000
    assert counts["rules"] is None or counts["rules"] > 1_000  # None: its count ran out of time

    def facets(json: dict) -> set[str]:
        return set(json["facet_results"])

    assert facets((await ds.client.get(f"/{name}/rules.json?_size=1")).json()) == set()
    assert facets((await ds.client.get(f"/{name}/rules.json?_size=1&_facet=kind")).json()) == {"kind"}
    assert facets((await ds.client.get(f"/{name}/cr_versions.json?_size=1")).json()) == {"lang", "method", "translation_match"}
    # A file served mutable may grow under the server: its facets stay as configured.
    mutable = Datasette([str(snapshot_db)], settings=dict(SETTINGS))
    assert facets((await mutable.client.get(f"/{name}/rules.json?_size=1")).json()) == {"version_id", "kind"}
    for instance in (ds, mutable):
        for db in instance.databases.values():
            db.close()


def test_a_table_whose_count_ran_out_of_time_is_large() -> None:
    from kb.site.metadata import large_tables

    class Served:
        is_mutable = False
        cached_table_counts = {"rulings": None, "cards": 66, "printings": 500_000}

    class Instance:
        databases = {"kb": Served(), "notes": type("Mutable", (), {"is_mutable": True})()}

    assert large_tables(Instance(), ["kb", "notes"]) == {("kb", "rulings"), ("kb", "printings")}


def test_the_links_view_is_as_large_as_its_links() -> None:
    # ruling_rules is a view since m032: Datasette counts tables only, and its three facets were
    # counted over every link at each view of its page.
    from kb.site.metadata import large_tables

    class Served:
        is_mutable = False
        cached_table_counts = {"ruling_rule_links": 1_400_000, "ruling_rule_targets": 3_000}

    class Instance:
        databases = {"kb": Served()}

    assert large_tables(Instance(), ["kb"]) == {("kb", "ruling_rule_links"), ("kb", "ruling_rules")}


def mapped(conn) -> int:
    """The most of a file a connection reads through a memory map (0: none)."""
    return conn.execute("pragma mmap_size").fetchone()[0]


async def test_an_immutable_file_is_read_through_a_memory_map_and_a_mutable_one_is_not(snapshot_db, tmp_path) -> None:
    """``mtgkb serve`` serves its file immutable: our pages' and Datasette's connections map it
    (no read() per page); a file served mutable (plain ``datasette kb.db``) may be written in
    place, and a write that shrinks a mapped file would crash the reader: read as before."""
    import shutil

    from datasette.app import Datasette

    from kb.site import limits
    from site_databases import make_datasette

    served = make_datasette(snapshot_db)
    name = snapshot_db.stem
    database = served.databases[name]
    assert not database.is_mutable
    assert await database.execute_fn(mapped) > 0
    assert await limits.PAGES.run(served, database, mapped) > 0

    writable = tmp_path / "kb.db"
    shutil.copy(snapshot_db, writable)
    plain = Datasette([str(writable)])
    database = plain.databases["kb"]
    assert database.is_mutable
    assert await database.execute_fn(mapped) == 0
    assert await limits.PAGES.run(plain, database, mapped) == 0
    for instance in (served, plain):
        for db in instance.databases.values():
            db.close()


async def test_a_refreshs_smoke_check_does_not_map_the_file_it_checks(snapshot_db) -> None:
    """The refresh's check of its new file answers no visitor: mapped, every page its table
    counts touched counted as the refresh's memory (323 MB at a tenth of full size)."""
    from kb.refresh.checks import checking_datasette
    from kb.site import limits

    checking = checking_datasette(snapshot_db, snapshot_db.stem)
    database = checking.databases[snapshot_db.stem]
    assert not database.is_mutable  # checked as it will be served
    try:
        assert await database.execute_fn(mapped) == 0
        assert await limits.PAGES.run(checking, database, mapped) == 0
    finally:
        database.close()


def test_the_newest_rulings_are_read_in_order_from_an_index(snapshot_db, tmp_path) -> None:
    """The "new_rulings" canned query sorted every ruling by when it was first seen: 1.5 s at a
    million rulings, the public SQL limit. Then it read an index of that expression over every
    ruling (24 MB at a million); now the rulings by date and the few first seen later, each from
    an index, a hundred of each at most: the same rows."""
    import shutil

    from kb.site.metadata import CANNED_QUERIES

    path = tmp_path / "kb.db"
    shutil.copy(snapshot_db, path)
    conn = sqlite3.connect(path)
    # Some rulings first seen after their date, some of them newer than any by date.
    ids = [row[0] for row in conn.execute("select id from rulings where published_at is not null order by id limit 40")]
    conn.executemany("update rulings set first_seen = ? where id = ?",
                     [(f"20{27 + index % 3}-01-0{1 + index % 9}", ruling) for index, ruling in enumerate(ids[:20])]
                     + [("2019-05-05", ruling) for ruling in ids[20:]])
    sql = CANNED_QUERIES["new_rulings"]["sql"]
    plan = [row[3] for row in conn.execute("explain query plan " + sql)]
    assert "SCAN rulings USING INDEX idx_rulings_published_at" in plan, plan
    assert "SEARCH rulings USING INDEX idx_rulings_first_seen (first_seen>?)" in plan, plan
    assert not [step for step in plan if step.startswith("SCAN rulings") and "INDEX" not in step], plan
    seen = [row[0] for row in conn.execute(sql)]
    everything = [row[0] for row in conn.execute(
        "select coalesce(first_seen, published_at) as seen from rulings order by seen desc limit 100")]
    assert seen == everything and seen[0].startswith("2029") and len(seen) == 100


def test_a_name_no_card_has_is_looked_up_by_index_not_by_scanning_every_record(snapshot_conn) -> None:
    """``/card?name=`` with a typo ends among the names documents printed (``card_name_records``):
    scanned, that was 40 ms a miss at a million rulings' card data."""
    from kb.site.card_lookup import find_card

    plans: list[str] = []
    statements: list[str] = []
    snapshot_conn.set_trace_callback(statements.append)
    try:
        assert find_card(snapshot_conn, "Jace, the Mind Sculptr") is None
    finally:
        snapshot_conn.set_trace_callback(None)
    for statement in statements:
        if "card_name_records" in statement and statement.lstrip().lower().startswith("select"):
            plans += [row[3] for row in snapshot_conn.execute("explain query plan " + statement)]
    # (A full-text match of card_name_records_fts shows as "SCAN … VIRTUAL TABLE INDEX 0:M1".)
    assert plans and not [plan for plan in plans if plan.split()[:2] == ["SCAN", "card_name_records"]], plans


async def test_the_database_page_asks_the_sql_threads_nothing_it_asked_before(snapshot_db) -> None:
    """Datasette spells each table it checks a permission for with a query of its own (~150 for
    the database page): an immutable file's answers are kept, for the names the file has only,
    and the page lists what Datasette lists over the same file served mutable."""
    from datasette.app import Datasette
    from datasette.tracer import capture_traces

    from kb.site.serve import SETTINGS

    name = snapshot_db.stem
    ds = Datasette(immutables=[str(snapshot_db)], settings=dict(SETTINGS))
    mutable = Datasette([str(snapshot_db)], settings=dict(SETTINGS))
    await ds.invoke_startup()
    first = (await ds.client.get(f"/{name}.json")).json()
    traces: list[dict] = []
    with capture_traces(traces):
        again = (await ds.client.get(f"/{name}.json")).json()
    assert [trace["sql"] for trace in traces if "sqlite_master" in (trace.get("sql") or "")] == []
    listed = [(table["name"], table["hidden"]) for table in again["tables"]]
    assert listed == [(table["name"], table["hidden"]) for table in first["tables"]]
    assert listed == [(table["name"], table["hidden"]) for table in (await mutable.client.get(f"/{name}.json")).json()["tables"]]
    assert {view["name"] for view in again["views"]} == {view["name"] for view in first["views"]} != set()
    # Names the file does not have are asked every time and never kept: a crawler's made-up
    # tables cannot grow the cache.
    cache = ds.databases[name].__dict__["_kb_schema_cache"]
    kept = len(cache)
    for path in ("nosuch1", "nosuch2", "RULES", "Rulings", "rules%20"):
        got = await ds.client.get(f"/{name}/{path}.json?_size=1")
        assert got.status_code == (await mutable.client.get(f"/{name}/{path}.json?_size=1")).status_code
    assert len(cache) == kept
    for instance in (ds, mutable):
        for db in instance.databases.values():
            db.close()


class _PlannedConnection(sqlite3.Connection):
    """Records each statement a page runs with its parameters, to read its query plan after."""

    statements: list[tuple[str, object]]

    def execute(self, sql, parameters=(), /):  # type: ignore[override]
        self.statements.append((sql, parameters))
        return super().execute(sql, parameters)


@pytest.mark.parametrize("name", ["반역 행위", "Paradiesvögel"])
def test_a_card_known_only_by_a_printed_name_reads_no_table_of_card_data_whole(snapshot_db, name: str) -> None:
    """Its page shows the printings and names of the documents that printed the name: looked up by
    document through an index (three scans of every printing took 270-360 ms at 500k)."""
    from kb.site.search import register_functions
    from kb.site.views import card_by_name_data

    conn = sqlite3.connect(f"file:{snapshot_db}?immutable=1", uri=True, factory=_PlannedConnection)
    conn.statements = []
    register_functions(conn)
    oracle_id, page = card_by_name_data(conn, name)
    assert oracle_id is None and page and not page["linked"]
    assert any("from printings where document_id" in " ".join(sql.split()) for sql, _ in conn.statements)
    scans = set()
    for sql, parameters in conn.statements:
        if sql.lstrip().lower().startswith(("select", "with")):
            for row in sqlite3.Connection.execute(conn, "explain query plan " + sql, parameters):
                if re.match(r"SCAN (printings|card_name_records|ruling_records|rulings)\b", row[3]):
                    scans.add(row[3])
    conn.close()
    assert scans == set()


async def _every_row_paged(ds, path: str, key: str) -> list:
    seen, url = [], path
    while url:
        page = (await ds.client.get(url)).json()
        seen += [row[key] for row in page["rows"]]
        url = page["next_url"] and page["next_url"].replace("http://localhost", "")
    return seen


async def test_sorted_table_pages_list_every_row_once(snapshot_ds, snapshot_db) -> None:
    # Datasette 0.65 ordered a sorted first page by the column alone and later pages by it and the
    # key: the rulings, newest first by default, listed 306 rows of which 9 never appeared.
    db = snapshot_db.stem
    total = (await snapshot_ds.client.get(f"/{db}/rulings.json?_size=1")).json()["filtered_table_rows_count"]
    for sort in ("", "&_sort_desc=published_at", "&_sort=published_at", "&_sort_desc=source"):
        ids = await _every_row_paged(snapshot_ds, f"/{db}/rulings.json?_shape=objects&_size=20&_col=published_at{sort}", "id")
        assert len(ids) == len(set(ids)) == total, sort
    streamed = (await snapshot_ds.client.get(f"/{db}/rulings.csv?_stream=on&_size=20")).text.splitlines()[1:]
    assert len({line.split(",")[0] for line in streamed}) == total


async def test_rule_by_number_lists_the_rule_and_its_subrules_only(snapshot_ds, snapshot_db) -> None:
    # "702.1" || "_" matched 702.10 to 702.19 (Haste to Trample) too.
    rows = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/rule_by_number.json?_shape=array&number=702.1")).json()
    assert [row["number"] for row in rows] == ["702.1", "702.1a", "702.1b", "702.1c", "702.1d"]


async def test_rulings_of_a_card_known_by_its_rulings_name_it(snapshot_ds, snapshot_db) -> None:
    # Deathrite Shaman has rulings but no card data: its name comes from its rulings (card_names).
    rows = (await snapshot_ds.client.get(
        f"/{snapshot_db.stem}/rulings_of_card.json?_shape=array&name=Deathrite%20Shaman")).json()
    assert rows and {row["card"] for row in rows} == {"Deathrite Shaman"}


async def test_search_rules_gives_a_snippet_for_a_title(snapshot_ds, snapshot_db) -> None:
    # A keyword rule has a title and no text: its snippet was empty.
    rows = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/search_rules.json?_shape=array&q=conspire")).json()
    assert rows and all(row["snippet"] for row in rows)
    assert "[Conspire]" in {row["snippet"] for row in rows if row["number"] == "702.78"}


# -- translated text carries its language ---------------------------------------------------------


async def test_a_translations_contents_carry_its_language(snapshot_ds) -> None:
    text = (await snapshot_ds.client.get("/contents?version=zhs-2025-02-07")).text
    assert '<nav class="kb-parts" aria-label="Parts" lang="zh-Hans">' in text
    assert '<section class="kb-part" id="part-1" aria-labelledby="part-1-title" lang="zh-Hans">\n  <h2 id="part-1-title">1. 游戏概念</h2>' in text
    # The page's own words inside it stay English.
    assert '<summary>100. 总则 <span class="count" lang="en">7 rules</span></summary>' in text
    # One rule is one rule ("203. Illustration 1 rules": a UX review).
    assert '<span class="count" lang="en">1 rule</span>' in text and ">1 rules<" not in text
    assert '<li lang="en"><a href="/rule/100?version=zhs-2025-02-07">Section 100 on one page</a></li>' in text
    english = (await snapshot_ds.client.get("/contents")).text
    assert '<nav class="kb-parts" aria-label="Parts">' in english and 'lang="en"' not in english.split("<main", 1)[1]


async def test_a_translations_version_page_tags_its_rule_titles(snapshot_ds) -> None:
    text = (await snapshot_ds.client.get("/version/ko-2021-02-15")).text
    assert '<td><a href="/rule/308?version=ko-2021-02-15">308</a> <span lang="ko">종족</span></td>' in text


@pytest.mark.parametrize(("path", "heading"), [
    ("/card?name=" + quote("克撒之怒"), '<h1 lang="zh-Hans">克撒之怒</h1>'),
    ("/card?name=" + quote("각성뿌리 정령"), '<h1 lang="ko">각성뿌리 정령</h1>'),
    ("/card?name=" + quote("Paradiesvögel"), '<h1 lang="de">Paradiesvögel</h1>'),
    (f"/card/{JACE}", "<h1>Jace, Vryn&#39;s Prodigy // Jace, Telepath Unbound</h1>"),
])
async def test_a_card_titled_by_a_localized_name_says_its_language(snapshot_ds, path: str, heading: str) -> None:
    assert heading in (await snapshot_ds.client.get(path)).text


async def test_a_translated_glossarys_letters_and_headings_carry_its_language(snapshot_ds) -> None:
    text = (await snapshot_ds.client.get("/glossary?lang=zhs")).text
    assert '<nav class="kb-letters" aria-label="Letters" lang="zh-Hans"><a href="#letter-1">A</a>' in text
    assert '<section id="letter-6" aria-label="一" lang="zh-Hans">\n  <h2>一</h2>' in text


def test_the_cjk_fonts_are_chosen_by_the_language_tags_the_pages_write() -> None:
    css = (Path(kb.site.__file__).parent / "static" / "kb.css").read_text()
    assert '[lang="zhs"]' not in css
    for tag, font in (("zh-Hans", "SC"), ("zh-Hant", "TC"), ("ja", "JP"), ("ko", "KR")):
        assert f':lang({tag}) {{ font-family: var(--kb-sans), "Noto Sans CJK {font}", var(--kb-cjk); }}' in css


async def test_search_hits_carry_the_language_of_their_titles_and_snippets(snapshot_ds) -> None:
    chinese_card = (await snapshot_ds.client.get("/search?q=" + quote("陰森"))).text
    assert ('<a href="/card/72aef1d8-11df-4bc2-af83-907b05df73a8?lang=zht" lang="zh-Hant">陰森腸占師</a>' in chinese_card)
    assert '<div class="kb-snippet" lang="zh-Hant"><mark>陰森</mark>腸占師 <span class="lang">zht</span></div>' in chinese_card
    printed_names = (await snapshot_ds.client.get("/search?q=" + quote("克撒"))).text
    assert '<a href="/card?name=%E5%85%8B%E6%92%92%E4%B9%8B%E6%80%92" lang="zh-Hans">克撒之怒</a>' in printed_names
    assert ('<div class="kb-snippet" lang="zh-Hans">克撒之怒 <span class="unlinked" lang="en">not yet linked to an'
            ' Oracle card</span></div>') in printed_names
    assert ('<a href="/card?name=%E5%85%8B%E6%92%92%E4%B9%8B%E6%80%92#translation-216114732815923255"'
            ' lang="zh-Hans">克撒之怒</a>') in printed_names
    # A card found by its Russian name is titled by its English name, in English; its link opens
    # the card's page in Russian.
    russian = (await snapshot_ds.client.get("/search?q=" + quote("Джейс") + "&all=1")).text
    assert f'<a href="/card/{JACE}?lang=ru">Jace, Vryn&#39;s Prodigy // Jace, Telepath Unbound</a>' in russian
    assert '<div class="kb-snippet" lang="ru">Джейс, Гений из Врина <span class="lang">ru</span></div>' in russian
    german = (await snapshot_ds.client.get("/search?q=Trampelschaden&all=1")).text
    assert ('<div class="kb-snippet"><span lang="de">verursacht Trampelschaden</span> <span class="lang">German</span>'
            ' → Trample') in german


async def test_the_query_echoed_carries_the_language_an_exact_match_gives_it(snapshot_ds) -> None:
    chinese = (await snapshot_ds.client.get("/search?q=" + quote("协力"))).text
    assert '<h1 class="kb-search-title">Results for “<span lang="zh-Hans">协力</span>”</h1>' in chinese
    unknown = (await snapshot_ds.client.get("/search?q=" + quote("陰森"))).text
    assert '<h1 class="kb-search-title">Results for “陰森”</h1>' in unknown


@pytest.mark.parametrize(("version", "name"), [
    ("zhs-2025-02-07", "Simplified Chinese translation of 2025-02-07"),
    ("es-pages-cr-page", "Spanish rules pages (captured from a rules site)"),
    ("en-2009-10-01", "Comprehensive Rules of 2009-10-01"),
])
async def test_the_contents_menu_lists_every_version_with_the_one_shown_selected(snapshot_ds, version: str, name: str) -> None:
    text = (await snapshot_ds.client.get(f"/contents?version={version}")).text
    menu = text.split('<select id="contents-version" name="version">', 1)[1].split("</select>", 1)[0]
    assert re.findall(r"<option [^>]*selected>[^<]*</option>", menu) == [f'<option value="{version}" selected>{name}</option>']
    assert menu.count("<option ") == 34


def title_of(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.S)
    assert found
    return found.group(1)


@pytest.mark.parametrize(("path", "title"), [
    ("/diff", "Comprehensive Rules of 2026-01-16 to Comprehensive Rules of 2026-04-17 · MTG Rules KB"),
    ("/diff?from=en-2009-10-01&to=en-2026-04-17&kind=moved&offset=100",
     "Comprehensive Rules of 2009-10-01 to Comprehensive Rules of 2026-04-17 · moved · from 101 · MTG Rules KB"),
    ("/contents", "Contents of the Comprehensive Rules of 2026-04-17 · MTG Rules KB"),
    ("/contents?version=zhs-2025-02-07", "Contents of the Simplified Chinese translation of 2025-02-07 · MTG Rules KB"),
    ("/version/en-2009-10-01", "Comprehensive Rules of 2009-10-01 · MTG Rules KB"),
    ("/version/en-2009-10-01?kind=moved&offset=100", "Comprehensive Rules of 2009-10-01 · moved · from 101 · MTG Rules KB"),
    ("/search?q=", "Search · MTG Rules KB"),
    ("/{db}/new_rulings", "Newest rulings · {db}"),
    ("/{db}/rule_with_translations?number=119.8", "A rule with all its translations · {db}"),
    ("/{db}?sql=select+1", "{db}: select 1"),
])
async def test_each_page_title_says_which_page_it_is(snapshot_ds, snapshot_db, path: str, title: str) -> None:
    db = snapshot_db.stem
    assert title_of((await snapshot_ds.client.get(path.format(db=db))).text) == title.format(db=db)


async def test_an_empty_search_shows_the_search_form(snapshot_ds) -> None:
    text = (await snapshot_ds.client.get("/search?q=")).text
    assert '<h1 class="kb-search-title">Search</h1>' in text and "Results for" not in text
    assert '<input id="kb-q" type="search" name="q" required autocomplete="off"' in text


@pytest.mark.parametrize("lang", ["ko", "xx"])
async def test_a_glossary_in_a_language_not_held_is_404_naming_those_held(snapshot_ds, lang: str) -> None:
    response = await snapshot_ds.client.get(f"/glossary?lang={lang}")
    assert response.status_code == 404
    assert f"<p>No glossary in “{lang}”: we hold glossaries in English (en), Simplified Chinese (zhs).</p>" in response.text


async def test_a_diff_of_two_languages_is_refused_with_400_and_why(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/diff?from=ko-2021-02-15&to=zhs-2025-02-07")
    assert response.status_code == 400
    assert ('<p class="kb-warning" role="alert">These versions are in different languages: compare versions of'
            ' one language.</p>') in response.text
    assert (await snapshot_ds.client.get("/diff?from=en-2026-04-17&to=xx-1")).status_code == 404
    # The JSON says so too (it answered 200 with the error inside).
    assert (await snapshot_ds.client.get("/diff.json?from=ko-2021-02-15&to=zhs-2025-02-07")).status_code == 400
    assert (await snapshot_ds.client.get("/diff.json?from=en-2026-04-17&to=xx-1")).status_code == 404
    # One version alone: an error, not 200 with no changes (the SQL user's review); none: the
    # form, and as JSON the changes of the pair it offers (they read "nothing changed": another).
    half = await snapshot_ds.client.get("/diff.json?from=en-2025-02-07")
    assert (half.status_code, half.json()["error"]) == (400, "Give both versions to compare: /diff?from=…&to=….")
    newest = (await snapshot_ds.client.get("/diff.json")).json()
    assert (newest["from"], newest["to"], newest["total"]) == ("en-2026-01-16", "en-2026-04-17", 205)
    assert newest["changes"] == (await snapshot_ds.client.get("/diff.json?from=en-2026-01-16&to=en-2026-04-17")).json()["changes"]
    # The page too shows the changes of the pair its title names (a player's review).
    html = await snapshot_ds.client.get("/diff")
    assert html.status_code == 200 and "Showing 1–100 of 205." in html.text


async def test_a_diff_asked_of_a_file_of_one_version_is_the_empty_form(hostile_db, tmp_path) -> None:
    # No pair to offer: 200 and no change, as before the pair was offered (a review of the change:
    # 400 "Give both versions" for what nobody gave).
    import shutil
    import sqlite3

    from datasette.app import Datasette

    one = tmp_path / "one.db"
    shutil.copy(hostile_db, one)
    with sqlite3.connect(one) as conn:
        conn.execute("insert into cr_versions (id, lang, effective_date) values ('en-2026-04-17', 'en', '2026-04-17')")
    datasette = Datasette([str(one)])
    await datasette.invoke_startup()
    page = await datasette.client.get("/diff.json")
    assert (page.status_code, page.json()["error"], page.json()["changes"]) == (200, None, [])


async def test_a_reversible_cards_whole_name_as_scryfall_gives_it_finds_the_card(snapshot_ds) -> None:
    """Scryfall names the reversible Okaun "Okaun, Eye of Chaos // Okaun, Eye of Chaos": pasted into
    the card lookup it was a 404, and the one-box search listed results instead of the card (the
    cards review)."""
    whole = quote("Okaun, Eye of Chaos // Okaun, Eye of Chaos")
    okaun = "/card/7dec219b-96d1-4d4c-b3ac-15eda9d2ccc6"
    response = await snapshot_ds.client.get(f"/card?name={whole}")
    assert (response.status_code, response.headers["location"]) == (302, okaun)
    response = await snapshot_ds.client.get(f"/search?q={whole}")
    assert response.status_code == 302 and response.headers["location"].startswith(okaun)


async def test_a_release_notes_card_shows_its_printed_text_and_no_other_cards(snapshot_ds, snapshot_conn) -> None:
    """The Korean and Chinese release notes print each card's cost, type line and text; none was
    kept (only a card with an English name was read, and then never stored: no id; a release-notes
    review). Kept by their place in the file, each card's page shows its own printing, not the
    document's 170."""
    assert snapshot_conn.execute(
        "select lang, count(*) from printings where id like 'document:%' group by lang order by lang").fetchall() == [
        ("ko", 170), ("zhs", 144)]
    page = (await snapshot_ds.client.get("/card.json?name=" + quote("반역 행위"))).json()
    assert [(p["lang"], p["printed_name"], p["mana_cost"], p["printed_type_line"], p["printed_text"])
            for p in page["printings"]] == [(
        "ko", "반역 행위", "{2}{R}", "집중마법",
        "생물을 목표로 정한다. 턴종료까지 그 생물의 조종권을 얻는다. 그 생물은 언탭되고 턴종료까지 신속을 얻는다."
        " (이 턴에 이 생물은 공격하거나 {T}할 수 있다.)")]
    # A Gatherer printing's page still shows each language's page of the same printing.
    birds = (await snapshot_ds.client.get("/card.json?name=" + quote("Paradiesvögel"))).json()
    assert [p["lang"] for p in birds["printings"]] == ["de", "fr", "ja"]
    # The cost is the card's: a printing keeps it only while no card data does.
    assert snapshot_conn.execute(
        "select count(*) from printings where mana_cost is not null and oracle_id is not null").fetchone()[0] == 0
    assert snapshot_conn.execute(
        "select count(*) from printings where id like 'document:%' and mana_cost is not null").fetchone()[0] == 308
    # What the notes print beside 23 names ("Planeswalker Deck only", a promotional card) was
    # parsed and dropped (the release-notes review).
    assert snapshot_conn.execute("select count(*) from printings where note is not null").fetchone()[0] == 23
    ajani = (await snapshot_ds.client.get("/card.json?name=" + quote("영감을 주는 지도자, 아자니"))).json()
    assert [p["note"] for p in ajani["printings"]] == ["플레인즈워커 덱 전용"]


async def test_a_sighting_is_dated_as_its_page_prints_dates(snapshot_ds) -> None:
    """The German page prints "12.01.2024" (12 January); its sightings read "dated 2024-12-01",
    the date read as English (a page-fidelity review). The rulings themselves were right: a
    sighting shows its ruling's date, and the date as printed beside it."""
    html = (await snapshot_ds.client.get("/card?name=" + quote("Tödliches Komplott"))).text
    assert "(dated 2024-01-12, printed “12.01.2024”)" in html and "2024-12-01" not in html
    # Read as its ruling's date, not re-read in the page's language: Gatherer's French page prints
    # US dates ("9/22/2011"), which a French reading left as printed (or would have swapped).
    html = (await snapshot_ds.client.get("/card?name=" + quote("Ange du vol d'albâtre"))).text
    assert "(dated 2011-09-22, printed “9/22/2011”)" in html


async def test_a_printing_whose_page_names_its_set_without_a_code_shows_the_name(snapshot_ds) -> None:
    # The French page's set row is the name "Innistrad" alone: shown as neither set nor code (a review).
    page = (await snapshot_ds.client.get("/card.json?name=" + quote("Ange du vol d'albâtre"))).json()
    assert [(p["set_code"], p["set_name"], p["collector_number"]) for p in page["printings"]] == [(None, "Innistrad", "2")]
    html = (await snapshot_ds.client.get("/card?name=" + quote("Ange du vol d'albâtre"))).text
    assert '<span class="tag">Innistrad <span class="kb-nowrap">#2</span></span>' in html


def test_a_versions_page_lists_the_notes_of_its_own_files_only(tmp_path: Path) -> None:
    """The chapter posts that joined a version are recorded as they join (``joined_documents``):
    found by source and language instead, a hand-imported copy of the 2003 CR (an unofficial copy,
    no version of its own) put its note on the page of en-2026-04-17, the one version filed under
    "local" (the diff review)."""
    import shutil

    from click.testing import CliRunner

    from kb.cli import cli
    from kb.site.version_page import version_page
    from site_databases import built_snapshot_db

    db_path = tmp_path / "kb.db"
    shutil.copy(built_snapshot_db(), db_path)
    original = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "2003-03-15.txt"
    copy_path = tmp_path / "2003-03-15-lf.txt"
    copy_path.write_bytes(original.read_bytes().replace(b"\r\n", b"\n"))
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(copy_path)])
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    assert conn.execute("select count(*) from quality_issues where kind = 'unofficial-copy'").fetchone()[0] == 1
    notes = version_page(conn, "en-2026-04-17")["reading_notes"]  # type: ignore[index]
    assert notes and not [note for note in notes if note["kind"] == "unofficial-copy" or note["file"]]
    korean = version_page(conn, "ko-2021-02-15")["reading_notes"]  # type: ignore[index]
    assert {note["file"] for note in korean} == {"2021-02-15-100.md"}


async def test_an_id_of_no_possible_shape_is_the_sites_own_404(snapshot_ds) -> None:
    """``/card/not-a-uuid.json`` and ``/version/xx.json`` fell through to Datasette's database
    routes: "Database not found", in another error shape (the SQL user's review)."""
    for path, error in [("/card/not-a-uuid.json", "No card with Oracle id not-a-uuid"),
                        ("/version/xx.json", "No CR version xx")]:
        response = await snapshot_ds.client.get(path)
        assert (response.status_code, response.json()) == (404, {"ok": False, "error": error}), path
    assert "Database not found" not in (await snapshot_ds.client.get("/card/not-a-uuid")).text


async def test_a_page_the_site_does_not_have_is_its_own_404(snapshot_ds, snapshot_db) -> None:
    """``/history`` was Datasette's "Database not found" (a judge's review): the site's own 404,
    with a search for the words of the path; the database's own pages as before."""
    page = await snapshot_ds.client.get("/history/702.19")
    assert page.status_code == 404 and "Database not found" not in page.text
    assert "We have no page /history/702.19." in page.text
    assert '<a href="/search?q=history%20702.19">Search everything for “history 702.19”</a>' in page.text
    as_json = await snapshot_ds.client.get("/history.json")
    assert (as_json.status_code, as_json.json()) == (404, {"ok": False, "error": "We have no page /history.json.", "found": []})
    assert (await snapshot_ds.client.get(f"/{snapshot_db.stem}/rules?_size=1")).status_code == 200
    # Datasette's "~" spelling of other characters, read back (a review of the change).
    other = await snapshot_ds.client.get("/历史/café", follow_redirects=True)
    assert other.status_code == 404 and "We have no page /历史/café." in other.text
    # A "~" that is none of Datasette's escapes is as typed (it read "/a%zz").
    typed = await snapshot_ds.client.get("/a~zz/50~25")
    assert typed.status_code == 404 and "We have no page /a~zz/50%." in typed.text


async def test_every_rule_citing_a_rule_is_listed(snapshot_ds) -> None:
    """601.2f is cited by 52 rules of the newest edition; the page listed 50, with no word of the
    rest (702.188a and 707.12 left out; a judge's review of the rule pages)."""
    page = (await snapshot_ds.client.get("/rule/601.2f.json")).json()
    numbers = [ref["number"] for ref in page["cited_by"]]
    assert len(numbers) == 52 and {"702.188a", "707.12"} <= set(numbers)


async def test_a_merge_target_reworded_since_is_said_so(snapshot_ds) -> None:
    """2015's commander-exile rule 903.12 merged into 903.11, which is 903.9b today and no longer
    speaks of exile (903.9a took it in 2020): "now 903.9b" alone sent a judge to a rule that does
    not cover exile (a judge's review of the rule pages)."""
    html = (await snapshot_ds.client.get("/rule/903.12?version=en-2015-03-27")).text
    assert re.search(r"merged into <a[^>]*>903\.11</a> \(now <a[^>]*>903\.9b</a>, reworded since\)", html)


async def test_a_cards_translated_rulings_not_yet_linked_keep_the_order_their_page_printed(snapshot_ds) -> None:
    """에테르 돌풍's two notes in the real Korean M20 release notes: "목표 주문 또는 지속물의 소유자가…",
    then "주문이 소유자의 서고에 놓이는 경우…". Listed by id, a hash, the second came first (a Japanese
    and Korean judge's review)."""
    page = (await snapshot_ds.client.get("/card.json?name=" + quote("에테르 돌풍"))).json()
    assert [t["text"][:12] for t in page["unlinked_translations"]] == ["목표 주문 또는 지속물", "주문이 소유자의 서고에"]


async def test_a_face_of_a_card_known_only_by_its_page_leads_to_the_whole_card(snapshot_ds) -> None:
    """Gatherer's page of Afflicted Deserter // Werewolf Ransacker (real, not linked to card data in
    the snapshot) prints the whole name and each face's; its four rulings are filed under the whole
    name, and a face's page said "Rulings 0" (a European judges' review)."""
    whole = "Afflicted Deserter // Werewolf Ransacker"
    for face in ("Werewolf Ransacker", "afflicted deserter"):
        response = await snapshot_ds.client.get("/card?name=" + quote(face))
        assert response.headers["location"] == "/card?name=" + quote(whole) + "&q=" + quote(face), face
    page = (await snapshot_ds.client.get("/card.json?name=" + quote(whole))).json()
    assert len(page["rulings"]) == 4


async def test_a_name_two_languages_print_with_other_accents_shows_the_typed_one_first(snapshot_ds) -> None:
    """UGIN's Portuguese "Emissário Sultai" and Italian "Emissario Sultai" (MTGJSON): typed with its
    accent, the Portuguese printing came second (a European judges' review)."""
    import re

    for typed, order in (("Emissário Sultai", ["pt", "it"]), ("Emissario Sultai", ["it", "pt"])):
        html = (await snapshot_ds.client.get(f"/card/{SULTAI_EMISSARY}?q=" + quote(typed))).text
        assert re.findall(r'<section class="kb-read-in" id="read-in-(\w+)"', html) == order, typed


async def test_a_german_name_with_its_umlauts_typed_as_two_letters_finds_the_card_in_german(snapshot_ds) -> None:
    """/card?name=waechter des spaehnests answered 404 where the search box found Wächter des
    Spähnests (a European judges' review); its page now shows the German printing too."""
    watcher = "92cf18ab-dd7b-4bc8-8b85-a81b8cb5192c"
    response = await snapshot_ds.client.get("/card?name=" + quote("waechter des spaehnests"))
    assert response.headers["location"] == f"/card/{watcher}?q=" + quote("waechter des spaehnests")
    html = (await snapshot_ds.client.get(response.headers["location"])).text
    assert 'In German: <span lang="de">Wächter des Spähnests</span>' in html
    response = await snapshot_ds.client.get("/card?name=" + quote("paradiesvoegel"))
    assert response.headers["location"].startswith("/card?name=" + quote("Paradiesvögel"))


async def test_rulings_by_any_name_holds_the_translated_rulings_too(snapshot_ds, snapshot_db) -> None:
    """A Korean or Chinese name of a card only release notes name found nothing, though the card
    page shows its official translation (a foreign judges' review)."""
    name = snapshot_db.stem
    korean = (await snapshot_ds.client.get(
        f"/{name}/rulings_by_any_name.json?_shape=array&name=" + quote("고블린 밀수꾼"))).json()
    assert [(row["card"], row["lang"], row["source"], row["linked"]) for row in korean] == [
        ("고블린 밀수꾼", "ko", "official", 0)]
    assert korean[0]["text"].startswith("활성화 능력이 해결되려는 시점에")
    chinese = (await snapshot_ds.client.get(
        f"/{name}/rulings_by_any_name.json?_shape=array&name=" + quote("灵魂牧者"))).json()
    assert len(chinese) == 4 and {row["lang"] for row in chinese} == {"zhs"}
    # English rulings first, their columns as before.
    german = (await snapshot_ds.client.get(
        f"/{name}/rulings_by_any_name.json?_shape=array&name=" + quote("Tödliches Komplott"))).json()
    assert len(german) == 11 and {row["lang"] for row in german} == {"en"}


async def test_a_traditional_chinese_glossary_term_leads_to_the_simplified_entry(snapshot_ds) -> None:
    """"/glossary/飛行?lang=zht" and "/glossary/飛行" answered 404 though 飞行 is held (the Chinese CR
    is Simplified; a foreign judges' review)."""
    simplified = "/glossary/" + quote("飞行", safe="") + "?lang=zhs"
    for asked in ("?lang=zht", "?lang=zh-TW", ""):
        response = await snapshot_ds.client.get("/glossary/" + quote("飛行", safe="") + asked)
        assert (response.status_code, response.headers["location"]) == (302, simplified)
    # A term of no glossary in either script stays a page not found.
    assert (await snapshot_ds.client.get("/glossary/" + quote("飛行機", safe="") + "?lang=zht")).status_code == 404
    # The Simplified term asked for in Traditional: "No glossary term 践踏 … Did you mean 践踏" (a
    # second such review).
    response = await snapshot_ds.client.get("/glossary/" + quote("践踏", safe="") + "?lang=zht")
    assert (response.status_code, response.headers["location"]) == (302, "/glossary/" + quote("践踏", safe="") + "?lang=zhs")


async def test_a_keyword_as_another_language_prints_it_leads_to_the_english_entry(snapshot_ds) -> None:
    """"/glossary/トランプル" and "/glossary/돌진?lang=ko" answered 404 with a search link, though the
    keyword dictionary names them Trample (a review in the judges' languages): the English entry,
    in the language the word is of, which says what its cards and translated rules call it."""
    for asked, where in (("トランプル", "/glossary/Trample?lang=ja"), ("돌진?lang=ko", "/glossary/Trample?lang=ko"),
                         ("Fliegend?lang=de", "/glossary/Flying?lang=de"), ("piétinement", "/glossary/Trample?lang=fr")):
        term, _, query = asked.partition("?")
        response = await snapshot_ds.client.get("/glossary/" + quote(term, safe="") + ("?" + query if query else ""))
        assert (response.status_code, response.headers["location"]) == (302, where)
    korean = (await snapshot_ds.client.get("/glossary/Trample?lang=ko")).text
    assert "We hold no glossary in Korean: this is the English entry. The Korean rules call it “" in korean
    assert "돌진</span>” (<a class=\"rule-ref\" href=\"/rule/122.1b?version=ko-2021-02-15\">122.1b</a>)." in korean
    # A word no keyword is stays a page not found.
    assert (await snapshot_ds.client.get("/glossary/Nothing")).status_code == 404


async def test_a_card_asked_for_in_a_language_it_is_not_held_in_says_so(snapshot_ds) -> None:
    """"?lang=ko" on Cloudfin Raptor (printed in six languages, not Korean) looked exactly like the
    English page (a foreign judges' review)."""
    raptor = "/card/cb0e1afa-fd9e-4bf9-bcb1-6e8110d6e2ff"
    korean = (await snapshot_ds.client.get(raptor + "?lang=ko")).text
    assert "We hold no Korean name or printing of this card" in korean
    for held_or_unknown in ("?lang=de", "?lang=en", "?lang=xx", ""):
        assert "We hold no" not in (await snapshot_ds.client.get(raptor + held_or_unknown)).text
    # A country's code for its language ("kr", "jp", "cn") was ignored without a word (a foreign
    # players' review).
    assert "We hold no Korean name or printing of this card" in (await snapshot_ds.client.get(raptor + "?lang=kr")).text
    assert "We hold no Simplified Chinese" in (await snapshot_ds.client.get(raptor + "?lang=cn")).text


async def test_a_chinese_card_name_in_the_other_script_leads_to_the_card(snapshot_ds) -> None:
    """寒冬殺機 is the release notes' 寒冬杀机 in Traditional characters: the search found it, /card?name=
    answered 404 (a foreign players' review)."""
    simplified = quote("寒冬杀机")
    for path in ("/card?name=", "/card.json?name="):
        response = await snapshot_ds.client.get(path + quote("寒冬殺機"))
        assert response.status_code == 302
        assert response.headers["location"].startswith(path + simplified)
    assert (await snapshot_ds.client.get("/card?name=" + quote("寒冬殺機機"))).status_code == 404
    # And the page it lands on says so (it did not: a judge's review).
    landed = (await snapshot_ds.client.get("/card?name=" + quote("寒冬殺機"), follow_redirects=True)).text
    assert "“<span lang=\"zh\">寒冬殺機</span>” is read as “<span lang=\"zh\">寒冬杀机</span>”" in landed
    assert "is read as" not in (await snapshot_ds.client.get("/card?name=" + quote("寒冬杀机"))).text
    # A card of Oracle id: its section in the script it was read in, under the note (a code review).
    emissary = (await snapshot_ds.client.get("/card?name=" + quote("蘇勒臺密使"), follow_redirects=True)).text
    assert "is read as" in emissary and '<h2 id="read-in-title-zhs">In Simplified Chinese' in emissary


async def test_a_card_read_in_a_language_offers_a_jump_to_it(snapshot_ds) -> None:
    """A Japanese search opened the card with its Japanese text a screen below the English one,
    and the page's jump links did not name it (a judge's review)."""
    jace = "/card/594f6881-c059-46f8-aa4e-7151d502de73"
    assert '<a href="#read-in">In Japanese</a> · <a href="#rulings">Rulings</a>' in (
        await snapshot_ds.client.get(jace + "?lang=ja")).text
    assert 'href="#read-in"' not in (await snapshot_ds.client.get(jace)).text
    # One place of that name where a language asked for is not held and another is read.
    raptor = "/card/cb0e1afa-fd9e-4bf9-bcb1-6e8110d6e2ff?lang=ko&q=" + quote("雲ヒレの猛禽")
    assert (await snapshot_ds.client.get(raptor)).text.count('id="read-in"') == 1


async def test_the_links_numbers_link_the_rule_in_their_own_version(snapshot_ds, snapshot_db) -> None:
    # Manifest's links of 2014 are 701.31 of 2015-01-23 (Manifest is 701.40 today).
    name = snapshot_db.stem
    cell = '<td class="col-rule_number type-str"><a href="/rule/701.31?version=en-2015-01-23">701.31</a></td>'
    for table in ("ruling_rules", "ruling_rule_targets"):
        html = (await snapshot_ds.client.get(f"/{name}/{table}?rule_number=701.31&version_id=en-2015-01-23")).text
        assert cell in html, table


async def test_the_links_view_links_its_ids_as_the_table_did(snapshot_ds, snapshot_db) -> None:
    # A view has no foreign keys: its ruling, rules and versions were bare numbers (an SQL
    # user's review), and the links table showed its targets by their ids alone.
    name = snapshot_db.stem
    html = (await snapshot_ds.client.get(f"/{name}/ruling_rules?rule_number=701.31&version_id=en-2015-01-23")).text
    row = sqlite3.connect(snapshot_db).execute(
        "select ruling_id, rule_id, current_rule_id from ruling_rules where rule_number = '701.31'"
        " and version_id = 'en-2015-01-23' limit 1").fetchone()
    for table, key in (("rulings", row[0]), ("rules", row[1]), ("rules", row[2]), ("cr_versions", "en-2015-01-23")):
        assert f'<a href="/{name}/{table}/{key}">{key}</a>' in html, (table, key)
    links = (await snapshot_ds.client.get(f"/{name}/ruling_rule_links?ruling_id={row[0]}")).text
    assert "701.31</a>" in links


async def test_a_cited_rules_notes_are_sentences_on_a_line_per_version(snapshot_ds) -> None:
    # "…whether it was 701.11 on the ruling's date is not knownreworded since: …", and two
    # versions' notes side by side (a judge's review).
    html = (await snapshot_ds.client.get("/card?name=Werewolf%20Ransacker", follow_redirects=True)).text
    cited = html[html.index('id="cited-rules"'):]
    assert "is not knownreworded" not in cited and "is not known.</span>" in cited
    assert cited.count('<span class="kb-then-item">') >= 2
