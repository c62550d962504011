"""Load on the served site, loopback only: p50/p95/p99 and errors of the site's pages at 8, 32 and 64 clients, with and without 16 hostile SQL clients.

    .venv/bin/python -m bench.load_site [--db data/kb.db] [--seconds 6] [--think-ms 0] [--compare]

Starts ``mtgkb serve`` on 127.0.0.1 (a free port), first measures each page alone (one client),
then runs every level for ``--seconds`` (bounded in time and in requests) and prints one line per
level; figures go to bench/results/load_site.json. Hostile clients run public SQL that would
loop for ever, allocate a gigabyte or return a gigabyte, as fast as the server answers them.
When ``--db`` does not exist it is built from the bundled snapshot first.

``--compare`` runs everything twice in one session, first with the page cache off
(``MTGKB_PAGE_CACHE=0``: every page computed and rendered on each request, as before the
cache) then on, and prints the ratios. Page clients (eight per client process when they do not
pause: one process driving 64 connections measured its own connection pool more than the server) send their next
request as soon as the last one is answered (``--think-ms 0``: N clients keep N requests in flight, so once the
server is saturated latency grows with N by Little's law) or after a pause, as visitors
reading a page do (``--think-ms 1000``).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "load_site.json"
HOST = "127.0.0.1"
LEVELS = (8, 32, 64)
HOSTILE_CLIENTS = 16
# Every level stops after this many page requests even if time remains.
MAX_REQUESTS = 20_000
HOSTILE_SQL = (
    "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n",
    "select length(randomblob(900000000))",
    "select zeroblob(3000000) from rules limit 1000",
    "select r1.text, r2.text from rules r1, rules r2 order by random() limit 5",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def site_pages(db: Path) -> dict[str, str]:
    """One URL per kind of page, from what the database holds."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        oracle = conn.execute(
            "select oracle_id from rulings where oracle_id is not null group by oracle_id order by count(*) desc limit 1"
        ).fetchone()[0]
        version = conn.execute("select id from cr_versions where lang = 'en' order by effective_date desc limit 1").fetchone()[0]
    finally:
        conn.close()
    name = db.stem
    return {
        "home": "/",
        "card": f"/card/{oracle}",
        "rule": "/rule/702.78",
        "search": "/search?q=" + quote("conspirar") + "&all=1",
        "version": f"/version/{version}",
        "rules-filtered": f"/{name}/rules.json?version_id={quote(version)}&_size=50",
        "feed": "/changes.atom",
    }


class Recorder:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.requests = 0

    def add(self, page: str, seconds: float, ok: bool) -> None:
        self.requests += 1
        self.latencies.setdefault(page, []).append(seconds)
        if not ok:
            self.errors[page] = self.errors.get(page, 0) + 1


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def page_client(client: httpx.AsyncClient, pages: dict[str, str], record: Recorder, stop: float, offset: int,
                      think: float = 0.0) -> None:
    names = list(pages)
    index = offset
    if think:
        await asyncio.sleep(think * offset / 64)  # visitors arrive spread out, not in step
    while time.monotonic() < stop and record.requests < MAX_REQUESTS:
        page = names[index % len(names)]
        index += 1
        started = time.monotonic()
        try:
            response = await client.get(pages[page])
            ok = response.status_code < 400
        except httpx.HTTPError:
            ok = False
        record.add(page, time.monotonic() - started, ok)
        if think:
            await asyncio.sleep(think)


async def hostile_client(client: httpx.AsyncClient, db_name: str, stop: float, offset: int, counts: dict[str, int]) -> None:
    index = offset
    while time.monotonic() < stop:
        sql = HOSTILE_SQL[index % len(HOSTILE_SQL)]
        index += 1
        try:
            response = await client.get(f"/{db_name}.json?sql={quote(sql)}")
            counts[str(response.status_code)] = counts.get(str(response.status_code), 0) + 1
        except httpx.HTTPError as error:
            counts[type(error).__name__] = counts.get(type(error).__name__, 0) + 1


