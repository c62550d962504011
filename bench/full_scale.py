"""The real job at full scale: a generated corpus built end to end beside a raw-insert baseline.

    python -m bench.full_scale [--scale 0.1] [--workdir /tmp/fs] [--keep]

At ``--scale 1`` the corpus is Scryfall's real size and shape: 1M rulings on 100k cards, 500k
printings in 11 languages (gzipped JSON Lines, see ``bench.corpus``), and every CR version of the
bundled snapshot. Each stage runs in a fresh interpreter that reports its own peak memory
(VmHWM), and the raw baseline runs in the same session on the same files, so the ratios compare
like with like on a machine shared with others:

- ``raw rulings`` / ``raw printings``: plain ``sqlite3`` ``executemany`` of the records as they
  are in the file, then an FTS5 index over their text: the floor for storing and searching them.
- ``import rulings (fresh)``: ``mtgkb import`` of the rulings file into an empty database.
- ``build snapshot``, ``import oracle_cards``, ``import rulings``, ``import all_cards``: the whole
  knowledge base, one stage at a time, on top of every CR version we hold.
- ``import 1 small rulings file``: an 11-ruling file into that whole database (what adding a
  file costs once it is large).

Prints a table (time, peak memory, database size, ratios to raw) and dbstat per table and index
of the full database; writes everything to ``bench/results/full_scale-<scale>.json``.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpus import write_corpus

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SNAPSHOT = ROOT / "data" / "snapshot"
# A constructed Scryfall-shaped rulings file of 11 rulings (tests/fixtures/constructed/README.md).
SMALL_RULINGS = ROOT / "tests" / "fixtures" / "constructed" / "rulings-lethal-scheme.json"
FULL = {"rulings": 1_000_000, "cards": 100_000, "printings": 500_000}
TARGETS = {"import": 3.0, "size": 2.0, "peak_rss_mb": 300}

# VmHWM, not ru_maxrss: Linux carries a forking parent's high-water mark into ru_maxrss.
MEASURED = """
import runpy, sys
sys.argv = sys.argv[1:]
try:
    if sys.argv[0] == "mtgkb":
        from kb.cli import cli
        cli.main(sys.argv[1:], standalone_mode=False)
    else:
        runpy.run_module(sys.argv[0], run_name="__main__")
finally:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    print("peak_rss_kib", peak, file=sys.stderr)
"""


def measured(*argv: str) -> dict:
    """Run ``argv`` (``mtgkb …`` or a module) in a fresh interpreter: seconds and peak memory."""
    started, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", MEASURED, *argv], capture_output=True, text=True, cwd=ROOT)
    seconds, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds as well: on a machine shared with others, wall time is mostly the others' load.
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()[-2000:]}")
    peak = int(done.stderr.rsplit("peak_rss_kib", 1)[1].split()[0])
    return {"seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1), "peak_rss_mb": round(peak / 1024, 1)}


def raw_load(kind: str, source: Path, db_path: Path) -> None:
    """The baseline: the file's records as they are, executemany in one transaction, then FTS5."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("pragma journal_mode = off")
    conn.execute("pragma synchronous = off")
    conn.execute("begin")
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        objects = (json.loads(line) for line in handle)
        if kind == "rulings":
            conn.execute("create table rulings (id integer primary key, oracle_id text, source text, published_at text, comment text)")
            conn.executemany(
                "insert into rulings (oracle_id, source, published_at, comment) values (?,?,?,?)",
                ((o.get("oracle_id"), o.get("source"), o.get("published_at"), o.get("comment")) for o in objects),
            )
            conn.execute("create virtual table rulings_fts using fts5(comment, content=rulings, content_rowid=id)")
            conn.execute("insert into rulings_fts (rulings_fts) values ('rebuild')")
        else:
            conn.execute(
                "create table printings (id text primary key, oracle_id text, lang text, name text, printed_name text,"
                " type_line text, printed_type_line text, oracle_text text, printed_text text, set_code text, collector_number text,"
                " set_name text, released_at text)"
            )
            conn.executemany(
                "insert into printings values (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    (o["id"], o.get("oracle_id"), o.get("lang"), o.get("name"), o.get("printed_name"), o.get("type_line"),
                     o.get("printed_type_line"), o.get("oracle_text"), o.get("printed_text"), o.get("set"),
                     o.get("collector_number"), o.get("set_name"), o.get("released_at"))
                    for o in objects
                ),
            )
            conn.execute(
                "create virtual table printings_fts using fts5(name, printed_name, printed_text, content=printings)"
            )
            conn.execute("insert into printings_fts (printings_fts) values ('rebuild')")
    conn.execute("commit")
    conn.close()


def dbstat(db_path: Path) -> dict[str, float]:
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute("select name, sum(pgsize) from dbstat group by name order by 2 desc").fetchall()
    finally:
        conn.close()
    return {name: round(size / 1e6, 2) for name, size in rows}


def megabytes(path: Path) -> float:
    return round(path.stat().st_size / 1e6, 1)


