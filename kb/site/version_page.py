"""What a CR version page shows: its changes since the version before, counted per kind."""
from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import PurePath
from typing import Any

from kb.site.diff_page import with_by_number
from kb.site.search import (
    rows,
    table_exists,
)
from kb.store.derive_lineage import by_number_column

CHANGE_KINDS = ("added", "removed", "changed", "moved", "moved-changed",
                "glossary-added", "glossary-removed", "glossary-changed", "glossary-renamed", "glossary-renamed-changed")


# Changes a page of the version's HTML shows.
PAGE_SIZE = 100


def known_kind(kind: str | None) -> str | None:
    """A kind of change, or None: a kind of no change is no filter ("?kind=bogus" showed "0–0 of 0"
    beside counts of 205; a review's fuzz)."""
    return kind if kind in CHANGE_KINDS else None


def version_page(
    conn: sqlite3.Connection, version_id: str, kind: str | None = None, offset: int | None = None
) -> dict[str, Any] | None:
    """One CR version: what it is, and what changed in it (an English version, against the one
    before it) or how its rules link to English (a translation).

    ``offset``: only the ``PAGE_SIZE`` changes from there, and how many there are (``total``), as
    its HTML shows them; else every change (its JSON)."""
    found = rows(conn, "select * from cr_versions where id = ?", (version_id,))
    if not found:
        return None
    version = found[0]
    kind = known_kind(kind)
    page: dict[str, Any] = {"version": version, "previous": None, "counts": {}, "changes": [], "links": {},
                            "reading_notes": reading_notes(conn, version)}
    if version["lang"] == "en" and table_exists(conn, "cr_changes"):
        previous = rows(
            conn,
            "select old_version_id from cr_changes where new_version_id = ? limit 1",
            (version_id,),
        )
        page["previous"] = previous[0]["old_version_id"] if previous else None
        counts = {
            row["kind"]: row["n"]
            for row in rows(conn, "select kind, count(*) as n from cr_changes where new_version_id = ? group by kind", (version_id,))
        }
        page["counts"] = {k: counts[k] for k in CHANGE_KINDS if k in counts}
        columns = f"kind, entry_kind, old_number, new_number, aspects, word_diff, similarity{by_number_column(conn)}"
        if offset is None:
            page["changes"] = with_by_number(rows(
                conn,
                f"""select {columns}
                from cr_changes where new_version_id = ? and (? is null or kind = ?) order by position""",
                (version_id, kind, kind),
            ))
        else:
            # One page read in the order of the versions' index: read whole, a new edition's
            # 2,398 changes (709 KB of word diffs) were sorted to show 100 (10-17 ms).
            page["total"] = counts.get(kind, 0) if kind else sum(counts.values())
            # Past the end: the last page, as the diff page does ("Showing 0–1000 of 205").
            offset = min(offset, max(0, page["total"] - 1) // PAGE_SIZE * PAGE_SIZE)
            page["offset"], page["page_size"] = offset, PAGE_SIZE
            page["changes"] = with_by_number(rows(
                conn,
                f"""select {columns} from cr_changes where old_version_id = ? and new_version_id = ?
                {"and kind = ?" if kind else ""} order by position limit ? offset ?""",
                (page["previous"], version_id, *([kind] if kind else []), PAGE_SIZE, offset),
            ))
    elif version["lang"] != "en":
        page["links"] = {
            row["status"]: row["n"]
            for row in rows(
                conn,
                """select rule_links.status, count(*) as n from rule_links
                join rules on rules.id = rule_links.rule_id where rules.version_id = ? group by 1""",
                (version_id,),
            )
        }
        # Every one: at most one edition's rules. The first 500 were listed under a count of
        # 500 where 520 were so (the Commander rules among those left out: a translation's review).
        page["not_linked"] = rows(
            conn,
            """select rules.number, rules.title, rule_links.status, rule_links.reasons
            from rule_links join rules on rules.id = rule_links.rule_id
            where rules.version_id = ? and rule_links.status != 'same' order by rules.position""",
            (version_id,),
        )
    return page


def reading_notes(conn: sqlite3.Connection, version: dict[str, Any]) -> list[dict[str, Any]]:
    """What reading the version's files found doubtful or repaired (their quality issues: numbers
    they skip, lines joined, an edition cut short), each without the build's path of the file."""
    if not version.get("document_id") or not table_exists(conn, "quality_issues"):
        return []
    documents = version_documents(version)
    notes = rows(
        conn,
        f"""select quality_issues.kind, quality_issues.detail, documents.path, documents.id as document_id from quality_issues
        join documents on documents.id = quality_issues.document_id
        where quality_issues.document_id in ({", ".join("?" * len(documents))}) and quality_issues.ruling_id is null
        order by quality_issues.rowid limit 500""",
        tuple(documents),
    )
    for note in notes:
        path = note.pop("path") or ""
        if path and note["detail"].startswith(path + ": "):
            note["detail"] = note["detail"][len(path) + 2 :]
        # A page that joined the version is named: its lines are its own file's.
        note["file"] = PurePath(path).name if note.pop("document_id") != documents[0] and path else None
    # Each file's notes in its order where a note names its line, the version's own file first;
    # the rest (skipped numbers, …) after them, by their text: an issue's id (its rowid) hashes the
    # file's path, so that order varied with where the file was read from.
    return sorted(notes, key=lambda note: (note["file"] or "", _line_of(note["detail"]), note["detail"]))


def version_documents(version: dict[str, Any]) -> list[int]:
    """The version's own document, and the undated pages that joined it (a translation's chapter
    posts: ``joined_documents``, recorded as they joined). (The notes of the Korean CR's chapter
    post, two subrules printed twice, were on no page: only its index post's were read.)"""
    extra = json.loads(version["extra"]) if version.get("extra") else {}
    return [int(version["document_id"]), *(int(found) for found in extra.get("joined_documents", []))]


def _line_of(detail: str) -> int:
    found = LINE_NOTE.match(detail)
    return int(found[1]) if found else sys.maxsize


LINE_NOTE = re.compile(r"line (\d+):")

