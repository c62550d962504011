"""The linking step on real page captures: rulings, sightings, translations and rule links."""
from __future__ import annotations

import json
import re
from pathlib import Path

import sqlite_utils
from click.testing import CliRunner

from kb.cli import cli

FIXTURES = Path(__file__).parent.parent / "fixtures"
GERMAN_PAGE = FIXTURES / "pages" / "de-lethal-scheme-000.txt"
FRENCH_PAGE = FIXTURES / "pages" / "fr-conspiracy-004.txt"
SPANISH_RULE_PAGE = FIXTURES / "cr-pages" / "es-702.78-conspirar.txt"
CONSTRUCTED = FIXTURES / "constructed"


def run_import(db_path: Path, *paths: Path, source: str = "local") -> None:
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", source, *map(str, paths)])
    assert result.exit_code == 0, result.output


def test_german_page_rulings_wait_for_their_card_then_link_without_reimport(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    run_import(db_path, GERMAN_PAGE, source="page-capture")
    db = sqlite_utils.Database(db_path)
    rows = list(db.query("select oracle_id, card_name, card_name_lang, source, published_at, text from rulings order by position"))
    assert len(rows) == 11
    assert {(r["oracle_id"], r["card_name"], r["card_name_lang"], r["source"]) for r in rows} == {
        (None, "Tödliches Komplott", "de", "wotc")
    }
    assert [r["published_at"] for r in rows] == ["2022-04-29"] * 5 + ["2024-01-12"] * 6
    assert rows[0]["text"].startswith("If a resolving spell or ability instructs a specific creature to connive")
    assert [row[0] for row in db.execute("select raw_date from ruling_sightings order by raw_date")] == (
        ["12.01.2024"] * 6 + ["29.04.2022"] * 5
    )
    dropped = [row[0] for row in db.execute("select detail from quality_issues where kind = 'dropped-symbols' order by detail")]
    assert len(dropped) == 2
    assert any("with in the cost" in d for d in dropped) and any("pay for or one mana" in d for d in dropped)
    assert db.execute("select count(*) from quality_issues where kind = 'unknown-card'").fetchone()[0] == 1
    db.close()

    # The card data and its English rulings arrive in a later import (constructed fixtures, see
    # their README); the German page is not imported again.
    run_import(db_path, CONSTRUCTED / "search-lethal-scheme.json", CONSTRUCTED / "rulings-lethal-scheme.json", source="scryfall")
    db = sqlite_utils.Database(db_path)
    rows = list(db.query("select id, oracle_id, card_name, text from rulings order by position"))
    assert len(rows) == 11
    assert {r["oracle_id"] for r in rows} == {"00000000-0000-4000-8000-00000000c0de"}
    assert {r["card_name"] for r in rows} == {None}
    texts = [r["text"] for r in rows]
    assert any("a mana ability with {T} in the cost" in t for t in texts)
    assert any("will pay for {1} or one mana" in t for t in texts)
    # Every ruling is seen twice: on the German page and in the Scryfall list.
    assert db.execute("select count(*) from ruling_sightings").fetchone()[0] == 22
    assert db.execute("select count(distinct document_id) from ruling_sightings").fetchone()[0] == 2
    restored = [row[0] for row in db.execute("select detail from quality_issues where kind = 'dropped-symbols'")]
    assert len(restored) == 2 and all("the stored text has them from another source" in d for d in restored)
    assert sorted(d.split(" lost ")[1].split(";")[0] for d in restored) == ["{1}", "{T}"]
    assert db.execute("select count(*) from quality_issues where kind = 'unknown-card'").fetchone()[0] == 0
    assert ("00000000-0000-4000-8000-00000000c0de", "de", "Tödliches Komplott") in [
        tuple(r) for r in db.execute("select oracle_id, lang, name from card_names")
    ]


def test_french_machine_translation_page_is_english_and_recorded_untranslated(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    run_import(db_path, FRENCH_PAGE, source="page-capture")
    db = sqlite_utils.Database(db_path)
    rulings = list(db.query("select published_at, source, text from rulings"))
    assert len(rulings) == 16
    assert {(r["published_at"], r["source"]) for r in rulings} == {("2016-08-23", "wotc")}
    assert not any("gains indestructible until end of turn. (Damage" in r["text"] and r["text"].startswith(".") for r in rulings)
    assert db.execute("select count(*) from ruling_records").fetchone()[0] == 16
    translations = list(db.query("select lang, status, method, count(*) as n from ruling_translations group by 1, 2, 3"))
    assert translations == [{"lang": "fr", "status": "untranslated", "method": "machine", "n": 16}]
    kinds = {row[0] for row in db.execute("select kind from quality_issues")}
    assert {"non-ruling-fragment", "claimed-language-mismatch", "untranslated", "unknown-card"} <= kinds
    # Every issue names a ruling by its place on the page, from 1 (its checks said "ruling 17" of 16).
    named = {kind: sorted(int(re.search(r"\bruling (\d+)", detail)[1]) for (detail,) in db.execute(
        "select detail from quality_issues where kind = ?", [kind])) for kind in ("untranslated", "ruling-without-card")}
    assert named["untranslated"] == named["ruling-without-card"] == list(range(1, 17))


def test_spanish_rule_page_links_to_the_nearest_english_version(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    run_import(db_path, FIXTURES / "cr" / "en-raw" / "2026-01-16.txt", FIXTURES / "cr" / "en-raw" / "2025-02-07.txt")
    run_import(db_path, SPANISH_RULE_PAGE, source="cr-page")
    db = sqlite_utils.Database(db_path)
    version = db["cr_versions"].get("es-pages-cr-page")
    assert version["translates_version_id"] == "en-2026-01-16"
    assert version["translation_match"] == "nearest"
    assert "702.190–702.195" in version["translation_note"]
    links = list(
        db.query(
            """select tr.number, en.number as en_number, en.version_id, rule_links.status, tr.title
            from rule_links join rules as tr on tr.id = rule_links.rule_id
            join rules as en on en.id = rule_links.en_rule_id order by tr.position"""
        )
    )
    assert [(l["number"], l["en_number"], l["version_id"], l["status"]) for l in links] == [
        ("702.78", "702.78", "en-2026-01-16", "same"),
        ("702.78a", "702.78a", "en-2026-01-16", "same"),
        ("702.78b", "702.78b", "en-2026-01-16", "same"),
    ]
    assert links[0]["title"] == "Conspirar"
    refs = [row[0] for row in db.execute(
        "select target_number from rule_refs join rules on rules.id = rule_refs.rule_id"
        " where rules.version_id = 'es-pages-cr-page' and rules.number = '702.78a' order by target_number"
    )]
    assert refs == ["601.2b", "601.2f", "601.2g", "601.2h"]
    assert ("es", "Conspirar", "Conspire", "702.78") in [
        tuple(r) for r in db.execute("select lang, term, en_term, rule_number from keywords")
    ]


def test_chinese_translation_links_by_effective_date_with_keywords(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    run_import(db_path, FIXTURES / "cr" / "en-raw" / "2025-02-07.txt")
    run_import(db_path, FIXTURES / "cr-zh" / "2025-02-07-zh.txt", source="cr-zh")
    db = sqlite_utils.Database(db_path)
    version = db["cr_versions"].get("zhs-2025-02-07")
    assert (version["translates_version_id"], version["translation_match"]) == ("en-2025-02-07", "effective-date")
    assert db.execute(
        "select count(*) from rule_links join rules on rules.id = rule_links.rule_id"
        " where rules.version_id = 'zhs-2025-02-07' and rule_links.status = 'same'"
    ).fetchone()[0] == 3175
    assert ("zhs", "协力", "Conspire", "702.78") in [
        tuple(r) for r in db.execute("select lang, term, en_term, rule_number from keywords")
    ]
    assert db.execute("select count(*) from glossary_links").fetchone()[0] == 703


def test_source_dropped_by_mtgjson_is_recovered_from_scryfall(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    run_import(db_path, FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json", source="mtgjson")
    db = sqlite_utils.Database(db_path)
    ugin = "eecb3047-a563-441a-9175-200421981ac3"
    alone = list(db.query("select source, source_inferred from rulings where oracle_id = ?", [ugin]))
    assert alone == [{"source": "wotc", "source_inferred": 1}] * 5
    db.close()
    run_import(db_path, CONSTRUCTED / "rulings-ugin-scryfall-shape.json", source="scryfall")
    db = sqlite_utils.Database(db_path)
    rows = list(db.query(
        "select published_at, source, source_inferred, text from rulings where oracle_id = ? order by position", [ugin]
    ))
    assert len(rows) == 5  # the same rulings, stored once with two sightings each
    assert [(r["source"], r["source_inferred"]) for r in rows].count(("scryfall", 0)) == 1
    assert [(r["source"], r["source_inferred"]) for r in rows].count(("wotc", 0)) == 4
    assert db.execute(
        "select count(*) from ruling_sightings join rulings on rulings.id = ruling_sightings.ruling_id"
        " where rulings.oracle_id = ?", [ugin]
    ).fetchone()[0] == 10
    # The curly-apostrophe copy is the one kept.
    assert any("doesn\u2019t have the creature type Dragon" in r["text"] for r in rows)


def test_mtgjson_after_scryfall_keeps_a_multi_faced_cards_whole_text(tmp_path: Path) -> None:
    # The real Scryfall Jace, then MTGJSON's face objects of the same printing (constructed in
    # MTGJSON's shape from the real texts): the card keeps both faces, its whole type line and
    # text, and each face's own fields: the numbers the constructed file leaves out (power,
    # toughness, loyalty) too, which a whole card_faces from it erased (a code review).
    db_path = tmp_path / "kb.db"
    run_import(db_path, FIXTURES / "scryfall" / "api-2025-11-01" / "card-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json",
               source="scryfall")
    db = sqlite_utils.Database(db_path)
    query = "select faces, type_line, mana_cost, oracle_text, card_faces from cards where oracle_id = ?"
    jace = "594f6881-c059-46f8-aa4e-7151d502de73"
    before = db.execute(query, [jace]).fetchone()
    db.close()
    run_import(db_path, CONSTRUCTED / "mtgjson-jace-faces.json", source="mtgjson")
    db = sqlite_utils.Database(db_path)
    assert db.execute(query, [jace]).fetchone() == before
    assert before[1] == "Legendary Creature — Human Wizard // Legendary Planeswalker — Jace"
    assert [(face["power"], face["toughness"], face["loyalty"]) for face in json.loads(before[4])] == [
        ("0", "2", None), (None, None, "5")]
    names = {row[0] for row in db.execute("select name from card_names where oracle_id = ? and lang = 'de'", [jace])}
    assert names == {"Jace, Wunderkind von Vryn // Jace, der entfesselte Telepath", "Jace, Wunderkind von Vryn",
                     "Jace, der entfesselte Telepath"}


def test_an_unreadable_ruling_date_is_one_issue_on_every_build(tmp_path: Path) -> None:
    # The real new-Gatherer page with its ruling date replaced by one no parser reads.
    page = (FIXTURES / "gatherer" / "new" / "jace-wunderkind-von-vryn_de.html").read_bytes()
    odd = tmp_path / "odd.html"
    odd.write_bytes(page.replace(b'\\"rulingDate\\":\\"2017-09-29\\"', b'\\"rulingDate\\":\\"Sept 2017\\"'))
    db_path = tmp_path / "kb.db"
    run_import(db_path, odd, source="gatherer")
    run_import(db_path, CONSTRUCTED / "search-lethal-scheme.json", source="scryfall")  # derives again
    db = sqlite_utils.Database(db_path)
    issues = [row[0] for row in db.execute("select detail from quality_issues where kind like '%date%'")]
    assert issues == ["ruling 1 of \"Jace, Vryn's Prodigy\": date 'Sept 2017' is not a date"]


def test_a_page_naming_no_card_gives_the_same_ruling_ids_from_any_folder_or_copy(tmp_path: Path) -> None:
    """The French page names no card: its rulings were keyed on the page (its bytes and the
    path typed), so a build from another folder, a page re-captured with one byte more, or a
    copy under another name gave them other ids (or doubled them)."""
    from kb.build.inputs import path_inputs
    from kb.store.save import document_id_for

    issue_ids: dict[str, set[int]] = {}

    def ruling_ids(*pages: Path) -> set[int]:
        db_path = tmp_path / f"kb-{len(list(tmp_path.iterdir()))}.db"
        run_import(db_path, *pages, source="page-capture")
        db = sqlite_utils.Database(db_path)
        issue_ids[db_path.name] = {row[0] for row in db.execute("select id from quality_issues")}
        return {row[0] for row in db.execute("select id from rulings")}

    first = ruling_ids(FRENCH_PAGE)
    assert len(first) == 16
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = elsewhere / FRENCH_PAGE.name
    moved.write_bytes(FRENCH_PAGE.read_bytes())
    assert ruling_ids(moved) == first
    # Its issues too ("<the path typed>: ruling 16 names no card"), though each says its path.
    first_issues, moved_issues = issue_ids.values()
    assert len(first_issues) >= 16 and moved_issues == first_issues
    copied = elsewhere / "copy.txt"
    copied.write_bytes(FRENCH_PAGE.read_bytes() + b"\n")
    assert ruling_ids(FRENCH_PAGE, copied) == first  # 16 rulings, each seen on both pages
    # The document itself is known by its bytes and its file name, not by the folder.
    assert {document_id_for(doc) for doc in path_inputs([FRENCH_PAGE, moved])} == {
        document_id_for(path_inputs([moved])[0])}
