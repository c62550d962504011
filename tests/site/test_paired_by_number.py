"""Citations across a pairing made by a rule's number alone (``cr_changes.paired_by_number``).

The CR of 2014-09-25 and of 2019-01-25 (real, tests/fixtures/cr/en-raw) are fourteen updates apart:
their 107.14 are the moon symbol (removed in 2015) and the energy symbol (added in 2016), joined
by the pairing's last step because nothing else was left at the number. A ruling that cited 107.14
in 2015 cited the moon symbol; its card page and the rule page it is listed on say that the rule
it leads to was joined by number alone."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils
from click.testing import CliRunner

from kb.build.inputs import path_inputs
from kb.build.publish import build_database
from kb.cli import cli
from site_databases import JACE, make_datasette

FIXTURES = Path(__file__).parent.parent / "fixtures"
JACE_CARD = FIXTURES / "scryfall" / "api-2025-11-01" / "card-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json"
# Constructed for this test, not a real ruling: Jace, Vryn's Prodigy is a real double-faced card
# of Magic Origins (2015), whose back face then carried the moon symbol of 107.14.
MOON_RULING = {
    "object": "ruling", "oracle_id": JACE, "source": "wotc", "published_at": "2015-06-22",
    "comment": "The moon symbol on the back face has no effect on game play (see rule 107.14).",
}
ENERGY_RULING = {
    "object": "ruling", "oracle_id": JACE, "source": "wotc", "published_at": "2019-06-01",
    "comment": "This card's ability pays no energy symbol as described in rule 107.14.",
}


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("by-number")
    rulings = folder / "rulings-constructed.json"
    rulings.write_text(json.dumps({"object": "list", "has_more": False, "data": [MOON_RULING, ENERGY_RULING]}))
    cr = FIXTURES / "cr" / "en-raw"
    path = folder / "kb.db"
    build_database(
        path_inputs([cr / "2014-09-26.txt", cr / "2019-01-25.txt"], source_id="wizards")
        + path_inputs([JACE_CARD, rulings], source_id="scryfall"),
        path,
    )
    return path


@pytest.fixture(scope="module")
def datasette(db_path: Path):
    return make_datasette(db_path)


def test_the_citation_is_stored_as_crossing_a_pairing_by_number(db_path: Path) -> None:
    db = sqlite_utils.Database(db_path)
    assert [(row["published_at"], row["version_id"], row["status"], row["paired_by_number"]) for row in db.query(
        "select * from ruling_rules where rule_number = '107.14' order by published_at"
    )] == [("2015-06-22", "en-2014-09-25", "changed", 1), ("2019-06-01", "en-2019-01-25", "same", 0)]
    assert [(row["cited_number"], row["paired_by_number"]) for row in db.query("select * from citations_to_check")] == [
        ("107.14", 1),
    ]
    output = CliRunner().invoke(cli, ["citations-to-check", "--db", str(db_path)]).output
    assert "2015-06-22 Jace, Vryn's Prodigy // Jace, Telepath Unbound: rule 107.14 (en-2014-09-25) changed, now 107.14" \
        " (paired by its number alone since: it may be another rule)" in output


async def test_a_citation_before_a_pairing_by_number_says_so(datasette) -> None:
    card = (await datasette.client.get(f"/card/{JACE}.json")).json()
    cited = next(rule for rule in card["rules"] if rule["number"] == "107.14")
    assert cited["text"].startswith("The energy symbol is {E}.")
    assert sorted((then["version_id"], then["paired_by_number"]) for then in cited["then"]) == [
        ("en-2014-09-25", True), ("en-2019-01-25", False),
    ]
    page = (await datasette.client.get(f"/card/{JACE}")).text
    assert page.count("was paired with this rule by its number alone: the ruling may have cited another rule") == 1
    rule = (await datasette.client.get("/rule/107.14.json")).json()
    assert sorted((r["published_at"], r["rule_number"], r["paired_by_number"]) for r in rule["rulings"]) == [
        ("2015-06-22", "107.14", True), ("2019-06-01", "107.14", False),
    ]
    text = (await datasette.client.get("/rule/107.14")).text
    assert text.count("was paired with this one by its number alone: it may be another rule") == 1
    # The same rule as 2014 numbered it: the 2015 ruling cited this very text, no note.
    older = (await datasette.client.get("/rule/107.14.json?version=en-2014-09-25")).json()
    assert [(r["published_at"], r["paired_by_number"]) for r in sorted(older["rulings"], key=lambda r: r["published_at"])] == [
        ("2015-06-22", False), ("2019-06-01", True),
    ]


async def test_a_rulings_text_links_the_rules_of_the_cr_it_was_written_against(datasette) -> None:
    page = (await datasette.client.get(f"/card/{JACE}")).text
    # 2015: the moon symbol, 107.14 of the 2014 edition; 2019: 107.14 as it stands today.
    assert '(see rule <a class="rule-ref" href="/rule/107.14?version=en-2014-09-25">107.14</a>)' in page
    assert 'described in rule <a class="rule-ref" href="/rule/107.14">107.14</a>' in page
    card = (await datasette.client.get(f"/card/{JACE}.json")).json()
    assert sorted((r["published_at"], r["cites_version"]) for r in card["rulings"]) == [
        ("2015-06-22", "en-2014-09-25"), ("2019-06-01", None),
    ]
    rule = (await datasette.client.get("/rule/107.14?version=en-2014-09-25")).text
    assert '(see rule <a class="rule-ref" href="/rule/107.14?version=en-2014-09-25">107.14</a>)' in rule
