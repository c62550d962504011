"""A translation's rule numbers lead to the rules they mean, and its rules to the English rules
they translate (the bundled snapshot: the real Korean CR of 2021-02-15, whose own English edition
we do not hold, between those of 2020-11-20 and 2021-06-18; and the Chinese CR of 2025-02-07).
How a translation numbered as an older edition is placed beside a newer one is tested on the real
files in tests/store/test_korean_links.py."""
from __future__ import annotations

import re
import sqlite3


def _korean_cell(html: str) -> str:
    return html.split('<td class="kb-tr', 1)[1].split('lang="ko"', 1)[1].split("</td>", 1)[0]


async def test_a_citation_leads_to_the_rule_the_english_text_cites_in_its_place(snapshot_ds) -> None:
    # The Korean 116.2h (foretell) is first in English in the edition after it (2021-06-18). It
    # cites 702.142, Foretell as numbered in 2021-02; in the English text beside it, Foretell is
    # 702.143 and 702.142 is Boast.
    html = (await snapshot_ds.client.get("/rule/116.2h?version=en-2021-06-18")).text
    korean = _korean_cell(html)
    assert ('<a class="rule-ref" href="/rule/702.143?version=en-2021-06-18" title="702.143 in en-2021-06-18:'
            ' the English text cites it here">702.142</a>') in korean
    target = (await snapshot_ds.client.get("/rule/702.143.json?version=en-2021-06-18")).json()
    assert target["rule"]["title"] == "Foretell"
    data = (await snapshot_ds.client.get("/rule/116.2h.json")).json()
    column = next(c for c in data["translations"]["columns"] if c["version_id"] == "ko-2021-02-15")
    assert column["rules"]["116.2h"]["citations"] == {"702.142": ["702.143", "en-2021-06-18"]}
    # The Korean 112.1a cites 706.10 (copies of spells), as the English 112.1a of 2020-11-20 it is
    # linked to does; beside the 2022 rules, where that rule is 707.10, it still leads there.
    korean = _korean_cell((await snapshot_ds.client.get("/rule/112.1a?version=en-2022-02-18")).text)
    assert '<a class="rule-ref" href="/rule/706.10?version=en-2020-11-20">706.10</a>' in korean
    target = (await snapshot_ds.client.get("/rule/706.10.json?version=en-2020-11-20")).json()
    assert target["rule"]["text"].startswith("To copy a spell, activated ability, or triggered ability")


async def test_a_number_the_partial_translation_lacks_leads_to_the_edition_it_translates(snapshot_ds, snapshot_db) -> None:
    # The Korean 120.4a (excess damage) cites 120.6 and 702.2, as the English text of 2021-06-18 it
    # translates does: each leads to the rule that text cites.
    data = (await snapshot_ds.client.get("/rule/120.4.json")).json()
    column = next(c for c in data["translations"]["columns"] if c["version_id"] == "ko-2021-02-15")
    assert column["rules"]["120.4a"]["citations"] == {"120.6": ["120.6", "en-2021-06-18"], "702.2": ["702.2", "en-2021-06-18"]}
    html = (await snapshot_ds.client.get("/rule/120.4")).text
    assert 'href="/rule/702.2?version=en-2021-06-18"' in html and 'href="/rule/702.2?version=ko-2021-02-15"' not in html
    # Beside the English text of 2020-11-20, which cites nothing there, the number the chapters we
    # hold translate (120.6) leads to the Korean rule, the one they do not (702.2, deathtouch) to
    # 702.2 of the English edition the translation follows, never to a page it does not have.
    from kb.site.translated_citations import translated_citations

    with sqlite3.connect(snapshot_db) as conn:
        text_of = dict(conn.execute(
            "select version_id, text from rules where number = '120.4a' and version_id in ('ko-2021-02-15', 'en-2020-11-20')"))
    row = {"text": text_of["ko-2021-02-15"], "english_text": text_of["en-2020-11-20"], "version_id": "ko-2021-02-15",
           "english_version": "en-2020-11-20", "translates_version_id": None}
    held = {("ko-2021-02-15", "120.6"), ("en-2020-11-20", "120.6"), ("en-2020-11-20", "702.2")}
    assert translated_citations(row, held) == {"120.6": ("120.6", "ko-2021-02-15"), "702.2": ("702.2", "en-2020-11-20")}


