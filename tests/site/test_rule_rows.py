"""A rule page's rows are drawn by a synchronous twin of Datasette's environment (``rulerows``):
the same HTML as Datasette's own environment draws from the same template, escaped alike."""
from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from kb.site.rule_page import rule_page
from kb.site.search_db import one_request
from site_databases import make_datasette


def test_the_twin_draws_the_rows_as_datasettes_environment_does(snapshot_db: Path, snapshot_conn: sqlite3.Connection) -> None:
    with one_request(snapshot_conn):
        page = rule_page(snapshot_conn, "702")
    assert page is not None

    async def both() -> tuple[str, str]:
        datasette = make_datasette(snapshot_db)
        await datasette.invoke_startup()
        env = datasette.jinja_env
        assert env.is_async
        context = {"version": None, "columns": page["translations"]["columns"]}
        # A linker each: it links a glossary term at its first use on the page only.
        ours = str(env.filters["rulerows"](page, linker=env.filters["glossarylinker"](page["glossary"]), **context))
        template = env.get_template("_kb_rule_rows.html")
        theirs = await template.render_async(page=page, linker=env.filters["glossarylinker"](page["glossary"]), **context)
        return ours, theirs

    ours, theirs = asyncio.run(both())
    assert ours == theirs
    assert ours.count('<tr id="r-') == 1 + len(page["children"]) > 150
    assert 'class="term-ref"' in ours  # glossary terms linked, through the linker passed in


def test_the_twin_escapes_what_a_rule_holds(snapshot_db: Path) -> None:
    async def rows() -> str:
        datasette = make_datasette(snapshot_db)
        await datasette.invoke_startup()
        env = datasette.jinja_env
        rule = {"number": "999.1", "kind": "rule", "title": "<script>alert(1)</script>", "text": None, "examples": []}
        page = {"rule": rule, "children": [], "version": {"id": "en-2026-04-17", "lang": "en"},
                "symbol_readings": {}, "absent_citations": {}}
        return str(env.filters["rulerows"](page, None, None, []))

    drawn = asyncio.run(rows())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in drawn and "<script>" not in drawn
