"""A card and a question about it in the one-box search (kb.site.search_card_topic)."""
from __future__ import annotations

import sqlite3

import pytest

from kb.site.search import search
from kb.site.search_card_topic import CardTopic, card_and_topic, card_rulings_about, one_card_named
from site_databases import JACE


def okaun_url(conn: sqlite3.Connection) -> str:
    oracle_id = conn.execute("select oracle_id from cards where name like 'Okaun, Eye of Chaos%'").fetchone()[0]
    return f"/card/{oracle_id}"


@pytest.mark.parametrize(
    ("query", "typed", "topic"),
    [("Okaun coin flip", "Okaun", "coin flip"), ("Jace transform", "Jace", "transform"),
     ("Jace, Vryn's Prodigy transform", "Jace, Vryn's Prodigy", "transform"),
     ("what does Zndrsplt do", "Zndrsplt", "what does do"),
     ("coin flip with okaun, eye of chaos", "okaun, eye of chaos", "coin flip with")],
)
def test_a_run_of_words_naming_one_card(snapshot_conn: sqlite3.Connection, query: str, typed: str, topic: str) -> None:
    card = card_and_topic(snapshot_conn, query)
    assert card is not None and (card.typed, card.topic) == (typed, topic)


def test_what_names_no_card_or_several(snapshot_conn: sqlite3.Connection) -> None:
    assert card_and_topic(snapshot_conn, "coin flip") is None
    assert card_and_topic(snapshot_conn, "Okaun") is None  # the whole query: a name search
    assert one_card_named(snapshot_conn, "Eye") is None
    # "Okaun" and "Zndrsplt" are short names; "Eye of" names nothing; a comma typed asks for a whole name.
    assert one_card_named(snapshot_conn, "okaun")["oracle_id"] == one_card_named(snapshot_conn, "Okaun, Eye of Chaos")["oracle_id"]
    assert one_card_named(snapshot_conn, "Okaun,") is None


def test_the_cards_rulings_about_the_rest_come_first(snapshot_conn: sqlite3.Connection) -> None:
    found = search(snapshot_conn, "Okaun coin flip")
    url = okaun_url(snapshot_conn)
    assert (found.best.url, found.best.title, found.relaxed_from) == (url, "Okaun, Eye of Chaos", "Okaun coin flip")
    assert found.card == {"oracle_id": url.removeprefix("/card/"), "name": "Okaun, Eye of Chaos", "url": url,
                          "typed": "Okaun", "about": "coin flip"}
    card_rulings = found.groups["card_rulings"]
    assert card_rulings and all(hit.url.startswith(url + "#ruling-") for hit in card_rulings)
    for hit in card_rulings:
        assert "coin" in hit.snippet.lower() and "flip" in hit.snippet.lower()
    # Every ruling of the card holding both words, and no other.
    both = [row[0] for row in snapshot_conn.execute(
        "select id from rulings where oracle_id = ? and text like '%coin%' and text like '%flip%'", (url.removeprefix("/card/"),))]
    assert sorted(int(hit.url.rsplit("-", 1)[1]) for hit in card_rulings) == sorted(both)
    # The rest of the page: what holds the other words.
    assert "705 Flipping a Coin" in [hit.title for hit in found.groups["rules"]]
    assert found.query == "coin flip" and found.left_out == []


def test_a_question_about_a_card_with_no_other_word_lists_its_rulings(snapshot_conn: sqlite3.Connection) -> None:
    found = search(snapshot_conn, "what does Zndrsplt do")
    assert found.best.title == "Zndrsplt, Eye of Wisdom"
    assert found.groups["card_rulings"] and not found.groups["rules"]
    total = snapshot_conn.execute(
        "select count(*) from rulings join cards using (oracle_id) where cards.name like 'Zndrsplt, Eye of Wisdom%'").fetchone()[0]
    assert len(found.groups["card_rulings"]) == min(total, 25)


