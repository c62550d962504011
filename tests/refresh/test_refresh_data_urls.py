"""A body under one of a source's document URLs that no format reads as that document: its source
fails and the body before it stands in (an operator's review: MTGJSON's file of no cards, or an
error object, was left out as a page, exit 0, nothing failed and nothing stood in)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from kb.refresh.job import refresh
from kb.refresh.runs import RefreshResult
from sitekit import FakeClock, TestSite, fast_client

UGIN = "/mtgjson/api/v5/UGIN.json"
ZH_TREE = "/github-raw/HeliumOctahelide/magic-comp-rules-zh-cn/master/scripts/20250207.json"
SITE = Path(__file__).parent.parent / "fixtures" / "site"


def run(site: TestSite, tmp_path: Path, sources: list[str], **options: object) -> RefreshResult:
    with fast_client(FakeClock()) as client:
        return refresh(
            tmp_path / "raw", tmp_path / "kb.db", sources=sources, base_urls=site.base_urls(),
            fetch_options={"client": client, **options}, progress=False,
        )


@pytest.mark.parametrize("body", [
    b'{"meta": {"version": "5.2.0"}, "data": []}',
    b'{"meta": {"version": "5.2.0"}, "data": {}}',
    b'{"error": "Not found"}',
])
def test_an_mtgjson_file_of_no_cards_fails_its_source_and_the_last_good_one_stands_in(
    site: TestSite, tmp_path: Path, body: bytes
) -> None:
    first = run(site, tmp_path, ["mtgjson"], mtgjson_sets=["UGIN"])
    assert first.exit_code == 0, first.message
    rulings = sqlite_utils.Database(tmp_path / "kb.db")["rulings"].count
    assert rulings == 204
    site.replace(UGIN, body, "application/json")
    bad = run(site, tmp_path, ["mtgjson"], mtgjson_sets=["UGIN"])
    assert (bad.exit_code, bad.failed_sources) == (2, ["mtgjson"]), bad.message
    (unreadable,) = bad.changes["unreadable"]
    assert unreadable["url"].endswith(UGIN) and unreadable["replaced_by_earlier"] is True
    assert bad.failure_reasons["mtgjson"].startswith(unreadable["url"] + ": ")
    assert sqlite_utils.Database(tmp_path / "kb.db")["rulings"].count == rulings


def test_a_chinese_rule_tree_whose_layout_changed_is_refused_on_a_first_refresh(site: TestSite, tmp_path: Path) -> None:
    # Its "subrules" renamed: only the chapters were read, and a version of no rules was published
    # as complete, exit 0 (nothing was served before it to shrink from).
    tree = json.loads((SITE / "cr-zh" / "20250207.json").read_text(encoding="utf-8"))
    renamed = json.dumps(tree, ensure_ascii=False).replace('"subrules"', '"children"').encode()
    site.replace(ZH_TREE, renamed, "text/plain; charset=utf-8")
    result = run(site, tmp_path, ["cr-zh"])
    assert (result.exit_code, result.failed_sources) == (2, ["cr-zh"]), result.message
    assert "children" in result.failure_reasons["cr-zh"]
    versions = {row["id"]: row["rule_count"] for row in sqlite_utils.Database(tmp_path / "kb.db")["cr_versions"].rows}
    assert all(count for count in versions.values()), versions


CR_URL = "/wizards-media/2024/downloads/MagicCompRules 20240607.txt"
RULES_PAGE = "/wizards/en/rules"
EN_RAW = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw"
APRIL_2026 = Path(__file__).parent.parent.parent / "data" / "snapshot" / "cr" / "en" / "2026-04-17.txt"


# Three or four refreshes of whole editions each (4–5 s): run by `make proofs` and CI.
@pytest.mark.long_proof
def test_an_edition_that_lost_rules_its_neighbours_print_fails_its_source_once(site: TestSite, tmp_path: Path) -> None:
    """Published with its quality issue, as an import keeps it; but not with exit 0: an edition
    missing 214 rules was, its diff announcing them removed (an operator's review)."""
    for edition in (EN_RAW / "2025-02-07.txt", APRIL_2026):
        site.replace(CR_URL, edition, "text/plain")
        assert run(site, tmp_path, ["wizards-cr"]).exit_code == 0
    lines = (EN_RAW / "2026-01-16.txt").read_bytes().splitlines(keepends=True)
    # Plot's subrules 702.170b–f, which nothing cites (a run the file cites is refused at once).
    first = next(index for index, line in enumerate(lines) if line.startswith(b"702.170b "))
    after = next(index for index, line in enumerate(lines) if line.startswith(b"702.171. "))
    site.replace(CR_URL, b"".join(lines[:first] + lines[after:]), "text/plain")
    damaged = run(site, tmp_path, ["wizards-cr"])
    assert (damaged.exit_code, damaged.status, damaged.published, damaged.failed_sources) == (2, "partial", True, ["wizards-cr"])
    assert "en-2026-01-16" in damaged.changes["new_cr_versions"]
    [lost] = damaged.changes["lost_in_source"]
    assert (lost["url"].endswith("MagicCompRules%2020240607.txt"), lost["kind"]) == (True, "missing-between-versions")
    assert lost["detail"].startswith("en-2026-01-16: 5 rules of en-2025-02-07 are missing from it and back in en-2026-04-17")
    assert damaged.failure_reasons["wizards-cr"] == f"{lost['url']}: {lost['detail']}"
    assert run(site, tmp_path, ["wizards-cr"]).exit_code == 0  # nothing new: said once


@pytest.mark.long_proof
def test_an_edition_published_again_corrected_replaces_the_damaged_body_of_its_date(site: TestSite, tmp_path: Path) -> None:
    """Every body of a CR file's URL is an edition (Wizards reuse the URL), but not a body the
    site replaced by another of the same date: the damaged one stayed the edition's text for good
    and the correction became "en-2026-01-16-wizards"; a refresh refused for the damage was
    refused in every run after the site served the correction (an operator's review)."""
    site.replace(CR_URL, EN_RAW / "2025-02-07.txt", "text/plain")
    assert run(site, tmp_path, ["wizards-cr"]).exit_code == 0
    real = (EN_RAW / "2026-01-16.txt").read_bytes()
    start = real.index(b"\r702.19a ")
    site.replace(CR_URL, real[:start] + real[start:real.index(b"\r", start + 1)] + real[start:], "text/plain")
    damaged = run(site, tmp_path, ["wizards-cr"])
    assert damaged.published, damaged.message
    db = sqlite_utils.Database(tmp_path / "kb.db")
    assert db.execute("select count(*) from rules where version_id = 'en-2026-01-16' and number = '702.19a'").fetchone()[0] == 2
    db.close()
    site.replace(CR_URL, real, "text/plain")
    corrected = run(site, tmp_path, ["wizards-cr"])
    assert corrected.exit_code == 0, corrected.message
    db = sqlite_utils.Database(tmp_path / "kb.db")
    assert [row[0] for row in db.execute("select id from cr_versions order by id")] == ["en-2025-02-07", "en-2026-01-16"]
    assert db.execute("select count(*) from rules where version_id = 'en-2026-01-16' and number = '702.19a'").fetchone()[0] == 1


@pytest.mark.long_proof
@pytest.mark.parametrize("damage", ["cut", "doubled"])
def test_a_good_edition_published_again_damaged_keeps_its_text(site: TestSite, tmp_path: Path, damage: str) -> None:
    """The other way round: the damaged body is not the edition's text, and is kept beside it as a
    conflicting copy, said so (the newest alone replaced the good text, exit 0: a code review)."""
    real = (EN_RAW / "2026-01-16.txt").read_bytes()
    site.replace(CR_URL, real, "text/plain")
    assert run(site, tmp_path, ["wizards-cr"]).exit_code == 0
    # Plot's subrules 702.170b–f cut (nothing cites them: a run the file cites is refused at once).
    start, after = real.index(b"\r702.170b "), real.index(b"\r702.171. ")
    cut = real[:start] + real[after:]
    start = real.index(b"\r702.19a ")
    site.replace(CR_URL, cut if damage == "cut"
                 else real[:start] + real[start:real.index(b"\r", start + 1)] + real[start:], "text/plain")
    again = run(site, tmp_path, ["wizards-cr"])
    assert again.changes.get("quality_issues", {}).get("conflicting-version") == {"before": 0, "after": 1}, again.message
    db = sqlite_utils.Database(tmp_path / "kb.db")
    counts = dict(db.execute("select version_id, count(*) from rules group by version_id").fetchall())
    assert counts["en-2026-01-16"] == 3269 and counts["en-2026-01-16-wizards"] != 3269
    # Not in force on its date: never the current rules (the copy sorted after the edition and
    # became them, Vigilance "not in the current rules": a refresh review).
    assert db.execute("select distinct version_id from current_rules").fetchall() == [("en-2026-01-16",)]
    db.close()
    # The edition's file published again whole: the copy goes with its body, which is no loss (the
    # guard refused it every night, "rules would shrink -49%", until --allow-shrink).
    site.replace(CR_URL, real, "text/plain")
    fixed = run(site, tmp_path, ["wizards-cr"])
    assert fixed.exit_code == 0, fixed.message
    assert "conflicting copies gone (their edition's file published again whole): en-2026-01-16-wizards;" in fixed.message
    db = sqlite_utils.Database(tmp_path / "kb.db")
    assert [row[0] for row in db.execute("select id from cr_versions order by id")] == ["en-2026-01-16"]


@pytest.mark.long_proof
def test_a_site_without_etags_that_rolls_back_to_a_good_body_is_read_again(site: TestSite, tmp_path: Path) -> None:
    """An operator's review: a server sending no ETag served an edition its build refused (rules
    its glossary cites cut from its middle), then the good one again, dated as before. Asked by
    the refused body's date, it answered 304, and the source failed every night ("still the body
    it serves"). The URL is asked for whole while its stored body is one a build could not read."""
    site.etags = False
    good = (EN_RAW / "2022-02-18.txt").read_bytes()
    site.replace(CR_URL, good, "text/plain", last_modified=1_700_000_000)
    assert run(site, tmp_path, ["wizards-cr"]).exit_code == 0
    cut = good.index(b"702.20. Vigilance")
    site.replace(CR_URL, good[:cut] + good[good.index(b"702.30. Echo", cut):], "text/plain", last_modified=1_800_000_000)
    refused = run(site, tmp_path, ["wizards-cr"])
    assert refused.exit_code == 2 and "rules lost from the middle of the file" in refused.failure_reasons["wizards-cr"]
    site.replace(CR_URL, good, "text/plain", last_modified=1_700_000_000)  # the site mended, its old date
    mended = run(site, tmp_path, ["wizards-cr"])
    assert mended.exit_code == 0, mended.message
    assert site.requests_to(CR_URL)[-1]["status"] == 200


def test_an_edition_linked_under_a_new_file_name_is_not_a_rebuild(site: TestSite, tmp_path: Path) -> None:
    """The same bytes under a new name are the same document: the rules page linking the edition
    as "MagicCompRules 20240901.txt" rebuilt and swapped the database, two documents of one
    edition, exit 0, and the message said nothing of why (an operator's review)."""
    assert run(site, tmp_path, ["wizards-cr"]).exit_code == 0
    served = (tmp_path / "kb.db").read_bytes()
    renamed = CR_URL.replace("20240607", "20240901")
    site.replace(renamed, site._body(site._route(CR_URL)), "text/plain")  # type: ignore[arg-type]
    page = site._body(site._route(RULES_PAGE))  # type: ignore[arg-type]
    site.replace(RULES_PAGE, page.replace(b"MagicCompRules 20240607.txt", b"MagicCompRules 20240901.txt"),
                 "text/html; charset=utf-8")
    again = run(site, tmp_path, ["wizards-cr"])
    assert (again.exit_code, again.published) == (0, False), again.message
    assert again.message.startswith("nothing changed: 1 documents as published; the same bytes as a published"
                                    " document under a new URL: "), again.message
    assert again.message.endswith(renamed.replace(" ", "%20")), again.message
    assert (tmp_path / "kb.db").read_bytes() == served


def test_one_bodys_bytes_under_two_addresses_are_read_once(site: TestSite, tmp_path: Path) -> None:
    """A set's file served under a second address (a mirror, a renamed set): two documents of every
    row, 408 sightings of UGIN's 204 rulings (a code review; `mtgkb import` and `build` read such
    copies once)."""
    site.replace("/mtgjson/api/v5/UGN.json", site._body(site._route(UGIN)), "application/json")  # type: ignore[arg-type]
    result = run(site, tmp_path, ["mtgjson"], mtgjson_sets=["UGIN", "UGN"])
    assert result.exit_code == 0, result.message
    (once,) = result.changes["read_once"]
    assert {once["url"].rsplit("/", 1)[1], once["same_bytes_as"].rsplit("/", 1)[1]} == {"UGIN.json", "UGN.json"}
    db = sqlite_utils.Database(tmp_path / "kb.db")
    assert db.execute("select count(*) from documents where source_id = 'mtgjson'").fetchone() == (1,)
    assert db.execute("select count(*) from ruling_sightings").fetchone() == (204,)
