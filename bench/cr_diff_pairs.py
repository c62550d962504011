"""The diff of two English CR versions that are not consecutive: along rule lineages, beside a fresh pairing.

    python -m bench.cr_diff_pairs [--db PATH] [--rounds 3]

The site's diff page and ``mtgkb cr-diff`` read the build's stored diff for consecutive versions;
any other two English versions are compared rule by rule along their lineages
(``kb.store.identity_diff.diff_by_identity``). The baseline is what they did before: both
documents paired afresh (``kb.link.cr_diff.diff_versions``), which is also what a translation's
versions still get. For every pair of English versions of the database that are not consecutive,
in the same process, interleaved, ``--rounds`` times each: the seconds of each (the documents read
from the database included), and how many rules of the older version each pairs differently (a
rule the other pairs elsewhere, or calls removed).

And the diff page's first visit of each pair (``kb.site.diff_page.diff_page``, its kept
comparisons emptied before each): on the database as built, where versions are compared by their
rules' and glossary entries' stored digests (``rule_comparisons``, ``glossary_comparisons``) and
only the page's hundred changes read their texts (with nothing read of either version, and again
with both versions read by an earlier diff, as a served site keeps them), beside a copy without
those tables (a file built before them: both documents read and compared whole, every word diff
made, as the page did before) and a copy without the glossary's (its glossaries read and folded,
as the page did before them).

Without ``--db``, the bundled snapshot is built first. The pairs are those of ``--versions``
English versions spread evenly from the first to the newest (default 11: 55 pairs of the
snapshot's 31 editions; every pair of 31 would take ~20 minutes). Prints the figures and writes
them to bench/results/cr_diff_pairs.json.
"""
from __future__ import annotations

import argparse
import gc
import itertools
import json
import shutil
import sqlite3
import statistics
import time
from pathlib import Path

import sqlite_utils

from kb.build.inputs import snapshot_inputs
from kb.build.publish import build_database
from kb.link.cr_compare import _comparison_form, _digest, glossary_digest
from kb.link.cr_diff import Change, diff_versions
from kb.site import diff_page
from kb.store.derive_cr_links import load_cr_document
from kb.store.derive_lineage import english_versions
from kb.store.identity_diff import diff_by_identity

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


def first_visit(conn: sqlite3.Connection, old: str, new: str, versions_kept: bool = False) -> float:
    """Seconds of the diff page of ``old`` → ``new`` when no comparison of theirs is kept (and,
    unless ``versions_kept``, nothing read of either version)."""
    with diff_page._CACHE_LOCK:
        diff_page._CACHE.clear()
        if not versions_kept:
            diff_page._VERSIONS.clear()
    # The fresh pairings timed beside it leave hundreds of MB of objects: collected here, not in
    # the page's time (a served site collects what its warm-up made once and freezes it). And
    # they fold both versions' texts: forgotten, or the page from the texts finds them folded
    # (a review: 222–276 ms so, 350–427 ms a true first visit).
    _comparison_form.cache_clear()
    _digest.cache_clear()
    glossary_digest.cache_clear()
    gc.collect()
    started = time.perf_counter()
    page = diff_page.diff_page(conn, old, new)
    elapsed = time.perf_counter() - started
    assert page["status"] == 200 and page["changes"], (old, new)
    return elapsed


