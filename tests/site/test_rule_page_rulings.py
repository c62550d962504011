"""A rule page's newest rulings come from the (lineage, date, ruling) index: the same rows as
sorting every ruling that relies on the rule, newest first."""
from __future__ import annotations

import sqlite3

import sqlite_utils

from kb.site.rule_rulings import newest_ruling_ids, rulings_relying_on
from kb.site.search_db import rows
from kb.store.ruling_links import LinkWriter
from kb.store.tables import RULING_RULES_COLUMNS

EVERY_RULING_SORTED = """select distinct rulings.id, ruling_rules.method, ruling_rules.rule_number, ruling_rules.version_id
    from ruling_rules join rulings on rulings.id = ruling_rules.ruling_id
    where ruling_rules.lineage_id = ? order by rulings.published_at desc, rulings.id desc"""


def test_every_rule_with_rulings_lists_the_newest_as_a_full_sort_would(snapshot_conn: sqlite3.Connection) -> None:
    lineages = [row[0] for row in snapshot_conn.execute(
        "select distinct lineage_id from ruling_rules where lineage_id is not null")]
    # 302.6 since Crackleburr's "summoning sickness" rule; nine since the terms whose rules bear
    # their names ("double-faced card": 712, "face-down": 708, "Commander": 903); six since those
    # whose entries point to a rule that says them ("mana value": 202.3, "color identity": 903.4);
    # one since a nontraditional card's type names its section ("conspiracies": 315); one since
    # a rule named by a gerund is said by its verb ("flip a coin": 705); one since a symbol is
    # read as the term its rule is named by ("{Q}": 107.6); three since an entry's pointer after
    # another rule's title is read ("triggered ability": 603, "activated ability": 602, "color
    # indicator": 204).
    assert len(lineages) == 37
    for lineage in lineages:
        rule = rows(snapshot_conn, "select * from rules where lineage_id = ? order by version_id desc limit 1", (lineage,))[0]
        found = [(row["id"], row["method"], row["rule_number"], row["version_id"])
                 for row in rulings_relying_on(snapshot_conn, rule)]
        assert found == [tuple(row) for row in snapshot_conn.execute(EVERY_RULING_SORTED, (lineage,))][:100], lineage


def test_the_newest_few_stop_early_and_skip_a_rulings_second_link(snapshot_conn: sqlite3.Connection) -> None:
    # Manifest's lineage (701.31 when Fate Reforged added it, 701.40 today) is relied on by 55
    # rulings of the snapshot.
    lineage = "en-2015-01-23/701.31"
    newest = [row[0] for row in snapshot_conn.execute(EVERY_RULING_SORTED, (lineage,))]
    distinct = list(dict.fromkeys(newest))
    assert len(distinct) == 55
    assert newest_ruling_ids(snapshot_conn, lineage, 5) == distinct[:5]
    assert newest_ruling_ids(snapshot_conn, lineage, 1000) == distinct


async def test_a_rules_page_lists_the_rulings_of_its_subrules(snapshot_ds) -> None:
    """Werewolf Ransacker's ruling of 2011 relies on 2009's 700.4, Indestructible's 702.12b today:
    Indestructible's page listed only its own ruling (a review of the rulings' citations). Its
    subrule's rulings are listed under the subrule; a section's rules are pages of their own."""
    page = (await snapshot_ds.client.get("/rule/702.12.json")).json()
    assert [(sub["number"], [(r["card"], r["rule_number"], r["version_id"]) for r in sub["rulings"]])
            for sub in page["subrule_rulings"]] == [
        ("702.12b", [("Afflicted Deserter // Werewolf Ransacker", "700.4", "en-2009-10-01")])]
    assert [r["rule_number"] for r in page["rulings"]] == ["702.12"]
    html = (await snapshot_ds.client.get("/rule/702.12")).text
    assert '<h3><a href="#r-702.12b">702.12b</a> <span class="count">1</span></h3>' in html
    assert (await snapshot_ds.client.get("/rule/702.json")).json()["subrule_rulings"] == []


