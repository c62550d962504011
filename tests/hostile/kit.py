"""Helpers of the hostile catalogue: run ``mtgkb`` in a measured child, check what it says and what it left."""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The import's normal ceiling (issue 13): every hostile file stays under it.
MEMORY_CEILING_MB = 300
# Safety net only: a regression fails with MemoryError here instead of taking the machine.
ADDRESS_SPACE = 3 << 30
# Set to a file to collect each run's exit code, peak RSS and time (see tests/hostile/README.md).
LOG_ENV = "HOSTILE_LOG"
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    maxrss_mb: float
    seconds: float
    timed_out: bool

    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]

    def describe(self) -> str:
        return (
            f"exit {self.code} in {self.seconds:.1f}s, peak RSS {self.maxrss_mb:.0f} MB"
            f"{' (timed out)' if self.timed_out else ''}\nstdout: {self.stdout[-2000:]}\nstderr: {self.stderr[-3000:]}"
        )


class Zygote:
    """One forking server per test process (see zygote.py)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("zygote.py"))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
        )

    def run(self, args: list[str], cwd: Path, timeout: float = 60, env: dict[str, str] | None = None) -> Outcome:
        assert self.process.stdin is not None and self.process.stdout is not None
        out, err = cwd / ".hostile-stdout", cwd / ".hostile-stderr"
        request = {
            "args": [str(a) for a in args], "cwd": str(cwd), "stdout": str(out), "stderr": str(err),
            "timeout": timeout, "env": env or {}, "address_space": ADDRESS_SPACE,
        }
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        outcome = Outcome(
            answer["code"], out.read_text(errors="replace"), err.read_text(errors="replace"),
            answer["maxrss_mb"], answer["seconds"], answer["timed_out"],
        )
        out.unlink()
        err.unlink()
        log = os.environ.get(LOG_ENV)
        if log:  # figures for a report: one JSON line per run
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0], "code": outcome.code,
                                         "maxrss_mb": round(outcome.maxrss_mb, 1), "seconds": round(outcome.seconds, 2)}) + "\n")
        return outcome

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=10)


def run_real(command: list[str], cwd: Path, timeout: float = 60) -> Outcome:
    """A command in a real subprocess (for mount namespaces and signals)."""
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return Outcome(completed.returncode, completed.stdout, completed.stderr, 0.0, 0.0, False)


def rows(db: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows of one query on a database file (closed again at once)."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_refused(outcome: Outcome, message: str, code: int = 1) -> None:
    """Exit ``code``, one ``Error:`` line matching ``message``, no traceback, bounded memory and time."""
    assert not outcome.timed_out, outcome.describe()
    assert outcome.code == code, outcome.describe()
    assert not TRACEBACK.search(outcome.stderr), outcome.describe()
    lines = [line for line in outcome.error_lines() if line.startswith("Error:")]
    assert len(lines) == 1 and len(outcome.error_lines()) == 1, outcome.describe()
    assert re.search(message, lines[0]), f"{lines[0]!r} does not match {message!r}\n" + outcome.describe()
    assert_bounded(outcome)


def assert_bounded(outcome: Outcome) -> None:
    assert not outcome.timed_out, outcome.describe()
    assert outcome.maxrss_mb < MEMORY_CEILING_MB, outcome.describe()
