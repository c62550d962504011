"""Building the knowledge base: atomic, idempotent, and safe against bad input."""
from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils
from click.testing import CliRunner

from kb.build.inputs import BuildError, path_inputs, snapshot_inputs
from kb.build.publish import build_database, content_digest
from kb.cli import cli
from kb.store.tables import TABLES

ROOT = Path(__file__).parent.parent.parent
CR = Path(__file__).parent.parent / "fixtures" / "cr"

EXPECTED_COUNTS = {
    # file: (effective date, numbered rules, glossary entries)
    "en-raw/2026-01-16.txt": ("2026-01-16", 3114, 725),
    "en-raw/2025-02-07.txt": ("2025-02-07", 3022, 703),
    "en-raw/2024-02-06.txt": ("2024-02-02", 2937, 673),
    # The issue's figures for 2022 are 621 and 616 glossary entries, counted as blank-line
    # separated blocks; in both official files "Affinity" follows "Adventurer Card" with no
    # blank line between them (…Adventurer Cards.”\rAffinity\rA keyword ability…), so the
    # document has one entry more than its blocks (see tests/test_cr_txt.py).
    "en-raw/2022-04-29.txt": ("2022-04-29", 2651, 622),
    "en-raw/2022-02-18.txt": ("2022-02-18", 2626, 617),
    "en-raw/2019-01-25.txt": ("2019-01-25", 2328, 554),
    "en-raw/2014-09-26.txt": ("2014-09-25", 2008, 496),
    "en-raw/2013-04-29.txt": ("2013-05-01", 1930, 476),
    # Second batch (counts in tests/parse/test_cr_txt.py); 2009 prints 702.30d twice: the second
    # is read as 702.30e, which it does not print.
    "en-raw-batch2/2021-06-09.txt": ("2021-06-18", 2530, 591),
    "en-raw-batch2/2009-10-01.txt": ("2009-10-01", 1600, 424),
    "en-raw-batch2/2003-10-01.txt": ("2003-10-01", 686, 299),
}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def small_snapshot(tmp_path: Path) -> Path:
    snapshot = tmp_path / "snapshot"
    (snapshot / "cr").mkdir(parents=True)
    shutil.copy(CR / "en-raw" / "2026-01-16.txt", snapshot / "cr" / "2026-01-16.txt")
    shutil.copy(CR / "en-raw" / "2019-01-25.txt", snapshot / "cr" / "2019-01-25.txt")
    return snapshot


def test_build_writes_exact_rules_and_is_idempotent(small_snapshot: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    build_database(snapshot_inputs(small_snapshot), db_path)
    db = sqlite_utils.Database(db_path)
    assert set(TABLES) <= set(db.table_names())
    versions = {row["id"]: row for row in db["cr_versions"].rows}
    assert set(versions) == {"en-2026-01-16", "en-2019-01-25"}
    assert versions["en-2026-01-16"]["rule_count"] == 3114
    assert versions["en-2026-01-16"]["glossary_count"] == 725
    conspire = db.execute(
        "select kind, title, text, parent_number from rules where version_id = 'en-2026-01-16' and number = '702.78'"
    ).fetchone()
    assert conspire == ("rule", "Conspire", "", "702")
    subrules = [row[0] for row in db.execute(
        "select number from rules where version_id = 'en-2026-01-16' and parent_number = '702.78' order by position"
    )]
    assert subrules == ["702.78a", "702.78b"]
    refs = [row[0] for row in db.execute(
        "select target_number from rule_refs join rules on rules.id = rule_refs.rule_id"
        " where rules.version_id = 'en-2026-01-16' and rules.number = '702.78a' order by target_number"
    )]
    assert refs == ["601.2b", "601.2f", "601.2g", "601.2h"]
    # The cross-reference resolves to the rule of the same version.
    assert db.execute(
        "select count(*) from rule_refs join rules on rules.id = rule_refs.target_rule_id"
        " where rules.version_id = 'en-2026-01-16' and rules.number = '601.2b'"
    ).fetchone()[0] >= 1
    # Full-text search with diacritics folded.
    hits = db.execute(
        "select rules.number from rules_fts join rules on rules.rowid = rules_fts.rowid"
        " where rules_fts match 'conspire' and rules.version_id = 'en-2026-01-16'"
    ).fetchall()
    assert ("702.78",) in hits
    first = content_digest(db)
    db.close()
    build_database(snapshot_inputs(small_snapshot), db_path)
    assert content_digest(sqlite_utils.Database(db_path)) == first


def test_bad_input_leaves_existing_database_untouched(small_snapshot: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    build_database(snapshot_inputs(small_snapshot), db_path)
    before = sha(db_path)
    truncated = small_snapshot / "cr" / "2022-04-29.txt"
    truncated.write_bytes((CR / "en-raw" / "2022-04-29.txt").read_bytes()[:300_000])
    with pytest.raises(BuildError) as raised:
        build_database(snapshot_inputs(small_snapshot), db_path)
    assert "2022-04-29.txt" in str(raised.value)
    assert sha(db_path) == before
    assert not list(tmp_path.glob(".kb.db.building-*"))


def test_an_empty_snapshot_folder_leaves_the_database_as_it_is(small_snapshot: Path, tmp_path: Path) -> None:
    """`mtgkb build --snapshot <empty folder>` exited 0 and swapped an empty database in for the
    served one (a docs review): a mistyped path or a mount not there yet."""
    from kb.cli import cli

    db_path = tmp_path / "kb.db"
    build_database(snapshot_inputs(small_snapshot), db_path)
    before = sha(db_path)
    empty = tmp_path / "empty"
    (empty / "cr").mkdir(parents=True)
    (empty / "README.md").write_text("notes, not data\n")
    result = CliRunner().invoke(cli, ["build", "--snapshot", str(empty), "--db", str(db_path)])
    assert result.exit_code == 1
    assert result.output.strip().endswith(f"{empty}: no files to build from; the database is left as it is")
    assert sha(db_path) == before


def test_a_database_path_under_a_file_is_refused_in_one_line_naming_the_file(tmp_path: Path) -> None:
    """`mtgkb import --db notes.txt/x.db` said "no database there yet: a new one is made", then
    "cannot write beside the database: File exists" (a docs review): one line, naming the file."""
    from kb.cli import cli

    (tmp_path / "notes.txt").write_text("not a folder\n")
    db_path = tmp_path / "notes.txt" / "x.db"
    for argv in (["import", "--db", str(db_path), str(CR / "en-raw" / "2022-04-29.txt")],
                 ["build", "-q", "--snapshot", str(CR / "en-raw"), "--db", str(db_path)]):
        result = CliRunner().invoke(cli, argv)
        assert (result.exit_code, result.output) == (1, f"Error: {db_path}: {tmp_path / 'notes.txt'} is not a folder\n")
    # A link to nothing stands in the way as well (it said "a new one is made", then "File exists").
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    result = CliRunner().invoke(cli, ["import", "--db", str(tmp_path / "gone" / "x.db"), str(CR / "en-raw" / "2022-04-29.txt")])
    assert (result.exit_code, result.output) == (1, f"Error: {tmp_path / 'gone' / 'x.db'}: {tmp_path / 'gone'} is not a folder\n")


def test_build_finds_the_bundled_snapshot_from_any_folder(tmp_path: Path, monkeypatch) -> None:
    from kb.cli.paths import DEFAULT_SNAPSHOT

    monkeypatch.chdir(tmp_path)
    assert DEFAULT_SNAPSHOT == Path(__file__).resolve().parents[2] / "data" / "snapshot"
    assert snapshot_inputs(DEFAULT_SNAPSHOT)


def test_cli_import_reports_one_line_and_keeps_database(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    runner = CliRunner()
    result = runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "en-raw" / "2022-02-18.txt")])
    assert result.exit_code == 0, result.output
    before = sha(db_path)
    not_a_cr = tmp_path / "notes.txt"
    not_a_cr.write_text("Shopping list\n\nmilk\neggs\n", encoding="utf-8")
    result = runner.invoke(cli, ["import", "--db", str(db_path), str(not_a_cr)])
    assert result.exit_code != 0
    assert "notes.txt" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert sha(db_path) == before
    binary = tmp_path / "random.bin"
    binary.write_bytes(bytes(range(256)) * 40)
    result = runner.invoke(cli, ["import", "--db", str(db_path), "--format", "cr-txt", str(binary)])
    assert result.exit_code != 0 and "random.bin" in result.output
    assert sha(db_path) == before
    # An empty folder: refused (it made a new file of the same rows on every run, exit 0).
    empty = tmp_path / "inbox"
    empty.mkdir()
    result = runner.invoke(cli, ["import", "--db", str(db_path), str(empty)])
    assert (result.exit_code, result.stderr.strip()) == (1, f"Error: {empty}: no file to import (an empty folder)")
    # A language code no table spells: refused (it made a CR version "xx-pages-local", exit 0).
    result = runner.invoke(cli, ["import", "--db", str(db_path), "--lang", "xx", str(CR / "en-raw" / "2022-02-18.txt")])
    assert result.exit_code == 1 and result.stderr.startswith("Error: --lang: unknown language code 'xx' (known: en, es,")
    assert sha(db_path) == before
    # A database not there yet is made, and said to be new: a mistyped --db is seen.
    other = tmp_path / "typo" / "kb.db"
    result = runner.invoke(cli, ["import", "--db", str(other), str(CR / "en-raw" / "2022-02-18.txt")])
    assert result.exit_code == 0 and f"{other}: no database there yet: a new one is made" in result.stderr