def test_a_query_found_as_typed_names_no_card(snapshot_conn: sqlite3.Connection) -> None:
    """"sacrifice a creature" is found as typed: no card is looked for in it."""
    assert search(snapshot_conn, "sacrifice a creature").card is None
    assert search(snapshot_conn, "Jace, Vryn's Prodigy").best.url == f"/card/{JACE}"


async def test_the_page_names_the_card_and_lists_its_rulings_first(snapshot_ds) -> None:
    page = (await snapshot_ds.client.get("/search", params={"q": "Okaun coin flip"})).text
    assert "Results for “Okaun coin flip”" in page
    assert "names <a href=\"/card/" in page and ">Okaun, Eye of Chaos</a>: its rulings that hold “coin flip” come first" in page
    assert page.index("Rulings of Okaun, Eye of Chaos") < page.index('id="group-rules"')
    data = (await snapshot_ds.client.get("/search.json", params={"q": "Okaun coin flip"})).json()
    assert data["card"]["typed"] == "Okaun" and data["groups"][1]["kind"] == "card_rulings"
    assert data["groups"][1]["title"] == "Rulings of the card"


def test_words_nothing_holds_leave_the_cards_newest_rulings(snapshot_conn: sqlite3.Connection) -> None:
    found = search(snapshot_conn, "Jace rulings 2015")
    assert (found.best.url, found.card["typed"], found.card["about"]) == (f"/card/{JACE}", "Jace", "")
    assert (found.query, found.left_out) == ("", ["rulings", "2015"])
    newest = [row[0] for row in snapshot_conn.execute(
        "select id from rulings where oracle_id = ? order by published_at desc, position limit 25", (JACE,))]
    assert [int(hit.url.rsplit("-", 1)[1]) for hit in found.groups["card_rulings"]] == newest


def test_the_cards_rulings_are_listed_once(snapshot_conn: sqlite3.Connection) -> None:
    found = search(snapshot_conn, "Okaun coin flip")
    card_urls = {hit.url for hit in found.groups["card_rulings"]}
    others = [hit.url for hit in found.groups["rulings"]]
    assert others and not card_urls & set(others)
    assert found.counts["rulings"] == len(others)


async def test_the_more_links_page_the_topic(snapshot_ds) -> None:
    """"More rules" of "Jace transform" pages the rules of "transform", the words they hold."""
    page = (await snapshot_ds.client.get("/search", params={"q": "Jace transform"})).text
    assert 'name="q" value="Jace transform"' in page
    assert '<a href="/search?q=transform&amp;kind=rules&amp;offset=10">More rules →</a>' in page


def test_a_misspelt_word_of_the_topic_is_read_as_the_rules_word(snapshot_conn: sqlite3.Connection) -> None:
    found = search(snapshot_conn, "Okaun coinn flip")
    assert (found.query, found.read_as, found.left_out, found.card["about"]) == (
        "coin flip", {"coinn": "coin"}, [], "coin flip")


def test_the_words_left_out_or_read_are_named_as_typed(snapshot_conn: sqlite3.Connection) -> None:
    assert search(snapshot_conn, "Jace Rulings 2015").left_out == ["Rulings", "2015"]
    assert search(snapshot_conn, "Okaun Coinn flip").read_as == {"Coinn": "coin"}


def test_a_card_known_only_by_a_printed_name(snapshot_conn: sqlite3.Connection) -> None:
    """The German page's "Tödliches Komplott" names no Oracle card: its rulings keep the name."""
    found = search(snapshot_conn, "how does Tödliches Komplott connive")
    url = "/card?name=T%C3%B6dliches%20Komplott"
    assert found.card == {"oracle_id": None, "name": "Tödliches Komplott", "url": url, "typed": "Tödliches Komplott",
                          "about": "connive"}
    assert found.best.url == url
    held = {row[0] for row in snapshot_conn.execute(
        "select id from rulings where card_name = 'Tödliches Komplott' and oracle_id is null and text like '%connive%'")}
    assert held and {int(hit.url.rsplit("-", 1)[1]) for hit in found.groups["card_rulings"]} == held


