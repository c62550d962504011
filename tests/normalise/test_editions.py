"""Set names of CR editions come from Venser's Journal's archive, never from a guess."""
from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from kb.build.inputs import path_inputs
from kb.build.publish import build_database
from kb.normalise.editions import edition_set_name

CR = Path(__file__).parent.parent / "fixtures" / "cr"


def test_named_editions_and_unknown_ones() -> None:
    assert edition_set_name("2014-09-25") == "Khans of Tarkir (KTK)"
    assert edition_set_name("2019-01-25") == "Ravnica Allegiance (RNA)"
    assert edition_set_name("1999-04-23") == "Sixth Edition (6ED)"
    assert edition_set_name("2026-01-16") is None  # not in that archive: no guess
    assert edition_set_name(None) is None


@pytest.mark.long_proof
def test_built_versions_carry_their_set_name(tmp_path: Path) -> None:
    files = [CR / "en-raw" / "2014-09-26.txt", CR / "en-raw" / "2026-01-16.txt", CR / "pre-2003" / "cr-2001-09-24-ODY.txt"]
    build_database(path_inputs(files), tmp_path / "kb.db")
    rows = sqlite_utils.Database(tmp_path / "kb.db").execute(
        "select id, set_name from cr_versions order by id"
    ).fetchall()
    assert rows == [("en-2001-09-24", "Odyssey (ODY)"), ("en-2014-09-25", "Khans of Tarkir (KTK)"), ("en-2026-01-16", None)]
