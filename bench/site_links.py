"""Every page of the site opened and every link on it followed: no server error, no dead link.

    python -m bench.site_links [--db data/kb.db] [--rules-per-version N]

Without ``--db`` the bundled snapshot is built into a temporary file first. In process (Datasette's
own client, the page cache off), it opens: Datasette's page of every table and view (HTML and
labelled JSON); every rule of every English version (or ``--rules-per-version`` of each, for a
large archive); every version's page, contents and changes; the diff of each two consecutive
English versions; every glossary term of any English version and every language's glossary index;
every card and ruling; a search for every glossary term and a sample of card names. Then it
follows each site link those pages hold (Datasette's own table and row links aside), once.

A long proof, not a timing (it takes minutes): it found five faults on the bundled snapshot the day
it was written (a table page's 500, rule pages' 500s on the pawprint symbol, a dropped glossary
term's 404, older texts and "see current" linking today's numbers). Prints the pages and links
that failed, with the page each link came from, and writes them to
bench/results/site_links-<database>.json. A link that redirects counts as the page it leads to.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import io
import json
import logging
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
LINK = re.compile(r'href="(/[^"#]*)')


def pages_of(db: Path, rules_per_version: int | None) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        english = [row[0] for row in conn.execute("select id from cr_versions where lang = 'en' order by effective_date")]
        versions = [row[0] for row in conn.execute("select id from cr_versions order by effective_date")]
        langs = [row[0] for row in conn.execute("select distinct lang from cr_versions")]
        tables = [row[0] for row in conn.execute(
            "select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'"
            " and name not like '%_fts%' and name not like 'cjk_%' order by name")]
        pages = [f"/{db.stem}/{quote(table)}{suffix}" for table in tables for suffix in ("", ".json?_labels=on")]
        chooser = random.Random(7)
        for version in english:
            numbers = [row[0] for row in conn.execute("select number from rules where version_id = ?", (version,))]
            if rules_per_version is not None and len(numbers) > rules_per_version:
                numbers = chooser.sample(numbers, rules_per_version)
            pages += [f"/rule/{quote(number)}?version={quote(version)}" for number in numbers]
        pages += [f"/version/{quote(version)}" for version in versions]
        pages += [f"/contents?version={quote(version)}" for version in english]
        pages += [f"/diff?from={quote(old)}&to={quote(new)}" for old, new in pairwise(english)]
        terms = [row[0] for row in conn.execute(
            "select distinct term from glossary where version_id in (select id from cr_versions where lang = 'en')")]
        pages += [f"/glossary/{quote(term, safe='')}" for term in terms]
        pages += ["/glossary"] + [f"/glossary?lang={quote(lang)}" for lang in langs]
        pages += [f"/card/{row[0]}" for row in conn.execute("select oracle_id from cards limit 2000")]
        pages += [f"/ruling/{row[0]}" for row in conn.execute("select id from rulings limit 2000")]
        names = [row[0] for row in conn.execute("select distinct name from card_names limit 500")]
        pages += [f"/search?q={quote(query)}" for query in [*terms[:500], *names]]
        pages += ["/", "/contents", "/changes.atom"]
    finally:
        conn.close()
    return pages


async def check(db: Path, pages: list[str]) -> dict[str, Any]:
    os.environ["MTGKB_PAGE_CACHE"] = "0"
    sys.path.insert(0, str(ROOT / "tests"))
    from site_databases import make_datasette  # the same configuration `mtgkb serve` gives Datasette

    datasette = make_datasette(db)
    await datasette.invoke_startup()
    status: dict[str, int] = {}
    came_from: dict[str, str] = {}
    failed_pages: list[dict[str, Any]] = []

    async def get(url: str) -> Any:
        # Datasette logs a 500's traceback; the figures say which pages failed.
        with contextlib.redirect_stderr(io.StringIO()):
            return await datasette.client.get(url)

    for page in pages:
        response = await get(page)
        status[page] = response.status_code
        if response.status_code >= 500 or (response.status_code >= 400 and page.startswith(f"/{db.stem}/")):
            failed_pages.append({"page": page, "status": response.status_code})
            continue
        for link in set(LINK.findall(response.text)):
            link = html.unescape(link)
            if link.startswith(("/-/", f"/{db.stem}")) or link in status:
                continue
            came_from[link] = page
            response = await get(link)
            # A redirect (a translated rule to the English rule it translates) counts as what it leads to.
            for _hop in range(3):
                if response.status_code not in (301, 302) or not response.headers.get("location", "").startswith("/"):
                    break
                response = await get(response.headers["location"].split("#")[0])
            status[link] = response.status_code
    dead = [{"link": link, "status": status[link], "on": page} for link, page in came_from.items() if status[link] >= 400]
    return {"pages": len(pages), "links followed": len(came_from), "failed pages": failed_pages, "dead links": dead}


def build_snapshot(folder: Path) -> Path:
    db = folder / "kb.db"
    subprocess.run([sys.executable, "-c", "from kb.cli import cli; cli()", "build", "--snapshot",
                    str(ROOT / "data" / "snapshot"), "--db", str(db), "-q"], check=True, cwd=ROOT)
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="the database to check (default: the bundled snapshot, built first)")
    parser.add_argument("--rules-per-version", type=int, help="open this many rules of each version, not all")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or build_snapshot(Path(folder))
        started = time.monotonic()
        found = asyncio.run(check(db, pages_of(db, args.rules_per_version)))
        found["seconds"] = round(time.monotonic() - started, 1)
    name = "snapshot" if args.db is None else args.db.stem
    print(f"{found['pages']} pages opened, {found['links followed']} links followed in {found['seconds']} s:"
          f" {len(found['failed pages'])} failed pages, {len(found['dead links'])} dead links")
    for failed in found["failed pages"]:
        print(f"  page {failed['status']} {failed['page']}")
    for dead in found["dead links"]:
        print(f"  link {dead['status']} {dead['link']}  (on {dead['on']})")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"site_links-{name}.json").write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