@pytest.mark.parametrize("typed", ["Paradiesvögel", "paradiesvogel"])
def test_a_card_known_only_by_a_name_a_page_printed(snapshot_conn: sqlite3.Connection, typed: str) -> None:
    """"Paradiesvögel" (Birds of Paradise) is printed by the snapshot's German Gatherer page, with
    no ruling and no Oracle card: named in a question, it is the card asked about, as printed."""
    assert snapshot_conn.execute(
        "select count(*) from card_name_records where name = 'Paradiesvögel' and oracle_id is null").fetchone()[0]
    found = search(snapshot_conn, f"{typed} mana")
    url = "/card?name=Paradiesv%C3%B6gel"
    assert (found.card["name"], found.card["url"], found.card["typed"], found.best.url) == ("Paradiesvögel", url, typed, url)
    assert found.query == "mana" and found.suggestions == []


@pytest.mark.parametrize("question", ["was macht Die Monster erschlagen", "Die Monster erschlagen Drache"])
def test_a_name_that_starts_with_a_question_word(snapshot_conn: sqlite3.Connection, question: str) -> None:
    """"Die Monster erschlagen" is Smite the Monstrous in German: "die" is a German question word,
    and still the first word of a whole name."""
    found = search(snapshot_conn, question)
    assert (found.card["name"], found.card["typed"]) == ("Smite the Monstrous", "Die Monster erschlagen")


UGIN = "eecb3047-a563-441a-9175-200421981ac3"


@pytest.mark.parametrize(
    ("question", "typed", "searched", "left_out", "lang"),
    [
        # Ugin, the Spirit Dragon by its Chinese, Korean (spaced) and Japanese names: its page in
        # that language, as the name alone opens it (it opened the English view: a review).
        ("灵龙乌金怎么运作", "灵龙乌金", "", ["怎么运作"], "?lang=zhs"),
        ("신령 용 우진 능력", "신령 용 우진", "능력", [], "?lang=ko"),
        ("精霊龍、ウギンの能力は", "精霊龍、ウギン", "", ["の能力は"], "?lang=ja"),
        # A legendary card's short name in Latin letters, never a piece of a word ("gin" of "Ugin").
        ("Ugin 的异能", "Ugin", "异能", [], ""),
    ],
)
def test_a_cjk_question_about_a_card_names_the_card(
    snapshot_conn: sqlite3.Connection, question: str, typed: str, searched: str, left_out: list[str], lang: str
) -> None:
    """A CJK question naming a card by its printed name: the card and its rulings, and the
    results for the piece of the rest something holds ("능력", ability: 113 Abilities)."""
    found = search(snapshot_conn, question)
    assert (found.card["oracle_id"], found.card["typed"], found.best.url) == (UGIN, typed, f"/card/{UGIN}{lang}")
    assert (found.query, found.left_out, found.relaxed_from) == (searched, left_out, question)
    rulings = {row[0] for row in snapshot_conn.execute("select id from rulings where oracle_id = ?", (UGIN,))}
    assert {int(hit.url.rsplit("-", 1)[1]) for hit in found.groups["card_rulings"]} == rulings
    if searched:
        assert found.groups["rules"][0].title == "113 Abilities"


def test_a_cjk_question_about_a_card_known_by_a_printed_name(snapshot_conn: sqlite3.Connection) -> None:
    """灵魂牧者 is the Chinese name a release-notes page printed for a card not linked yet."""
    found = search(snapshot_conn, "灵魂牧者的异能")
    url = "/card?name=%E7%81%B5%E9%AD%82%E7%89%A7%E8%80%85"
    assert (found.card["oracle_id"], found.card["name"], found.best.url) == (None, "灵魂牧者", url)
    assert (found.query, found.left_out, found.groups["rules"][0].title) == ("异能", [], "113 Abilities")