def edition_and_its_copy(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A real edition, a copy of it with other line endings, and where their database goes."""
    original = CR / "en-raw" / "2003-03-15.txt"
    copy = tmp_path / "2003-03-15-lf.txt"
    copy.write_bytes(original.read_bytes().replace(b"\r\n", b"\n"))
    return original, copy, tmp_path / "kb.db"


def test_a_copy_of_a_known_edition_with_other_line_endings_lists_its_format_notes_once(tmp_path: Path) -> None:
    original, copy, db_path = edition_and_its_copy(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "--db", str(db_path), str(original)]).exit_code == 0
    assert runner.invoke(cli, ["import", "--db", str(db_path), str(copy)]).exit_code == 0
    db = sqlite_utils.Database(db_path)
    copy_id = db.execute("select document_id from cr_versions where id = 'en-2003-03-15'").fetchone()[0]
    notes = db.execute("select document_id, detail from quality_issues where kind = 'cr-format' order by detail").fetchall()
    # Each note of the edition once, from the copy whose rules are stored (they were listed twice).
    assert [document_id for document_id, _detail in notes] == [copy_id] * 8
    assert notes[0][1].startswith(f"{copy}: prints mana and tap symbols as plain letters")
    assert notes[1][1] == f"{copy}: subrule 214.8k follows 214.8i: 214.8j is not in the file"


def test_a_copy_from_another_source_of_an_edition_stored_from_its_official_file_is_not_read(tmp_path: Path) -> None:
    # The last copy imported won: an official edition was then read from a hand-imported copy,
    # its source "local", its method still "official".
    original, copy, db_path = edition_and_its_copy(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "--db", str(db_path), "--source", "wizards", str(original)]).exit_code == 0
    result = runner.invoke(cli, ["import", "--db", str(db_path), str(copy)])
    assert result.exit_code == 0 and "unofficial-copy 1" in result.output
    db = sqlite_utils.Database(db_path)
    assert db.execute(
        "select documents.source_id, documents.path from cr_versions join documents on documents.id = cr_versions.document_id"
    ).fetchall() == [("wizards", str(original))]
    assert db.execute("select count(*) from quality_issues where kind = 'cr-format'").fetchone()[0] == 8


def test_an_import_into_an_older_database_says_a_whole_build_fills_what_it_adds(tmp_path: Path) -> None:
    # An import ran the migrations of a file an older version made, exit 0 and no word; a card's
    # faces (m017), which only reading its documents again gives, stayed empty until a build.
    db_path = tmp_path / "kb.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "en-raw" / "2022-02-18.txt")]).exit_code == 0
    with sqlite3.connect(db_path) as conn:
        conn.execute("delete from _sqlite_migrations where name = 'm018_quality_issue_records'")
    conn.close()
    result = runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "en-raw" / "2022-04-29.txt")])
    assert result.exit_code == 0
    assert "made by an older version: migrated (m018_quality_issue_records); what the new columns hold" in result.stdout
    again = runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "en-raw" / "2025-02-07.txt")])
    assert again.exit_code == 0 and "older version" not in again.stdout


@pytest.mark.long_proof
def test_import_every_official_file_gives_the_expected_counts(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    files = sorted((CR / "en-raw").glob("*.txt")) + sorted((CR / "en-derived").glob("*.txt"))
    files += sorted((CR / "en-raw-batch2").glob("*.txt"))
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), *map(str, files)])
    assert result.exit_code == 0, result.output
    db = sqlite_utils.Database(db_path)
    for name, (effective, rules, glossary) in EXPECTED_COUNTS.items():
        row = db.execute(
            "select rule_count, glossary_count from cr_versions where id = ?", [f"en-{effective}"]
        ).fetchone()
        assert row == (rules, glossary), name
    assert db.execute("select count(*) from cr_versions where lang = 'en'").fetchone()[0] == 14
    assert db.execute(
        "select count(*) from rule_examples join rules on rules.id = rule_examples.rule_id"
        " where rules.version_id = 'en-2026-01-16'"
    ).fetchone()[0] == 276


def test_list_formats_names_every_reader() -> None:
    result = CliRunner().invoke(cli, ["import", "--list-formats"])
    assert result.exit_code == 0
    names = {line.split()[0] for line in result.output.splitlines()}
    assert {"cr-txt", "cr-zh-txt", "cr-ko-md", "cr-rule-page", "card-page-capture"} <= names


SCRYFALL = Path(__file__).parent.parent / "fixtures" / "scryfall" / "api-2025-11-01"


def test_bad_rulings_document_is_refused_or_recorded_as_failed(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    jace = SCRYFALL / "rulings-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json"
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", str(jace)]).exit_code == 0
    before = sha(db_path)
    truncated = tmp_path / "rulings-truncated.json"
    truncated.write_bytes(jace.read_bytes()[:2000])
    result = runner.invoke(cli, ["import", "--db", str(db_path), "--format", "scryfall-rulings", str(truncated)])
    assert result.exit_code == 1
    assert "rulings-truncated.json" in result.output and len(result.output.strip().splitlines()) == 1
    assert sha(db_path) == before
    # With --keep-going the document is kept as a failed document; nothing stored is lost.
    result = runner.invoke(
        cli, ["import", "--db", str(db_path), "--keep-going", "--format", "scryfall-rulings", str(truncated)]
    )
    assert result.exit_code == 2, result.output
    db = sqlite_utils.Database(db_path)
    failed = list(db.query("select path, status, error from documents where status = 'failed'"))
    assert len(failed) == 1 and failed[0]["path"].endswith("rulings-truncated.json")
    assert "rulings-truncated.json" in failed[0]["error"]
    assert db.execute("select count(*) from rulings").fetchone()[0] == 16
    assert db.execute(
        "select count(*) from quality_issues where kind = 'unreadable-document'"
    ).fetchone()[0] == 1


def test_rulings_seen_in_two_sources_are_stored_once(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    alrund = sorted(SCRYFALL.glob("rulings-*alrund*.json"))
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", *map(str, alrund)])
    assert result.exit_code == 0, result.output
    db = sqlite_utils.Database(db_path)
    # Two card ids of one oracle id (plus the empty A- list): one set of 13 rulings, each
    # seen twice.
    assert db.execute("select count(distinct oracle_id), count(*) from rulings").fetchone() == (1, 13)
    assert db.execute("select count(*) from ruling_sightings").fetchone()[0] == 26
    assert [row[0] for row in db.execute("select source from rulings order by position")].count("scryfall") == 1


def test_fetch_wizards_cr_then_build_records_the_document(site, tmp_path: Path, monkeypatch) -> None:
    """`mtgkb fetch wizards-cr` against the local test site (the real saved rules page and a
    real CR file), then `mtgkb build --raw`: the CR is a version and its document is recorded."""
    from scraper.cli import fetch as fetch_command
    from sitekit import fast_client

    monkeypatch.setattr("scraper.fetch.PoliteClient", lambda **kwargs: fast_client(**kwargs))
    raw = tmp_path / "raw"
    runner = CliRunner()
    fetched = runner.invoke(
        fetch_command, ["wizards-cr", "--raw", str(raw), "--base-url", f"wizards-cr={site.url('wizards-cr')}"]
    )
    assert fetched.exit_code == 0, fetched.output
    empty = tmp_path / "empty-snapshot"
    empty.mkdir()
    db_path = tmp_path / "kb.db"
    built = runner.invoke(cli, ["build", "--snapshot", str(empty), "--raw", str(raw), "--db", str(db_path)])
    assert built.exit_code == 0, built.output
    db = sqlite_utils.Database(db_path)
    (document,) = db.query("select source_id, url, sha256, format, status from documents")
    assert document["source_id"] == "wizards"
    assert document["url"].endswith("/2024/downloads/MagicCompRules%2020240607.txt")
    assert (document["format"], document["status"]) == ("cr-txt", "parsed")
    version = db["cr_versions"].get("en-2022-02-18")
    assert version["rule_count"] == 2626


def test_documents_without_rules_or_rulings_are_named_for_what_they_are(tmp_path: Path) -> None:
    listing = Path(__file__).parent.parent / "fixtures" / "scryfall" / "misc" / "bulk-data-2023-04-04.json"
    result = CliRunner().invoke(cli, ["import", "--db", str(tmp_path / "kb.db"), str(listing)])
    assert result.exit_code == 1
    assert "bulk-data-2023-04-04.json: a Scryfall /bulk-data listing" in result.output
    assert "holds no rules or rulings to import" in result.output
    assert not (tmp_path / "kb.db").exists()
    # The CR archive's listing (the real rulesraker file) names the official files' addresses:
    # it was called "a page linking to the Comprehensive Rules".
    metadata = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw" / "metadata.json"
    result = CliRunner().invoke(cli, ["import", "--db", str(tmp_path / "kb.db"), str(metadata)])
    assert result.exit_code == 1
    assert "metadata.json: the CR archive's metadata.json (a list of editions and their files;" in result.output


def test_cr_cut_in_its_glossary_is_kept_only_as_a_truncated_edition(tmp_path: Path) -> None:
    """Refused without --keep-going; with it, the whole rules part is kept, flagged truncated."""
    data = (CR / "en-raw" / "2026-01-16.txt").read_bytes()
    cut = tmp_path / "cut.txt"
    cut.write_bytes(data[: data.index(b"\rWorld Rule\r")])
    db = refused_then_kept(cut, "truncated: no 'Credits'")
    version = db.execute(
        "select rule_count, status from cr_versions where id = 'en-2026-01-16'"
    ).fetchone()
    assert version == (3114, "truncated in its glossary")
    assert db.execute("select status from documents").fetchall() == [("failed",)]


@pytest.mark.parametrize(("year", "reason"), [
    (b"2062", "is more than a year ahead: a misprint"),
    (b"1962", "is before the first Comprehensive Rules (1999)"),
])
def test_a_cr_dated_where_no_cr_can_be_is_refused(tmp_path: Path, year: bytes, reason: str) -> None:
    """Its date is a CR's identity: dated 2062, the file would have been the current rules."""
    data = (CR / "en-raw" / "2026-01-16.txt").read_bytes()
    assert data.count(b"January 16, 2026") == 2  # the header's date line and the closing one
    path = tmp_path / "misdated.txt"
    path.write_bytes(data.replace(b"January 16, 2026", b"January 16, " + year))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(path)])
    assert result.exit_code == 1
    assert f"misdated.txt: effective date 'January 16, {year.decode()}' ({year.decode()}-01-16) {reason}" in result.output
    assert not db_path.exists()


