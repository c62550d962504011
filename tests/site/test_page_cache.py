"""Pages computed once per served file: the cache answers repeats, and a swapped or rewritten file empties it."""
from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from kb.site import (
    card_page,
    page_cache,
    rule_page,
    search_cjk_relax,
    search_db,
    search_fulltext,
    search_keywords,
    search_relax,
    search_rules,
    search_spelling,
)
from kb.site.limits import PAGE_THREAD_PREFIX
from kb.site.page_cache import PageCache, file_signature
from kb.site.reload import reloader_for
from kb.site.search_db import newest_english_version
from site_databases import JACE as JACE_ORACLE_ID
from site_databases import make_datasette, open_immutable

JACE = f"/card/{JACE_ORACLE_ID}.json"


def test_a_new_signature_empties_the_cache_and_the_oldest_entries_leave_first() -> None:
    cache = PageCache(max_entries=2)
    assert cache.get(("file", 1), "a") is page_cache.MISSING
    cache.put(("file", 1), "a", 1)
    cache.put(("file", 1), "b", 2)
    assert cache.get(("file", 1), "a") == 1  # "a" is now the most recently used
    cache.put(("file", 1), "c", 3)
    assert cache.get(("file", 1), "b") is page_cache.MISSING
    assert cache.get(("file", 1), "a") == 1
    assert cache.get(("file", 2), "a") is page_cache.MISSING
    cache.put(("file", 1), "d", 4)  # computed from the old file: not kept
    assert cache.entries == {}


def test_closures_are_never_cached() -> None:
    assert page_cache.function_key(card_page.card_page, ("x",)) == ("kb.site.card_page", "card_page", ("x",))
    assert page_cache.function_key(lambda conn: None, ()) is None
    assert page_cache.function_key(card_page.card_page, ([],)) is None  # a list is no key


