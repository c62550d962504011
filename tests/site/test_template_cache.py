"""Every Datasette of a process shares the site's compiled templates (a refresh's smoke check and
each test make their own): the second one compiles nothing and renders the same pages."""
from __future__ import annotations

import asyncio
from pathlib import Path

import jinja2

from kb.site.plugin import SharedBytecodeCache
from site_databases import make_datasette


def test_a_second_datasette_compiles_no_template_and_renders_the_same(snapshot_db: Path, monkeypatch) -> None:
    async def rule_page() -> str:
        datasette = make_datasette(snapshot_db)
        await datasette.invoke_startup()
        assert isinstance(datasette.jinja_env.bytecode_cache, SharedBytecodeCache)
        return (await datasette.client.get("/rule/702.19")).text

    first = asyncio.run(rule_page())
    compiled: list[str] = []
    original = jinja2.Environment.compile

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):  # type: ignore[no-untyped-def]
        compiled.append(name)
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    second = asyncio.run(rule_page())
    assert compiled == []
    assert second == first and "702.19" in first