@pytest.mark.parametrize("as_bulk", [False, True])
def test_printings_in_another_language_without_their_printed_name_are_named(tmp_path: Path, as_bulk: bool) -> None:
    """Every real printing in another language gives its printed name. With the field renamed,
    a search page (or an all_cards file) gave no foreign name and said nothing."""
    import json

    page = (CR.parent / "scryfall" / "api-2025-11-01" / "search-langany-594f6881-jace-vryn-s-prodigy-jace-telepath-unboun.json").read_bytes()
    renamed = page.replace(b'"printed_name"', b'"printed_title"')
    path = tmp_path / ("cards.jsonl" if as_bulk else "cards.json")
    if as_bulk:
        path.write_text("".join(json.dumps(card) + "\n" for card in json.loads(renamed)["data"]))
    else:
        path.write_bytes(renamed)
    db_path = tmp_path / "kb.db"
    args = ["--format", "scryfall-bulk-cards"] if as_bulk else []
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), *args, str(path)])
    assert result.exit_code == 0, result.output
    # (The page's back faces print their loyalty lines glued, "…Zug.−3: …": a joined-printed-lines issue of its own.)
    issues = sqlite_utils.Database(db_path).execute(
        "select kind, detail from quality_issues where kind != 'joined-printed-lines'").fetchall()
    assert issues == [(
        "unnamed-printing",
        f"{path}: 10 printings in a language other than English give no printed name"
        " (first: Jace, Vryn's Prodigy // Jace, Telepath Unbound (de)): their names in that language are missing",
    )]


