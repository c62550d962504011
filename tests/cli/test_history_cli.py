"""CR history in the database (kb.store.derive_history) and its commands (kb.cli.history).

The database is built from real fixtures: four English CR versions, the real Scryfall rulings
and the MTGJSON UGIN set. One ruling is added by hand (CONSTRUCTED_RULING below): none of the
real rulings cites a rule number, and "citations to check" needs one that does.
"""
from __future__ import annotations

from pathlib import Path

import click
import pytest
import sqlite_utils
from click.testing import CliRunner

from kb.build.inputs import path_inputs
from kb.build.publish import build_database
from kb.cli.history import citations_to_check, cr_diff, rule_at, rule_trace
from kb.store.derive_history import HISTORY_QUERIES, save_history
from kb.store.schema import stable_id

FIXTURES = Path(__file__).parent.parent / "fixtures"
CR_FILES = ["2022-02-18.txt", "2022-04-29.txt", "2025-02-07.txt", "2026-01-16.txt"]
# Written for this test: a ruling of 2025 that cites Connive by its 2025 number.
CONSTRUCTED_RULING = {
    "id": 1,
    "oracle_id": None,
    "card_name": "Constructed Test Card",
    "published_at": "2025-03-01",
    "text": "The creature connives (see rule 701.47) before the ability resolves.",
    "position": 0,
}


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("history") / "kb.db"
    inputs = [FIXTURES / "cr" / "en-raw" / name for name in CR_FILES]
    inputs += sorted((FIXTURES / "scryfall" / "api-2025-11-01").glob("rulings-*.json"))
    inputs += sorted((FIXTURES / "scryfall" / "api-2025-11-01").glob("card-*.json"))
    inputs += [FIXTURES / "scryfall" / "misc" / "rulings-deathrite-shaman.json",
               FIXTURES / "mtgjson" / "UGIN-v5.2-2022-04-25.json"]
    build_database(path_inputs(inputs), path)
    db = sqlite_utils.Database(path)
    with db.conn:
        db["rulings"].insert(CONSTRUCTED_RULING)
        save_history(db)  # kb.store.derive.link_all calls this in a build once wired
    db.close()
    return path


@pytest.fixture(scope="module")
def db(db_path: Path) -> sqlite_utils.Database:
    return sqlite_utils.Database(db_path)


