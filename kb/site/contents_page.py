"""What the CR contents page shows: parts, their sections, and each section's rules (one version)."""
from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from kb.site.search_db import newest_english_version, rows

SHOWN_TEXT = 110  # characters of an untitled rule's text beside its number


def contents_page(conn: sqlite3.Connection, version: str | None = None) -> dict[str, Any] | None:
    """Parts -> sections -> rules (not subrules) of ``version`` (default: the current English CR)."""
    current = newest_english_version(conn)
    version = version or current
    found = rows(conn, "select id, lang, effective_date from cr_versions where id = ?", (version,))
    if not found:
        return None
    parts: list[dict[str, Any]] = []
    sections: dict[str, dict[str, Any]] = {}
    # Rules of a version that holds them without their section (pages captured one rule at a
    # time: the Spanish pages' 702.78): the page listed nothing for them (a review's fuzz).
    unplaced: list[dict[str, Any]] = []
    for row in rows(
        conn,
        """select number, kind, title, text, parent_number from rules
        where version_id = ? and kind in ('part', 'section', 'rule') order by position limit 5000""",
        (version,),
    ):
        if row["kind"] == "part":
            parts.append({**row, "sections": []})
        elif row["kind"] == "section" and parts:
            section = {**row, "rules": []}
            sections[row["number"]] = section
            parts[-1]["sections"].append(section)
        elif row["kind"] == "rule":
            owner = sections.get(row["parent_number"] or row["number"].split(".")[0])
            if owner is not None:
                owner["rules"].append(row)
            else:
                unplaced.append(row)
    glossary_count = conn.execute("select count(*) from glossary where version_id = ?", (version,)).fetchone()[0]
    # The glossary pages show the newest glossary of a language: this version's, or another's.
    newest_glossary = conn.execute(
        """select id from cr_versions where lang = ? and id in (select distinct version_id from glossary)
        order by effective_date desc, id desc limit 1""", (found[0]["lang"],)).fetchone()
    return {
        "version": found[0],
        "is_current": version == current,
        "parts": parts,
        "unplaced": unplaced,
        "glossary_count": glossary_count,
        "glossary_is_shown": bool(newest_glossary) and newest_glossary[0] == version,
        # No version of the language holds one (the Korean and Spanish translations): no link to a 404.
        "has_glossary": bool(newest_glossary),
        # Every version, translations too: the menu shows the one on the page (its "Show" kept it).
        "versions": rows(conn, "select id, effective_date from cr_versions order by lang != 'en', lang, effective_date desc"),
    }


def rule_items_html(rules: list[dict[str, Any]], version: str | None) -> Markup:
    """The ``<li>`` of each rule of a section: its number linked, its title or the start of its
    text. Made here, not by a loop in the template: the contents lists ~1,000 rules, each a dozen
    template expressions (lookups, escapes, awaits in Jinja's async mode): 54-62 ms a page on the
    1M database that way, 35-39 ms this way."""
    suffix = f"?version={escape(quote(version))}" if version else ""
    items = []
    for rule in rules:
        number = escape(rule["number"])
        if rule["title"]:
            label = str(escape(rule["title"]))
        else:
            text = rule["text"] or ""
            more = "…" if len(text) > SHOWN_TEXT else ""
            label = f'<span class="kb-muted">{escape(text[:SHOWN_TEXT])}{more}</span>'
        items.append(f'<li><a href="/rule/{number}{suffix}">{number}</a>\n          {label}</li>')
    return Markup("\n        ".join(items))