def test_mtgjson_foreign_data_without_names_is_named(tmp_path: Path) -> None:
    import json

    data = json.loads((CR.parent / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_bytes())
    for card in data["data"]["cards"]:
        for foreign in card.get("foreignData") or []:
            foreign["title"] = foreign.pop("name")
    path = tmp_path / "UGIN.json"
    path.write_text(json.dumps(data))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(path)])
    assert result.exit_code == 0, result.output
    # (Its texts print each line glued to the next: a joined-printed-lines issue of their own.)
    assert sqlite_utils.Database(db_path).execute(
        "select kind, detail from quality_issues where kind != 'joined-printed-lines'").fetchall() == [(
        "unnamed-printing",
        f"{path}: 260 printings in a language other than English give no printed name"
        " (first: Ugin, the Spirit Dragon (de)): their names in that language are missing",
    )]


@pytest.mark.parametrize(("field", "cards"), [("rulings", 24), ("foreignData", 26)])
def test_mtgjson_cards_with_a_renamed_list_are_flagged(tmp_path: Path, field: str, cards: int) -> None:
    """A card's rulings or printings in other languages under another name were never read, and
    the file imported without a word: every ruling of the set lost."""
    import json

    data = json.loads((CR.parent / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_bytes())
    for card in data["data"]["cards"]:
        if field in card:
            card[field + "V6"] = card.pop(field)
    path = tmp_path / "UGIN.json"
    path.write_text(json.dumps(data))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(path)])
    assert result.exit_code == 0, result.output
    # The printings in other languages, when read, print each line glued to the next (joined-printed-lines).
    joined = "joined-printed-lines 1, " if field == "rulings" else ""
    assert f"quality issues of these files: {joined}layout-changed 21" in result.output
    issues = {row[0] for row in sqlite_utils.Database(db_path).execute(
        "select detail from quality_issues where kind = 'layout-changed'")}
    assert len(issues) == 21
    first = next(number for number, card in enumerate(data["data"]["cards"], 1) if card.get(field + "V6"))
    assert (
        f"{path}: card {first}: {data['data']['cards'][first - 1]['name']!r} holds a list of objects under '{field}V6',"
        " which MTGJSON's card object has never had (its lists are foreignData and rulings): not read;"
        " a renamed field's rulings or printings would be lost"
    ) in issues
    assert f"{path}: {cards} cards in all with this issue" in issues