def without_comparisons(db_path: Path, workdir: Path, glossary_only: bool = False) -> Path:
    """A copy of ``db_path`` as a file built before ``rule_comparisons`` and
    ``glossary_comparisons`` (``glossary_only``: before the latter alone, whose glossaries are
    compared from their texts, m026 leaving the table empty)."""
    copy = workdir / ("without-glossary-comparisons.db" if glossary_only else "without-rule-comparisons.db")
    shutil.copy(db_path, copy)
    with sqlite3.connect(copy) as conn:
        if not glossary_only:
            conn.execute("drop table if exists rule_comparisons")
        conn.execute("delete from glossary_comparisons")
    conn.close()
    return copy


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def run(db_path: Path, rounds: int, wanted_versions: int = 11, workdir: Path | None = None) -> dict:
    db = sqlite_utils.Database(db_path)
    served = connect(db_path)
    from_texts = connect(without_comparisons(db_path, workdir or db_path.parent))
    glossary_from_texts = connect(without_comparisons(db_path, workdir or db_path.parent, glossary_only=True))
    versions = [version for version, _date in english_versions(db)]
    chosen = spread(len(versions), wanted_versions)
    pairs = [(versions[i], versions[j]) for i, j in itertools.combinations(chosen, 2) if j > i + 1]
    rows = []
    for old, new in pairs:
        timings: dict[str, list[float]] = {
            "lineage": [], "fresh": [], "page": [], "page_versions_kept": [], "page_from_texts": [],
            "page_glossary_from_texts": [],
        }
        results: dict[str, list[Change]] = {}
        for _round in range(rounds):
            for name, compare in (("lineage", diff_by_identity), ("fresh", _fresh)):
                started = time.perf_counter()
                found = compare(db, old, new)
                timings[name].append(time.perf_counter() - started)
                assert found is not None, (old, new)
                results[name] = found
            timings["page"].append(first_visit(served, old, new))
            timings["page_versions_kept"].append(first_visit(served, old, new, versions_kept=True))
            timings["page_from_texts"].append(first_visit(from_texts, old, new))
            timings["page_glossary_from_texts"].append(first_visit(glossary_from_texts, old, new))
        lineage, fresh = _pairs(results["lineage"]), _pairs(results["fresh"])
        differ = sum(1 for number in set(lineage) | set(fresh) if lineage.get(number) != fresh.get(number))
        rows.append({
            "old": old, "new": new,
            "lineage_seconds": round(statistics.median(timings["lineage"]), 3),
            "fresh_seconds": round(statistics.median(timings["fresh"]), 3),
            "page_first_visit_seconds": round(statistics.median(timings["page"]), 4),
            "page_first_visit_versions_kept_seconds": round(statistics.median(timings["page_versions_kept"]), 4),
            "page_first_visit_from_texts_seconds": round(statistics.median(timings["page_from_texts"]), 4),
            "page_first_visit_glossary_from_texts_seconds": round(statistics.median(timings["page_glossary_from_texts"]), 4),
            "changes": len(results["lineage"]), "rules_paired_differently": differ,
        })
    lineage_total = sum(row["lineage_seconds"] for row in rows)
    fresh_total = sum(row["fresh_seconds"] for row in rows)
    pages = sorted(row["page_first_visit_seconds"] for row in rows)
    pages_versions_kept = sorted(row["page_first_visit_versions_kept_seconds"] for row in rows)
    pages_from_texts = sorted(row["page_first_visit_from_texts_seconds"] for row in rows)
    pages_glossary_from_texts = sorted(row["page_first_visit_glossary_from_texts_seconds"] for row in rows)
    return {
        "db": str(db_path), "english_versions": len(versions), "versions_compared": [versions[i] for i in chosen],
        "pairs": len(rows), "rounds": rounds,
        "lineage_seconds_total": round(lineage_total, 2), "fresh_seconds_total": round(fresh_total, 2),
        "lineage / fresh": round(lineage_total / fresh_total, 2) if fresh_total else None,
        "slowest_lineage_seconds": max((row["lineage_seconds"] for row in rows), default=None),
        "slowest_fresh_seconds": max((row["fresh_seconds"] for row in rows), default=None),
        "rules_paired_differently": sum(row["rules_paired_differently"] for row in rows),
        "page_first_visit_ms": _spread_ms(pages),
        "page_first_visit_versions_kept_ms": _spread_ms(pages_versions_kept),
        "page_first_visit_from_texts_ms": _spread_ms(pages_from_texts),
        "page_first_visit_glossary_from_texts_ms": _spread_ms(pages_glossary_from_texts),
        "page first visit / glossary from texts (median)": round(
            statistics.median(pages) / statistics.median(pages_glossary_from_texts), 3
        ),
        "page first visit / from texts (median)": round(statistics.median(pages) / statistics.median(pages_from_texts), 3),
        "rows": rows,
    }


def _spread_ms(seconds: list[float]) -> dict[str, float]:
    """Median, 95th percentile and slowest of per-pair medians, in milliseconds."""
    ordered = sorted(seconds)
    return {
        "p50": round(1000 * statistics.median(ordered), 1),
        "p95": round(1000 * ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1),
        "max": round(1000 * ordered[-1], 1),
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
    args.workdir.mkdir(parents=True, exist_ok=True)
    figures = run(db_path, args.rounds, args.versions, args.workdir)
    for row in figures["rows"]:
        print(f"{row['old']} -> {row['new']}: lineage {row['lineage_seconds']:.3f} s, fresh pairing"
              f" {row['fresh_seconds']:.3f} s, {row['changes']} changes, {row['rules_paired_differently']} rules paired differently;"
              f" page first visit {1000 * row['page_first_visit_seconds']:.1f} ms"
              f" (from the texts {1000 * row['page_first_visit_from_texts_seconds']:.1f} ms)")
    print(f"{figures['pairs']} pairs of {figures['english_versions']} English versions: lineage"
          f" {figures['lineage_seconds_total']} s, fresh pairing {figures['fresh_seconds_total']} s"
          f" ({figures['lineage / fresh']}); slowest {figures['slowest_lineage_seconds']} s against"
          f" {figures['slowest_fresh_seconds']} s; {figures['rules_paired_differently']} rules paired differently")
    print(f"diff page, first visit of a pair: {figures['page_first_visit_ms']} ms by the stored comparisons"
          f" ({figures['page_first_visit_versions_kept_ms']} ms with both versions read before),"
          f" {figures['page_first_visit_from_texts_ms']} ms from the texts"
          f" ({figures['page first visit / from texts (median)']} at the median),"
          f" {figures['page_first_visit_glossary_from_texts_ms']} ms with the glossaries from their texts"
          f" ({figures['page first visit / glossary from texts (median)']} at the median)")
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
