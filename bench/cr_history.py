"""The CR history of the bundled snapshot with the compiled SequenceMatcher, beside difflib's own.

    python -m bench.cr_history [--rounds 5] [--workdir /tmp/mtgkb-cr-history]

The history (``kb.store.derive_history.save_cr_history``: every edition paired with the next,
word diffs, merges and splits, lineages) is most of a snapshot build and of the builds the tests
compare. Its word diffs, similarities and containments use ``cydifflib``'s SequenceMatcher; the
baseline is the same code with the standard library's ``difflib.SequenceMatcher`` put in its place.
The snapshot is built once; then each round derives the history of a fresh copy of it in a fresh
interpreter, once with each matcher, interleaved (on a shared machine seconds move with the
minute, so the ratio is what counts), and the first round checks that both leave the same rows
in every table the history writes. Prints the figures and writes them to
bench/results/cr_history.json.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "cr_history.json"
# Every module that compares with cydifflib's SequenceMatcher, found in the source, so that the
# baseline never keeps a compiled matcher in a module a list forgot.
MATCHER_MODULES = tuple(sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for path in (ROOT / "kb").rglob("*.py")
    if "from cydifflib import SequenceMatcher" in path.read_text(encoding="utf-8")
))
HISTORY_TABLES = ("cr_changes", "rule_lineages", "rule_lineage_links", "rules", "glossary")

# Run in a fresh interpreter: the history of the copy at argv[1], with difflib's matcher when
# argv[2] is "difflib"; prints the CPU seconds it took and a digest of the tables it writes.
DERIVE = f"""
import difflib, hashlib, importlib, json, sys, time
import sqlite_utils
if sys.argv[2] == "difflib":
    for name in {MATCHER_MODULES!r}:
        importlib.import_module(name).SequenceMatcher = difflib.SequenceMatcher
from kb.store.derive_history import save_cr_history
db = sqlite_utils.Database(sys.argv[1])
started = time.process_time()
save_cr_history(db)
seconds = time.process_time() - started
digest = hashlib.sha256()
for table in {HISTORY_TABLES!r}:
    columns = ", ".join(column.name for column in db[table].columns)
    for row in db.execute(f"select {{columns}} from {{table}} order by {{columns}}"):
        digest.update(json.dumps(row, default=str).encode())
print(json.dumps({{"cpu_seconds": seconds, "digest": digest.hexdigest()}}))
"""


def derive(snapshot_db: Path, workdir: Path, matcher: str) -> dict:
    copy = workdir / f"history-{matcher}.db"
    shutil.copy(snapshot_db, copy)
    done = subprocess.run([sys.executable, "-c", DERIVE, str(copy), matcher], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the history with {matcher} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/mtgkb-cr-history"))
    args = parser.parse_args()
    from kb.build.inputs import snapshot_inputs
    from kb.build.publish import build_database

    args.workdir.mkdir(parents=True, exist_ok=True)
    snapshot_db = args.workdir / "snapshot.db"
    snapshot_db.unlink(missing_ok=True)
    build_database(snapshot_inputs(ROOT / "data" / "snapshot"), snapshot_db)
    seconds: dict[str, list[float]] = {"difflib": [], "cydifflib": []}
    digests: dict[str, str] = {}
    for round_number in range(1, args.rounds + 1):
        for matcher in ("difflib", "cydifflib"):
            found = derive(snapshot_db, args.workdir, matcher)
            seconds[matcher].append(round(found["cpu_seconds"], 2))
            digests.setdefault(matcher, found["digest"])
            print(f"round {round_number}  {matcher:9}  {found['cpu_seconds']:5.2f} s of CPU", flush=True)
    same_rows = digests["difflib"] == digests["cydifflib"]
    medians = {matcher: round(statistics.median(values), 2) for matcher, values in seconds.items()}
    figures = {
        "cpu_seconds": seconds,
        "median_cpu_seconds": medians,
        "cydifflib / difflib (medians)": round(medians["cydifflib"] / medians["difflib"], 2),
        "same rows": same_rows,
    }
    print(json.dumps({key: value for key, value in figures.items() if key != "cpu_seconds"}, indent=1))
    RESULTS.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    shutil.rmtree(args.workdir)
    if not same_rows:
        raise SystemExit("the two matchers left different rows: cydifflib is not difflib here")


if __name__ == "__main__":
    main()