@pytest.mark.parametrize("source", ["scryfall", "scryfall-bulk", "mtgjson"])
def test_a_card_without_its_rules_text_is_flagged(tmp_path: Path, source: str) -> None:
    """Scryfall gives every single-faced card its oracle_text ("" for a card without rules text);
    MTGJSON leaves "text" out only for a card with no text in any language. With the field
    renamed, the cards were stored without their text and nothing said so."""
    import json

    if source == "mtgjson":
        data = json.loads((CR.parent / "mtgjson" / "UGIN-v5.2-2022-04-25.json").read_bytes())
        for card in data["data"]["cards"]:
            card["rulesText"] = card.pop("text")
        path = tmp_path / "UGIN.json"
        path.write_text(json.dumps(data))
        expected = "26 card objects give no rules text where their source always gives one (first: Ugin, the Spirit Dragon (en))"
    else:
        page = json.loads((CR.parent / "scryfall" / "api-2025-11-01" / "search-langany-d0e99535-phelddagrif.json").read_bytes())
        for card in page["data"]:
            card["oracle_txt"] = card.pop("oracle_text")
        path = tmp_path / ("cards.jsonl" if source == "scryfall-bulk" else "cards.json")
        path.write_text("".join(json.dumps(card) + "\n" for card in page["data"]) if source == "scryfall-bulk" else json.dumps(page))
        expected = "7 card objects give no rules text where their source always gives one (first: Phelddagrif (en))"
    db_path = tmp_path / "kb.db"
    args = ["--format", "scryfall-bulk-cards"] if source == "scryfall-bulk" else []
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), *args, str(path)])
    assert result.exit_code == 0, result.output
    issues = sqlite_utils.Database(db_path).execute("select kind, detail from quality_issues where kind = 'missing-text'").fetchall()
    assert issues == [("missing-text", f"{path}: {expected}: their text is missing")]


def test_printed_texts_whose_line_breaks_were_lost_are_flagged(tmp_path: Path) -> None:
    """MTGJSON's real UGIN file prints its foreignData texts with each line glued to the next
    ("InitiativeMue {4}{R}…"): one issue names it, counting the printings that show it (12 cards
    of several English lines in nine languages, and 11 in German, whose Ugin kept its breaks: 119;
    before, Chinese, Japanese and Korean texts were counted only where a sign showed a glued line,
    77, and the other 42 were shown run together with no note)."""
    path = CR.parent / "mtgjson" / "UGIN-v5.2-2022-04-25.json"
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(path)])
    assert result.exit_code == 0, result.output
    issues = sqlite_utils.Database(db_path).execute("select kind, detail from quality_issues where kind = 'joined-printed-lines'").fetchall()
    assert issues == [("joined-printed-lines", f"{path}: 119 printings print their text on one line where the card's English text"
                       " has several, each line glued to the next (first: Ugin, the Spirit Dragon (es)):"
                       " their source lost the line breaks; kept as printed, read as lines where each break is plain"
                       " (for keywords, and on the card page)")]
    # Kept as printed.
    printed = sqlite_utils.Database(db_path).execute(
        "select printed_text from printings where lang = 'fr' and printed_text like 'InitiativeMue%'").fetchone()
    assert printed == ("InitiativeMue {4}{R} (Vous pouvez lancer cette carte face cachée comme une créature 2/2 pour {3}."
                       " Retournez-la à tout moment pour son coût de mue.)",)


def refused_then_kept(cut: Path, refusal: str) -> sqlite_utils.Database:
    """Import ``cut``: refused with ``refusal``; with --keep-going kept (exit 2), flagged truncated."""
    db_path = cut.parent / "kb.db"
    refused = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(cut)])
    assert refused.exit_code != 0 and refusal in refused.output
    kept = CliRunner().invoke(cli, ["import", "--db", str(db_path), "--keep-going", str(cut)])
    assert kept.exit_code == 2, kept.output
    # Said kept, not only "could not be read" beside "0 documents" (a docs review).
    assert kept.output.rstrip().endswith("(its rules are kept, the edition marked incomplete)"), kept.output
    db = sqlite_utils.Database(db_path)
    kinds = {row[0] for row in db.execute("select kind from quality_issues")}
    assert {"unreadable-document", "truncated-document"} <= kinds
    return db


def test_chinese_cr_cut_in_its_glossary_is_kept_only_as_a_truncated_edition(tmp_path: Path) -> None:
    """The translation is refused as the English file is: kept with --keep-going, every rule of
    it, marked truncated, never as complete."""
    lines = (CR.parent / "cr-zh" / "2025-02-07-zh.txt").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "zh.txt"
    cut.write_bytes(b"".join(lines[:7999]))
    db = refused_then_kept(cut, "zh.txt: truncated: no '版权信息' (credits) after the glossary")
    # Every numbered rule and subrule, as the whole file gives (parts and sections aside).
    assert db.execute("select id, rule_count, status from cr_versions").fetchall() == [
        ("zhs-2025-02-07", 3022, "truncated in its glossary")
    ]
    assert db.execute("select count(*) from glossary").fetchone()[0] == 387
    db.close()
    # Its page says so, and what the reading found.
    page = asyncio.run(site_page(tmp_path / "kb.db", "/version/zhs-2025-02-07"))
    assert "This file was cut short (truncated in its glossary)" in page
    assert "the file ends inside the glossary (after 387 whole entries)" in page


async def site_page(db_path: Path, path: str) -> str:
    from site_databases import make_datasette

    response = await make_datasette(db_path).client.get(path)
    assert response.status_code == 200, path
    return response.text


def test_a_ruling_dropped_for_want_of_text_stays_reported_after_the_build(tmp_path: Path) -> None:
    """The checks drop a ruling whose text is blank or only zero-width characters, with an
    empty-ruling issue; the derive used to delete every empty-ruling issue it had not made, so
    the build published none. A list whose every ruling lost its text is refused."""
    import json

    jace = json.loads((CR.parent / "scryfall" / "api-2025-11-01" / "rulings-02d6d693-jace-vryn-s-prodigy-jace-telepath-unboun.json").read_text())
    jace["data"][0]["comment"] = ""
    jace["data"][1]["comment"] = "\u200b"
    path = tmp_path / "jace-rulings.json"
    path.write_text(json.dumps(jace))
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(path)])
    assert result.exit_code == 0, result.output
    db = sqlite_utils.Database(db_path)
    assert db.execute("select count(*) from rulings").fetchone()[0] == 14
    assert db.execute("select detail from quality_issues where kind = 'empty-ruling' order by detail").fetchall() == [
        (f"{path}: ruling 1 has no text; dropped",), (f"{path}: ruling 2 has no text; dropped",),
    ]
    for ruling in jace["data"]:
        ruling["comment"] = " "
    path.write_text(json.dumps(jace))
    refused = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(path)])
    assert refused.exit_code == 1 and f"{path}: none of its 16 rulings has any text; refused" in refused.output


