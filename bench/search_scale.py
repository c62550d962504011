"""The site's search and busiest pages on a full-scale database, beside Datasette's own floor and a bounded direct FTS query.

    .venv/bin/python -m bench.search_scale --scale 0.2 --workdir /tmp/search-scale [--seconds 8]
    .venv/bin/python -m bench.search_scale --db /path/to/kb.db

Without ``--db``, builds the database first (once per workdir) as ``bench.full_scale`` builds
its full database: the generated corpus (``bench.corpus``: rulings, oracle_cards, all_cards in
11 languages at ``--scale`` × 1M rulings / 500k printings) on top of every CR version of the
bundled snapshot. Then serves it with ``mtgkb serve`` on 127.0.0.1 with the page cache off
(``MTGKB_PAGE_CACHE=0``: every request does its full work, as a stream of different queries
would) and measures, loopback only:

- ``floor``: ``/-/versions.json``, Datasette answering without touching the database;
- ``direct FTS``: a bounded full-text query through Datasette's SQL API
  (``select rowid from rulings_fts where rulings_fts match :q limit 20``);
- ``search``: the one-box search (``/search.json?q=``) over common words ("the", "if a
  creature"), long queries, rule numbers, keywords, card names in several languages;
- ``pages``: rule pages of the keywords with the most rulings, card lookup by a foreign
  name, the Atom feed, a card page, the home, contents, glossary and diff pages;
- ``Datasette pages``: Datasette's own JSON over the same file (the database page, the rulings
  and rules tables, a table's full-text search for a common word, one card's rulings, two views,
  a document's row): what SQL and API users read; Datasette's code, with the plugin's metadata
  and limits.

``--workers N`` serves with ``mtgkb serve --workers N`` (N server processes; results named
``search_scale-<scale>-workersN.json``).

``--against REV`` also serves the same file with the code of git revision REV (a worktree of
it) and runs the search at 4 clients on each in turn, ``--ab-rounds`` times (each code first in
every other round):
on a shared machine whose speed moves by a third from minute to minute, the two codes'
figures are only comparable measured side by side, and the ratio is what is reported.

Each group sequentially (p50/p95/p99, at least 40 requests a group), then the floor, the
direct FTS query and the search at 4 and 16 concurrent clients (p50/p95, 5xx count), and the
search's ratios to the floor and to the direct query at each level. Figures go to
bench/results/search_scale-<scale>.json.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bench.corpus import write_corpus
from bench.full_scale import FULL, SNAPSHOT
from bench.load_site import HOST, free_port, percentile, wait_ready

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TARGETS = {"search p95 sequential ms": 15, "search p95 at 4 clients ms": 40, "pages p95 ms": 50}
SEARCHES = (
    "the", "if a creature", "a", "double-faced card transform", "deathtouch", "flying",
    "the creature's controller may sacrifice it at the beginning of the next end step",
    "until end of turn", "702.19", "rule 701.40", "convoke", "zerstören", "détruisez", "no such wordxyz",
    # The translated rules, ranked by what they tell of the term (kb.site.search_cjk_rank).
    "优先权", "멀리건은 어떻게 하나요?",
)


def cli(*argv: str) -> None:
    subprocess.run([sys.executable, "-c", "from kb.cli import cli; cli()", *argv], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)


def build(scale: float, workdir: Path) -> Path:
    """The full database of ``bench.full_scale`` (snapshot + oracle_cards + rulings + all_cards)."""
    db = workdir / "kb.db"
    if db.exists():
        return db
    sizes = {key: max(1, int(value * scale)) for key, value in FULL.items()}
    files = write_corpus(workdir / "corpus", sizes["rulings"], sizes["cards"], sizes["printings"])
    building = workdir / "kb.building.db"
    building.unlink(missing_ok=True)
    cli("build", "--snapshot", str(SNAPSHOT), "--db", str(building))
    for kind in ("oracle_cards", "rulings", "all_cards"):
        cli("import", "--db", str(building), "--source", "scryfall", str(files[kind]))
    building.rename(db)
    return db


def pages_of(db: Path) -> dict[str, str]:
    """Busy pages from what the database holds: the rules with the most rulings, foreign names."""
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        busy = [row[0] for row in conn.execute(
            """select current_number from ruling_rules where current_number is not null
            group by current_number order by count(*) desc limit 3""")]
        names = {lang: conn.execute("select name from card_names where lang = ? order by rowid limit 1 offset 500",
                                    (lang,)).fetchone() for lang in ("de", "ja", "zhs")}
        # A card no card data identifies, known by the name a page printed (its page shows that
        # page's printings and the names its documents printed).
        printed_only = conn.execute("select name from unresolved_card_names order by lang, name limit 1").fetchone()
        # The largest pages the site draws: the section of the current rules with the most
        # subrules (702 Keyword Abilities, each beside its translations), and the edition with the
        # most changes since the one before it.
        section = conn.execute(
            """select parent_number from rules where version_id = (select id from cr_versions where lang = 'en'
            order by effective_date desc limit 1) and parent_number not like '%.%'
            group by parent_number order by count(*) desc limit 1""").fetchone()
        edition = conn.execute(
            "select new_version_id from cr_changes group by new_version_id order by count(*) desc limit 1").fetchone()
    finally:
        conn.close()
    oracle = a_card_with_rulings(db)
    pages = {f"rule {number}": f"/rule/{number}" for number in ["701.40", *busy]}
    if section:
        pages[f"section with the most subrules ({section[0]})"] = f"/rule/{section[0]}"
    if edition:
        pages[f"edition with the most changes ({edition[0]})"] = f"/version/{edition[0]}"
    pages.update({f"card name {lang}": "/card?name=" + quote(row[0]) for lang, row in names.items() if row})
    pages["feed"] = "/changes.atom"
    pages["card name no card has"] = "/card?name=" + quote("Jace, the Mind Sculptr")  # a typo: 404
    if printed_only:
        pages["card known only by a printed name"] = "/card?name=" + quote(printed_only[0])
    # The pages every visit passes through, the longest listing (every rule of the current CR) among them.
    pages.update({"home": "/", "contents": "/contents", "glossary term": "/glossary/Trample",
                  "diff (latest two versions)": "/diff"})
    if oracle:
        pages["card"] = f"/card/{oracle}"
    return pages


def a_card_with_rulings(db: Path) -> str | None:
    """The Oracle id of one card with rulings (the 5,000th ruling's): its card page, its rulings."""
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        row = conn.execute("select oracle_id from rulings where oracle_id is not null limit 1 offset 5000").fetchone()
    finally:
        conn.close()
    return row[0] if row else None


def datasette_pages_of(db: Path) -> dict[str, str]:
    """Datasette's own pages over the same file: what people writing SQL and JSON clients read
    (Datasette's code; the plugin gives it metadata, facets and time limits)."""
    oracle = a_card_with_rulings(db)
    name = db.stem
    pages = {
        "database page": f"/{name}.json",
        "rulings table": f"/{name}/rulings.json?_size=10",
        "rules table": f"/{name}/rules.json?_size=10",
        "rulings full-text search (a common word)": f"/{name}/rulings.json?_search=flying&_size=10",
    }
    if oracle:
        pages["rulings of one card"] = f"/{name}/rulings.json?oracle_id={oracle}"
    # Views are counted at every view of their page; a document's row page counts its rows in
    # every table that points at it.
    pages["records as printed (view)"] = f"/{name}/ruling_records_as_printed.json?_size=10"
    pages["all card names (view)"] = f"/{name}/all_card_names.json?_size=10"
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        document = conn.execute(  # the one with the most printings (all_cards)
            "select document_id from printings group by document_id order by count(*) desc limit 1").fetchone()
    finally:
        conn.close()
    if document:
        pages["a document"] = f"/{name}/documents/{document[0]}.json"
    return pages


def searches_of(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        names = [row[0] for row in conn.execute(
            "select name from card_names where lang in ('en', 'de', 'fr', 'ja', 'zhs') group by lang")]
    finally:
        conn.close()
    return {query: "/search.json?q=" + quote(query) for query in (*SEARCHES, *names)}


# Every 5xx of a group, named: the status and the start of the body, or the client's error (a
# request the client gave up on counts as 599), with the URL. A rare one must say what it was.
FailureLog = dict[str, int]


async def timed(client: httpx.AsyncClient, url: str, failures: FailureLog | None = None) -> tuple[float, int]:
    started = time.perf_counter()
    try:
        response = await client.get(url)
        status = response.status_code
        what = f"{status} {response.text[:120]!r}"
    except httpx.HTTPError as error:
        status = 599
        what = f"{type(error).__name__}: {str(error)[:120]}"
    if status >= 500 and failures is not None:
        key = f"{what} at {url[:80]}"
        failures[key] = failures.get(key, 0) + 1
    return time.perf_counter() - started, status


def summary(latencies: list[float], statuses: list[int], failures: FailureLog | None = None) -> dict[str, Any]:
    return {
        "requests": len(latencies),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 1),
        "p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "5xx": sum(1 for status in statuses if status >= 500),
        "4xx": sum(1 for status in statuses if 400 <= status < 500),
        **({"5xx_seen": failures} if failures else {}),
    }


async def sequential(base: str, urls: dict[str, str], rounds: int) -> tuple[dict[str, Any], dict[str, float]]:
    """Every URL ``rounds`` times, one at a time; the group's summary and each URL's median."""
    latencies: list[float] = []
    statuses: list[int] = []
    each: dict[str, list[float]] = {}
    failures: FailureLog = {}
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for url in urls.values():
            await timed(client, url)  # warm the connection and SQLite's page cache
        # At least 40 requests a group: a p95 of five requests is their slowest.
        for _ in range(max(rounds, -(-40 // len(urls)))):
            for name, url in urls.items():
                seconds, status = await timed(client, url, failures)
                latencies.append(seconds)
                statuses.append(status)
                each.setdefault(name, []).append(seconds)
    return summary(latencies, statuses, failures), {name: round(percentile(v, 0.5) * 1000, 1) for name, v in each.items()}


async def concurrent(base: str, urls: dict[str, str], clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: list[int] = []
    failures: FailureLog = {}
    names = list(urls)
    stop = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients + 2)

    async def client_loop(client: httpx.AsyncClient, offset: int) -> None:
        index = offset
        while time.monotonic() < stop:
            seconds_taken, status = await timed(client, urls[names[index % len(names)]], failures)
            index += 1
            latencies.append(seconds_taken)
            statuses.append(status)

    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
        await asyncio.gather(*(client_loop(client, i * 3) for i in range(clients)))
    return {"clients": clients, **summary(latencies, statuses, failures)}


def serve(db: Path, workers: int, tree: Path = ROOT) -> tuple[str, subprocess.Popen]:
    """``mtgkb serve`` of ``db`` with the code of ``tree``, page cache off: its base URL and process."""
    port = free_port()
    env = {**os.environ, "MTGKB_PAGE_CACHE": "0", "PYTHONPATH": str(tree)}
    server = subprocess.Popen(
        [sys.executable, "-c", "from kb.cli import cli; cli()", "serve", "--db", str(db), "--port", str(port), "--host", HOST,
         "--workers", str(workers)],
        cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return f"http://{HOST}:{port}", server


def against(db: Path, revision: str, seconds: float, rounds: int, workers: int = 1) -> dict[str, Any]:
    """The search at 4 clients served by this tree and by ``revision``'s code, in turn."""
    tree = Path(tempfile.mkdtemp(prefix="search-scale-against-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), revision], cwd=ROOT, check=True, capture_output=True)
    searches = searches_of(db)
    figures: dict[str, list[dict[str, Any]]] = {"this tree": [], revision: []}
    servers: dict[str, tuple[str, subprocess.Popen]] = {}
    try:
        for name, path in (("this tree", ROOT), (revision, tree)):
            servers[name] = serve(db, workers, path)
            wait_ready(*servers[name])
            asyncio.run(sequential(servers[name][0], searches, 1))  # each file's pages and maps read once
        for turn in range(rounds):
            # Each code first in every other round: neither always runs on a machine the other warmed.
            for name in list(servers)[:: 1 if turn % 2 == 0 else -1]:
                found = asyncio.run(concurrent(servers[name][0], searches, 4, seconds))
                figures[name].append(found)
                print(f"search at 4 clients, {name:10}: {found}", flush=True)
    finally:
        for _base, server in servers.values():
            server.terminate()
            server.wait(timeout=20)
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
    medians = {name: statistics.median(found["p95_ms"] for found in runs) for name, runs in figures.items()}
    summary = {"revision": revision, "rounds": figures, "median p95 ms": medians,
               "p95 this tree / revision": round(medians["this tree"] / medians[revision], 2)}
    print(json.dumps({key: summary[key] for key in ("median p95 ms", "p95 this tree / revision")}), flush=True)
    return summary


def measure(db: Path, seconds: float, rounds: int, workers: int = 1) -> dict[str, Any]:
    base, server = serve(db, workers)
    searches = searches_of(db)
    fts = ("/" + db.stem + ".json?_shape=array&sql="
           + quote("select rowid from rulings_fts where rulings_fts match :q limit 20") + "&q=")
    groups = {
        "floor": {"versions": "/-/versions.json"},
        "direct FTS": {word: fts + quote(f'"{word}"') for word in ("the", "creature", "deathtouch", "transform")},
        "search": searches,
        "pages": pages_of(db),
        "Datasette pages": datasette_pages_of(db),
    }
    figures: dict[str, Any] = {"sequential": {}, "per_url_p50_ms": {}, "concurrent": []}
    try:
        wait_ready(base, server)
        for name, urls in groups.items():
            found, each = asyncio.run(sequential(base, urls, rounds))
            figures["sequential"][name] = found
            figures["per_url_p50_ms"][name] = each
            print(f"{name:15} sequential: {found}", flush=True)
        for clients in (4, 16):
            # The floor and the direct query at the same concurrency: what any request costs
            # when four or sixteen wait for the same two cores.
            for name in ("floor", "direct FTS", "search"):
                found = {"group": name, **asyncio.run(concurrent(base, groups[name], clients, seconds))}
                figures["concurrent"].append(found)
                print(f"{name:12} at {clients:2} clients: {found}", flush=True)
        figures["ratios"] = ratios(figures)
        print(json.dumps(figures["ratios"], indent=1), flush=True)
    finally:
        server.terminate()
        server.wait(timeout=20)
    return figures


def ratios(figures: dict[str, Any]) -> dict[str, float]:
    """Search's p50 and p95 over the floor's and over the direct FTS query's, at each concurrency."""
    levels: dict[str, dict[str, dict[str, Any]]] = {"sequential": figures["sequential"]}
    for found in figures["concurrent"]:
        levels.setdefault(f"{found['clients']} clients", {})[found["group"]] = found
    out = {}
    for level, groups in levels.items():
        for base in ("floor", "direct FTS"):
            for stat in ("p50_ms", "p95_ms"):
                if groups.get(base, {}).get(stat):
                    out[f"search {stat[:3]} / {base} {stat[:3]}, {level}"] = round(groups["search"][stat] / groups[base][stat], 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an already built database (else built in --workdir)")
    parser.add_argument("--scale", type=float, default=0.2, help="share of the real size (1 = 1M rulings)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/mtgkb-search-scale"))
    parser.add_argument("--seconds", type=float, default=8.0, help="per concurrent level")
    parser.add_argument("--rounds", type=int, default=5, help="sequential passes over each group's URLs")
    parser.add_argument("--workers", type=int, default=1, help="mtgkb serve --workers (server processes)")
    parser.add_argument("--against", metavar="REV", help="also the search at 4 clients with REV's code, in turn")
    parser.add_argument("--ab-rounds", type=int, default=3, help="rounds of each code with --against")
    args = parser.parse_args()
    if args.db is None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        db = build(args.scale, args.workdir)
        print(f"database: {db} ({db.stat().st_size / 1e6:.0f} MB, {time.monotonic() - started:.0f} s)", flush=True)
    else:
        db = args.db
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    counts = {table: conn.execute(f"select count(*) from {table}").fetchone()[0]
              for table in ("rulings", "printings", "card_names", "rules")}
    conn.close()
    figures = {"db": str(db), "counts": counts, "targets": TARGETS, "workers": args.workers,
               **measure(db, args.seconds, args.rounds, args.workers)}
    if args.against:
        figures["against"] = against(db, args.against, args.seconds, args.ab_rounds, args.workers)
    # Named by scale: the share of a million rulings the database holds.
    label = f"{args.scale:g}" if args.db is None else f"{round(counts['rulings'] / FULL['rulings'], 2):g}"
    RESULTS.mkdir(exist_ok=True)
    label += f"-workers{args.workers}" if args.workers > 1 else ""
    (RESULTS / f"search_scale-{label}.json").write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
