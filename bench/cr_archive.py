"""The whole English CR archive, as a real refresh fetches it, built beside the 13 real editions we hold.

    python -m bench.cr_archive [--workdir /tmp/mtgkb-cr-archive] [--rounds 2]

A default ``mtgkb refresh`` fetches every edition the archive's listing names (the ``cr-archive``
source: ``scraper.fetchers.cr_archive.archive_files`` of its ``metadata.json``, 115 text files in
the listing of 2026 kept in ``tests/fixtures/cr/en-raw/metadata.json``), and a build derives the
history of all of them. The bundled snapshot and ``bench.full_scale`` hold 14, so the archive's
cost was never measured. We hold 13 real English editions (2003–2026); the others are
**generated**, not real: between each two real editions, copies of the older one dated in
between, each revising ~40 more of its rules than the copy before (a sentence appended to the
rule's text), so that consecutive editions differ by a few dozen rules as real updates do. They
stand in for the archive's size and its edition-to-edition changes, not for its content: no figure
here says anything about the real rules.

Each build runs in a fresh interpreter (``mtgkb import`` into an empty file; ``bench.full_scale``
reports its peak memory from VmHWM), interleaved: the 13 real editions, then the archive, for
``--rounds`` rounds, beside a raw baseline on the archive's files (decode, a regex scan of the rule
lines, ``executemany`` of number and text, an FTS5 index). After each archive build, the same
files are built again as a refresh rebuilds them (``bench.rebuild``: carrying from the file just
built, its CR tables copied by ``kb.store.carry_cr`` instead of every edition read and compared
again), and the first round checks that both files hold the same rows (``content_digest``).
Then the archive's file is served (``mtgkb serve``): the first search after the start beside the
same searches once the server has answered them before.
Prints the figures and writes them to ``bench/results/cr_archive.json``.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import sqlite_utils

from bench.full_scale import measured, megabytes
from bench.load_site import HOST, free_port, wait_ready
from kb.build.publish import content_digest
from kb.normalise.decode import decode_text
from scraper.fetchers.cr_archive import archive_files

ROOT = Path(__file__).resolve().parent.parent
CR = ROOT / "tests" / "fixtures" / "cr"
REAL = sorted((CR / "en-raw").glob("*.txt")) + sorted((CR / "en-raw-batch2").glob("*.txt"))
LISTING = CR / "en-raw" / "metadata.json"
RESULTS = ROOT / "bench" / "results" / "cr_archive.json"
TARGET_PEAK_MB = 300

EFFECTIVE = re.compile(r"((?:effective|current) as of\s+)([A-Z][a-z]+\.?\s*\d{1,2}, \d{4})")
RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?\.?) (.+)$", re.M)
# Each generated edition revises the rules whose number hashes below its place among the copies
# (out of REVISION_SPREAD): about 1/60 of the rules more per copy, ~40 of the 2,500 of an edition.
REVISION_SPREAD = 60


def effective_date(text: str) -> datetime.date:
    found = EFFECTIVE.search(text)
    if found is None:
        raise ValueError("no 'effective as of' line")
    return datetime.datetime.strptime(" ".join(found.group(2).replace(".", "").split()), "%B %d, %Y").date()


def generated_edition(text: str, day: datetime.date, copy: int) -> str:
    """``text`` (a real edition) dated ``day``, with the rules of the first ``copy`` revisions revised."""
    def revise(rule: re.Match[str]) -> str:
        share = int(hashlib.sha1(rule.group(1).encode()).hexdigest()[:6], 16) % REVISION_SPREAD
        return f"{rule.group(1)} {rule.group(2)} Synthetic revision." if share < copy else rule.group(0)

    label = f"{day.strftime('%B')} {day.day}, {day.year}"
    return EFFECTIVE.sub(lambda found: found.group(1) + label, RULE_LINE.sub(revise, text))


def write_archive(folder: Path, editions: int) -> list[Path]:
    """The real editions and generated ones between them, ``editions`` in all, as UTF-8 files."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = [decode_text(path.read_bytes(), path.name)[0] for path in REAL]
    real = sorted(((text, effective_date(text)) for text in texts), key=lambda pair: pair[1])
    gaps = len(real) - 1
    extra = max(0, editions - len(real))
    written = []
    for index, (text, day) in enumerate(real):
        written.append(folder / f"{day}.txt")
        written[-1].write_text("\ufeff" + text, encoding="utf-8")
        if index == gaps:
            break
        following = real[index + 1][1]
        copies = extra // gaps + (1 if index < extra % gaps else 0)
        for copy in range(1, copies + 1):
            day_between = day + (following - day) * copy / (copies + 1)
            written.append(folder / f"{day_between}.txt")
            written[-1].write_text("\ufeff" + generated_edition(text, day_between, copy), encoding="utf-8")
    return written


