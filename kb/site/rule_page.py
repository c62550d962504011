"""What a rule page shows: the rule in one version, its examples, references, translations, history and rulings."""
from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from typing import Any

from kb.site.search import (
    newest_english_version,
    rows,
    table_exists,
)

RULE_HISTORY_LIMIT = 60
_GLOSSARY_CACHE: dict[tuple[str, str], list[tuple[re.Pattern[str], dict[str, Any]]]] = {}


def rule_page(conn: sqlite3.Connection, number: str, version: str | None = None) -> dict[str, Any] | None:
    """A rule in one English version with its subrules, examples, references, glossary terms,
    translations (side by side, per number) and history across versions."""
    number = number.strip().rstrip(".").lower()
    current = newest_english_version(conn)
    version = version or current
    if version is None:
        return None
    rule = rows(conn, "select * from rules where version_id = ? and number = ?", (version, number))
    if not rule and version == current:
        # A rule the newest version dropped: show the newest version that has it.
        older = rows(
            conn,
            """select rules.* from rules join cr_versions on cr_versions.id = rules.version_id
            where rules.number = ? and cr_versions.lang = 'en' order by cr_versions.effective_date desc limit 1""",
            (number,),
        )
        rule, version = (older, older[0]["version_id"]) if older else ([], version)
    if not rule:
        return None
    rule = rule[0]
    version_row = rows(conn, "select id, lang, effective_date, title from cr_versions where id = ?", (version,))[0]
    children = rows(
        conn,
        "select * from rules where version_id = ? and parent_number = ? order by position limit 500",
        (version, number),
    )
    entries = [rule, *children]
    examples = grouped_examples(conn, [entry["id"] for entry in entries])
    for entry in entries:
        entry["examples"] = examples.get(entry["id"], [])
    parent = rows(conn, "select number, title from rules where version_id = ? and number = ?", (version, rule["parent_number"]))
    return {
        "number": number,
        "version": version_row,
        "is_current": version == current,
        "current_version": current,
        "rule": rule,
        "children": children,
        "parent": parent[0] if parent else None,
        "siblings": siblings(conn, rule),
        "references": references(conn, entries),
        "cited_by": cited_by(conn, version, number),
        "glossary": glossary_terms_used(conn, version, entries),
        "translations": translations(conn, entries, version),
        "history": history(conn, number),
        "trace": rule_trace(conn, version, number),
        "rulings": rulings_relying_on(conn, rule["id"]),
        "versions": rows(conn, "select id, effective_date from cr_versions where lang = 'en' order by effective_date desc"),
    }


def grouped_examples(conn: sqlite3.Connection, rule_ids: list[int]) -> dict[int, list[str]]:
    result: dict[int, list[str]] = defaultdict(list)
    marks = ",".join("?" * len(rule_ids))
    for row in rows(conn, f"select rule_id, text from rule_examples where rule_id in ({marks}) order by rule_id, position", rule_ids):
        result[row["rule_id"]].append(row["text"])
    return result


def siblings(conn: sqlite3.Connection, rule: dict[str, Any]) -> dict[str, Any]:
    """Previous and next rule at the same level, for page-to-page navigation."""
    found = {}
    for name, comparison, order in (("previous", "<", "desc"), ("next", ">", "asc")):
        row = rows(
            conn,
            f"""select number, title from rules where version_id = ? and kind = ?
            and coalesce(parent_number, '') = coalesce(?, '') and position {comparison} ?
            order by position {order} limit 1""",
            (rule["version_id"], rule["kind"], rule["parent_number"], rule["position"]),
        )
        found[name] = row[0] if row else None
    return found