def test_the_signature_changes_when_a_file_is_renamed_over_or_written(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    conn = sqlite3.connect(path)
    conn.execute("create table t (x)")
    conn.commit()
    first = file_signature(str(path))
    conn.execute("insert into t values (1)")
    conn.commit()
    conn.close()
    written = file_signature(str(path))
    assert written != first
    other = tmp_path / "other.db"
    shutil.copy(path, other)
    os.replace(other, path)
    assert file_signature(str(path)) not in (first, written)
    assert file_signature(None) is None


@pytest.fixture
def served_copy(snapshot_db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "kb.db"
    shutil.copy(snapshot_db, copy)
    return copy


async def test_a_repeated_page_is_answered_from_the_cache(served_copy: Path) -> None:
    ds = make_datasette(served_copy)
    first = await ds.client.get(JACE)
    second = await ds.client.get(JACE)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    cache = page_cache.cache_of(ds.get_database())
    assert (cache.hits, cache.misses) == (1, 1)
    html = [await ds.client.get("/rule/702.78") for _ in range(2)]
    assert html[0].text == html[1].text
    assert ("html", "kb_rule.html", "/rule/702.78", "", 200) in cache.entries


async def test_a_visitor_with_cookies_gets_a_page_rendered_for_them(served_copy: Path) -> None:
    ds = make_datasette(served_copy)
    await ds.client.get("/rule/702.78", cookies={"ds_actor": "x"})
    cache = page_cache.cache_of(ds.get_database())
    assert not [key for key in cache.entries if key[0] == "html"]
    assert any(key[1] == "rule_page" for key in cache.entries)  # the page's data is the same for all


async def test_the_csrf_token_cookie_alone_does_not_make_a_page_personal(served_copy: Path) -> None:
    """Browsers keep Datasette's csrftoken cookie after any form page; only a logged-in actor's menu uses it."""
    ds = make_datasette(served_copy)
    first = await ds.client.get("/rule/702.78", cookies={"csrftoken": "abc"})
    second = await ds.client.get("/rule/702.78", cookies={"csrftoken": "def"})
    assert first.text == second.text
    assert ("html", "kb_rule.html", "/rule/702.78", "", 200) in page_cache.cache_of(ds.get_database()).entries


async def test_turned_off_nothing_is_kept(served_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(page_cache.ENV, "0")
    ds = make_datasette(served_copy)
    assert (await ds.client.get(JACE)).status_code == 200
    assert (await ds.client.get("/rule/702.78")).status_code == 200
    assert page_cache.cache_of(ds.get_database()).entries == {}


async def test_a_swapped_file_is_never_answered_from_the_old_files_cache(
    served_copy: Path, hostile_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hostile database has no Jace: after the swap his page is a 404, the home page's counts are the new file's."""
    monkeypatch.setenv("MTGKB_RELOAD_INTERVAL_MS", "0")
    ds = make_datasette(served_copy)
    await ds.invoke_startup()
    before = await ds.client.get(JACE)
    home_before = (await ds.client.get("/")).text
    assert before.status_code == 200
    assert (await ds.client.get(JACE)).status_code == 200  # now from the cache
    replacement = served_copy.with_name("next.db")
    shutil.copy(hostile_db, replacement)
    os.replace(replacement, served_copy)
    reloader = reloader_for(ds)
    await ds.client.get("/-/versions.json")  # the request that notices the swap
    assert reloader.task is not None
    await reloader.task
    assert reloader.reloads == 1
    assert (await ds.client.get(JACE)).status_code == 404
    assert (await ds.client.get("/")).text != home_before


MAPS_KEPT = ["rule heads", "rule titles", "file facts", "keyword suggestions", "rules vocabulary", "index spans", "cjk rows",
             "translated glossary terms", "rule groups", "keywords by term", "today's glossary entries", "glossary patterns"]


def _maps_kept_for(path: Path) -> list[str]:
    """Which of the per-file maps hold ``path``'s current file (the glossary patterns: of its
    current English version)."""
    key = (str(path), file_signature(str(path)))
    kept = {"rule heads": search_db._RULE_HEADS, "rule titles": search_db._RULE_TITLES,
            "file facts": search_db._FILE_FACTS, "keyword suggestions": search_keywords._SUGGESTION_CANDIDATES,
            "rules vocabulary": search_spelling._VOCABULARY, "index spans": search_relax._INDEX_SPANS,
            "cjk rows": search_cjk_relax._CJK_ROWS, "translated glossary terms": search_cjk_relax._GLOSSARY_TERMS,
            "rule groups": search_rules._RULE_GROUPS, "keywords by term": search_keywords._ENGLISH_KEYWORDS_TERMED,
            "today's glossary entries": search_fulltext._CURRENT_ENTRIES}
    found = [name for name, maps in kept.items() if key in maps]
    facts = search_db._FILE_FACTS.get(key)
    if facts and facts.newest_english in rule_page._GLOSSARY_PATTERNS.get(key, {}):
        found.append("glossary patterns")
    return found


@pytest.mark.long_proof
async def test_the_search_maps_are_read_at_start_and_before_a_new_file_serves(
    served_copy: Path, snapshot_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first search after a start or a swap does not read them (the CR archive's 238k rules'
    heads took it 1.5-3 s, under the page's 3 s limit)."""
    monkeypatch.setenv("MTGKB_RELOAD_INTERVAL_MS", "0")
    ds = make_datasette(served_copy)
    await ds.invoke_startup()
    assert _maps_kept_for(served_copy) == MAPS_KEPT
    replacement = served_copy.with_name("next.db")
    shutil.copy(snapshot_db, replacement)
    os.replace(replacement, served_copy)  # another file: another signature
    assert _maps_kept_for(served_copy) == []
    reloader = reloader_for(ds)
    await ds.client.get("/-/versions.json")  # the request that notices the swap
    assert reloader.task is not None
    await reloader.task
    assert reloader.reloads == 1
    assert _maps_kept_for(served_copy) == MAPS_KEPT


async def test_a_failing_head_start_holds_up_neither_a_start_nor_a_swap(
    served_copy: Path, hostile_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kb.site import warm

    def fails(conn: sqlite3.Connection) -> None:
        raise RuntimeError("a map that cannot be read")

    monkeypatch.setattr(warm, "read_file_maps", fails)
    monkeypatch.setenv("MTGKB_RELOAD_INTERVAL_MS", "0")
    ds = make_datasette(served_copy)
    await ds.invoke_startup()
    assert (await ds.client.get(JACE)).status_code == 200
    replacement = served_copy.with_name("next.db")
    shutil.copy(hostile_db, replacement)
    os.replace(replacement, served_copy)
    reloader = reloader_for(ds)
    await ds.client.get("/-/versions.json")
    assert reloader.task is not None
    await reloader.task
    assert reloader.reloads == 1
    assert (await ds.client.get(JACE)).status_code == 404


async def test_a_request_still_on_the_old_file_after_a_swap_leaves_the_new_files_maps_to_the_new_file(
    served_copy: Path, snapshot_db: Path
) -> None:
    """Between a refresh renaming its file over the served one and the site noticing, requests
    may run on the old file's connections: what they read is not kept as the new file's (it was,
    and the new file's searches used the old CR versions and rules' heads until the next swap)."""
    from kb.site import limits
    from kb.site.search_db import _OPENED, close_noted, connect_noting_file, one_request, rule_heads

    def newest_and_heads(conn: sqlite3.Connection) -> tuple:
        with one_request(conn):
            return newest_english_version(conn), len(rule_heads(conn))

    ds = make_datasette(served_copy)
    # Our pages' connections are noted with the file they opened.
    assert await limits.PAGES.run(ds, ds.get_database(), lambda conn: id(conn) in _OPENED)
    old = connect_noting_file(lambda: open_immutable(served_copy), str(served_copy))
    newest, heads = newest_and_heads(old)
    replacement = served_copy.with_name("next.db")
    shutil.copy(snapshot_db, replacement)
    with sqlite3.connect(replacement) as conn:  # another newest English version, one rule fewer
        conn.execute("update cr_versions set effective_date = '1990-01-01' where id = ?", (newest,))
        conn.execute("delete from rules where rowid = (select max(rowid) from rules)")
    conn.close()
    os.replace(replacement, served_copy)
    assert newest_and_heads(old) == (newest, heads)  # the old file, read after the path names the new one
    new = connect_noting_file(lambda: open_immutable(served_copy), str(served_copy))
    new_newest, new_heads = newest_and_heads(new)
    assert new_newest != newest and new_heads == heads - 1
    for conn in (old, new):
        close_noted(conn)
    assert id(old) not in _OPENED and id(new) not in _OPENED


async def test_pages_run_on_their_own_threads_not_on_public_sqls(served_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real = card_page.card_page

    def recording(conn, oracle_id=None, name=None):
        threads.append(threading.current_thread().name)
        return real(conn, oracle_id, name)

    monkeypatch.setattr(card_page, "card_page", recording)
    ds = make_datasette(served_copy)
    assert (await ds.client.get(JACE)).status_code == 200
    assert threads and threads[0].startswith(PAGE_THREAD_PREFIX)


async def test_templates_are_compiled_before_the_first_visitor(served_copy: Path) -> None:
    ds = make_datasette(served_copy)
    await ds.invoke_startup()
    compiled = {key[1] for key in ds.jinja_env.cache.keys()}
    # Ours, and Datasette's base and the partials it includes.
    assert {"kb_card.html", "kb_rule.html", "kb_search.html", "base.html", "_footer.html", "_crumbs.html"} <= compiled
