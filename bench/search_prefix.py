"""A query's last word as a prefix: FTS5's own prefix query beside the same prefix asked as the words it begins.

    .venv/bin/python -m bench.search_prefix --db /tmp/fs1/kb.db [--repeat 15]

On a built database (``bench.full_scale`` makes one at full size), in one process, interleaved:

- each query's rulings window (``select rowid from rulings_fts where … match ? limit 100``) with
  the prefix as FTS5 answers it (``"turn"*``) and as ``kb.site.search_prefix`` asks it (the words
  of ``search_terms``), after checking both find the same rows (every match, not only the window);
- the whole one-box search (``kb.site.search.search``) per query, with the word list and with it
  switched off (the prefix asked natively), as the site runs it without the page cache.

Median milliseconds of ``--repeat`` runs each; figures go to bench/results/search_prefix-<db name>.json.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import time
from pathlib import Path
from unittest import mock

from kb.site import search as site_search
from kb.site import search_fulltext
from kb.site.search_prefix import prefix_as_words
from kb.site.search_text import fts_query

RESULTS = Path(__file__).resolve().parent / "results"
QUERIES = (
    "until end of turn", "double-faced card transform", "if a creature", "transform", "creature", "sacrifice",
    "the creature's controller may sacrifice it at the beginning of the next end step", "deathtouch", "flying",
    "convoke", "no such wordxyz",
)
WINDOW = "select rowid from rulings_fts where rulings_fts match ? limit 100"


def median_ms(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def every_match(conn: sqlite3.Connection, match: str) -> list[int]:
    return [row[0] for row in conn.execute("select rowid from rulings_fts where rulings_fts match ? order by rowid", (match,))]


def measure(db: Path, repeat: int) -> dict:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    if conn.execute("select 1 from sqlite_master where name = 'search_terms'").fetchone() is None:
        raise SystemExit(f"{db}: no search_terms (built before the word list): import anything into it first")
    figures: dict = {"database": str(db), "repeat": repeat, "queries": {}}
    for query in QUERIES:
        native = fts_query(query)
        assert native is not None
        listed = prefix_as_words(conn, "rulings_fts", native)
        same = every_match(conn, native) == every_match(conn, listed)
        if not same:
            raise SystemExit(f"{query!r}: {listed!r} does not find what {native!r} finds")
        site_search.search(conn, query)  # warm the caches both ways share
        row = {"fts5 prefix": native, "as words": listed, "same rows": same}
        row["window ms, fts5 prefix"] = median_ms(lambda m=native: conn.execute(WINDOW, (m,)).fetchall(), repeat)
        row["window ms, as words"] = median_ms(lambda m=listed: conn.execute(WINDOW, (m,)).fetchall(), repeat)
        with mock.patch.object(search_fulltext, "prefix_as_words", lambda conn, index, match: match):
            row["search ms, fts5 prefix"] = median_ms(lambda q=query: site_search.search(conn, q), repeat)
        row["search ms, as words"] = median_ms(lambda q=query: site_search.search(conn, q), repeat)
        figures["queries"][query] = row
    for key in ("window ms", "search ms"):
        before = sum(row[f"{key}, fts5 prefix"] for row in figures["queries"].values())
        after = sum(row[f"{key}, as words"] for row in figures["queries"].values())
        figures[f"{key}, all queries: fts5 prefix / as words"] = round(before / after, 2)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    figures = measure(args.db, args.repeat)
    print(f"{'query':42} {'window: fts5 / words':>22} {'search: fts5 / words':>22}")
    for query, row in figures["queries"].items():
        print(f"{query[:42]:42} {row['window ms, fts5 prefix']:>10} / {row['window ms, as words']:<9} "
              f"{row['search ms, fts5 prefix']:>10} / {row['search ms, as words']:<9}")
    for key, value in figures.items():
        if key.endswith("as words"):
            print(f"{key}: {value}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"search_prefix-{args.db.stem}.json"
    out.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
