"""Stored CR editions read back for the history: the same documents, with one string for each
distinct text across the editions read together (the whole archive is held at once)."""
from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from kb.build.inputs import path_inputs
from kb.build.publish import build_database
from kb.link.cr_diff import content_key
from kb.parse.cr import txt as cr_txt
from kb.store.derive_cr_links import load_cr_document

CR = Path(__file__).parent.parent / "fixtures" / "cr" / "en-raw"
# Two editions ten weeks apart: most of their rules read the same.
EDITIONS = {"en-2022-02-18": CR / "2022-02-18.txt", "en-2022-04-29": CR / "2022-04-29.txt"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> sqlite_utils.Database:
    path = tmp_path_factory.mktemp("cr") / "kb.db"
    build_database(path_inputs(list(EDITIONS.values()), source_id="wizards"), path)
    return sqlite_utils.Database(path)


def test_an_edition_reads_back_as_parsed(built: sqlite_utils.Database) -> None:
    for version_id, path in EDITIONS.items():
        parsed = cr_txt.parse(path.read_bytes(), path.name)
        assert content_key(load_cr_document(built, version_id)) == content_key(parsed)
        assert content_key(load_cr_document(built, version_id, {})) == content_key(parsed)


def test_editions_read_together_share_each_text(built: sqlite_utils.Database) -> None:
    shared: dict[str, str] = {}
    older, newer = (load_cr_document(built, version_id, shared) for version_id in EDITIONS)
    older_rules = {rule.number: rule for rule in older.rules}
    same_text = [(older_rules[rule.number], rule) for rule in newer.rules
                 if rule.number in older_rules and older_rules[rule.number].text == rule.text]
    assert len(same_text) > 2000
    assert all(old.text is new.text and old.number is new.number for old, new in same_text)
    # Read apart, each edition has its own copies.
    apart = {rule.number: rule for rule in load_cr_document(built, "en-2022-04-29").rules}
    assert any(apart[new.number].text is not new.text for _old, new in same_text if len(new.text) > 1)
