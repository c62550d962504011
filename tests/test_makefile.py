"""The Makefile's targets, asked with ``make -n`` (what it would run) in a copy of its folder."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _would_run(folder: Path, target: str) -> str:
    return subprocess.run(["make", "-n", target], cwd=folder, capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_installing_the_test_extras_does_not_rebuild_the_database(tmp_path: Path) -> None:
    """`make test` reinstalls the package with its test extras, which rewrites .venv/bin/mtgkb:
    the next `make run` rebuilt data/kb.db from the snapshot and dropped a CR edition imported
    into it by hand (a newcomer's review)."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "data" / "snapshot").mkdir(parents=True)
    (tmp_path / "data" / "snapshot" / "README.md").write_text("snapshot\n")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    mtgkb = tmp_path / ".venv" / "bin" / "mtgkb"
    mtgkb.write_text("#!/bin/sh\n")
    database = tmp_path / "data" / "kb.db"
    database.write_bytes(b"")
    for path, age in ((tmp_path / "pyproject.toml", 300), (tmp_path / "data" / "snapshot" / "README.md", 300),
                      (database, 200), (mtgkb, 100)):
        os.utime(path, (path.stat().st_atime - age, path.stat().st_mtime - age))
    assert "mtgkb build" not in _would_run(tmp_path, "data/kb.db")
    # A snapshot file changed: built again.
    os.utime(tmp_path / "data" / "snapshot" / "README.md")
    assert "mtgkb build --snapshot data/snapshot --db data/kb.db" in _would_run(tmp_path, "data/kb.db")