def raw_load(files: list[Path], db_path: Path) -> int:
    """The floor: every rule line of every file, number and text, executemany, then FTS5."""
    db_path.unlink(missing_ok=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("pragma journal_mode = off")
    conn.execute("pragma synchronous = off")
    conn.execute("begin")
    conn.execute("create table rules (id integer primary key, edition text, number text, text text)")
    rows = 0
    for path in files:
        text = decode_text(path.read_bytes(), path.name)[0]
        lines = [(path.stem, number, rule) for number, rule in RULE_LINE.findall(text)]
        conn.executemany("insert into rules (edition, number, text) values (?,?,?)", lines)
        rows += len(lines)
    conn.execute("create virtual table rules_fts using fts5(text, content=rules, content_rowid=id)")
    conn.execute("insert into rules_fts (rules_fts) values ('rebuild')")
    conn.execute("commit")
    conn.close()
    return rows


def built(files: list[Path], db_path: Path) -> dict:
    db_path.unlink(missing_ok=True)
    figures = measured("mtgkb", "import", "--db", str(db_path), "--source", "cr-archive", *map(str, files))
    conn = sqlite3.connect(db_path)
    try:
        for table in ("cr_versions", "rules", "cr_changes", "rule_lineages"):
            figures[table] = conn.execute(f"select count(*) from {table}").fetchone()[0]
    finally:
        conn.close()
    figures["db_mb"] = megabytes(db_path)
    return figures


def rebuilt(files: list[Path], served: Path, db_path: Path) -> dict:
    """``files`` built again into ``db_path`` as a refresh replacing ``served`` builds them."""
    db_path.unlink(missing_ok=True)
    figures = measured("bench.rebuild", "--carry-from", str(served), "--db", str(db_path), *map(str, files))
    conn = sqlite3.connect(db_path)
    try:
        figures["rules"] = conn.execute("select count(*) from rules").fetchone()[0]
    finally:
        conn.close()
    figures["db_mb"] = megabytes(db_path)
    return figures


# Searches, and a rule page (its glossary terms marked by the current version's patterns).
FIRST_SEARCHES = ("if a creature", "the", "flying", "until end of turn", "convoke", "/rule/702.9")


def served(db_path: Path, rounds: int = 9) -> dict:
    """The archive's file served as ``mtgkb serve`` serves it (page cache off): seconds until it
    answers, each of a few searches and a rule page the first time it is asked, then the same
    requests' p50 once every per-file map is read (the baseline beside it), and the server's memory."""
    port = free_port()
    base = f"http://{HOST}:{port}"
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-c", "from kb.cli import cli; cli()", "serve", "--db", str(db_path), "--port", str(port),
         "--host", HOST],
        cwd=ROOT, env={**os.environ, "MTGKB_PAGE_CACHE": "0"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(base, server, timeout=120)
        answering = time.monotonic() - started

        client = httpx.Client(base_url=base, timeout=60)  # one client: a new one costs tens of ms
        client.get("/-/versions.json")

        def timed(query: str) -> tuple[float, int]:
            before = time.perf_counter()
            if query.startswith("/"):  # a page
                status = client.get(query).status_code
            else:
                status = client.get("/search", params={"q": query}).status_code
            return (time.perf_counter() - before) * 1000, status

        first = {query: timed(query) for query in FIRST_SEARCHES}
        later = {query: sorted(timed(query)[0] for _ in range(rounds))[rounds // 2] for query in FIRST_SEARCHES}
        client.close()
        rss = max(int(line.split()[1]) for line in Path(f"/proc/{server.pid}/status").read_text().splitlines()
                  if line.startswith("VmRSS:")) / 1024
    finally:
        server.terminate()
        server.wait(timeout=20)
    return {
        "seconds until answering": round(answering, 2),
        "first search ms": {query: round(ms, 1) for query, (ms, _status) in first.items()},
        "first search statuses": sorted({status for _ms, status in first.values()}),
        "later search p50 ms": {query: round(ms, 1) for query, ms in later.items()},
        "server RSS MB": round(rss, 1),
    }


def digest(db_path: Path) -> str:
    return content_digest(sqlite_utils.Database(db_path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/mtgkb-cr-archive"))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    editions = len(archive_files(json.loads(LISTING.read_text())))
    shutil.rmtree(args.workdir, ignore_errors=True)
    archive = write_archive(args.workdir / "archive", editions)
    archive_label = f"archive ({len(archive)} editions)"
    rebuilt_label = "archive rebuilt, CR carried"
    runs: dict[str, list[dict]] = {"13 real editions": [], archive_label: [], rebuilt_label: []}
    raw = []
    same_rows = None
    for round_number in range(1, args.rounds + 1):
        for label, files in ((list(runs)[0], REAL), (archive_label, archive)):
            figures = built(files, args.workdir / "kb.db")
            runs[label].append(figures)
            print(f"round {round_number}  {label:24} {figures['seconds']:6.1f} s (CPU {figures['cpu_seconds']:6.1f})"
                  f"  peak {figures['peak_rss_mb']:6.1f} MB  {figures['db_mb']:6.1f} MB  {figures['rules']:,} rules", flush=True)
        figures = rebuilt(archive, args.workdir / "kb.db", args.workdir / "rebuilt.db")
        runs[rebuilt_label].append(figures)
        print(f"round {round_number}  {rebuilt_label:24} {figures['seconds']:6.1f} s (CPU {figures['cpu_seconds']:6.1f})"
              f"  peak {figures['peak_rss_mb']:6.1f} MB  {figures['db_mb']:6.1f} MB  {figures['rules']:,} rules", flush=True)
        if same_rows is None:
            same_rows = digest(args.workdir / "kb.db") == digest(args.workdir / "rebuilt.db")
            print(f"rebuilt file holds the same rows as the archive build: {same_rows}", flush=True)
        started = time.monotonic()
        rows = raw_load(archive, args.workdir / "raw.db")
        raw.append({"seconds": round(time.monotonic() - started, 1), "rules": rows, "db_mb": megabytes(args.workdir / "raw.db")})
        print(f"round {round_number}  raw archive              {raw[-1]['seconds']:6.1f} s  {raw[-1]['db_mb']:6.1f} MB", flush=True)
    serving = served(args.workdir / "kb.db")
    print(f"served: {serving}", flush=True)
    best = min(runs[archive_label], key=lambda figures: figures["seconds"])
    best_rebuilt = min(runs[rebuilt_label], key=lambda figures: figures["seconds"])
    summary = {
        "editions in the archive's listing": editions,
        "real editions": len(REAL),
        "archive build / raw archive (best of each)": round(best["seconds"] / min(r["seconds"] for r in raw), 1),
        "archive build / 13 real editions (best of each)": round(
            best["seconds"] / min(f["seconds"] for f in runs["13 real editions"]), 1),
        "archive rebuilt carrying its CR / archive build (best of each)": round(
            best_rebuilt["seconds"] / best["seconds"], 2),
        "rebuilt file holds the same rows": same_rows,
        "first search after start / later (slowest of each, ms)": [
            max(serving["first search ms"].values()), max(serving["later search p50 ms"].values())],
        "peak MB (archive, highest)": max(f["peak_rss_mb"] for f in runs[archive_label] + runs[rebuilt_label]),
        "peak target MB": TARGET_PEAK_MB,
    }
    for key, value in summary.items():
        print(f"{key}: {value}")
    RESULTS.write_text(json.dumps({"runs": runs, "raw": raw, "served": serving, "summary": summary}, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