def test_a_database_whose_path_holds_hash_and_question_marks_is_read_where_it_is(tmp_path: Path) -> None:
    # "file:{path}?mode=ro" cut such a path at "#": the import opened (and created) "kb " beside it.
    folder = tmp_path / "odd #1?x=%20"
    folder.mkdir()
    db_path = folder / "kb #2.db"
    rulings = str(SCRYFALL / "rulings-d9631cb2-phelddagrif.json")
    runner = CliRunner()
    for _ in range(2):
        result = runner.invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", rulings])
        assert result.exit_code == 0, result.output
    # No other file opened (and created) beside it or its folder but its writer lock.
    assert sorted(path.name for path in folder.iterdir()) == [".kb #2.db.lock", "kb #2.db"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [folder.name]
    # The second import read the file it was given: every input already there, nothing rebuilt.
    assert "nothing changed (every file is already in it as it is)" in result.output, result.output


def test_a_file_imported_again_without_a_source_keeps_the_one_recorded(tmp_path: Path) -> None:
    # It was relabelled "local" and its rulings derived again (their search keys renumbered).
    rulings = CR.parent / "scryfall" / "misc" / "rulings-deathrite-shaman.json"
    db_path = tmp_path / "a #1?" / "kb.db"  # read by a URI: "#" and "?" must not end its path
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", str(rulings)]).exit_code == 0
    before = sha(db_path)
    again = runner.invoke(cli, ["import", "--db", str(db_path), str(rulings)])
    assert again.exit_code == 0 and "nothing changed" in again.output
    assert sha(db_path) == before
    # A file the database does not hold is local, as before.
    other = tmp_path / "other.json"
    other.write_bytes(rulings.read_bytes().replace(b"2016-06-08", b"2016-06-09"))
    assert runner.invoke(cli, ["import", "--db", str(db_path), str(other)]).exit_code == 0
    assert sqlite_utils.Database(db_path).execute(
        "select source_id from documents order by source_id").fetchall() == [("local",), ("scryfall",)]


def test_a_snapshot_file_imported_again_by_hand_is_the_document_its_url_names(tmp_path: Path) -> None:
    """The bundled snapshot's files are named by the addresses they were published at: one
    imported again by hand (same bytes, same file name) was added a second time as "local", with
    no URL, and its card's Oracle text credited to the copy (an upgrade's review)."""
    import shutil

    from site_databases import built_snapshot_db

    db_path = tmp_path / "kb.db"
    shutil.copy(built_snapshot_db(), db_path)
    before = sha(db_path)
    card = ROOT / "data" / "snapshot" / "scryfall" / "card-d9631cb2-phelddagrif.json"
    copied = tmp_path / card.name  # read from elsewhere, as an operator would
    copied.write_bytes(card.read_bytes())
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(copied)])
    assert result.exit_code == 0 and "nothing changed" in result.output, result.output
    assert sha(db_path) == before


def test_a_file_holding_the_bytes_of_a_held_document_under_another_name_is_not_read_again(tmp_path: Path) -> None:
    """The snapshot's UGIN.json imported again as "UGIN-v5.2-2022-04-25.json" was a second
    document with every row twice; the next refresh read the bytes once and refused it as a shrink,
    in every run after (an upgrade's review)."""
    import shutil

    from site_databases import built_snapshot_db

    db_path = tmp_path / "kb.db"
    shutil.copy(built_snapshot_db(), db_path)
    before = sha(db_path)
    copied = tmp_path / "UGIN-v5.2-2022-04-25.json"
    copied.write_bytes((ROOT / "data" / "snapshot" / "mtgjson" / "UGIN.json").read_bytes())
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(copied)])
    assert result.exit_code == 0, result.output
    assert "the same bytes as https://mtgjson.com/api/v5/UGIN.json" in result.output and "nothing changed" in result.output
    assert sha(db_path) == before
    # Not a printing's rulings list, though: two printings' lists are one file's bytes, each a
    # sighting of its printing's rulings (test_rulings_seen_in_two_sources_are_stored_once).
    alrund = sorted(SCRYFALL.glob("rulings-*alrund*.json"))
    lists = tmp_path / "lists.db"
    assert CliRunner().invoke(cli, ["import", "--db", str(lists), "--source", "scryfall", str(alrund[0])]).exit_code == 0
    second = CliRunner().invoke(cli, ["import", "--db", str(lists), "--source", "scryfall", str(alrund[2])])
    assert second.exit_code == 0 and "the same bytes" not in second.output, second.output
    assert sqlite_utils.Database(lists).execute("select count(*) from ruling_sightings").fetchone() == (26,)


