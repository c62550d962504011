"""A whole build that replaces a file copies that file's citations of the rulings that did not
change (kb.store.carry_links), and ends exactly as a build that links every ruling."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlite_utils

from kb.build.inputs import path_inputs
from kb.build.publish import build_database, content_digest
from kb.store.carry_links import linking_code_files, linking_code_fingerprint
from kb.store.schema import RULING_RULES_VIEW

FIXTURES = Path(__file__).parent.parent / "fixtures"
SCRYFALL = FIXTURES / "scryfall" / "api-2025-11-01"
CR = FIXTURES / "cr" / "en-raw"
CARDS = sorted(SCRYFALL.glob("card-*.json"))
RULINGS = sorted(SCRYFALL.glob("rulings-*.json"))
# Two consecutive official versions: a history, and rulings dated under each.
VERSIONS = [CR / "2025-02-07.txt", CR / "2026-01-16.txt"]


def inputs(rulings: list[Path], versions: list[Path] = VERSIONS) -> list:
    return path_inputs(versions, source_id="wizards") + path_inputs([*CARDS, *rulings], source_id="scryfall")


def digest(path: Path) -> str:
    return content_digest(sqlite_utils.Database(path))


def count(path: Path, sql: str) -> int:
    return sqlite_utils.Database(path).execute(sql).fetchone()[0]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The file a rebuild replaces, every ruling linked by this build."""
    path = tmp_path_factory.mktemp("served") / "kb.db"
    build_database(inputs(RULINGS), path)
    assert count(path, "select count(*) from ruling_rules") > 10
    return path


def test_the_same_inputs_carry_every_ruling_and_give_the_same_file(served: Path, tmp_path: Path) -> None:
    # Read from a path with characters a file URI must escape.
    odd = tmp_path / "served #1?x=%20.db"
    shutil.copy(served, odd)
    rebuilt = tmp_path / "kb.db"
    report = build_database(inputs(RULINGS), rebuilt, carry_from=odd)
    assert report.links_carried == count(served, "select count(*) from rulings") > 0
    assert digest(rebuilt) == digest(served)


def test_changed_rulings_are_linked_again_and_the_rest_carried(served: Path, tmp_path: Path) -> None:
    # Jace's rulings file of the next day: one ruling reworded to cite a rule, one gone, one dated
    # anew (a ruling's date chooses the CR version it relies on).
    jace = next(path for path in RULINGS if "jace" in path.name)
    body = json.loads(jace.read_text(encoding="utf-8"))
    first, second, third = body["data"][:3]
    first["comment"] += " (See rule 702.19b.)"
    third["published_at"] = "2025-06-13"
    body["data"].remove(second)
    changed_rulings = tmp_path / jace.name
    changed_rulings.write_text(json.dumps(body), encoding="utf-8")
    # And Phelddagrif renamed: its rulings keep their text and date, but a ruling's own card
    # name is never read as a keyword, so they are linked again.
    renamed_card = next(path for path in CARDS if "phelddagrif" in path.name)
    card = json.loads(renamed_card.read_text(encoding="utf-8"))
    card["name"] = "Phelddagrif the Second"
    renamed = tmp_path / renamed_card.name
    renamed.write_text(json.dumps(card), encoding="utf-8")
    changed = {jace: changed_rulings, renamed_card: renamed}
    files = [changed.get(path, path) for path in CARDS + RULINGS]
    versions = path_inputs(VERSIONS, source_id="wizards")

    carried, whole = tmp_path / "carried.db", tmp_path / "whole.db"
    report = build_database(versions + path_inputs(files, source_id="scryfall"), carried, carry_from=served)
    build_database(versions + path_inputs(files, source_id="scryfall"), whole)

    assert digest(carried) == digest(whole)
    # Every ruling but Jace's two changed ones (and the one gone) and the renamed card's kept their citations.
    renamed_rulings = count(served, f"select count(*) from rulings where oracle_id = '{card['oracle_id']}'")
    assert renamed_rulings > 0
    assert report.links_carried == count(served, "select count(*) from rulings") - 3 - renamed_rulings
    assert count(carried, "select count(*) from ruling_rules where rule_number = '702.19b'") == 1


def test_another_cr_history_carries_nothing(served: Path, tmp_path: Path) -> None:
    rebuilt = tmp_path / "kb.db"
    other = [CR / "2024-02-06.txt", *VERSIONS]
    report = build_database(inputs(RULINGS, other), rebuilt, carry_from=served)
    # Every ruling linked by this build (a version more: the history differs).
    assert report.links_carried == 0
    assert count(rebuilt, "select count(*) from ruling_rules") > count(served, "select count(*) from ruling_rules") // 2


