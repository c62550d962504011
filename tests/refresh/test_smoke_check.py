"""The smoke check queries a new file as it will be served, through Datasette's test client."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from kb.refresh.checks import SMOKE_SETTINGS, smoke_check
from kb.site.serve import SETTINGS


def test_served_settings_but_a_lenient_time_limit() -> None:
    assert {name: value for name, value in SMOKE_SETTINGS.items() if name != "sql_time_limit_ms"} == {
        name: SETTINGS[name] for name in SMOKE_SETTINGS if name != "sql_time_limit_ms"}
    assert SMOKE_SETTINGS["sql_time_limit_ms"] >= SETTINGS["sql_time_limit_ms"]


def test_the_snapshot_passes_and_a_file_without_rules_does_not(snapshot_db: Path, tmp_path: Path) -> None:
    assert smoke_check(snapshot_db, "kb") == []
    broken = tmp_path / "kb.db"
    shutil.copy(snapshot_db, broken)
    with sqlite3.connect(broken) as conn:
        conn.execute("drop view current_rules")
    assert smoke_check(broken, "kb") == ["/kb/current_rules.json?_size=1 answered 404"]


def test_the_check_reads_nothing_ahead_for_visitors_it_will_not_have(snapshot_db: Path, tmp_path: Path) -> None:
    """A served site reads its per-file maps at start-up (kb.site.warm); the smoke check's
    Datasette answers no visitor, and reading them cost a refresh ~1 s and ~45 MB at the CR
    archive's size."""
    from kb.site import search_db
    from kb.site.page_cache import file_signature

    checked = tmp_path / "kb.db"
    shutil.copy(snapshot_db, checked)
    assert smoke_check(checked, "kb") == []
    assert (str(checked), file_signature(str(checked))) not in search_db._RULE_HEADS