def _run(command, *args: str) -> str:
    result = CliRunner().invoke(command, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_cr_changes_per_version_pair(db: sqlite_utils.Database) -> None:
    rows = db.execute(
        "select old_version_id, new_version_id, kind, count(*) from cr_changes group by 1, 2, 3 order by 1, 3"
    ).fetchall()
    assert rows == [
        ("en-2022-02-18", "en-2022-04-29", "added", 25),
        ("en-2022-02-18", "en-2022-04-29", "changed", 10),
        ("en-2022-02-18", "en-2022-04-29", "glossary-added", 5),
        ("en-2022-02-18", "en-2022-04-29", "glossary-changed", 3),
        ("en-2022-02-18", "en-2022-04-29", "moved", 16),
        ("en-2022-02-18", "en-2022-04-29", "moved-changed", 2),
        # 310.7 of 2022 (planes' chaos abilities) and of 2025 (a battle's defense) share their number
        # only: not "changed" (kb.link.cr_pairing, _pair_left_in_place); the chaos abilities went
        # to 311.7 with the glossary's "Chaos Ability" (moved-changed).
        # The Saga's lore counter (715.3a) grew read ahead's clause as 714.3a, and meld's 713.3a is
        # the double-faced cards' 712.8b: moved-changed, not removed and added (a judge's review, an
        # audit of identity).
        ("en-2022-04-29", "en-2025-02-07", "added", 402),
        ("en-2022-04-29", "en-2025-02-07", "changed", 290),
        ("en-2022-04-29", "en-2025-02-07", "glossary-added", 81),
        ("en-2022-04-29", "en-2025-02-07", "glossary-changed", 55),
        # Tribal → Kindred, Totem Armor → Umbra Armor, Damage Assignment Order → its obsolete entry.
        ("en-2022-04-29", "en-2025-02-07", "glossary-renamed-changed", 3),
        ("en-2022-04-29", "en-2025-02-07", "moved", 290),
        ("en-2022-04-29", "en-2025-02-07", "moved-changed", 62),
        ("en-2022-04-29", "en-2025-02-07", "removed", 24),
        ("en-2025-02-07", "en-2026-01-16", "added", 95),
        ("en-2025-02-07", "en-2026-01-16", "changed", 131),
        ("en-2025-02-07", "en-2026-01-16", "glossary-added", 23),
        ("en-2025-02-07", "en-2026-01-16", "glossary-changed", 90),
        ("en-2025-02-07", "en-2026-01-16", "glossary-removed", 1),
        ("en-2025-02-07", "en-2026-01-16", "glossary-renamed-changed", 2),
        ("en-2025-02-07", "en-2026-01-16", "moved", 358),
        ("en-2025-02-07", "en-2026-01-16", "moved-changed", 18),
        ("en-2025-02-07", "en-2026-01-16", "removed", 1),
    ]
    connive = db.execute(
        "select kind, old_rule_id, new_rule_id, word_diff from cr_changes where old_number = '701.47'"
        " and new_version_id = 'en-2026-01-16'"
    ).fetchone()
    assert connive == (
        "moved", stable_id("rule", "en-2025-02-07", "701.47"), stable_id("rule", "en-2026-01-16", "701.50"), "Connive",
    )


def test_ruling_rules_rows(db: sqlite_utils.Database) -> None:
    assert db.execute("select method, status, count(*) from ruling_rules group by 1, 2 order by 1, 2").fetchall() == [
        ("cited", "changed", 1),
        ("keyword", "changed", 121),
        ("keyword", "same", 2),
        # Morph's and manifest's rulings: "This is a special action." (116 in 2022, "There are ten
        # special actions"; twelve by 2026-01-16: changed, compared with every rule under it.)
        # The terms whose rules bear their names: "double-faced card" (712, changed), "mana
        # ability" (605, the same since 2022), "face-down" (708; and a permanent turned face up or
        # down, or put onto the battlefield face down), "Commander" (903); and those whose
        # entries point to a rule that says them: "mana value" (202.3), "color identity" (903.4).
        # Not Jace's "banned as a commander in Duel Commander format": a format of its own. And
        # "flip a coin", 705 Flipping a Coin said by its verb. And those an entry points to after
        # another rule's title: "triggered ability" (603), "activated ability" (602), "color
        # indicator" (204, the same today).
        ("term", "changed", 240),
        ("term", "same", 4),
    ]
    # 261 rulings (260 real, one constructed). This database starts at CR 2022-02-18, so older
    # rulings take their keyword numbers from it. Compared with their subrules (a keyword rule is
    # its title alone), 121 keyword links name rules reworded by 2026-01-16 (Okaun's "when it's
    # doubled" linked too), 72 of them renumbered
    # too (Manifest 701.34 -> 701.40, Transform 701.28 -> 701.27, Connive, …), and Partner and
    # Morph under their numbers; Flash and Madness read the same. (Before: 71 renumbered, 51 "same",
    # from the titles alone; 72 before "a transforming double-faced card" stopped naming Transform.)
    assert db["rulings"].count == 261
    rows = db.execute(
        "select rule_number, version_id, method, rule_id, current_number, status from ruling_rules"
        " where ruling_id = 1 order by method"
    ).fetchall()
    rule_id = stable_id("rule", "en-2025-02-07", "701.47")
    assert rows == [
        ("701.47", "en-2025-02-07", "cited", rule_id, "701.50", "changed"),
        ("701.47", "en-2025-02-07", "keyword", rule_id, "701.50", "changed"),
    ]


def test_citations_to_check_view_and_command(db: sqlite_utils.Database, db_path: Path) -> None:
    rows = list(db.query("select ruling_id, cited_number, cited_version, status, current_number, current_title from citations_to_check"))
    # Connive was renumbered and reworded ("Certain spells and abilities", 701.50d): changed.
    assert rows == [
        {"ruling_id": 1, "cited_number": "701.47", "cited_version": "en-2025-02-07", "status": "changed",
         "current_number": "701.50", "current_title": "Connive"},
    ]
    assert _run(citations_to_check, "--db", str(db_path)) == (
        "1 citations to check\n"
        "2025-03-01 Constructed Test Card: rule 701.47 (en-2025-02-07) changed, now 701.50; en-2025-02-07 is only"
        " the newest version held before the ruling, and the next held numbers the rule otherwise: 701.47 may have"
        " been another rule on its date\n"
    )


def test_cr_diff_between_database_versions(db_path: Path) -> None:
    output = _run(cr_diff, "en-2025-02-07", "en-2026-01-16", "--db", str(db_path), "--kind", "moved", "--limit", "2")
    assert output.splitlines() == [
        "en-2025-02-07 -> en-2026-01-16: added 95, removed 1, changed 131, moved 358, moved-changed 18,"
        " glossary-added 23, glossary-removed 1, glossary-changed 90, glossary-renamed 0, glossary-renamed-changed 2",
        "moved            603.2f -> 603.2e: Some trigger events … untapped to tapped.",
        "moved            603.2g -> 603.2f: If a triggered … does not trigger.",
    ]


def test_cr_diff_marks_words_for_a_pipe_and_colours_them_at_a_terminal(db_path: Path) -> None:
    # Station's "{N+}" holds a mark of the markup: piped, it is escaped so the markup reads back;
    # at a terminal the words are coloured and written as the rules write them.
    args = ["en-2025-02-07", "en-2026-01-16", "--db", str(db_path), "--kind", "added"]
    piped = CliRunner().invoke(cr_diff, args, color=False).output
    at_terminal = CliRunner().invoke(cr_diff, args, color=True).output
    station_piped = next(line for line in piped.splitlines() if " -> 721.2a:" in line)
    station_coloured = next(line for line in at_terminal.splitlines() if " -> 721.2a:" in line)
    assert station_piped.endswith(": {+“{N+\\}[abilities]” means “As long as this permanent has N or more charge counters on it,"
                                  " it has [abilities].”+}")
    assert station_coloured.endswith(": \x1b[32m\x1b[4m“{N+}[abilities]” means “As long as this permanent has N or more charge"
                                     " counters on it, it has [abilities].”\x1b[0m")
    assert click.unstyle(at_terminal).count("{+") == 0 < piped.count("{+")
    # Unless the terminal says it shows no colours (a code review).
    for env in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
        assert CliRunner().invoke(cr_diff, args, color=True, env=env).output == piped


def test_cr_diff_across_versions_follows_lineages(db_path: Path) -> None:
    # Two versions lie between: each rule is followed through them, as `rule-trace` and the site's
    # diff page follow it. The meld rules went into the double-faced cards' 712 in 2026: 713.1 is 712.1
    # (compared directly, 2022's 713.1 was "removed"), and 712.8 continues 712.4, which 713.3 joined.
    output = _run(cr_diff, "en-2022-02-18", "en-2026-01-16", "--db", str(db_path))
    pairs = {tuple(word.rstrip(":") for word in line.split()[1:4:2]) for line in output.splitlines()[1:] if line.split()[2:3] == ["->"]}
    assert {("713.1", "712.1"), ("712.4", "712.8"), ("713.3", "-")} <= pairs
    assert ("713.1", "-") not in pairs and ("713.3", "712.8") not in pairs


def test_cr_diff_between_files_of_one_version() -> None:
    output = _run(
        cr_diff,
        str(FIXTURES / "cr" / "en-raw" / "2025-02-07.txt"),
        str(FIXTURES / "cr" / "en-derived" / "2025-02-07-cleaned-lf.txt"),
    )
    assert output.endswith(
        ": added 0, removed 0, changed 0, moved 0, moved-changed 0, glossary-added 0, glossary-removed 0,"
        " glossary-changed 0, glossary-renamed 0, glossary-renamed-changed 0\n"
    )
    assert len(output.splitlines()) == 1


def test_cr_diff_of_an_unknown_version_fails_cleanly(db_path: Path) -> None:
    result = CliRunner().invoke(cr_diff, ["en-1999-01-01", "en-2026-01-16", "--db", str(db_path)])
    assert result.exit_code == 1
    assert "no CR version 'en-1999-01-01' in the database" in result.output
    # A date that no edition took effect on: the editions held nearest it, by their ids (a
    # newcomer read a snapshot file's name, 2025-02-07.txt's neighbour, as an edition's id).
    result = CliRunner().invoke(cr_diff, ["en-2025-06-01", "en-2026-01-16", "--db", str(db_path)])
    assert result.exit_code == 1 and ("no CR version 'en-2025-06-01' in the database; the en editions held nearest that"
                                      " date: en-2025-02-07, en-2026-01-16") in result.output
    # As the site reads a version asked for: any case, a bare date that is an edition's.
    assert CliRunner().invoke(cr_diff, ["EN-2025-02-07", "2026-01-16", "--db", str(db_path)]).exit_code == 0


def test_rule_at_dates_between_versions(db_path: Path) -> None:
    connive = _run(rule_at, "701.47", "2025-06-01", "--db", str(db_path)).splitlines()
    # Editions of 2025 between the two held here renumbered Connive: the answer says so.
    assert connive[:4] == [
        "en-2025-02-07 (the newest version held before 2025-06-01)",
        "(the next held, en-2026-01-16, numbers it 701.50, and 701.47 is another rule there (Amass):"
        " whether 701.47 was this rule on 2025-06-01 is not known)",
        "701.47 Connive",
        "701.47a Certain abilities instruct a permanent to connive. To do so, that permanent’s controller"
        " draws a card, then discards a card. If a nonland card is discarded this way, that player puts a"
        " +1/+1 counter on the conniving permanent.",
    ]
    assert [line.split(" ")[0] for line in connive[3:-1]] == ["701.47a", "701.47b", "701.47c", "701.47d", "701.47e"]
    assert connive[-1] == "(this rule is numbered 701.50 in en-2026-01-16; use --today for today's numbering)"
    assert _run(rule_at, "701.47", "2026-01-16", "--db", str(db_path)).splitlines()[:2] == [
        "en-2026-01-16 (in force on 2026-01-16)", "701.47 Amass",
    ]
    convert = _run(rule_at, "701.50", "2026-01-15", "--db", str(db_path)).splitlines()
    assert convert[2] == "701.50 Convert"
    assert convert[-1] == "(this rule is numbered 701.28 in en-2026-01-16; use --today for today's numbering)"
    # --today: 701.50 is Connive today; on 2025-06-01 the same rule was 701.47.
    assert _run(rule_at, "701.50", "2025-06-01", "--today", "--db", str(db_path)).splitlines()[:3] == [
        "en-2025-02-07 (the newest version held before 2025-06-01)",
        "(the next held, en-2026-01-16, numbers it 701.50, and 701.47 is another rule there (Amass):"
        " whether 701.47 was this rule on 2025-06-01 is not known)",
        "701.47 Connive",
    ]
    # Where the next version held numbers the rule the same, the version is relied on, and said
    # to be in force only if no edition the database lacks came between (a CR history review).
    assert _run(rule_at, "702.19", "2025-06-01", "--db", str(db_path)).splitlines()[:2] == [
        "en-2025-02-07 (the newest version held on 2025-06-01: in force then unless an edition not held came"
        " between it and en-2026-01-16)", "702.19 Trample",
    ]
    assert _run(rule_at, "702.19", "2026-06-01", "--db", str(db_path)).splitlines()[0] == (
        "en-2026-01-16 (the newest version held on 2026-06-01, in force from 2026-01-16)"
    )
    before = CliRunner().invoke(rule_at, ["701.47", "2022-01-01", "--db", str(db_path)])
    assert before.exit_code == 1
    assert "no English CR version in the database was in force on 2022-01-01" in before.output
    # A date in any other form is refused: compared as text, "June 1 2025" sorted after every
    # version's date and the newest edition's 701.50 (Connive) was said to be in force then.
    for written in ("June 1 2025", "2025-6-1", "20250601", "2025-02-30", "garbage"):
        refused = CliRunner().invoke(rule_at, ["701.50", written, "--db", str(db_path)])
        assert refused.exit_code == 2 and "is not a date written YYYY-MM-DD" in refused.output, written


def test_rule_at_canned_query(db: sqlite_utils.Database) -> None:
    rows = list(db.query(HISTORY_QUERIES["rule_on_date"]["sql"], {"number": "701.50", "date": "2025-12-31"}))
    assert [(r["version_id"], r["number"], r["title"]) for r in rows] == [("en-2025-02-07", "701.50", "Convert")]
    assert rows[0]["subrules"].split("\n")[0].startswith("701.50a To convert a permanent")
    for written in ("June 1, 2025", "20260201", "2025-02-30", "garbage"):
        for query in ("rule_on_date", "rule_today_on_date"):
            assert list(db.query(HISTORY_QUERIES[query]["sql"], {"number": "701.50", "date": written})) == [], written
    today = list(db.query(HISTORY_QUERIES["rule_today_on_date"]["sql"], {"number": "701.50", "date": "2025-12-31"}))
    assert [(r["version_id"], r["number"], r["title"]) for r in today] == [("en-2025-02-07", "701.47", "Connive")]
    lineage = list(db.query(HISTORY_QUERIES["rule_lineage"]["sql"], {"number": "701.50"}))
    assert [(r["version_id"], r["number"]) for r in lineage] == [
        ("en-2022-04-29", "701.47"), ("en-2025-02-07", "701.47"), ("en-2026-01-16", "701.50"),
    ]
    changes = list(db.query(HISTORY_QUERIES["version_changes"]["sql"], {"version": "en-2022-04-29", "offset": ""}))
    assert len(changes) == 61
    paged = list(db.query(HISTORY_QUERIES["version_changes"]["sql"], {"version": "en-2022-04-29", "offset": "60"}))
    assert paged == changes[60:]


def test_rule_trace_follows_connive(db_path: Path) -> None:
    assert _run(rule_trace, "701.50", "--db", str(db_path)).splitlines() == [
        "lineage en-2022-04-29/701.47",
        "en-2022-02-18: (absent)",
        "en-2022-04-29: 701.47 Connive [added]",
        "en-2025-02-07: 701.47 Connive [same]",
        "en-2026-01-16: 701.50 Connive [moved]",
    ]
    assert _run(rule_trace, "701.50", "--version", "en-2025-02-07", "--db", str(db_path)).splitlines() == [
        "lineage en-2025-02-07/701.50",
        "en-2022-02-18: (absent)",
        "en-2022-04-29: (absent)",
        "en-2025-02-07: 701.50 Convert [added]",
        "en-2026-01-16: 701.28 Convert [moved]",
    ]


def test_rule_trace_says_when_a_rule_was_paired_by_its_number_alone(db_path: Path) -> None:
    # 903.12c of 2025 ("A player designates … as their commander") and of 2026 ("Each deck has a
    # legendary card designated as its commander …") are 19 % alike: the number alone paired them.
    lines = _run(rule_trace, "903.12c", "--version", "en-2026-01-16", "--db", str(db_path)).splitlines()
    assert [line for line in lines if line.startswith("en-")] == [
        "en-2022-02-18: 903.12c [first]",
        "en-2022-04-29: 903.12c [same]",
        "en-2025-02-07: 903.12c [same]",
        "en-2026-01-16: 903.12c [changed; paired by its number alone, the texts 19 % alike]",
    ]


def test_rule_trace_says_what_a_rule_was_split_off(db_path: Path) -> None:
    # 2026's 500.5b was "[added]", though split off 2025's 500.5, as the rule page says (a review of
    # the oldest editions' history: 2003-10's protection rule 502.7b).
    lines = _run(rule_trace, "500.5b", "--version", "en-2026-01-16", "--db", str(db_path)).splitlines()
    assert [line for line in lines if line.startswith("en-2026")] == ["en-2026-01-16: 500.5b [split off 500.5 of en-2025-02-07]"]
    lines = _run(rule_trace, "500.5", "--version", "en-2025-02-07", "--db", str(db_path)).splitlines()
    assert [line for line in lines if line.startswith("en-2026")] == [
        "en-2026-01-16: 500.5a [moved-changed; split into 500.5b of en-2026-01-16]"]


def test_rule_at_today_says_when_a_number_alone_leads_to_todays_rule(db_path: Path) -> None:
    output = _run(rule_at, "903.12c", "2025-06-01", "--today", "--db", str(db_path)).splitlines()
    assert output[:3] == [
        "en-2025-02-07 (the newest version held on 2025-06-01: in force then unless an edition not held came"
        " between it and en-2026-01-16)",
        "903.12c",
        "A player designates either a legendary planeswalker or a legendary creature as their commander.",
    ]
    assert output[-1] == (
        "(between en-2025-02-07 and en-2026-01-16 this rule was paired with the rule left at its number by that"
        " number alone: today's rule may be another one)"
    )
    assert "number alone" not in _run(rule_at, "903.12c", "2026-02-01", "--db", str(db_path))


def test_lineages_keep_connive_and_convert_apart(db: sqlite_utils.Database) -> None:
    lineage = lambda version, number: db.execute(  # noqa: E731
        "select lineage_id from rules where version_id = ? and number = ?", [version, number]
    ).fetchone()[0]
    connive = lineage("en-2026-01-16", "701.50")
    assert connive == "en-2022-04-29/701.47" == lineage("en-2025-02-07", "701.47")
    convert = lineage("en-2025-02-07", "701.50")
    assert convert == "en-2025-02-07/701.50" == lineage("en-2026-01-16", "701.28")
    assert lineage("en-2025-02-07", "701.50a") == lineage("en-2026-01-16", "701.28a") != lineage("en-2026-01-16", "701.50a")
    row = db["rule_lineages"].get(connive)
    assert (row["current_number"], row["title"], row["numbers"], row["versions"]) == ("701.50", "Connive", "701.47,701.50", 3)
    # Every English rule has a lineage; each lineage has at most one member per version.
    assert db.execute("select count(*) from rules where lineage_id is null and version_id like 'en-%'").fetchone() == (0,)
    assert db.execute(
        "select count(*) from (select lineage_id, version_id from rules where lineage_id is not null"
        " group by 1, 2 having count(distinct number) > 1)"
    ).fetchone() == (0,)


def test_a_ruling_that_cites_a_rule_and_names_its_keyword_is_listed_once_on_its_page(db_path: Path) -> None:
    import sqlite3

    from kb.site.rule_page import rule_page

    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    page = rule_page(conn, "701.50")
    assert page is not None
    constructed = [ruling for ruling in page["rulings"] if ruling["id"] == 1]
    assert [(ruling["method"], ruling["rule_number"]) for ruling in constructed] == [("cited", "701.47")]