def test_a_served_file_that_cannot_be_read_carries_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "served.db"
    broken.write_bytes(b"not a database" * 100)
    rebuilt = tmp_path / "kb.db"
    report = build_database(inputs(RULINGS[:1], VERSIONS[1:]), rebuilt, carry_from=broken)
    assert report.links_carried == 0
    assert count(rebuilt, "select count(*) from rulings") > 0


def test_the_linking_code_fingerprint_reads_every_module_linking_runs() -> None:
    root = Path(__file__).resolve().parent.parent.parent / "kb"
    files = {path.relative_to(root).as_posix() for path in linking_code_files()}
    assert {
        "link/ruling_citations.py", "link/keyword_vocabulary.py", "link/cr_trace.py", "normalise/refs.py",
        "store/derive_history.py", "store/derive_lineage.py", "store/carry_links.py", "records.py",
        # And what reads the CR documents whose tables a build carries (kb.store.carry_cr).
        "parse/cr/txt.py", "store/save_cr.py", "store/carry_cr.py", "build/identity.py",
        "normalise/data/cr_editions.json", "normalise/data/symbology.json", "build/publish.py", "store/derive.py",
    } <= files
    assert len(linking_code_fingerprint()) == 64


def test_a_served_file_whose_citations_cannot_be_read_has_every_ruling_linked(served: Path, tmp_path: Path) -> None:
    # Its history reads, its citations do not (here a view that fails when read, standing in
    # for damaged pages): the build links every ruling and gives what a build linking all gives.
    damaged = tmp_path / "served.db"
    shutil.copy(served, damaged)
    db = sqlite_utils.Database(damaged)
    db.execute("drop view ruling_rules")
    db.execute(f"create view ruling_rules as select * from ({RULING_RULES_VIEW}) where json('{{') is not null")
    db.close()
    rebuilt = tmp_path / "kb.db"
    report = build_database(inputs(RULINGS), rebuilt, carry_from=damaged)
    assert report.links_carried == 0
    assert digest(rebuilt) == digest(served)


def test_code_installed_without_its_source_never_matches_a_recorded_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb import checksums
    from kb.store import carry_links

    compiled = Path(carry_links.__file__).with_suffix(".pyc")
    monkeypatch.setattr(checksums, "module_files", lambda modules: [compiled])
    carry_links.linking_code_fingerprint.cache_clear()
    try:
        first = carry_links.linking_code_fingerprint()
        carry_links.linking_code_fingerprint.cache_clear()
        assert carry_links.linking_code_fingerprint() != first
    finally:
        carry_links.linking_code_fingerprint.cache_clear()


def test_a_served_history_matches_only_when_every_edition_and_lineage_does(served: Path, tmp_path: Path) -> None:
    """The served file's history is read and compared one edition at a time (the whole archive
    held twice was ~100 MB): one rule's text or one lineage apart is another history."""
    from kb.store.carry_links import served_history_is
    from kb.store.derive_history import stored_cr_history

    ours = stored_cr_history(sqlite_utils.Database(served))
    assert served_history_is(served, ours)

    reworded = tmp_path / "reworded.db"
    shutil.copy(served, reworded)
    with sqlite_utils.Database(reworded).conn as conn:
        conn.execute("update rules set text = text || ' (reworded)' where version_id = 'en-2025-02-07' and number = '702.19b'")
    assert not served_history_is(reworded, ours)

    relinked = tmp_path / "relinked.db"
    shutil.copy(served, relinked)
    with sqlite_utils.Database(relinked).conn as conn:
        conn.execute("update rules set lineage_id = 'another' where version_id = 'en-2026-01-16' and number = '702.19'")
    assert not served_history_is(relinked, ours)

    damaged = tmp_path / "damaged.db"
    shutil.copy(served, damaged)
    with sqlite_utils.Database(damaged).conn as conn:
        conn.execute("update cr_versions set extra = '{not json' where id = 'en-2026-01-16'")
    assert not served_history_is(damaged, ours)

    assert not served_history_is(tmp_path / "missing.db", ours)


def test_another_version_of_a_library_that_reads_documents_is_other_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """lxml or dateparser of another version may read the same bytes otherwise: nothing a file
    built with the one holds is carried into a build with the other."""
    import importlib.metadata

    from kb.store import carry_links

    real_version = importlib.metadata.version
    carry_links.linking_code_fingerprint.cache_clear()
    try:
        first = carry_links.linking_code_fingerprint()
        monkeypatch.setattr(importlib.metadata, "version",
                            lambda name: "0.0-other" if name == "lxml" else real_version(name))
        carry_links.linking_code_fingerprint.cache_clear()
        assert carry_links.linking_code_fingerprint() != first
    finally:
        carry_links.linking_code_fingerprint.cache_clear()