def references(conn: sqlite3.Connection, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = [entry["id"] for entry in entries]
    marks = ",".join("?" * len(ids))
    return rows(
        conn,
        f"""select distinct rule_refs.target_number as number, target.title, target.text
        from rule_refs left join rules as target on target.id = rule_refs.target_rule_id
        where rule_refs.rule_id in ({marks}) order by rule_refs.target_number limit 100""",
        ids,
    )


def cited_by(conn: sqlite3.Connection, version: str, number: str) -> list[dict[str, Any]]:
    return rows(
        conn,
        """select distinct rules.number, rules.title from rule_refs join rules on rules.id = rule_refs.rule_id
        where rule_refs.target_number = ? and rules.version_id = ? order by rules.position limit 50""",
        (number, version),
    )


def glossary_terms_used(conn: sqlite3.Connection, version: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Glossary entries of the version whose term appears in the rule's text (whole words)."""
    database = conn.execute("pragma database_list").fetchone()[2]
    key = (database, version)
    if key not in _GLOSSARY_CACHE:
        patterns = []
        for entry in rows(conn, "select term, text from glossary where version_id = ? order by length(term) desc", (version,)):
            # "Attack" also names "attacks", "attacking": allow a short English ending.
            words = re.escape(entry["term"].split(" (")[0])
            if len(words) < 4:
                continue
            patterns.append((re.compile(rf"\b{words}(?:s|es|ed|ing)?\b", re.IGNORECASE), entry))
        _GLOSSARY_CACHE[key] = patterns
    text = " ".join(f"{entry['title'] or ''} {entry['text'] or ''}" for entry in entries)
    used = [entry for pattern, entry in _GLOSSARY_CACHE[key] if pattern.search(text)]
    return sorted(used, key=lambda entry: entry["term"].casefold())[:40]


def translations(conn: sqlite3.Connection, entries: list[dict[str, Any]], version: str) -> dict[str, Any]:
    """Translated versions of these rule numbers, aligned by number for side-by-side display.

    Translations link to the English version they translate (often older than the one shown), so
    they are found through every English rule with the same number.
    """
    numbers = [entry["number"] for entry in entries]
    marks = ",".join("?" * len(numbers))
    linked = rows(
        conn,
        f"""select tr.id, tr.version_id, tr.number, tr.title, tr.text, tr.english_title,
            rule_links.status, rule_links.confidence, rule_links.reasons,
            en.version_id as english_version, en.text as english_text,
            cr_versions.lang, cr_versions.method, cr_versions.effective_date,
            cr_versions.translation_match, cr_versions.translation_note
        from rules as en
        join rule_links on rule_links.en_rule_id = en.id
        join rules as tr on tr.id = rule_links.rule_id
        join cr_versions on cr_versions.id = tr.version_id
        where en.number in ({marks})
          and en.version_id in (select id from cr_versions where lang = 'en')
        order by cr_versions.lang, cr_versions.effective_date desc, tr.position
        limit 2000""",
        numbers,
    )
    shown = {entry["number"]: entry for entry in entries}
    columns: dict[str, dict[str, Any]] = {}
    for row in linked:
        column = columns.setdefault(row["version_id"], {
            "version_id": row["version_id"], "lang": row["lang"], "method": row["method"],
            "effective_date": row["effective_date"], "english_version": row["english_version"],
            "translation_match": row["translation_match"], "translation_note": row["translation_note"],
            "rules": {},
        })
        english_now = shown.get(row["number"])
        # The English text changed since the version this translation follows: mark it stale,
        # whether or not the linking step could already tell.
        changed_since = bool(
            english_now and row["english_version"] != version
            and normalise_space(english_now["text"]) != normalise_space(row["english_text"])
        )
        status = row["status"]
        if changed_since and status == "linked":
            status = "stale"
        column["rules"][row["number"]] = {**row, "status": status}
    return {
        "numbers": numbers,
        "columns": sorted(columns.values(), key=lambda c: (c["lang"], c["version_id"])),
    }


def normalise_space(text: str | None) -> str:
    return " ".join((text or "").replace("’", "'").split())


def history(conn: sqlite3.Connection, number: str) -> list[dict[str, Any]]:
    """The rule's text in each English version, consecutive identical texts collapsed."""
    found = rows(
        conn,
        """select rules.version_id, cr_versions.effective_date, rules.title, rules.text
        from rules join cr_versions on cr_versions.id = rules.version_id
        where rules.number = ? and cr_versions.lang = 'en'
        order by cr_versions.effective_date limit ?""",
        (number, RULE_HISTORY_LIMIT),
    )
    collapsed: list[dict[str, Any]] = []
    for row in found:
        same = collapsed and (
            normalise_space(collapsed[-1]["text"]) == normalise_space(row["text"])
            and normalise_space(collapsed[-1]["title"]) == normalise_space(row["title"])
        )
        if same:
            collapsed[-1]["until"] = row["effective_date"]
            collapsed[-1]["versions"].append(row["version_id"])
        else:
            collapsed.append({**row, "until": row["effective_date"], "versions": [row["version_id"]]})
    return collapsed


def rule_trace(conn: sqlite3.Connection, version: str, number: str) -> list[dict[str, Any]]:
    """The rule through every English version, following renumberings (``cr_changes``): one row
    per version with its number there and what changed on the way in, oldest first."""
    if not table_exists(conn, "cr_changes"):
        return []
    versions = [row["id"] for row in rows(conn, "select id from cr_versions where lang = 'en' and effective_date is not null order by effective_date")]
    if version not in versions:
        return []

    def change_into(new_version: str, new_number: str) -> dict[str, Any] | None:
        found = rows(
            conn,
            """select kind, old_number, new_number, word_diff from cr_changes
            where new_version_id = ? and new_number = ? and entry_kind = 'rule' limit 1""",
            (new_version, new_number),
        )
        return found[0] if found else None

    def change_out_of(old_version: str, old_number: str) -> dict[str, Any] | None:
        found = rows(
            conn,
            """select kind, old_number, new_number, word_diff from cr_changes
            where old_version_id = ? and old_number = ? and entry_kind = 'rule' limit 1""",
            (old_version, old_number),
        )
        return found[0] if found else None

    def exists(version_id: str, rule_number: str) -> bool:
        return bool(rows(conn, "select 1 from rules where version_id = ? and number = ? limit 1", (version_id, rule_number)))

    start = versions.index(version)
    trace: list[dict[str, Any]] = []
    current: str | None = number
    for position in range(start, -1, -1):  # back in time
        if current is None or not exists(versions[position], current):
            break
        change = change_into(versions[position], current) if position > 0 else None
        trace.append({"version": versions[position], "number": current,
                      "change": change["kind"] if change else ("first" if position == 0 else "same"),
                      "word_diff": change["word_diff"] if change and change["kind"] != "moved" else None})
        if change:
            current = change["old_number"]
    trace.reverse()
    current = number
    for position in range(start + 1, len(versions)):  # forward in time
        change = change_out_of(versions[position - 1], current)
        if change and change["kind"] == "removed":
            trace.append({"version": versions[position], "number": None, "change": "removed", "word_diff": None})
            break
        if change:
            current = change["new_number"]
        if not exists(versions[position], current):
            break
        trace.append({"version": versions[position], "number": current,
                      "change": change["kind"] if change else "same",
                      "word_diff": change["word_diff"] if change and change["kind"] != "moved" else None})
    return trace


def rulings_relying_on(conn: sqlite3.Connection, rule_id: int) -> list[dict[str, Any]]:
    """Rulings whose text cites this rule or names its keyword (``ruling_rules``), in the
    version in force on their date or, through renumberings, as this rule now."""
    if not table_exists(conn, "ruling_rules"):
        return []
    return rows(
        conn,
        """select distinct rulings.id, rulings.oracle_id, coalesce(cards.name, rulings.card_name) as card,
            rulings.published_at, rulings.text, ruling_rules.method, ruling_rules.rule_number,
            ruling_rules.version_id, ruling_rules.confidence
        from ruling_rules join rulings on rulings.id = ruling_rules.ruling_id
        left join cards on cards.oracle_id = rulings.oracle_id
        where ruling_rules.rule_id = :rule or ruling_rules.current_rule_id = :rule
        order by rulings.published_at desc, rulings.id limit 100""",
        {"rule": rule_id},
    )
