"""Where a site page's time goes: its data function alone, then the whole response in-process, uncached and cached.

    .venv/bin/python -m bench.page_profile [--db data/kb.db] [--rounds 20] [--profile rule]

For each kind of page (the load benchmark's URLs), reports the median time of the page's data
function on a plain immutable connection, of the whole response through Datasette's ASGI app
with the page cache off (every request computes the data and renders), and with it on (the
data computed once per served file; rendering remains). ``--profile KIND`` prints the top of
a cProfile of the uncached response of that page. Figures go to bench/results/page_profile.json.
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import json
import os
import pstats
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.load_site import site_pages

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "page_profile.json"


def data_functions(pages: dict[str, str]) -> dict[str, Callable[[sqlite3.Connection], Any]]:
    from kb.site import card_page, feed, home_page, rule_page, version_page
    from kb.site.search import search

    oracle = pages["card"].rsplit("/", 1)[1]
    version = pages["version"].rsplit("/", 1)[1]
    return {
        "home": home_page.home_stats,
        "card": lambda conn: card_page.card_page(conn, oracle),
        "rule": lambda conn: rule_page.rule_page(conn, "702.78"),
        "search": lambda conn: search(conn, "conspirar"),
        "version": lambda conn: version_page.version_page(conn, version),
        "feed": feed.recent_changes,
    }


def median_ms(fn: Callable[[], Any], rounds: int) -> float:
    fn()  # warm
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return round(statistics.median(times) * 1000, 2)


async def response_times(db: Path, pages: dict[str, str], rounds: int, cached: bool, profile: str | None) -> dict[str, float]:
    os.environ["MTGKB_PAGE_CACHE"] = "1" if cached else "0"
    from datasette.app import Datasette

    from kb.site.serve import SETTINGS

    ds = Datasette(immutables=[str(db)], settings=dict(SETTINGS))
    await ds.invoke_startup()
    client = ds.client
    found: dict[str, float] = {}
    for page, url in pages.items():
        response = await client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            await client.get(url)
            times.append(time.perf_counter() - started)
        found[page] = round(statistics.median(times) * 1000, 2)
        if profile == page and not cached:
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(rounds):
                await client.get(url)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=ROOT / "data" / "kb.db")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--profile", help="print a cProfile of this page kind's uncached response")
    args = parser.parse_args()
    pages = site_pages(args.db)
    conn = sqlite3.connect(f"file:{args.db}?immutable=1", uri=True)
    data = {page: median_ms(functools.partial(fn, conn), args.rounds) for page, fn in data_functions(pages).items()}
    uncached = asyncio.run(response_times(args.db, pages, args.rounds, False, args.profile))
    cached = asyncio.run(response_times(args.db, pages, args.rounds, True, None))
    print(f"{'page':16} {'data ms':>8} {'response ms':>12} {'cached ms':>10}")
    for page in pages:
        print(f"{page:16} {data.get(page, float('nan')):>8} {uncached[page]:>12} {cached[page]:>10}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"db": args.db.name, "rounds": args.rounds, "median_ms": {
        "data function": data, "response, page cache off": uncached, "response, page cache on": cached}}, indent=2) + "\n")


if __name__ == "__main__":
    main()