def test_two_copies_given_in_one_import_are_read_once(tmp_path: Path) -> None:
    """Two copies of one file given in one `mtgkb import` were two documents, every row twice, as a
    copy given later was before the check of held documents (the last pass's note)."""
    ugin = (ROOT / "data" / "snapshot" / "mtgjson" / "UGIN.json").read_bytes()
    first, second = tmp_path / "UGIN.json", tmp_path / "UGIN-copy.json"
    first.write_bytes(ugin)
    second.write_bytes(ugin)
    db_path = tmp_path / "kb.db"
    result = CliRunner().invoke(cli, ["import", "--db", str(db_path), str(first), str(second)])
    assert result.exit_code == 0, result.output
    assert "UGIN-copy.json: the same bytes as " in result.output and "UGIN.json, given before it: read once" in result.output
    db = sqlite_utils.Database(db_path)
    assert db.execute("select count(*) from documents").fetchone() == (1,)
    once = db.execute("select count(*) from ruling_sightings").fetchone()[0]
    alone = tmp_path / "alone.db"
    assert CliRunner().invoke(cli, ["import", "--db", str(alone), str(first)]).exit_code == 0
    assert sqlite_utils.Database(alone).execute("select count(*) from ruling_sightings").fetchone() == (once,)
    # One file given twice (a folder and a file inside it): one document, and said so (a code review:
    # the summary said "2 documents").
    again = tmp_path / "again.db"
    twice = CliRunner().invoke(cli, ["import", "--db", str(again), str(first), str(tmp_path / "." / ".." / tmp_path.name / first.name)])
    assert twice.exit_code == 0 and "UGIN.json: given twice: read once" in twice.output, twice.output
    assert sqlite_utils.Database(again).execute("select count(*) from documents").fetchone() == (1,)
    # A snapshot whose manifest names one file's bytes under two addresses: one document too.
    snapshot = tmp_path / "snapshot"
    (snapshot / "mtgjson").mkdir(parents=True)
    for name in ("UGIN.json", "UGIN-mirror.json"):
        (snapshot / "mtgjson" / name).write_bytes(ugin)
    (snapshot / "manifest.json").write_text(json.dumps([
        {"path": "mtgjson/UGIN.json", "url": "https://mtgjson.com/api/v5/UGIN.json", "source": "mtgjson", "lang": None,
         "fetched_at": None},
        {"path": "mtgjson/UGIN-mirror.json", "url": "https://mirror.example/UGIN.json", "source": "mtgjson", "lang": None,
         "fetched_at": None}]), encoding="utf-8")
    built = CliRunner().invoke(cli, ["build", "--snapshot", str(snapshot), "--db", str(tmp_path / "built.db")])
    assert built.exit_code == 0, built.output
    assert "UGIN.json: the same bytes as " in built.output and ": read once" in built.output
    assert sqlite_utils.Database(tmp_path / "built.db").execute("select count(*) from ruling_sightings").fetchone() == (once,)
    # A printing's rulings list given twice is still two sightings (OWN_BYTES_NOT_OWN_IDENTITY).
    alrund = sorted(SCRYFALL.glob("rulings-*alrund*.json"))
    lists = tmp_path / "lists.db"
    both = CliRunner().invoke(cli, ["import", "--db", str(lists), "--source", "scryfall", str(alrund[0]), str(alrund[2])])
    assert both.exit_code == 0 and "the same bytes" not in both.output, both.output
    assert sqlite_utils.Database(lists).execute("select count(*) from ruling_sightings").fetchone() == (26,)


def test_an_import_into_a_database_another_writer_holds_fails_rather_than_relabel(tmp_path: Path, monkeypatch) -> None:
    """The database was read for the files' sources while another writer held it: the error was
    taken for "no such database", the files recorded as "local" once the writer let go."""
    import sqlite3

    import kb.build.inputs as inputs_module
    from kb.build.inputs import with_known_sources

    rulings = CR.parent / "scryfall" / "misc" / "rulings-deathrite-shaman.json"
    db_path = tmp_path / "kb.db"
    assert CliRunner().invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", str(rulings)]).exit_code == 0
    real_connect = sqlite3.connect
    monkeypatch.setattr(inputs_module.sqlite3, "connect", lambda *args, **kwargs: real_connect(*args, **{**kwargs, "timeout": 0.1}))
    holder = real_connect(db_path)
    holder.execute("begin exclusive")
    try:
        with pytest.raises(BuildError, match="database is locked: try again when the other writer is done"):
            with_known_sources(path_inputs([rulings]), db_path)
    finally:
        holder.rollback()
        holder.close()
    assert [doc.source_id for doc in with_known_sources(path_inputs([rulings]), db_path)] == ["scryfall"]


def test_the_cr_files_others_stored_are_not_credited_to_wizards(snapshot_conn: sqlite3.Connection) -> None:
    """Venser's Journal's 17 editions (some without a URL) were credited to Wizards, and the-arbiter's
    April 2026 file, the current rules, to "Files imported by hand" (a data review): a query for
    the files as Wizards served them found 30."""
    by_source = dict(snapshot_conn.execute(
        "select documents.source_id, count(*) from cr_versions join documents on documents.id = cr_versions.document_id"
        " where cr_versions.lang = 'en' group by 1"
    ).fetchall())
    assert by_source == {"wizards": 13, "cr-copies": 18}
    urls = [url for (url,) in snapshot_conn.execute(
        "select url from documents where source_id = 'wizards' and id in (select document_id from cr_versions)")]
    assert len(urls) == 13 and all("wizards.com" in url for url in urls)
    assert snapshot_conn.execute("select kind from sources where id = 'cr-copies'").fetchone()[0] == "aggregator"