async def test_a_shifted_subrule_sits_beside_the_english_rule_it_translates(snapshot_ds) -> None:
    # The Korean 109.4c (Planechase, citing 901.6) is 109.4c of 2020-11-20; 2021-06-18 inserted
    # 109.4b, so beside the 2022 rules it sits at 109.4d.
    html = (await snapshot_ds.client.get("/rule/109.4d?version=en-2022-02-18")).text
    assert "플레인체이스에서" in _korean_cell(html)
    assert "플레인체이스에서" not in _korean_cell((await snapshot_ds.client.get("/rule/109.4c?version=en-2022-02-18")).text)


async def test_a_translated_rule_leads_to_its_english_rule(snapshot_ds) -> None:
    response = await snapshot_ds.client.get("/rule/116.2h?version=ko-2021-02-15")
    assert (response.status_code, response.headers["location"]) == (302, "/rule/116.2h?version=en-2021-06-18")
    response = await snapshot_ds.client.get("/rule/116.2h.json?version=ko-2021-02-15")
    assert (response.status_code, response.headers["location"]) == (302, "/rule/116.2h.json?version=en-2021-06-18")
    # The translation's 717 keeps the English title of years before, "Ending the Turn": linked to
    # that section all the same, which says nothing of a mismatch (a foreign judges' review).
    response = await snapshot_ds.client.get("/rule/717?version=ko-2021-02-15")
    assert response.headers["location"] == "/rule/717?version=en-2020-11-20"
    html = (await snapshot_ds.client.get("/rule/717?version=en-2020-11-20")).text
    assert "턴을 끝내기" in _korean_cell(html) and "may not match the English rule" not in _korean_cell(html)
    # The Chinese rules translate the 2025-02-07 edition.
    response = await snapshot_ds.client.get("/rule/702.9?version=zhs-2025-02-07")
    assert response.headers["location"] == "/rule/702.9?version=en-2025-02-07"


async def test_a_number_the_translation_lacks_offers_the_english_rule_of_that_number(snapshot_ds) -> None:
    # The Korean chapters we hold are partial: no 706.10. The edition it follows most nearly,
    # 2020-11-20, numbers copies of spells 706.10 too.
    response = await snapshot_ds.client.get("/rule/706.10.json?version=ko-2021-02-15")
    assert response.status_code == 404
    found = response.json()["found"]
    assert [(hit["url"], hit["title"]) for hit in found] == [(
        "/rule/706.10?version=en-2020-11-20",
        "706.10, in the English rules of en-2020-11-20 (the nearest we hold to the edition it translates)",
    )]
    assert found[0]["snippet"].startswith("To copy a spell, activated ability, or triggered ability")
    html = (await snapshot_ds.client.get("/rule/706.10?version=ko-2021-02-15")).text
    assert 'href="/rule/706.10?version=en-2020-11-20"' in html


async def test_datasette_tables_link_a_number_in_its_own_version(snapshot_ds, snapshot_db) -> None:
    db = snapshot_db.stem
    # 2006's 100.1 became 2013's 100.1 … each side of a change links its own version.
    html = (await snapshot_ds.client.get(f"/{db}/cr_changes?old_version_id=en-2006-02-01&old_number=402.1")).text
    assert 'href="/rule/402.1?version=en-2006-02-01"' in html
    # A citation is numbered as in the version of the rule that cites it.
    html = (await snapshot_ds.client.get(f"/{db}/rule_refs?target_number=402.9")).text
    versions = set(re.findall(r'href="/rule/402\.9\?version=([^"]+)"', html))
    assert versions and "en-2006-02-01" in versions
    html = (await snapshot_ds.client.get(f"/{db}/rules?version_id=ko-2021-02-15&number=109.4c")).text
    assert 'href="/rule/109.4c?version=ko-2021-02-15"' in html
    # A table page showing only some columns still renders; a number without its version is not
    # linked to today's rule of that number.
    assert (await snapshot_ds.client.get(f"/{db}/glossary?_col=term")).status_code == 200
    html = (await snapshot_ds.client.get(f"/{db}/rules?_col=number&number=702.19")).text
    assert 'href="/rule/702.19"' not in html and "702.19" in html


