"""SIGTERM (what systemd, `timeout` and a cancelled CI send) ends a build as ^C does: one line,
the half-built file removed, the database as it was (it left a ~60 MB ``.kb.db.building-PID``
and said nothing)."""
from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import time
from pathlib import Path

SNAPSHOT = Path(__file__).parent.parent.parent / "data" / "snapshot"


def test_sigterm_during_a_build_removes_the_half_built_file(tmp_path: Path) -> None:
    db_path = tmp_path / "kb.db"
    db_path.write_bytes(b"the database as it was")
    before = hashlib.sha256(db_path.read_bytes()).hexdigest()
    build = subprocess.Popen(
        [sys.executable, "-c", "from kb.cli import cli; cli()", "build", "--snapshot", str(SNAPSHOT), "--db", str(db_path), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".kb.db.building-*")) and time.monotonic() < deadline and build.poll() is None:
        time.sleep(0.05)
    assert list(tmp_path.glob(".kb.db.building-*")), "the build never started writing"
    time.sleep(0.5)  # well inside the build (the snapshot takes ~10 s)
    build.send_signal(signal.SIGTERM)
    _out, err = build.communicate(timeout=60)
    assert build.returncode == 143
    assert err.strip().splitlines()[-1] == "Error: terminated (SIGTERM); nothing half-done was published"
    assert not list(tmp_path.glob(".kb.db.building-*"))
    assert hashlib.sha256(db_path.read_bytes()).hexdigest() == before
