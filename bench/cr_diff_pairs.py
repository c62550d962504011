"""The diff of two English CR versions that are not consecutive: along rule lineages, beside a fresh pairing.

    python -m bench.cr_diff_pairs [--db PATH] [--rounds 3]

The site's diff page and ``mtgkb cr-diff`` read the build's stored diff for consecutive versions;
any other two English versions are compared rule by rule along their lineages
(``kb.store.derive_lineage.diff_by_identity``). The baseline is what they did before: both
documents paired afresh (``kb.link.cr_diff.diff_versions``), which is also what a translation's
versions still get. For every pair of English versions of the database that are not consecutive,
in the same process, interleaved, ``--rounds`` times each: the seconds of each (the documents read
from the database included), and how many rules of the older version each pairs differently (a
rule the other pairs elsewhere, or calls removed). Without ``--db``, the bundled snapshot is built
first. The pairs are those of ``--versions`` English versions spread evenly from the first to the
newest (default 11: 55 pairs of the snapshot's 31 editions; every pair of 31 would take ~20
minutes). Prints the figures and writes them to bench/results/cr_diff_pairs.json.
"""
from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from pathlib import Path

import sqlite_utils

from kb.build.inputs import snapshot_inputs
from kb.build.publish import build_database
from kb.link.cr_diff import Change, diff_versions
from kb.store.derive_cr_links import load_cr_document
from kb.store.derive_lineage import diff_by_identity, english_versions

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "cr_diff_pairs.json"


def _fresh(db: sqlite_utils.Database, old: str, new: str) -> list[Change]:
    return diff_versions(load_cr_document(db, old), load_cr_document(db, new))


def _pairs(changes: list[Change]) -> dict[str, str | None]:
    return {change.old_number: change.new_number for change in changes if change.old_number and change.kind in (
        "changed", "moved", "moved-changed", "removed")}


def spread(count: int, wanted: int) -> list[int]:
    """``wanted`` indexes of ``count`` spread evenly, the first and the last included."""
    if wanted >= count or wanted < 2:
        return list(range(count))
    return sorted({round(i * (count - 1) / (wanted - 1)) for i in range(wanted)})


def run(db_path: Path, rounds: int, wanted_versions: int = 11) -> dict:
    db = sqlite_utils.Database(db_path)
    versions = [version for version, _date in english_versions(db)]
    chosen = spread(len(versions), wanted_versions)
    pairs = [(versions[i], versions[j]) for i, j in itertools.combinations(chosen, 2) if j > i + 1]
    rows = []
    for old, new in pairs:
        timings: dict[str, list[float]] = {"lineage": [], "fresh": []}
        results: dict[str, list[Change]] = {}
        for _round in range(rounds):
            for name, compare in (("lineage", diff_by_identity), ("fresh", _fresh)):
                started = time.perf_counter()
                found = compare(db, old, new)
                timings[name].append(time.perf_counter() - started)
                assert found is not None, (old, new)
                results[name] = found
        lineage, fresh = _pairs(results["lineage"]), _pairs(results["fresh"])
        differ = sum(1 for number in set(lineage) | set(fresh) if lineage.get(number) != fresh.get(number))
        rows.append({
            "old": old, "new": new,
            "lineage_seconds": round(statistics.median(timings["lineage"]), 3),
            "fresh_seconds": round(statistics.median(timings["fresh"]), 3),
            "changes": len(results["lineage"]), "rules_paired_differently": differ,
        })
    lineage_total = sum(row["lineage_seconds"] for row in rows)
    fresh_total = sum(row["fresh_seconds"] for row in rows)
    return {
        "db": str(db_path), "english_versions": len(versions), "versions_compared": [versions[i] for i in chosen],
        "pairs": len(rows), "rounds": rounds,
        "lineage_seconds_total": round(lineage_total, 2), "fresh_seconds_total": round(fresh_total, 2),
        "lineage / fresh": round(lineage_total / fresh_total, 2) if fresh_total else None,
        "slowest_lineage_seconds": max((row["lineage_seconds"] for row in rows), default=None),
        "slowest_fresh_seconds": max((row["fresh_seconds"] for row in rows), default=None),
        "rules_paired_differently": sum(row["rules_paired_differently"] for row in rows),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="a built database (default: the snapshot, built into --workdir)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/mtgkb-cr-diff-pairs"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--versions", type=int, default=11, help="English versions compared, spread evenly (default 11)")
    args = parser.parse_args()
    db_path = args.db
    if db_path is None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        db_path = args.workdir / "snapshot.db"
        build_database(snapshot_inputs(ROOT / "data" / "snapshot"), db_path)
    elif not db_path.exists():
        raise SystemExit(f"{db_path}: no such database")
    figures = run(db_path, args.rounds, args.versions)
    for row in figures["rows"]:
        print(f"{row['old']} -> {row['new']}: lineage {row['lineage_seconds']:.3f} s, fresh pairing"
              f" {row['fresh_seconds']:.3f} s, {row['changes']} changes, {row['rules_paired_differently']} rules paired differently")
    print(f"{figures['pairs']} pairs of {figures['english_versions']} English versions: lineage"
          f" {figures['lineage_seconds_total']} s, fresh pairing {figures['fresh_seconds_total']} s"
          f" ({figures['lineage / fresh']}); slowest {figures['slowest_lineage_seconds']} s against"
          f" {figures['slowest_fresh_seconds']} s; {figures['rules_paired_differently']} rules paired differently")
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