async def test_a_translations_pages_link_its_rules_by_what_they_translate(snapshot_ds) -> None:
    # The Korean version's table of rules that do not match exactly: its 706 is Copying Objects,
    # renumbered 707 since (today's 706 is Rolling a Die); the link leads to the rule it translates.
    html = (await snapshot_ds.client.get("/version/ko-2021-02-15")).text
    assert 'href="/rule/706?version=ko-2021-02-15"' in html and 'href="/rule/706' + '"' not in html
    response = await snapshot_ds.client.get("/rule/706?version=ko-2021-02-15")
    assert response.headers["location"] == "/rule/706?version=en-2020-11-20"
    english = (await snapshot_ds.client.get("/rule/706.json?version=en-2020-11-20")).json()
    assert english["rule"]["title"] == "Copying Objects"
    # A Chinese definition cites rules numbered as in the edition it translates (2025-02-07): a
    # number its English entry cites in the same place leads to that edition's rule, as on rule
    # pages; its English entry's references are that edition's too.
    html = (await snapshot_ds.client.get("/glossary/%E8%B7%B5%E8%B8%8F?lang=zhs")).text
    definition = html.split('<div class="kb-definition"', 1)[1].split("</div>", 1)[0]
    assert 'href="/rule/702.19?version=en-2025-02-07"' in definition
    refs = html.split('id="refs-title"', 1)[1].split("</section>", 1)[0]
    assert 'href="/rule/702.19?version=en-2025-02-07"' in refs


async def test_a_search_hit_of_a_translated_rule_leads_to_the_rule_it_translates(snapshot_ds) -> None:
    data = (await snapshot_ds.client.get("/search.json?q=%ED%94%8C%EB%A0%88%EC%9D%B8%EC%B2%B4%EC%9D%B4%EC%8A%A4")).json()
    rules = next(group for group in data["groups"] if group["kind"] == "rules")["hits"]
    korean = {hit["title"]: hit["url"] for hit in rules if hit["lang"] == "ko"}
    # Its numbers are the 2021 edition's: the page of its own version leads to the English rule.
    assert korean["901 플레인체이스"] == "/rule/901?version=ko-2021-02-15"
    assert all(url.endswith("?version=ko-2021-02-15") for url in korean.values())


async def test_a_keyword_in_a_translation_leads_to_todays_rule_of_that_keyword(snapshot_ds) -> None:
    # 展示 (Reveal) is 701.16 in the Chinese rules of 2025; today's 701.16 is Investigate.
    data = (await snapshot_ds.client.get("/search.json?q=%E5%B1%95%E7%A4%BA")).json()
    keywords = next(group for group in data["groups"] if group["kind"] == "keywords")["hits"]
    assert (keywords[0]["title"], keywords[0]["url"]) == ("701.20 Reveal", "/rule/701.20#lang-zhs")


