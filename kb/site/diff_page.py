"""What the diff page shows: every difference between any two CR versions, counted, filtered and paged.

The comparison itself is ``kb.link.cr_diff`` (the same one ``mtgkb cr-diff`` prints): consecutive
English versions compared at build time are read back, any other two English versions are compared
rule by rule along their lineages (``kb.store.identity_diff.diff_by_identity``: by the rules' stored
digests, the texts and word diffs read for the page shown only), and versions without lineages
(translations) are paired afresh. Results are kept for a few recent pairs of the served file.
"""
from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar, cast

import sqlite_utils

from kb.link.cr_diff import Change, diff_versions
from kb.site.search_db import file_key, newest_english_version, rows, table_exists
from kb.store.derive_lineage import by_number_column, merges_between
from kb.store.identity_diff import Connection, StoredVersion, diff_by_identity, read_texts, stored_version

PAGE_SIZE = 100
T = TypeVar("T")
# The comparisons of two versions not compared at build time, by served file (its path and
# signature: a file renamed over the served one may hold other rules under the same version ids).
_CACHE: OrderedDict[tuple[Any, Any], list[Change]] = OrderedDict()
_CACHE_SIZE = 6
_CACHE_LOCK = threading.Lock()
# What a comparison read of each version (~1 MB each), by served file: most diffs asked for share
# a version (the newest), and reading one is ~8 ms of a first visit's ~40.
_VERSIONS: OrderedDict[tuple[Any, str], StoredVersion | None] = OrderedDict()
_VERSIONS_SIZE = 8


def versions(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return rows(conn, "select id, lang, effective_date from cr_versions order by lang != 'en', lang, effective_date desc")


def default_pair(conn: sqlite3.Connection) -> tuple[str | None, str | None]:
    """The current English version and the one before it."""
    english = [row["id"] for row in rows(conn, "select id from cr_versions where lang = 'en' order by effective_date desc limit 2")]
    return (english[1] if len(english) > 1 else None), newest_english_version(conn)


def changes_between(conn: sqlite3.Connection, old: str, new: str) -> list[Change]:
    from kb.store.derive_cr_links import load_cr_document

    served = file_key(conn)

    def compare() -> list[Change]:
        db = sqlite_utils.Database(conn)
        by_identity = diff_by_identity(
            db, old, new, texts=False, read=lambda reading, version_id: kept_version(served, reading, version_id)
        )
        return by_identity if by_identity is not None else diff_versions(load_cr_document(db, old), load_cr_document(db, new))

    return _kept(_CACHE, _CACHE_SIZE, served, (old, new), compare)


def kept_version(served: Any, conn: Connection, version_id: str) -> StoredVersion | None:
    """What a comparison reads of ``version_id`` in the served file ``served`` (``file_key``),
    read once and kept (None: a file not known by its key, read each time)."""
    return _kept(_VERSIONS, _VERSIONS_SIZE, served, version_id, lambda: stored_version(conn, version_id))


def _kept(cache: OrderedDict[tuple[Any, Any], Any], size: int, served: Any, key: Any, read: Callable[[], T]) -> T:
    """``read()``, kept in ``cache`` under (``served``, ``key``), the ``size`` last used; read each
    time for a file not known by its key (``served`` None)."""
    if served is None:
        return read()
    with _CACHE_LOCK:
        if (served, key) in cache:
            cache.move_to_end((served, key))
            return cast(T, cache[(served, key)])
    found = read()
    with _CACHE_LOCK:
        cache[(served, key)] = found
        while len(cache) > size:
            cache.popitem(last=False)
    return found


def stored_changes(conn: sqlite3.Connection, old: str, new: str) -> list[dict[str, Any]] | None:
    """Consecutive English versions were compared at build time (``cr_changes``): read, not
    recomputed (None: not stored, or a file made without the table)."""
    if not table_exists(conn, "cr_changes"):
        return None
    found = rows(
        conn,
        f"""select kind, entry_kind, old_number, new_number, aspects, word_diff, similarity{by_number_column(conn)}
        from cr_changes where old_version_id = ? and new_version_id = ? order by position limit 20000""",
        (old, new),
    )
    return with_by_number(found) or None


def with_by_number(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored changes with ``paired_by_number`` as a truth value (null: not recorded, read as no)."""
    for change in changes:
        change["paired_by_number"] = bool(change.get("paired_by_number"))
    return changes


def diff_page(
    conn: sqlite3.Connection, old: str | None, new: str | None, kind: str | None = None, offset: int = 0,
    past_the_end: str = "last page",
) -> dict[str, Any]:
    """The form's choices and, when both versions exist, the counted changes of one page.
    ``past_the_end``: what an offset past the last change shows, the "last page" (a person's
    link) or "nothing" (a script paging until no change comes: the last page again never ended)."""
    known = versions(conn)
    ids = {row["id"]: row for row in known}
    page: dict[str, Any] = {"versions": known, "from": old, "to": new, "kind": kind, "offset": 0, "changes": [],
                            "counts": {}, "total": 0, "error": None, "status": 200, "page_size": PAGE_SIZE}
    if not old or not new:
        page["from"], page["to"] = default_pair(conn) if not old and not new else (old, new)
        if old or new:
            # One version alone: answered 200 with no changes, it read as "nothing changed".
            page["error"] = "Give both versions to compare: /diff?from=…&to=…."
            page["status"] = 400
        return page
    missing = [version for version in (old, new) if version not in ids]
    if missing:
        page["error"] = "We hold no rules version " + " or ".join(f"“{version}”" for version in missing) + "."
        page["status"] = 404
        return page
    if old == new:
        # Answered 200 with no changes, the JSON read as "nothing changed" (a review's fuzz).
        page["error"] = "Choose two different versions to compare."
        page["status"] = 400
        return page
    if ids[old]["lang"] != ids[new]["lang"]:
        page["error"] = "These versions are in different languages: compare versions of one language."
        page["status"] = 400  # both versions exist: the pair is refused
        return page
    stored = stored_changes(conn, old, new)
    compared = changes_between(conn, old, new) if stored is None else []
    changes: list[dict[str, Any]] = stored if stored is not None else [
        {"kind": change.kind, "entry_kind": change.entry_kind, "old_number": change.old_number,
         "new_number": change.new_number, "aspects": change.aspects_text, "word_diff": None, "similarity": None,
         "paired_by_number": change.paired_by_number, "change": change}
        for change in compared
    ]
    merged_into = merges_between(conn, old, new)
    counts: dict[str, int] = {}
    for change in changes:
        counts[str(change["kind"])] = counts.get(str(change["kind"]), 0) + 1
        if change["kind"] == "removed" and change["old_number"] in merged_into:
            change["merged_into"] = merged_into[change["old_number"]]
    page["counts"] = counts
    shown = [change for change in changes if not kind or change["kind"] == kind]
    # Past the end: the last page (its last item alone read "Showing 721–721 of 721").
    last_page = max(0, len(shown) - 1) // PAGE_SIZE * PAGE_SIZE
    offset = max(0, int(offset or 0) if past_the_end == "nothing" else min(int(offset or 0), last_page))
    page.update(total=len(shown), offset=offset, changes=shown[offset : offset + PAGE_SIZE])
    if stored is None:
        # Only the page's changes are given their texts and word diffs (kept for the next visit).
        on_page = [change.pop("change") for change in page["changes"]]
        read_texts(conn, old, new, on_page)
        for shown_change, change in zip(page["changes"], on_page, strict=True):
            shown_change.update(word_diff=change.word_diff, similarity=change.similarity)
    page["old"], page["new"] = ids[old], ids[new]
    return page
