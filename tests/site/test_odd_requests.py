"""Requests a page answers with a false statement unless it reads them right (a review's fuzz of
every route, 2026-12-06): a rule page said "No rule 702.19" of a rule it holds when asked to
follow it from a version of no name, a glossary page "No glossary term “Flying”" when only the
language was unknown; a changes page showed "0–1000 of 205", and a diff of a version with itself
answered its JSON as "nothing changed". On the bundled snapshot."""
from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path

import pytest
import sqlite_utils

NEWEST = "en-2026-04-17"


async def test_following_a_rule_from_a_version_we_do_not_hold_says_so(snapshot_ds) -> None:
    for path in ("/rule/702.19?from=garbage", f"/rule/702.19?version={NEWEST}&from=garbage"):
        response = await snapshot_ds.client.get(path)
        assert response.status_code == 404
        assert "No CR version “garbage” to follow rule 702.19 from" in unescape(response.text), path
        assert "No rule 702.19" not in unescape(response.text), path
    data = (await snapshot_ds.client.get("/rule/702.19.json?from=garbage")).json()
    assert data["error"] == "No CR version “garbage” to follow rule 702.19 from"


async def test_a_rule_with_no_successor_is_not_said_to_be_missing_from_the_version(snapshot_ds) -> None:
    # 2025's 603.2e has no successor in 2026-04-17, which has a 603.2e of its own (another rule).
    assert (await snapshot_ds.client.get(f"/rule/603.2e?version={NEWEST}")).status_code == 200
    response = await snapshot_ds.client.get(f"/rule/603.2e?version={NEWEST}&from=en-2025-02-07")
    assert response.status_code == 404
    text = unescape(response.text)
    assert ("Rule 603.2e of the Comprehensive Rules of 2025-02-07 has no successor in the Comprehensive Rules"
            " of 2026-04-17") in text
    assert 'href="/rule/603.2e?version=en-2025-02-07"' in response.text
    # A number the version followed from does not hold.
    response = await snapshot_ds.client.get(f"/rule/702.999?version={NEWEST}&from=en-2025-02-07")
    assert "No rule 702.999 in the Comprehensive Rules of 2025-02-07" in unescape(response.text)


async def test_following_a_rule_into_a_version_we_do_not_hold_or_a_translation_says_so(snapshot_ds) -> None:
    # Said before: "has no successor in the bogus rules", and of a Chinese translation that holds
    # 603.2e, that it was removed (a code review).
    bogus = unescape((await snapshot_ds.client.get("/rule/603.2e?version=bogus&from=en-2025-02-07")).text)
    assert "No CR version “bogus” to follow rule 603.2e to" in bogus and "successor" not in bogus
    response = await snapshot_ds.client.get("/rule/603.2e?version=zhs-2025-02-07&from=en-2025-02-07")
    assert response.status_code == 404
    text = unescape(response.text)
    assert ("Rule 603.2e of the Comprehensive Rules of 2025-02-07 cannot be followed into the Simplified Chinese"
            " translation of 2025-02-07") in text and "removed" not in text
    assert 'href="/rule/603.2e?version=en-2025-02-07"' in response.text