async def test_the_canned_rule_with_translations_follows_one_rule(snapshot_ds, snapshot_db) -> None:
    # 702.78 is Conspire today, Persist in 2019, Wither in 2013 and Retrace in 2009: four rules,
    # one number.
    url = f"/{snapshot_db.stem}/rule_with_translations.json?_shape=array&number=702.78"
    rows = (await snapshot_ds.client.get(url)).json()
    assert {row["title"] for row in rows} == {"Conspire"}
    numbers = [(row["english_version"], row["number"]) for row in rows if row["english_version"] < "en-2022"]
    assert numbers[:3] == [("en-2021-06-18", "702.78"), ("en-2020-11-20", "702.77"), ("en-2020-09-25", "702.77")]
    assert numbers[-3:] == [("en-2014-09-25", "702.77"), ("en-2013-05-01", "702.76"), ("en-2009-10-01", "702.75")]
    assert ("zhs-2025-02-07", "702.78", "协力") in {
        (row["translation_version"], row["translated_number"], row["translated_title"]) for row in rows}
    persist = (await snapshot_ds.client.get(url + "&version=en-2019-01-25")).json()
    assert {row["title"] for row in persist} == {"Persist"}
    assert ("zhs-2025-02-07", "702.79", "留存") in {
        (row["translation_version"], row["translated_number"], row["translated_title"]) for row in persist}
    # A number today's rules lack is read in the newest version that has it: 502.46 of 2006, Convoke.
    old = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/rule_with_translations.json?_shape=array&number=502.46")).json()
    assert {row["title"] for row in old} == {"Convoke"}
    assert [row["english_version"] for row in old if row["number"] == "502.46"] == ["en-2006-02-01"]
    # A version without the number has no such rule: 2009's 701 ends before 701.50. Every
    # English rule numbered so was listed, Connive and Convert (an SQL user's review).
    assert (await snapshot_ds.client.get(f"/{snapshot_db.stem}/rule_with_translations.json?_shape=array"
                                         "&number=701.50&version=en-2009-10-01")).json() == []
    # A translation's rule of the number is the English rule it is linked to: the Chinese 702.78
    # is Conspire; the Korean 116.2h is foretell (2021-06-18's), not 2020-11-20's 116.2h, the
    # planar die, though the Korean CR is shown beside 2020-11-20 (a review of the change).
    chinese = (await snapshot_ds.client.get(url + "&version=zhs-2025-02-07")).json()
    assert {row["title"] for row in chinese} == {"Conspire"}
    foretell = (await snapshot_ds.client.get(f"/{snapshot_db.stem}/rule_with_translations.json?_shape=array"
                                             "&number=116.2h&version=ko-2021-02-15")).json()
    assert foretell and all("oretell" in row["english"] for row in foretell)
    assert ("ko-2021-02-15", "116.2h") in {(row["translation_version"], row["translated_number"]) for row in foretell}


async def test_a_chinese_glossary_term_with_a_slash_is_linked_whole(snapshot_ds) -> None:
    # 房间/隔间 (Room): an unescaped "/" ended the path segment, and Datasette's redirect led to a 404.
    html = (await snapshot_ds.client.get("/glossary/Room")).text
    assert 'href="/glossary/%E6%88%BF%E9%97%B4%2F%E9%9A%94%E9%97%B4?lang=zhs"' in html
    response = await snapshot_ds.client.get("/glossary/%E6%88%BF%E9%97%B4%2F%E9%9A%94%E9%97%B4?lang=zhs")
    assert response.status_code == 200 and "房间/隔间" in response.text


def test_a_number_neither_edition_holds_stays_in_the_translation() -> None:
    # A typo or a number beyond both texts: the translation's own page for it offers the nearest
    # rules; the English edition's would be a bare 404. (Row shaped as the Korean 120.4a's.)
    from kb.site.translated_citations import translated_citations

    row = {"text": "규칙 120.6과 702.2와 799.9를 보라.", "english_text": "",
           "version_id": "ko-2021-02-15", "translates_version_id": "en-2020-11-20",
           "english_version": "en-2021-06-18"}
    held = {("ko-2021-02-15", "120.6"), ("en-2020-11-20", "120.6"), ("en-2020-11-20", "702.2")}
    assert translated_citations(row, held) == {
        "120.6": ("120.6", "ko-2021-02-15"),
        "702.2": ("702.2", "en-2020-11-20"),
        "799.9": ("799.9", "ko-2021-02-15"),
    }