def run(scale: float, workdir: Path, fresh_only: bool = False) -> dict:
    sizes = {key: max(1, int(value * scale)) for key, value in FULL.items()}
    started = time.monotonic()
    files = write_corpus(workdir / "corpus", sizes["rulings"], sizes["cards"], sizes["printings"])
    figures: dict = {
        "scale": scale, "corpus": sizes, "generate_seconds": round(time.monotonic() - started, 1),
        "files_mb": {kind: megabytes(path) for kind, path in files.items()}, "stages": {},
    }
    stages = figures["stages"]
    for kind in ("rulings",) if fresh_only else ("rulings", "printings"):
        raw_db = workdir / f"raw-{kind}.db"
        source = files["rulings" if kind == "rulings" else "all_cards"]
        raw_db.unlink(missing_ok=True)  # a kept --workdir holds the last run's databases
        stages[f"raw {kind}"] = measured("bench.full_scale", "--raw", kind, str(source), str(raw_db))
        stages[f"raw {kind}"]["db_mb"] = megabytes(raw_db)
    fresh = workdir / "fresh.db"
    fresh.unlink(missing_ok=True)
    stages["import rulings (fresh)"] = measured(
        "mtgkb", "import", "--db", str(fresh), "--source", "scryfall", str(files["rulings"])
    )
    stages["import rulings (fresh)"]["db_mb"] = megabytes(fresh)
    if fresh_only:
        return _fresh_figures(figures, fresh)
    full = workdir / "kb.db"
    full.unlink(missing_ok=True)
    stages["build snapshot"] = measured("mtgkb", "build", "--snapshot", str(SNAPSHOT), "--db", str(full))
    stages["build snapshot"]["db_mb"] = megabytes(full)
    for kind in ("oracle_cards", "rulings", "all_cards"):
        stage = f"import {kind}"
        stages[stage] = measured("mtgkb", "import", "--db", str(full), "--source", "scryfall", str(files[kind]))
        stages[stage]["db_mb"] = megabytes(full)
    # One small file into the whole database: no CR version added, so no CR diffs recomputed.
    stages["import 1 small rulings file"] = measured(
        "mtgkb", "import", "--db", str(full), "--source", "scryfall", str(SMALL_RULINGS)
    )
    stages["import 1 small rulings file"]["db_mb"] = megabytes(full)
    raw_r, raw_p = stages["raw rulings"], stages["raw printings"]
    fresh_stage = stages["import rulings (fresh)"]
    figures["ratios"] = {
        "fresh rulings import time / raw": round(fresh_stage["seconds"] / raw_r["seconds"], 2),
        "fresh rulings import CPU time / raw": round(fresh_stage["cpu_seconds"] / raw_r["cpu_seconds"], 2),
        "fresh rulings db size / raw": round(fresh_stage["db_mb"] / raw_r["db_mb"], 2),
        "all_cards import time / raw": round(stages["import all_cards"]["seconds"] / raw_p["seconds"], 2),
        "full db size / raw rulings + printings": round(
            stages["import all_cards"]["db_mb"] / (raw_r["db_mb"] + raw_p["db_mb"]), 2
        ),
        "peak memory, MB (largest stage)": max(stage["peak_rss_mb"] for stage in stages.values()),
    }
    figures["targets"] = TARGETS
    figures["load_average_at_end"] = [round(load, 1) for load in os.getloadavg()]
    figures["dbstat_mb"] = {"fresh": dbstat(fresh), "full": dbstat(full)}
    return figures


def _fresh_figures(figures: dict, fresh: Path) -> dict:
    """The raw baseline and the fresh import only: what a change to the rulings' storage moves."""
    stages = figures["stages"]
    raw_r, fresh_stage = stages["raw rulings"], stages["import rulings (fresh)"]
    figures["ratios"] = {
        "fresh rulings import time / raw": round(fresh_stage["seconds"] / raw_r["seconds"], 2),
        "fresh rulings import CPU time / raw": round(fresh_stage["cpu_seconds"] / raw_r["cpu_seconds"], 2),
        "fresh rulings db size / raw": round(fresh_stage["db_mb"] / raw_r["db_mb"], 2),
        "peak memory, MB (largest stage)": max(stage["peak_rss_mb"] for stage in stages.values()),
    }
    figures["targets"] = TARGETS
    figures["load_average_at_end"] = [round(load, 1) for load in os.getloadavg()]
    figures["dbstat_mb"] = {"fresh": dbstat(fresh)}
    return figures


def table(figures: dict) -> str:
    lines = [f"{'stage':28} {'seconds':>9} {'CPU s':>8} {'peak MB':>8} {'db MB':>8}"]
    for name, stage in figures["stages"].items():
        lines.append(
            f"{name:28} {stage['seconds']:>9} {stage['cpu_seconds']:>8} {stage['peak_rss_mb']:>8} {stage.get('db_mb', ''):>8}"
        )
    lines.append("")
    lines.extend(f"{name}: {value}" for name, value in figures["ratios"].items())
    lines.append(f"targets: import <= {TARGETS['import']}x raw, db <= {TARGETS['size']}x raw, memory <= {TARGETS['peak_rss_mb']} MB")
    lines.append("")
    which = "full" if "full" in figures["dbstat_mb"] else "fresh"
    lines.append(f"dbstat of the {which} database (MB), largest first:")
    lines.extend(f"  {name:44} {size:>9}" for name, size in list(figures["dbstat_mb"][which].items())[:30])
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="share of the real size (1 = 1M rulings)")
    parser.add_argument("--workdir", type=Path, help="keep the corpus and databases here")
    parser.add_argument(
        "--fresh-only", action="store_true",
        help="only the raw rulings baseline and the fresh rulings import (results in full_scale-<scale>-fresh.json)",
    )
    parser.add_argument("--raw", nargs=3, metavar=("KIND", "SOURCE", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.raw:
        kind, source, db_path = args.raw
        raw_load(kind, Path(source), Path(db_path))
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mtgkb-full-scale-"))
    try:
        figures = run(args.scale, workdir, args.fresh_only)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    suffix = "-fresh" if args.fresh_only else ""
    (RESULTS / f"full_scale-{args.scale:g}{suffix}.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(table(figures))


if __name__ == "__main__":
    main()