def test_a_traditional_question_about_a_card_known_by_its_simplified_name(snapshot_conn: sqlite3.Connection) -> None:
    """铸物勋爵克撒 (Urza, Lord High Artificer) is printed in the Simplified release notes only.
    Asked about in Traditional, its name was cut in two: "爵克撒" searched, "鑄物勳" left out (a
    review in the judges' languages). It is the card, and the rest as typed is what was left out."""
    found = search(snapshot_conn, "鑄物勳爵克撒怎麼運作")
    assert (found.card["name"], found.best.title, found.left_out) == ("铸物勋爵克撒", "铸物勋爵克撒", ["怎麼運作"])


@pytest.mark.parametrize("query", ["Okaun coin flip", "Jace Vryns Prodgy", "xyzzy plugh", "what happens if my commander dies",
                                   "Omnibian xyzzy", "trample", "トランプルはどうなる", "没有这种东西",
                                   "灵龙乌金怎么运作"])
def test_no_answer_keeps_a_pending_did_you_mean(snapshot_conn: sqlite3.Connection, query: str) -> None:
    """Answers are kept in the page cache: none may hold the deferred suggestions (they hold a
    connection)."""
    assert search(snapshot_conn, query).later_suggestions is None


@pytest.mark.parametrize(("question", "url"), [
    ("gesandter der sultai sterben", "/card/0274f286-46a1-4028-878a-88c2146a895c?lang=de"),  # case aside
    # English, or several languages, print the name typed: the page stays as it is (a review of
    # the change: "what does Phelddagrif do" was told Spanish, "Constructo de Ugin regras" opened
    # the Spanish page for a Portuguese question).
    ("what does Phelddagrif do", "/card/d0e99535-0ea0-4aa5-99f5-6c5255b27c38"),
    ("Constructo de Ugin regras", "/card/6b87a933-b0d2-4120-b4a0-65ab0f3dbe48"),
    ("眺巢看守怎么运作", "/card/92cf18ab-dd7b-4bc8-8b85-a81b8cb5192c"),
])
def test_a_card_named_in_a_question_opens_its_page_in_the_one_language_that_names_it_so(
    snapshot_conn: sqlite3.Connection, question: str, url: str
) -> None:
    found = search(snapshot_conn, question)
    assert found.best is not None and found.best.url == url
    assert found.best.lang == (url.rsplit("=", 1)[1] if "?lang=" in url else "en")


def test_a_number_of_the_topic_is_also_the_word_rulings_write(snapshot_conn: sqlite3.Connection) -> None:
    # "5 cards" missed "five or more cards in your graveyard", the ruling a judge asked about (a
    # player's review); the rules' search reads numbers so already.
    jace = CardTopic("594f6881-c059-46f8-aa4e-7151d502de73", "Jace, Vryn's Prodigy // Jace, Telepath Unbound", "Jace", "")
    digits, about = card_rulings_about(snapshot_conn, jace, ["5", "cards", "graveyard", "discard"])
    words, _ = card_rulings_about(snapshot_conn, jace, ["five", "cards", "graveyard", "discard"])
    assert about == "5 cards graveyard discard" and [hit.url for hit in digits] == [hit.url for hit in words]
    assert any("checks to see if there are five or more" in hit.snippet for hit in digits)


def test_a_card_named_only_by_its_rulings_names_them_in_the_search(snapshot_conn: sqlite3.Connection) -> None:
    # Deathrite Shaman: its page is named from its rulings, and the search called them "card not
    # identified" (a player's review).
    for query in ("Deathrite Shaman", "mana ability deathrite"):
        rulings = search(snapshot_conn, query).groups["rulings"]
        assert rulings and {hit.title for hit in rulings} == {"Deathrite Shaman"}, query