async def test_a_rule_page_lists_its_older_rulings_page_by_page(snapshot_ds, snapshot_conn: sqlite3.Connection, monkeypatch) -> None:
    """/rule/708 listed a hundred of its 151 rulings under the count "100", with no way to the
    others (a judge's review). The count says how many, and the older ones are pages of their own,
    here of 40 (the snapshot's busiest rule has 158: face-down spells, permanents and creatures,
    and permanents turned face up or down)."""
    from kb.site import page_cache, rule_rulings, views

    monkeypatch.setenv(page_cache.ENV, "0")
    monkeypatch.setattr(rule_rulings, "RULINGS_PER_PAGE", 40)
    monkeypatch.setattr(views, "RULINGS_PER_PAGE", 40)
    seen: list[int] = []
    for offset, shown, newer, older in ((0, "1–40 of 158", None, 40), (40, "41–80 of 158", 0, 80), (80, "81–120 of 158", 40, 120),
                                        (120, "121–158 of 158", 80, None)):
        html = (await snapshot_ds.client.get(f"/rule/708?rulings={offset}")).text
        assert f'Rulings relying on this rule <span class="count">{shown}</span>' in html
        assert (f'href="/rule/708?rulings={newer}#rulings">← newer rulings' in html) == (newer is not None)
        assert (f'href="/rule/708?rulings={older}#rulings">older rulings →' in html) == (older is not None)
        page = (await snapshot_ds.client.get(f"/rule/708.json?rulings={offset}")).json()
        seen += [ruling["id"] for ruling in page["rulings"]]
        assert page["rulings_total"] == [158, False]
    # Every ruling once, newest first, as one list of them all.
    (lineage,) = snapshot_conn.execute(
        "select lineage_id from rules where number = '708' and version_id like 'en-%' order by version_id desc limit 1").fetchone()
    everything = list(dict.fromkeys(row[0] for row in snapshot_conn.execute(EVERY_RULING_SORTED, (lineage,))))
    assert len(seen) == len(set(seen)) == 158 and seen == everything
    # Any other value is the first page, rounded down to a page's start.
    def asked(value: str) -> int:
        return views.rulings_page(type("R", (), {"args": {"rulings": value}})())

    assert asked("95") == 80 and asked("130") == 120
    # A digit Python reads but int() does not ("²": a 500), and past what is counted: the last
    # page counted (its older link pointed at itself: a code review).
    assert asked("²") == 0 and asked("999999") == rule_rulings.RULINGS_COUNTED - 40


async def test_a_rule_pages_rulings_say_the_words_they_use_and_their_lost_symbols(snapshot_ds) -> None:
    """"names this rule" was read as a citation of 605 by rulings that say "mana ability"; and the
    Lethal Scheme ruling whose {T} was lost ("a mana ability with in the cost") was listed with no
    warning, as the card page and the search give (a judge's review)."""
    html = (await snapshot_ds.client.get("/rule/605")).text
    assert "uses the term “mana ability”" in html and "names this rule" not in html
    # A way to them from the rule's head.
    assert '<a href="#rulings">Rulings (2) ↓</a>' in html
    # The name a German page printed, in German.
    assert 'lang="de">Tödliches Komplott</a>' in html
    lethal = html[html.index("Tödliches Komplott"):]
    lethal = lethal[:lethal.index("</li>")]
    assert "with in the cost" in lethal and "Some symbols (such as {T} or mana) were lost from this ruling" in lethal


def test_a_ruling_linked_twice_to_the_rule_pushes_no_other_off_the_pages(tmp_path) -> None:
    """The page's rows were capped at a hundred links, not rulings: ten rulings both citing 708
    and saying "face-down creature" pushed ten others off every page, and the older link pointed
    back to the first page (a code review). 190 rulings: 100, then 90, each once."""
    import shutil

    from kb.site.rule_page import rule_page
    from site_databases import built_snapshot_db

    path = tmp_path / "kb.db"
    shutil.copy(built_snapshot_db(), path)
    db = sqlite3.connect(path)
    (lineage,) = db.execute(
        "select lineage_id from rules where number = '708' and version_id like 'en-%' order by version_id desc limit 1").fetchone()
    linked = {row[0] for row in db.execute("select ruling_id from ruling_rules where lineage_id = ?", (lineage,))}
    others = [row for row in db.execute("select id, published_at from rulings where published_at is not null order by id")
              if row[0] not in linked][:190 - len(linked)]
    writer = LinkWriter(sqlite_utils.Database(db))

    def links(method: str, rulings: list[tuple[int, str]]) -> list[tuple]:
        return [tuple({"ruling_id": ruling, "rule_number": "708", "version_id": "en-2026-04-17", "method": method,
                       "lineage_id": lineage, "published_at": date, "status": "same"}.get(column)
                      for column in RULING_RULES_COLUMNS) for ruling, date in rulings]

    writer.write(links("term", others))
    newest = list(db.execute("""select ruling_id, max(published_at) as date from ruling_rules where lineage_id = ?
        group by ruling_id order by date desc, ruling_id desc limit 10""", (lineage,)))
    writer.write(links("cited", newest))
    db.commit()
    first, second = (rule_page(db, "708", None, None, offset) for offset in (0, 100))
    assert first is not None and second is not None
    assert (first["rulings_total"], len(first["rulings"]), len(second["rulings"])) == ((190, False), 100, 90)
    everything = list(dict.fromkeys(row[0] for row in db.execute(EVERY_RULING_SORTED, (lineage,))))
    assert [ruling["id"] for ruling in first["rulings"] + second["rulings"]] == everything