# Page clients per client process: one asyncio process driving 64 connections through httpx
# spent more time in its own connection pool than the server did answering (307 requests in 6 s
# against 1,087 from eight processes of eight), so the clients are spread over processes.
CLIENTS_PER_PROCESS = 8


async def page_clients(base: str, pages: dict[str, str], clients: int, first: int, seconds: float,
                       think: float) -> dict[str, Any]:
    """``clients`` page clients in this process for ``seconds``: latencies and errors by page."""
    record = Recorder()
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
        stop = time.monotonic() + seconds
        await asyncio.gather(*[page_client(client, pages, record, stop, first + i, think) for i in range(clients)])
    return {"latencies": record.latencies, "errors": record.errors, "requests": record.requests}


async def run_level(base: str, pages: dict[str, str], db_name: str, clients: int, hostile: int, seconds: float,
                    think: float = 0.0) -> dict[str, Any]:
    record = Recorder()
    hostile_counts: dict[str, int] = {}
    workers = []
    # Visitors who pause send a request a second each: one process keeps up with 64 of them,
    # and more processes would only take cores from the server.
    per_process = clients if think else CLIENTS_PER_PROCESS
    for first in range(0, clients, per_process):
        spec = json.dumps({"base": base, "pages": pages, "clients": min(per_process, clients - first),
                           "first": first, "seconds": seconds, "think": think})
        workers.append(await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.load_site", "--page-clients", spec, cwd=ROOT, stdout=asyncio.subprocess.PIPE))
    limits = httpx.Limits(max_connections=hostile + 4, max_keepalive_connections=hostile + 4)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
        stop = time.monotonic() + seconds
        outputs = asyncio.gather(*[worker.communicate() for worker in workers])
        await asyncio.gather(*[hostile_client(client, db_name, stop, i, hostile_counts) for i in range(hostile)])
        for stdout, _stderr in await outputs:
            found = json.loads(stdout)
            record.requests += found["requests"]
            for page, values in found["latencies"].items():
                record.latencies.setdefault(page, []).extend(values)
            for page, count in found["errors"].items():
                record.errors[page] = record.errors.get(page, 0) + count
    every = [value for values in record.latencies.values() for value in values]
    return {
        "clients": clients, "hostile_sql_clients": hostile, "requests": record.requests,
        "errors": sum(record.errors.values()),
        "p50_ms": round(percentile(every, 0.50) * 1000, 1),
        "p95_ms": round(percentile(every, 0.95) * 1000, 1),
        "p99_ms": round(percentile(every, 0.99) * 1000, 1),
        "card_p95_ms": round(percentile(record.latencies.get("card", []), 0.95) * 1000, 1),
        "pages_p95_ms": {page: round(percentile(values, 0.95) * 1000, 1) for page, values in sorted(record.latencies.items())},
        "hostile_responses": hostile_counts,
    }


async def unloaded(base: str, pages: dict[str, str], rounds: int = 20) -> dict[str, Any]:
    latencies: dict[str, list[float]] = {}
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for page, url in pages.items():
            await client.get(url)  # warm
            for _ in range(rounds):
                started = time.monotonic()
                await client.get(url)
                latencies.setdefault(page, []).append(time.monotonic() - started)
    every = [value for values in latencies.values() for value in values]
    return {
        "p50_ms": round(percentile(every, 0.50) * 1000, 1), "p95_ms": round(percentile(every, 0.95) * 1000, 1),
        "pages_p50_ms": {page: round(statistics.median(values) * 1000, 1) for page, values in latencies.items()},
    }


def wait_ready(base: str, server: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"mtgkb serve exited with {server.returncode}")
        try:
            if httpx.get(base + "/-/versions.json", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise SystemExit("mtgkb serve did not answer in time")


def measure(db: Path, pages: dict[str, str], seconds: float, think: float, env: dict[str, str]) -> dict[str, Any]:
    """One server: the pages alone, the card page alone with and without hostile SQL, every level."""
    port = free_port()
    base = f"http://{HOST}:{port}"
    server = subprocess.Popen(
        [sys.executable, "-c", "from kb.cli import cli; cli()", "serve", "--db", str(db), "--port", str(port), "--host", HOST],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **env},
    )
    try:
        wait_ready(base, server)
        alone = asyncio.run(unloaded(base, pages))
        print(f"unloaded: p50 {alone['p50_ms']} ms, p95 {alone['p95_ms']} ms; {alone['pages_p50_ms']}", flush=True)
        card = {"card": pages["card"]}
        for hostile in (0, HOSTILE_CLIENTS):
            alone_card = asyncio.run(run_level(base, card, db.stem, 1, hostile, seconds))
            print(f"card page, one client, {hostile:2} hostile SQL: {alone_card['requests']} requests, "
                  f"p50 {alone_card['p50_ms']} ms, p95 {alone_card['p95_ms']} ms", flush=True)
            alone[f"card_one_client_{hostile}_hostile"] = alone_card
        levels = []
        for hostile in (0, HOSTILE_CLIENTS):
            for clients in LEVELS:
                level = asyncio.run(run_level(base, pages, db.stem, clients, hostile, seconds, think))
                level["p95_over_unloaded_p95"] = round(level["p95_ms"] / alone["p95_ms"], 1) if alone["p95_ms"] else None
                levels.append(level)
                print(
                    f"{clients:3} clients, {hostile:2} hostile SQL: {level['requests']:5} requests, {level['errors']} errors, "
                    f"p50 {level['p50_ms']} ms, p95 {level['p95_ms']} ms, p99 {level['p99_ms']} ms, card p95 {level['card_p95_ms']} ms"
                    f" ({level['p95_over_unloaded_p95']}x unloaded p95)",
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(timeout=20)
    return {"unloaded": alone, "levels": levels}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=ROOT / "data" / "kb.db")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--think-ms", type=float, default=0.0, help="each page client's pause between requests")
    parser.add_argument("--compare", action="store_true", help="the page cache off, then on, in one run")
    parser.add_argument("--page-clients", help=argparse.SUPPRESS)  # one client process of run_level
    args = parser.parse_args()
    if args.page_clients:
        spec = json.loads(args.page_clients)
        print(json.dumps(asyncio.run(page_clients(spec["base"], spec["pages"], spec["clients"], spec["first"],
                                                  spec["seconds"], spec["think"]))))
        return
    if not args.db.exists():
        subprocess.run([sys.executable, "-c", "from kb.cli import cli; cli()", "build", "--db", str(args.db)], check=True, cwd=ROOT)
    pages = site_pages(args.db)
    think = args.think_ms / 1000
    runs = {"page cache off": {"MTGKB_PAGE_CACHE": "0"}, "page cache on": {"MTGKB_PAGE_CACHE": "1"}}
    if not args.compare:
        runs = {"page cache on": runs["page cache on"]}
    figures: dict[str, Any] = {}
    for name, env in runs.items():
        print(f"-- {name}", flush=True)
        figures[name] = measure(args.db, pages, args.seconds, think, env)
    result: dict[str, Any] = {"db": args.db.name, "seconds_per_level": args.seconds, "think_ms": args.think_ms,
                              "pages": pages, **figures}
    if args.compare:
        off, on = figures["page cache off"], figures["page cache on"]
        result["off_over_on"] = {
            "unloaded p95": ratio(off["unloaded"]["p95_ms"], on["unloaded"]["p95_ms"]),
            **{f"{a['clients']} clients, {a['hostile_sql_clients']} hostile: p95": ratio(a["p95_ms"], b["p95_ms"])
               for a, b in zip(off["levels"], on["levels"], strict=True)},
        }
        print("cache off / cache on, p95:", result["off_over_on"], flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    suffix = f"-think{args.think_ms:g}" if args.think_ms else ""
    (RESULTS.parent / f"load_site{suffix}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 1) if b else None


if __name__ == "__main__":
    main()