async def test_a_language_as_version_is_read_in_any_case(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/rule/702.19?version=EN")
    assert response.status_code == 302
    assert response.headers["location"] == f"/rule/702.19?version={NEWEST}"


async def test_a_glossary_term_asked_for_in_no_language_says_the_language_is_unknown(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/glossary/Flying?lang=xx")
    assert response.status_code == 404
    assert "No glossary in “xx”: we hold glossaries in English (en), Simplified Chinese (zhs)." in unescape(response.text)
    assert "No glossary term" not in unescape(response.text)
    assert (await snapshot_ds.client.get("/glossary/Flying?lang=")).status_code == 200
    assert (await snapshot_ds.client.get("/glossary?lang=ZHS")).status_code == 200


async def test_a_changes_page_past_its_end_shows_its_last_page_and_an_unknown_kind_filters_nothing(snapshot_ds) -> None:
    html = (await snapshot_ds.client.get(f"/version/{NEWEST}?offset=1000")).text
    assert "Showing 201–205 of 205." in html
    bogus = (await snapshot_ds.client.get(f"/version/{NEWEST}?kind=bogus")).text
    assert "bogus" not in bogus
    assert "Showing 1–100 of 205." in bogus
    # Nor on the diff page ("Showing 1–0 of 0" beside a diff of 205: a review).
    diff = (await snapshot_ds.client.get(f"/diff.json?from=en-2026-01-16&to={NEWEST}&kind=bogus")).json()
    assert (diff["kind"], diff["total"], len(diff["changes"])) == (None, 205, 100)


async def test_a_search_for_a_group_of_no_name_is_refused_in_html_and_json(snapshot_ds) -> None:
    # It showed every group (an SQL and API user's review): a client paging "rulngs" never ended.
    data = await snapshot_ds.client.get("/search.json?q=the&kind=rulngs")
    assert data.status_code == 400
    assert data.json() == {"ok": False, "error": "No group of results is called “rulngs”: kind is one of cards,"
                           " card_rulings, keywords, rules, glossary, rulings, translations."}
    html = await snapshot_ds.client.get("/search?q=the&kind=rulngs")
    assert html.status_code == 400 and "<h1>Bad request</h1>" in html.text and "“rulngs”" in html.text
    assert (await snapshot_ds.client.get("/search.json?q=the&kind=rulings")).status_code == 200
    assert (await snapshot_ds.client.get("/search.json?q=the&kind=")).status_code == 200


async def test_a_diff_of_a_version_with_itself_is_refused_in_html_and_json(snapshot_ds) -> None:
    html = await snapshot_ds.client.get(f"/diff?from={NEWEST}&to={NEWEST}")
    assert html.status_code == 400 and "Choose two different versions to compare." in html.text
    data = await snapshot_ds.client.get(f"/diff.json?from={NEWEST}&to={NEWEST}")
    assert data.status_code == 400
    assert data.json()["error"] == "Choose two different versions to compare."


async def test_the_contents_of_a_version_of_rules_without_their_sections_lists_them(snapshot_ds) -> None:
    # The Spanish rules pages (real captures) hold 702.78 and its subrules, not section 702.
    html = (await snapshot_ds.client.get("/contents?version=es-pages-cr-page")).text
    assert "Rules held without their section" in html
    assert 'href="/rule/702.78?version=es-pages-cr-page"' in html
    english = (await snapshot_ds.client.get("/contents")).text
    assert "Rules held without their section" not in english


async def test_the_site_answers_reads_only(snapshot_ds) -> None:
    # POST, PUT and DELETE answered 200 with the page, as if done (a review's fuzz), and on
    # Datasette's table pages a 500 with a traceback in the log (a docs review).
    database = snapshot_ds.get_database().name
    for method in ("post", "put", "delete"):
        for path in ("/search?q=flying", "/rule/702.19", "/card?name=Phelddagrif", "/diff", "/changes.atom",
                     f"/{database}/rulings.json", f"/{database}", "/-/versions.json"):
            response = await getattr(snapshot_ds.client, method)(path)
            assert response.status_code == 405, (method, path)
            assert response.headers["allow"] == "GET, HEAD, OPTIONS"
            assert "default-src 'self'" in response.headers["content-security-policy"]
    assert (await snapshot_ds.client.get("/rule/702.19")).status_code == 200
    assert (await snapshot_ds.client.head("/rule/702.19")).status_code == 200


async def test_the_feeds_id_names_no_host(snapshot_ds) -> None:
    import xml.etree.ElementTree as ElementTree

    atom = "{http://www.w3.org/2005/Atom}"
    ids = set()
    for host in ("localhost", 'evil.example"><x'):
        feed = ElementTree.fromstring((await snapshot_ds.client.get("/changes.atom", headers={"host": host})).text)
        ids.add(feed.find(f"{atom}id").text)
    assert ids == {"tag:mtg-rules-kb,2026:changes"}


async def test_the_feeds_links_lead_to_the_public_url_the_operator_gives(snapshot_db) -> None:
    # Read from the Host header, every link of a feed a shared cache kept could lead elsewhere.
    import xml.etree.ElementTree as ElementTree

    from datasette.app import Datasette

    from kb.site.serve import SETTINGS

    ds = Datasette(immutables=[str(snapshot_db)], settings=dict(SETTINGS),
                   metadata={"plugins": {"mtgkb": {"public_url": "https://rules.example/kb/"}}})
    feed = ElementTree.fromstring((await ds.client.get("/changes.atom", headers={"host": "evil.example"})).text)
    links = [link.get("href") for link in feed.iter("{http://www.w3.org/2005/Atom}link")]
    assert links and all(href.startswith("https://rules.example/kb/") for href in links), links[:3]
    # Anything but such an address stops the start, naming the setting (a number, an address with
    # no scheme or a script's went into every link: an upgrade's review).
    from kb.site.feed import public_url

    for bad in (123, "rules.example/kb/", "javascript:alert(1)", "https://rules.example/?a=1", "", ["a"],
                "https://rules.example/\n", " https://rules.example/", "https://rules.example/?", "https://rules.example/#"):
        with pytest.raises(ValueError, match="plugins.mtgkb.public_url must be an http"):
            public_url({"public_url": bad})
    assert public_url({}) is None and public_url({"public_url": "http://127.0.0.1:8001/"}) == "http://127.0.0.1:8001"
    refused = Datasette(immutables=[str(snapshot_db)], settings=dict(SETTINGS),
                        metadata={"plugins": {"mtgkb": {"public_url": "rules.example"}}})
    with pytest.raises(ValueError, match="public_url"):
        await refused.invoke_startup()


async def test_a_card_known_only_by_its_pages_says_whether_they_list_its_rulings(snapshot_ds) -> None:
    # Birds of Paradise, known by three Gatherer pages (German, French, Japanese) that list no
    # ruling, and the Korean 반역 행위, two of whose rulings are translations not yet matched:
    # each showed a bare "Rulings 0" (a player's review).
    from urllib.parse import quote

    birds = (await snapshot_ds.client.get("/card?name=" + quote("Paradiesvögel"), follow_redirects=True)).text
    note = birds.split('id="no-rulings">', 1)[1].split("</p>", 1)[0]
    # Each page said by its language: three shortened links looked alike (a player's second review).
    assert note.startswith("None: gatherer's German page <a href=\"https://gatherer.wizards.com/Pages/Card/Details.aspx?")
    assert note.endswith("lists none.")
    korean = unescape((await snapshot_ds.client.get("/card?name=" + quote("반역 행위"), follow_redirects=True)).text)
    note = korean.split('id="no-rulings">', 1)[1].split("</p>", 1)[0]
    # Not "no document we hold is known to list its rulings" above two rulings a document listed.
    assert note == ("No English rulings are held for this card: the translated rulings below, from the documents"
                    " that printed them, are not yet matched to an English ruling.")


def altered_copy(source: Path, path: Path, *statements: str) -> Path:
    """A copy of ``source`` at ``path`` with ``statements`` run on it: a file as an older
    version, or a fault, left it."""
    shutil.copy(source, path)
    db = sqlite_utils.Database(path)
    for statement in statements:
        db.execute(statement)
    db.conn.commit()
    db.close()
    return path


async def test_a_file_made_before_sets_and_printing_days_still_serves_card_pages(snapshot_db, tmp_path) -> None:
    """Served by this version, a file made before the sets table and printings' days (m029,
    m030) answered 500 on every card page (an upgrade's review): its pages show no set names."""
    from site_databases import JACE, make_datasette

    db_path = altered_copy(snapshot_db, tmp_path / "older.db",
                           "drop table sets", "alter table printings drop column released_at",
                           # Nor a documents' day a file says it was made (m034), nor a set named
                           # by its printing (m035): a 500 on 65 of 66 card pages (a code review).
                           "alter table documents drop column made_on", "alter table printings drop column set_name")
    ds = make_datasette(db_path)
    page = await ds.client.get(f"/card/{JACE}.json")
    assert page.status_code == 200
    assert {printing["set_name"] for language in page.json()["printed"] for wording in language["wordings"]
            for printing in wording["printings"]} == {None}
    assert (await ds.client.get("/card?name=" + "Paradiesv%C3%B6gel", follow_redirects=True)).status_code == 200
    ugin = await ds.client.get("/card.json?name=Ugin%2C%20the%20Spirit%20Dragon", follow_redirects=True)
    assert ugin.status_code == 200


async def test_a_page_that_reads_what_an_older_file_lacks_says_so(snapshot_db, tmp_path) -> None:
    # A file made before printings' power (m027): "Error 500 no such column: power" told neither
    # a visitor nor its operator what was wrong (an upgrade's review). The page of a card known
    # only by its pages reads it.
    from site_databases import make_datasette

    # Where every migration is recorded as applied, the same error is a fault of the page's own
    # SQL, not blamed on the file (a code review).
    current = altered_copy(snapshot_db, tmp_path / "current.db", "alter table printings drop column power")
    response = await make_datasette(current).client.get("/card?name=Paradiesv%C3%B6gel", follow_redirects=True)
    assert response.status_code == 500 and "older than this site" not in response.text
    db_path = altered_copy(current, tmp_path / "older.db",
                           "delete from _sqlite_migrations where name = 'm027_card_stats_and_shown_oracle_text'")
    response = await make_datasette(db_path).client.get("/card?name=Paradiesv%C3%B6gel", follow_redirects=True)
    assert response.status_code == 500
    text = unescape(response.text)
    assert "The database is older than this site" in text
    assert "the file was made by an older version of mtg-rules-kb" in text and "`mtgkb build`, then `mtgkb import`" in text


async def test_a_rules_history_says_it_is_of_its_own_words_not_its_subrules(snapshot_ds) -> None:
    # 702.19 Trample read "same" from 2014 to 2026 while its subrules changed (a player's review).
    html = unescape((await snapshot_ds.client.get("/rule/702.19")).text)
    assert ("The history of 702.19's own words: each of its subrules (702.19a–702.19g) has its own, on its page;"
            ' "same" here says nothing of them.') in html
    assert 'id="history-own-words"' not in (await snapshot_ds.client.get("/rule/702.19b")).text


async def test_an_english_printing_without_a_printed_wording_is_not_said_to_print_the_oracle_text(snapshot_ds) -> None:
    # Phelddagrif's 1996 printing was labelled "Oracle text above", its printed wording not held
    # (a player's review).
    from site_databases import PHELDDAGRIF

    html = (await snapshot_ds.client.get(f"/card/{PHELDDAGRIF}")).text
    # Not "today's": the Oracle text of an undated file may not be (a review in the judges' languages).
    assert "Its printed wording is not held (or is the Oracle text above, as read from its source)" in html
    assert ">Oracle text above<" not in html


async def test_an_older_versions_contents_does_not_count_a_glossary_its_link_does_not_show(snapshot_ds) -> None:
    # The contents of 2019 said "Glossary (500 terms)" and linked today's glossary (a player's review).
    old = unescape((await snapshot_ds.client.get("/contents?version=en-2019-01-25")).text)
    assert "Glossary</a> (the newest English version's; this version's" in old
    today = unescape((await snapshot_ds.client.get("/contents")).text)
    assert re.search(r"Glossary</a> \([0-9,]+ terms\)", today)
    chinese = unescape((await snapshot_ds.client.get("/contents?version=zhs-2025-02-07")).text)
    assert '<a href="/glossary?lang=zhs">Glossary</a> (' in chinese and "newest" not in chinese.split("Glossary</a>", 1)[1][:40]
    # A translation without a glossary linked /glossary?lang=ko, a 404 (a foreign player's review).
    for version, language in (("ko-2021-02-15", "Korean"), ("es-pages-cr-page", "Spanish")):
        contents = unescape((await snapshot_ds.client.get(f"/contents?version={version}")).text)
        assert f"No glossary: no {language} version we hold has one" in contents and "/glossary?lang=" not in contents


async def test_a_long_card_page_offers_its_sections_to_jump_to(snapshot_ds) -> None:
    # Jace's page ran to 15,000 px on a phone, its rulings and printings found only by scrolling
    # (a player's review).
    from site_databases import JACE

    html = (await snapshot_ds.client.get(f"/card/{JACE}")).text
    nav = html.split('<nav class="kb-jump" aria-label="On this page">', 1)[1].split("</nav>", 1)[0]
    anchors = re.findall(r'href="#([a-z-]+)"', nav)
    assert anchors == ["rulings", "printed", "names", "cited-rules", "sources"]
    for anchor in anchors:
        assert f'id="{anchor}"' in html


async def test_a_bare_date_as_the_version_is_the_english_edition_of_that_day(snapshot_ds) -> None:
    """"No rule 702.19 in 2015-01-23" was said of a rule that edition has (a judge's review)."""
    response = await snapshot_ds.client.get("/rule/702.19?version=2015-01-23")
    assert (response.status_code, response.headers["location"]) == (302, "/rule/702.19?version=en-2015-01-23")
    response = await snapshot_ds.client.get("/rule/702.19.json?version=2015-01-24")
    assert response.status_code == 404 and "2015-01-24" in response.text


async def test_every_page_of_a_version_reads_a_language_a_bare_date_or_an_id_in_capitals(snapshot_ds) -> None:
    """/rule read them; /contents, /version and /diff said they held no such version (a fuzz)."""
    for asked, location in (
        ("/contents?version=2015-01-23", "/contents?version=en-2015-01-23"),
        ("/contents?version=EN", "/contents?version=en-2026-04-17"),
        ("/contents?version=zhs", "/contents?version=zhs-2025-02-07"),
        ("/version/2015-01-23", "/version/en-2015-01-23"),
        ("/version/EN-2026-04-17.json", "/version/en-2026-04-17.json"),
        ("/diff?from=2015-01-23&to=2026-04-17", "/diff?from=en-2015-01-23&to=en-2026-04-17"),
        ("/rule/702.19?from=2015-01-23&version=2026-04-17", "/rule/702.19?from=en-2015-01-23&version=en-2026-04-17"),
    ):
        response = await snapshot_ds.client.get(asked)
        assert (response.status_code, response.headers.get("location")) == (302, location), asked
    # A language as a reader tags it, as /card reads it (a 404: a review in the judges' languages);
    # a date mistyped after a language is no tag of it.
    for asked, location in (("/contents?version=zh-Hans", "/contents?version=zhs-2025-02-07"),
                            ("/contents?version=zh", "/contents?version=zhs-2025-02-07"),
                            ("/contents?version=ko-KR", "/contents?version=ko-2021-02-15")):
        response = await snapshot_ds.client.get(asked)
        assert (response.status_code, response.headers.get("location")) == (302, location), asked
    assert (await snapshot_ds.client.get("/rule/702.19.json?version=en-2015-01-24")).status_code == 404
    # A version named by nothing held: said so, not that the rule is missing.
    response = await snapshot_ds.client.get("/rule/702.19.json?version=2015-1-23")
    assert response.status_code == 404 and "We hold no rules version “2015-1-23”" in response.text


async def test_the_contents_and_glossary_pages_answer_in_json_as_every_page_does(snapshot_ds) -> None:
    """The home page says ".json on any page"; these three answered 404, and ?_format=json their HTML (a fuzz)."""
    contents = (await snapshot_ds.client.get("/contents.json")).json()
    assert contents["version"]["id"] == "en-2026-04-17" and contents["parts"][0]["title"] == "Game Concepts"
    glossary = (await snapshot_ds.client.get("/glossary.json")).json()
    assert glossary["version"] == "en-2026-04-17" and glossary["letters"]["A"][0]["term"] == "Abandon"
    for asked in ("/glossary/Flying.json", "/glossary/Flying?_format=json"):
        response = await snapshot_ds.client.get(asked)
        assert response.headers["content-type"].startswith("application/json"), asked
        assert response.json()["entry"]["term"] == "Flying"
    response = await snapshot_ds.client.get("/glossary/Flying.json?lang=zhs")
    assert response.headers["location"] == "/glossary/%E9%A3%9E%E8%A1%8C.json?lang=zhs"
    missing = await snapshot_ds.client.get("/glossary/Nope.json")
    assert missing.status_code == 404 and missing.json()["error"] == "No glossary term “Nope”"


async def test_a_glossary_term_with_a_slash_is_found_as_typed(snapshot_ds) -> None:
    """"/glossary/Play/Draw (Informal)" went to a tilde path that is no page (a fuzz)."""
    typed = await snapshot_ds.client.get("/glossary/Play/Draw%20%28Informal%29")
    linked = await snapshot_ds.client.get("/glossary/Play%2FDraw%20%28Informal%29")
    assert typed.status_code == linked.status_code == 200
    assert "Play/Draw (Informal)" in typed.text