async def test_where_the_two_texts_cite_different_rules_the_link_follows_the_translation_and_says_so(snapshot_ds) -> None:
    """Where the translation holds the number it cites as a rule linked to another English rule,
    either text may be the one that slipped: the link follows the translation where an English
    wording of the rule cites the rule it does (the English 801.17 of 2025 cites 723, The
    Initiative, where the Chinese cites 724, Restarting the Game, as 2026's does under its number
    726), else the English text (the Chinese 115.3 cites 115.6, zero targets, where every English
    wording cites 115.7, changing targets), and the page says so. The Korean 107.4h (2021-02-15)
    cites 106.3, mana from a snow source, as the English text of 2021-06-18 does and that of
    2020-11-20 does not (205.4g, the snow supertype): it is linked to the wording it translates, and
    the two texts cite the same rule (a translations review)."""
    data = (await snapshot_ds.client.get("/rule/107.4h.json")).json()
    korean = next(c for c in data["translations"]["columns"] if c["version_id"] == "ko-2021-02-15")["rules"]["107.4h"]
    assert (korean["citations"], korean["english_cites"]) == ({"106.3": ["106.3", "en-2021-06-18"]}, {})
    html = (await snapshot_ds.client.get("/rule/801.17?version=en-2025-02-07")).text
    assert ('In this place the English text it is linked to (Comprehensive Rules of 2025-02-07) cites'
            ' <a class="rule-ref" href="/rule/723?version=en-2025-02-07">723</a>, not 724; another English'
            ' wording of this rule cites the rule this translation does: the link on 724 follows the translation.') in html

    async def chinese(number: str) -> dict:
        page = (await snapshot_ds.client.get(f"/rule/{number}.json?version=en-2025-02-07")).json()
        column = next(c for c in page["translations"]["columns"] if c["version_id"] == "zhs-2025-02-07")
        return column["rules"][number]

    restart = await chinese("801.17")
    assert (restart["citations"], restart["english_cites"]) == (
        {"724": ["724", "zhs-2025-02-07"]}, {"724": ["723", "en-2025-02-07", "translation"]})
    for number, cited, english in (("115.3", "115.6", "115.7"), ("506.1", "508.5", "508.8"), ("122.1a", "613.3", "613.4c")):
        rule = await chinese(number)
        assert rule["citations"][cited] == [english, "en-2025-02-07"], number
        assert rule["english_cites"] == {cited: [english, "en-2025-02-07", "english"]}, number
    html = (await snapshot_ds.client.get("/rule/115.3?version=en-2025-02-07")).text
    assert ("This translation cites 115.6 in this place, where the English text it is linked to (Comprehensive"
            " Rules of 2025-02-07) cites another rule, 115.7, as every English wording of this rule does:"
            " the link on 115.6 leads to 115.7.") in html
    # A number the partial Korean translation does not hold: the English text's place is all there is.
    foretell = (await snapshot_ds.client.get("/rule/116.2h.json")).json()
    column = next(c for c in foretell["translations"]["columns"] if c["version_id"] == "ko-2021-02-15")
    assert column["rules"]["116.2h"]["english_cites"] == {}


async def test_a_translated_rule_shows_its_own_examples(snapshot_ds) -> None:
    """The Korean and Chinese rules' examples (the Korean CR's 26) were in the database, and the page
    showed only the English rule's (a Japanese and Korean judge's review)."""
    html = (await snapshot_ds.client.get("/rule/101.4")).text
    assert '<div class="kb-example">Example: 카드에 &quot;각 플레이어는 생물 한 개를 희생한다.&quot;라고' in _korean_cell(html)
    data = (await snapshot_ds.client.get("/rule/101.4.json")).json()
    examples = {c["version_id"]: c["rules"]["101.4"]["examples"] for c in data["translations"]["columns"]}
    assert [len(found) for found in examples.values()] == [1, 1]
    assert examples["zhs-2025-02-07"][0].startswith("例")


async def test_a_translated_glossary_entrys_slip_leads_where_its_english_entry_cites(snapshot_ds) -> None:
    """The Chinese 解锁 (unlock) cites 709.5g, the lock rule, where every English wording cites
    709.5f, unlock; the link led to 709.5g with no word (a Chinese judge's review)."""
    from urllib.parse import quote

    html = (await snapshot_ds.client.get("/glossary/" + quote("解锁") + "?lang=zhs")).text
    assert '<a class="rule-ref" href="/rule/709.5f?version=en-2025-02-07"' in html
    assert ("This translation cites 709.5g in this place, where the English entry (Comprehensive Rules of"
            " 2025-02-07) cites another rule, 709.5f, as every English wording of this entry does:"
            " the link on 709.5g leads to 709.5f.") in html
    # Where only the English entry slipped (地图 cites 111.10, English 110.10, no rule), the
    # translation's number is linked as it is, with no note.
    html = (await snapshot_ds.client.get("/glossary/" + quote("地图") + "?lang=zhs")).text
    assert '<a class="rule-ref" href="/rule/111.10?version=zhs-2025-02-07">111.10</a>' in html
    assert "kb-cites-differ" not in html
