"""Linking some rulings reads version outlines, and rules and lineages as citations ask for them:
the same rows as linking them from every version read whole (what the build does)."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from kb.store import linking_history
from kb.store.derive_cr_links import load_cr_document
from kb.store.linking_history import StoredLineages, StoredRules, link_rulings_where
from kb.store.ruling_links import delete_links
from site_databases import built_snapshot_db

RULING_RULES = "select * from ruling_rules order by ruling_id, version_id, rule_number, method"


@pytest.mark.long_proof
def test_every_ruling_of_the_snapshot_links_as_the_whole_history_links_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "kb.db"
    shutil.copy(built_snapshot_db(), path)
    db = sqlite_utils.Database(path)
    built = db.execute(RULING_RULES).fetchall()
    # Of 142 citations (Okaun's "when it's doubled" linked since a links review), 9 name a rule that reads the same today, its subrules too (Convoke of 2022,
    # Flash of 2014, Indestructible of 2015); the others were reworded since (changed), two of 2008
    # naming Haste as 2006 numbered it (502.5, 702.10 today); one of 2011 names indestructible as
    # 2009 defined it (700.4, 702.12b since 2014 made it a keyword, reworded: changed, not removed).
    # And 17 name a rule as the glossary names it ("This is a special action": 115 of 2014, 116
    # today, whose rules were reworded and added to since: changed, where they were said renumbered),
    # and one as an informal term of 2006's glossary: Crackleburr's "summoning sickness" rule,
    # 212.3d (302.6 today, reworded: changed). And 221 name a rule by a glossary term it bears as
    # its title: a "face-down" spell, permanent or creature, or a permanent turned face up or down
    # (707 of 2013–2018, 708 today: changed), "flip a coin" (705 Flipping a Coin, said by its
    # verb), a nontraditional card's type ("conspiracies": 313
    # of 2015, 315 today), "double-faced card" (711 of
    # 2014–2020, 712 today), "Commander" (903; not Duel Commander, a format of its own), "mana ability" (605; of 2022: the same today),
    # "main phase", "loyalty abilities", "linked ability"…; and 39 by a term whose entry points to a
    # rule that says it: "converted mana cost" and "mana value" (202.3), "color identity" (903.4),
    # "mana symbols" (107.4), "combat damage step" (510)…; and 3 by a symbol written for the term
    # that names its rule: Crackleburr's "{Q}", the untap symbol (107.6 of 2009, reworded since);
    # and 13 by a term whose entry points to its rule after another's title ("triggered ability":
    # 603, "activated ability": 602, "color indicator": 204, two of them the same today).
    statuses = [row[9] for row in built]
    assert (len(built), statuses.count("same"), statuses.count("changed"), statuses.count("removed"),
            statuses.count("renumbered")) == (436, 14, 422, 0, 0)

    asked: list[tuple[int, str]] = []
    stored_rule = StoredRules.__call__

    def counted(self: StoredRules, at: int, number: str):  # type: ignore[no-untyped-def]
        asked.append((at, number))
        return stored_rule(self, at, number)

    monkeypatch.setattr(linking_history.StoredRules, "__call__", counted)
    delete_links(db)
    link_rulings_where(db, "1 = 1")
    assert db.execute(RULING_RULES).fetchall() == built
    # Whole rules are read only for the citations whose status compares two texts (888 of 75,713:
    # the sections the terms name, 708 and 903, are compared with every rule under them).
    rules = db.execute("select count(*) from rules").fetchone()[0]
    assert 0 < len(set(asked)) < rules / 50


def test_a_section_a_ruling_names_is_compared_with_every_rule_under_it(snapshot_conn: sqlite3.Connection) -> None:
    """Rulings naming "special action" rely on 115 Special Actions of their day, 116 today. Its
    title alone was compared, and it was said renumbered, the same text under another number;
    2018's 115.2 says "There are eight special actions", today's 116.2 twelve (an SQL user's review).
    So are the sections of the terms that name them ("double-faced card", 711 then, 712 today), and
    those an entry points to after a title ("triggered ability": "See rule 113, “Abilities,” and rule
    603, “Handling Triggered Abilities”"; "color indicator": 204; a links review)."""
    assert snapshot_conn.execute("""select rule_number, version_id, current_number, status, count(*) from ruling_rules
        where rule_number not like '%.%' group by 1, 2, 3, 4 order by 2, 1""").fetchall() == [
        ("602", "en-2009-10-01", "602", "changed", 1), ("603", "en-2009-10-01", "603", "changed", 2),
        ("614", "en-2009-10-01", "614", "changed", 1), ("115", "en-2013-05-01", "116", "changed", 6),
        ("707", "en-2013-05-01", "708", "changed", 49), ("115", "en-2014-09-25", "116", "changed", 9),
        ("510", "en-2014-09-25", "510", "changed", 1), ("603", "en-2014-09-25", "603", "changed", 1),
        ("707", "en-2014-09-25", "708", "changed", 101),
        ("711", "en-2014-09-25", "712", "changed", 9), ("505", "en-2015-03-27", "505", "changed", 2),
        ("602", "en-2015-03-27", "602", "changed", 1),
        ("606", "en-2015-03-27", "606", "changed", 1), ("707", "en-2015-03-27", "708", "changed", 1),
        ("711", "en-2015-03-27", "712", "changed", 5),
        ("115", "en-2015-11-13", "116", "changed", 1), ("204", "en-2015-11-13", "204", "same", 1),
        ("313", "en-2015-11-13", "315", "changed", 13), ("603", "en-2015-11-13", "603", "changed", 2),
        ("605", "en-2015-11-13", "605", "changed", 1),
        ("711", "en-2015-11-13", "712", "changed", 1),
        ("115", "en-2018-06-08", "116", "changed", 1), ("603", "en-2018-06-08", "603", "changed", 4),
        ("705", "en-2018-06-08", "705", "changed", 4), ("707", "en-2018-06-08", "708", "changed", 7),
        ("711", "en-2018-06-08", "712", "changed", 1), ("903", "en-2018-06-08", "903", "changed", 14),
        ("204", "en-2020-11-20", "204", "same", 1),
        ("607", "en-2020-11-20", "607", "changed", 1), ("711", "en-2020-11-20", "712", "changed", 7),
        ("903", "en-2020-11-20", "903", "changed", 1), ("605", "en-2022-04-29", "605", "same", 1),
    ]
    versions = [row[0] for row in snapshot_conn.execute(
        "select id from cr_versions where lang = 'en' order by effective_date")]
    under = StoredRules(sqlite_utils.Database(snapshot_conn), versions).subrules(-1, "116")
    assert [rule.number for rule in under][:4] == ["116.1", "116.2", "116.2a", "116.2b"]
    assert [rule.number for rule in StoredRules(sqlite_utils.Database(snapshot_conn), versions).subrules(-1, "116.2")][:2] == [
        "116.2a", "116.2b"]


def test_lineages_and_rules_are_read_when_asked(tmp_path: Path) -> None:
    db = sqlite_utils.Database(built_snapshot_db())
    versions = [row[0] for row in db.execute(
        "select id from cr_versions where lang = 'en' order by effective_date")]
    lineages = StoredLineages(db, versions)
    newest = lineages[-1]
    assert newest is lineages[len(versions) - 1] and newest["702.78"] == lineages[versions.index("en-2009-10-01")]["702.75"]
    with pytest.raises(IndexError):
        lineages[len(versions)]
    rules = StoredRules(db, versions)
    conspire = rules(-1, "702.78")
    assert (conspire.title, conspire.kind) == ("Conspire", "rule")
    # 2009-10-01 prints 702.30d twice (a misprint): the last of the two, as a document's rules by
    # number give it.
    last = db.execute(
        "select text from rules where version_id = 'en-2009-10-01' and number = '702.30d' order by position desc limit 1"
    ).fetchone()[0]
    assert rules(versions.index("en-2009-10-01"), "702.30d").text == last
    with pytest.raises(KeyError):
        rules(-1, "999.99z")


def test_a_stored_rule_is_the_rule_a_stored_document_holds() -> None:
    # What a citation's status compares (title, text, examples), for every rule of two versions.
    db = sqlite_utils.Database(built_snapshot_db())
    versions = [row[0] for row in db.execute(
        "select id from cr_versions where lang = 'en' order by effective_date")]
    rules = StoredRules(db, versions)
    compared = 0
    for version in ("en-2009-10-01", "en-2026-04-17"):
        document = {rule.number: rule for rule in load_cr_document(db, version).rules}
        at = versions.index(version)
        for number, rule in document.items():
            stored = rules(at, number)
            assert (stored.kind, stored.title, stored.text, stored.examples, stored.section) == (
                rule.kind, rule.title, rule.text, rule.examples, rule.section), (version, number)
            compared += bool(rule.examples)
    assert compared > 100


def test_a_cited_number_is_read_in_the_next_edition_where_the_one_in_force_cannot_mean_it(
        snapshot_db: Path, tmp_path: Path) -> None:
    """Rulings written for this test (no real ruling we hold cites a rule number; a review made
    these): release notes come out before the rules they are written for. A ruling of 2014-09-20
    citing 702.36a about morph was linked to Amplify, 2013's 702.36a (Morph's in 2014-09-25); one
    of 2014-11-24 citing 701.31a, which 2014-09-25 lacks, was "unknown" with a dead link."""
    db_path = tmp_path / "kb.db"
    shutil.copy(snapshot_db, db_path)
    db = sqlite_utils.Database(db_path)
    texts = {
        1: ("2014-09-20", "A face-down spell with morph can be turned face up as rule 702.36a says."),
        2: ("2014-11-24", "To manifest a card, see rule 701.31a."),
        3: ("2014-09-20", "If a spell has amplify, see rule 702.36a."),
        # Numbers the edition in force gives to a rule the ruling names stay (a code review): 702.36b
        # is Morph's in 2015-01-23 (Megamorph's in 2015-03-27); 702.2d deathtouch's in 2009; a
        # ruling naming amplify and morph cites 702.36a, Amplify's in 2013.
        4: ("2015-02-20", "To cast a creature with morph face down, see rule 702.36b."),
        5: ("2012-06-01", "If a creature with deathtouch leaves the battlefield first, rule 702.2d says its last"
                          " known information is used."),
        6: ("2014-09-20", "A face-down creature with morph has no amplify; a spell with amplify is rule 702.36a."),
    }
    for ruling_id, (day, text) in texts.items():
        db.execute("insert into rulings (id, card_name, source, published_at, text, position)"
                   " values (?, 'Constructed Test Card', 'wotc', ?, ?, 0)", [ruling_id, day, text])
    link_rulings_where(db, "rulings.id in (1, 2, 3, 4, 5, 6)")
    cited = db.execute("""select ruling_id, version_id, current_number, number_uncertain from ruling_rules
        where method = 'cited' order by ruling_id""").fetchall()
    # Today's Morph 702.37a, Manifest 701.40a, Amplify 702.38a.
    assert cited[:3] == [(1, "en-2014-09-25", "702.37a", 0), (2, "en-2015-01-23", "701.40a", 0), (3, "en-2013-05-01", "702.38a", 1)]
    assert [row[:3] for row in cited[3:]] == [
        (4, "en-2015-01-23", "702.37c"), (5, "en-2009-10-01", "702.2e"), (6, "en-2013-05-01", "702.38a")]
    # The rule page's list says how it was read (it said the edition in force did not hold 702.36a).
    from kb.site.rule_rulings import rulings_relying_on
    from kb.site.ruling_list import ruling_items_html

    db.conn.commit()
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    morph = dict(conn.execute("select * from rules where version_id = 'en-2026-04-17' and number = '702.37a'").fetchone())
    html = str(ruling_items_html([r for r in rulings_relying_on(conn, morph) if r["id"] == 1], "702.37a"))
    assert ("Read in the Comprehensive Rules of 2014-09-25, later than the ruling: in the Comprehensive Rules of"
            " 2013-05-01, the newest held before its date, 702.36a is not this rule") in html


def test_an_import_reads_the_terms_a_build_reads_in_every_edition() -> None:
    """An import links new rulings through each stored edition's outline (``version_outline``), a
    build through the whole document; the outline held sections alone of the rules outside the
    keyword sections, so "Commander Draft" (903.13) and 2003's "mana ability" (406.1) were linked
    by a build and not by an import (a review of the rulings' links)."""
    from kb.link.keyword_vocabulary import KeywordIndex

    db = sqlite_utils.Database(built_snapshot_db())
    versions = [row[0] for row in db.execute("select id from cr_versions where lang = 'en' order by effective_date")]
    built = KeywordIndex.from_versions(load_cr_document(db, version) for version in versions)
    imported = KeywordIndex.from_versions(linking_history.version_outline(db, version) for version in versions)
    assert [(v.version_id, v.named_rules, v.by_surface.keys(), v.defined_elsewhere) for v in imported.versions] == [
        (v.version_id, v.named_rules, v.by_surface.keys(), v.defined_elsewhere) for v in built.versions]
    assert imported.versions[-1].named_rules["commander draft"] == "903.13"
    assert imported.versions[0].named_rules["mana ability"] == "406.1"