@pytest.mark.parametrize(("damage", "said"), [
    ("garbage", "file is not a database"),
    ("half", "database disk image is malformed"),
])
def test_a_damaged_database_to_build_on_is_named_not_the_new_file(tmp_path: Path, damage: str, said: str) -> None:
    """A served file cut short, emptied or overwritten was reported as "could not write the new
    database", which reads as a build or disk problem (an operator's review)."""
    db_path = tmp_path / "kb.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "en-raw" / "2003-03-15.txt")]).exit_code == 0
    whole = db_path.read_bytes()
    db_path.write_bytes({"garbage": b"not a database " * 4096, "half": whole[: len(whole) // 2]}[damage])
    before = db_path.read_bytes()
    result = runner.invoke(cli, ["import", "--db", str(db_path), str(CR / "en-raw" / "2006-02-01.txt")])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {db_path}: the database this builds on is damaged ({said}")
    assert "Restore it from a backup; or move it aside and run again" in result.stderr
    assert db_path.read_bytes() == before


def test_another_programs_database_to_build_on_is_said_to_be_no_knowledge_base(tmp_path: Path) -> None:
    """A SQLite file of another layout at --db: "could not write the new database: no such table:
    old.rulings" read as a disk problem, in the build's own names (an operator's review)."""
    import sqlite3

    db_path = tmp_path / "kb.db"
    other = sqlite3.connect(db_path)
    other.execute("create table t (x)")
    other.commit()
    other.close()
    before = db_path.read_bytes()
    snapshot = tmp_path / "snapshot"
    (snapshot / "cr").mkdir(parents=True)
    (snapshot / "cr" / "2006-02-01.txt").write_bytes((CR / "en-raw" / "2006-02-01.txt").read_bytes())
    for command in (["import", "--db", str(db_path), str(CR / "en-raw" / "2006-02-01.txt")],
                    ["build", "--snapshot", str(snapshot), "--db", str(db_path)]):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"Error: {db_path}: not a knowledge base: it has no documents or rulings table"
                                        " (another program's file, or a wrong --db?); it is left as it is"), result.output
        assert db_path.read_bytes() == before


def test_a_build_that_fails_lets_go_of_its_unfinished_file(tmp_path: Path) -> None:
    """The new file is unlinked when a build fails; held open, its blocks stayed taken, and a disk
    the build had filled stayed full while the refresh recorded the run, which was then read as
    "killed or crashed" (an operator's review)."""
    import os

    def fail(db: sqlite_utils.Database) -> None:
        raise BuildError("constructed failure after the build")

    rulings = SCRYFALL / "rulings-d9631cb2-phelddagrif.json"
    with pytest.raises(BuildError, match="constructed failure"):
        build_database(path_inputs([rulings], source_id="scryfall"), tmp_path / "kb.db", before_swap=fail)
    held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")]
    assert not [path for path in held if ".kb.db.building-" in path]
    assert not [path for path in tmp_path.iterdir() if path.name != ".kb.db.lock"]  # the writer lock's file stays


def test_a_build_over_a_file_with_documents_imported_by_hand_says_it_drops_them(tmp_path: Path) -> None:
    """`mtgkb build` starts again from the files it is given: the documents an operator imported
    into the file it replaces were gone with exit 0 and no word (an upgrade's review)."""
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    (snapshot / "rulings.json").write_bytes((SCRYFALL / "rulings-d9631cb2-phelddagrif.json").read_bytes())
    db_path = tmp_path / "kb.db"
    runner = CliRunner()
    first = runner.invoke(cli, ["build", "--snapshot", str(snapshot), "--db", str(db_path), "--quiet"])
    assert first.exit_code == 0 and "Note:" not in first.stderr, first.output
    imported = SCRYFALL / "rulings-94eea6e3-okaun-eye-of-chaos-okaun-eye-of-chaos.json"
    assert runner.invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", str(imported)]).exit_code == 0
    again = runner.invoke(cli, ["build", "--snapshot", str(snapshot), "--db", str(db_path), "--quiet"])
    assert again.exit_code == 0
    assert again.stderr == (
        f"Note: the file this build replaced held 1 document it was not given ({imported}): the new file does not"
        " hold it. `mtgkb import` it again to keep it.\n"
    )
    # A document fetched from the web is no file to import again (an upgrade's review).
    assert runner.invoke(cli, ["import", "--db", str(db_path), "--source", "scryfall", str(imported)]).exit_code == 0
    with sqlite3.connect(db_path) as conn:
        conn.execute("update documents set url = 'https://api.scryfall.com/cards/x/rulings', path = null where path = ?",
                     [str(imported)])
    fetched = runner.invoke(cli, ["build", "--snapshot", str(snapshot), "--db", str(db_path), "--quiet"])
    assert fetched.exit_code == 0
    assert fetched.stderr == (
        "Note: the file this build replaced held 1 document it was not given (https://api.scryfall.com/cards/x/rulings):"
        " the new file does not hold it. To keep it: those fetched from the web come back with `mtgkb build --raw DIR`"
        " (the raw store that fetched them) or the next `mtgkb refresh`.\n"
    )


def test_a_raw_store_seeded_from_the_snapshot_adds_only_what_it_holds_beyond_it(tmp_path: Path) -> None:
    """docs/refresh.md seeds the first refresh's raw store with `--snapshot data/snapshot`; `mtgkb
    build --raw` then read every snapshot file twice: "138 documents" said, each file's quality
    issues recorded under both paths (a newcomer's review)."""
    from kb.refresh.inputs import seed_from_snapshot
    from scraper.rawstore import RawStore

    snapshot = tmp_path / "snapshot"
    (snapshot / "pages").mkdir(parents=True)
    # The real French rulings page of the snapshot: 16 rulings of no card, their issues each.
    shutil.copy(ROOT / "data" / "snapshot" / "pages" / "fr-conspiracy-rulings.txt", snapshot / "pages")
    raw = tmp_path / "raw"
    with RawStore(raw) as store:
        assert seed_from_snapshot(store, snapshot) == 1
    runner = CliRunner()
    alone = runner.invoke(cli, ["build", "--snapshot", str(snapshot), "--db", str(tmp_path / "alone.db")])
    both = runner.invoke(cli, ["build", "--snapshot", str(snapshot), "--raw", str(raw), "--db", str(tmp_path / "both.db")])
    assert alone.exit_code == both.exit_code == 0, both.output
    counted = [sqlite_utils.Database(tmp_path / name).execute(
        "select (select count(*) from documents), (select count(*) from quality_issues), (select count(*) from rulings)"
    ).fetchone() for name in ("alone.db", "both.db")]
    assert counted[0] == counted[1] and counted[0][:2] == (1, 50)
    assert "ruling-without-card 16," in both.output and ": 1 document in" in both.output
    # Seeded from a copy of a snapshot in another folder, a rulings list of no address is the
    # snapshot's still, not another printing's (a code review).
    lists = tmp_path / "lists"
    lists.mkdir()
    shutil.copy(sorted(SCRYFALL.glob("rulings-*alrund*.json"))[0], lists / "rulings.json")
    shutil.copytree(lists, tmp_path / "copy")
    with RawStore(tmp_path / "raw-copy") as store:
        assert seed_from_snapshot(store, tmp_path / "copy") == 1
    elsewhere = runner.invoke(cli, ["build", "--snapshot", str(lists), "--raw", str(tmp_path / "raw-copy"),
                                    "--db", str(tmp_path / "elsewhere.db")])
    assert elsewhere.exit_code == 0 and ": 1 document in" in elsewhere.output, elsewhere.output
    # Another printing's rulings list of the same bytes, fetched into the raw store, is a document of
    # its own, a sighting of that printing's rulings (a code review: it was dropped as the snapshot's).
    alrund = sorted(SCRYFALL.glob("rulings-*alrund*.json"))
    shutil.copy(alrund[0], snapshot / "rulings-a.json")
    with RawStore(raw) as store:
        store.import_file(alrund[2], "https://api.scryfall.com/cards/b751cf69-0a02-4cd2-abd4-cdb65ca620a8/rulings",
                          source="scryfall")
    printings = runner.invoke(cli, ["build", "--snapshot", str(snapshot), "--raw", str(raw), "--db", str(tmp_path / "p.db")])
    assert printings.exit_code == 0, printings.output
    assert sqlite_utils.Database(tmp_path / "p.db").execute("select count(*) from ruling_sightings").fetchone() == (26 + 16,)
