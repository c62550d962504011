"""Checks a new build must pass before it is published: shrinkage, new CR versions, smoke queries through Datasette."""
from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import sqlite_utils

from kb.store.save_cr import CONFLICTING_COPY

if TYPE_CHECKING:
    from datasette.app import Datasette

# A table may not lose more than this share of its rows in one refresh (unless allowed).
SHRINK_LIMIT = 0.10


# Fewer quality issues is good news, and runs are only ever added: neither is data loss. Nor are
# fewer merges and splits between editions: each links two consecutive editions, and an edition
# fetched between them links each to it, where the rule may be one lineage through it (a real
# edition refused for 3 → 2 of them: an operator's review). The rules they link are guarded. Nor
# are the digests a diff reads (each English rule's, made only where two editions are held: a file
# holding a dated copy of its one edition lost all 3,269 when the copy went); the rules are guarded.
# Nor the targets the rulings' links share: the links are guarded, and each points to its target.
SHRINK_EXEMPT = frozenset({"quality_issues", "refresh_runs", "rule_lineage_links", "rule_comparisons",
                           "glossary_comparisons", "ruling_rule_targets"})


# Quality issues that say a document lost what its source should hold, which only its source can
# give back: rules or examples its neighbours print, an edition cut short, a translation stopping
# before its edition's end. A run that brings one publishes it and fails its source (exit 2).
LOSS_KINDS = frozenset({"missing-between-versions", "examples-lost", "truncated-document", "translation-cut-short",
                        "lacks-what-a-copy-holds"})


# As the file is served (kb.site.serve.SETTINGS: no facet suggestions, which tried every column
# of a table on each page and were most of this check's time), with a lenient time limit for
# a file the operating system has not cached yet.
SMOKE_SETTINGS = {"sql_time_limit_ms": 5000, "suggest_facets": False}

# What the plugin is told of this instance: it answers no visitor (kb.site.plugin).
SMOKE_PLUGIN_CONFIG = {"read_ahead": False, "memory_map": False}

SMOKE_PATHS = (
    "/{db}.json",
    "/{db}/rules.json?_size=1",
    "/{db}/rulings.json?_size=1",
    "/{db}/cr_versions.json?_size=1",
    "/{db}/current_rules.json?_size=1",
    "/{db}/refresh_runs.json?_size=1",
    "/{db}/rules.json?_search=mana&_size=1",
)


def shrink_problems(changes: dict[str, dict[str, int]], discounted: dict[str, int] | None = None) -> list[str]:
    """Tables losing more than SHRINK_LIMIT of their rows; ``discounted``: rows per table the served
    file held that are no loss (``rows_of_dropped_copies``)."""
    problems = []
    for table, counts in changes.items():
        before, after = counts["before"] - (discounted or {}).get(table, 0), counts["after"]
        if table in SHRINK_EXEMPT or before <= 0:
            continue
        if after < before * (1 - SHRINK_LIMIT):
            problems.append(f"{table} would shrink from {before} to {after} rows ({(after - before) / before:+.0%})")
    return problems


# Where a CR version's rows are, by the column that leads to it (kb.store.tables).
_ROWS_OF_VERSIONS = {
    "version_id": "{column} in ({versions})",
    "rule_id": "{column} in (select id from old.rules where version_id in ({versions}))",
    "glossary_id": "{column} in (select id from old.glossary where version_id in ({versions}))",
    "old_version_id": "({column} in ({versions}) or new_version_id in ({versions}))",
}


def dropped_copies(db: sqlite_utils.Database) -> list[str]:
    """Conflicting copies of an edition (a damaged body published again under its date:
    ``kb.store.save_cr.mark_conflicting_copy``) the served file (``old``) holds and the new one
    does not: the edition's file was published again whole, and the copy went with its body.
    Named by their status, or in a file made before it said so, by their ``conflicting-version`` issue."""
    old = {row[0] for row in db.execute("select id from old.cr_versions")}
    new = {row[0] for row in db.execute("select id from main.cr_versions")}
    named = {row[0] for row in db.execute("select id from old.cr_versions where status like ?", [CONFLICTING_COPY + "%"])}
    for (detail,) in db.execute("select detail from old.quality_issues where kind = 'conflicting-version'"):
        found = re.search(r"kept as version (\S+),", detail or "")
        if found:
            named.add(found[1])
    return sorted((named & old) - new)


def rows_of_dropped_copies(db: sqlite_utils.Database, copies: list[str], tables: list[str]) -> dict[str, int]:
    """Per table, the rows of the served file that belong to ``copies`` (``dropped_copies``): their
    going is no loss (an edition's fix was refused every night as "rules would shrink -49%": a
    refresh review)."""
    if not copies:
        return {}
    versions = ", ".join("'" + copy.replace("'", "''") + "'" for copy in copies)
    counted: dict[str, int] = {}
    for table in tables:
        columns = {row[1] for row in db.execute(f'pragma old.table_info("{table}")')}
        if table == "cr_versions":
            where = f"id in ({versions})"
        elif table == "documents":
            where = f"id in (select document_id from old.cr_versions where id in ({versions}))"
        else:
            column = next((name for name in _ROWS_OF_VERSIONS if name in columns), None)
            if column is None:
                continue
            where = _ROWS_OF_VERSIONS[column].format(column=column, versions=versions)
        counted[table] = db.execute(f'select count(*) from old."{table}" where {where}').fetchone()[0]
    return counted


def new_cr_versions(db: sqlite_utils.Database, old_exists: bool) -> list[str]:
    if not old_exists:
        return [row[0] for row in db.execute("select id from main.cr_versions order by id")]
    return [
        row[0]
        for row in db.execute(
            "select id from main.cr_versions where id not in (select id from old.cr_versions) order by id"
        )
    ]


def checking_datasette(db_file: Path, name: str) -> Datasette:
    """The Datasette that checks ``db_file``: served immutable, as ``mtgkb serve`` serves it."""
    from datasette.app import Datasette
    from datasette.database import Database

    # No read-ahead of what the site keeps per file for its visitors (kb.site.warm): this
    # instance answers none (at the CR archive's size: 1 s and ~45 MB of this process); nor a
    # memory map of the file (kb.site.limits), whose pages the checks touch would count as this
    # process's memory.
    ds = Datasette([], settings=SMOKE_SETTINGS, metadata={"plugins": {"mtgkb": SMOKE_PLUGIN_CONFIG}})
    ds.add_database(Database(ds, path=str(db_file), is_mutable=False), name=name)
    return ds


def smoke_check(db_file: Path, name: str) -> list[str]:
    """Query the file through Datasette's test client, as it will be served; the failures."""
    failures: list[str] = []

    async def run() -> None:
        ds = checking_datasette(db_file, name)
        await ds.invoke_startup()
        for template in SMOKE_PATHS:
            path = template.format(db=name)
            response = await ds.client.get(path)
            if response.status_code != 200:
                failures.append(f"{path} answered {response.status_code}")
            elif "rows" in path or "_size" in path:
                if "rows" not in response.json():
                    failures.append(f"{path} returned no rows field")
        for database in ds.databases.values():
            database.close()

    # In its own thread and loop: the caller may itself be running an event loop.
    errors: list[BaseException] = []

    def in_thread() -> None:
        try:
            asyncio.run(run())
        except BaseException as error:  # surfaces below as a validation failure
            errors.append(error)

    worker = threading.Thread(target=in_thread)
    worker.start()
    worker.join()
    if errors:
        failures.append(f"Datasette could not serve the file: {type(errors[0]).__name__}: {errors[0]}")
    return failures
