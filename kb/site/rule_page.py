"""What a rule page shows: the rule in one version, its examples, references, translations, history and rulings."""
from __future__ import annotations

import html
import re
import sqlite3
from collections import OrderedDict, defaultdict
from textwrap import shorten
from typing import Any
from urllib.parse import quote

from kb.link.cr_translations import counterpart_citations
from kb.site.absent_citations import absent_citations
from kb.site.markup import cited_in_order
from kb.site.rule_rulings import marked_by_number, rulings_relying_on
from kb.site.search import (
    newest_english_version,
    rows,
    table_exists,
)
from kb.site.search_db import per_file
from kb.site.search_hit import Hit
from kb.site.symbol_readings import symbol_readings
from kb.store import derive_lineage

RULE_HISTORY_LIMIT = 60
GlossaryPatterns = list[tuple[str, str, re.Pattern[str], dict[str, Any]]]
# Per served file (the last four: ``per_file``), then per CR version of it.
_GLOSSARY_PATTERNS: OrderedDict[tuple, dict[str, GlossaryPatterns]] = OrderedDict()
WORD_RUN = re.compile(r"\w+")


def rule_page(
    conn: sqlite3.Connection, number: str, version: str | None = None, from_version: str | None = None
) -> dict[str, Any] | None:
    """A rule in one English version with its subrules, examples, references, glossary terms,
    translations (side by side, by rule identity) and history across versions.

    With ``from_version`` (the version drop-down), ``number`` is numbered as in that version and
    the page shows the same rule (its lineage) in ``version``, whatever its number there.
    """
    number = number.strip().rstrip(".").lower()
    current = newest_english_version(conn)
    version = version or current
    if version is None:
        return None
    if from_version and from_version != version and derive_lineage.has_lineages(conn):
        lineage = derive_lineage.lineage_of(conn, from_version, number)
        number_there = derive_lineage.number_in(conn, lineage, version) if lineage else None
        if number_there is None:
            return None
        number = number_there
    found = rows(conn, "select * from rules where version_id = ? and number = ?", (version, number))
    if not found and version == current:
        # A rule the newest version dropped: show the newest version that has it.
        older = rows(
            conn,
            """select rules.* from rules join cr_versions on cr_versions.id = rules.version_id
            where rules.number = ? and cr_versions.lang = 'en' order by cr_versions.effective_date desc limit 1""",
            (number,),
        )
        found, version = (older, older[0]["version_id"]) if older else ([], version)
    if not found:
        return None
    rule: dict[str, Any] = found[0]
    version_row = rows(conn, "select id, lang, effective_date, title from cr_versions where id = ?", (version,))[0]
    children = rows(
        conn,
        "select * from rules where version_id = ? and parent_number = ? order by position limit 500",
        (version, number),
    )
    entries: list[dict[str, Any]] = [rule, *children]
    examples = grouped_examples(conn, [entry["id"] for entry in entries])
    for entry in entries:
        entry["examples"] = examples.get(entry["id"], [])
    parent = rows(conn, "select number, title from rules where version_id = ? and number = ?", (version, rule["parent_number"]))
    translated = translations(conn, entries, version)
    history_entries = history(conn, rule)
    # What {P} and the like mean in each version whose text the page shows.
    shown_versions = {version, *(column["version_id"] for column in translated.get("columns", [])),
                      *(entry["versions"][0] for entry in history_entries)}
    readings = symbol_readings(conn)
    # English texts only: a translation's numbers follow the edition it translates (its citations).
    absent = absent_citations(conn, [
        *((text, version) for entry in entries for text in (entry["text"], *entry["examples"])),
        *((entry["text"], entry["versions"][0]) for entry in history_entries),
    ])
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
        "lineage": rule.get("lineage_id"),
        "translations": translated,
        "history": history_entries,
        "symbol_readings": {shown: readings[shown] for shown in sorted(shown_versions) if shown in readings},
        "absent_citations": absent,
        "same_number": same_number_other_rules(conn, rule),
        "trace": rule_trace(conn, rule),
        "rulings": marked_by_number(conn, rule, rulings_relying_on(conn, rule)),
        "versions": versions_of(conn, rule),
    }


def english_rule_translated(conn: sqlite3.Connection, number: str, version: str) -> tuple[str, str | None] | None:
    """For rule ``number`` of a translation ``version``: the English rule it translates, (number,
    version; None for the newest), the page that shows it beside its English text, marked there
    when the link is uncertain ("may not match"). None for an English version, a number the
    translation lacks, or a rule linked to no English rule."""
    found = rows(
        conn,
        """select en.number, en.version_id from rules as tr
        join cr_versions on cr_versions.id = tr.version_id and cr_versions.lang != 'en'
        join rule_links on rule_links.rule_id = tr.id
        join rules as en on en.id = rule_links.en_rule_id
        where tr.version_id = ? and tr.number = ?""",
        (version, number.strip().rstrip(".").lower()),
    )
    if not found:
        return None
    english_version = found[0]["version_id"]
    return found[0]["number"], None if english_version == newest_english_version(conn) else english_version


def nearest_heading(conn: sqlite3.Connection, number: str, version: str | None = None) -> list[Hit]:
    """For a rule number no version holds: the rule or section it would sit under, in ``version``
    (the newest English one by default), "702.19z" → 702.19 Trample, "702.999" → 702. For a
    translation that lacks the number (a partial one), first that number in the English edition
    the translation follows, said to be a reading by its numbering, not a translated rule."""
    newest = newest_english_version(conn)
    version = version or newest
    number = number.strip().rstrip(".").lower()
    followed = rows(
        conn,
        """select en.number, en.title, en.text, en.version_id, translation.translation_match
        from cr_versions as translation
        join rules as en on en.version_id = translation.translates_version_id and en.number = ?
        where translation.id = ? and translation.lang != 'en'""",
        (number, version),
    )
    if followed:
        english = followed[0]
        suffix = f"?version={quote(english['version_id'])}" if english["version_id"] != newest else ""
        edition = ("the nearest we hold to the edition it translates" if english["translation_match"] == "nearest"
                   else "the edition it translates")
        title = " ".join(part for part in (english["number"], english["title"]) if part)
        return [Hit(kind="rule", title=f"{title}, in the English rules of {english['version_id']} ({edition})",
                    url=f"/rule/{quote(english['number'])}{suffix}", lang="en",
                    snippet=html.escape(shorten(english["text"] or "", 160, placeholder=" …")))]
    candidates = [number.rstrip("abcdefghijklmnopqrstuvwxyz"), number.split(".")[0]]
    for candidate in dict.fromkeys(c for c in candidates if c and c != number):
        found = rows(conn, "select number, title from rules where version_id = ? and number = ?", (version, candidate))
        if found:
            title = " ".join(part for part in (found[0]["number"], found[0]["title"]) if part)
            suffix = f"?version={quote(version)}" if version and version != newest else ""
            return [Hit(kind="rule", title=title, url=f"/rule/{found[0]['number']}{suffix}")]
    return []


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
        f"""select distinct rule_refs.target_number as number, target.id as target_id, target.title, target.text
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


def glossary_patterns(conn: sqlite3.Connection, version: str) -> GlossaryPatterns:
    """The version's glossary terms as patterns, kept per served file (compiling a version's ~700
    took the first rule page after a start ~0.1 s)."""
    # Per file, not per path: a refresh renames a new file (new glossary) over the same path, and
    # a server running for months keeps only the last few files' patterns.
    by_version: dict[str, GlossaryPatterns] = per_file(conn, _GLOSSARY_PATTERNS, lambda _conn: {})
    if version not in by_version:
        patterns = []
        for entry in rows(conn, "select term, text from glossary where version_id = ? order by length(term) desc", (version,)):
            # "Attack" also names "attacks", "attacking": allow a short English ending.
            words = re.escape(entry["term"].split(" (")[0])
            if len(words) < 4:
                continue
            # The term itself, lower-cased: a substring test (C speed) before the regex, which
            # can only match where it occurs (722 regex searches took 200 ms a page).
            needle = entry["term"].split(" (")[0].lower()
            first_word = WORD_RUN.findall(needle)[:1]
            patterns.append((first_word[0] if first_word else "", needle,
                             re.compile(rf"\b{words}(?:s|es|ed|ing)?\b", re.IGNORECASE), entry))
        by_version[version] = patterns
    return by_version[version]


def glossary_terms_used(conn: sqlite3.Connection, version: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Glossary entries of the version whose term appears in the rule's text (whole words)."""
    patterns = glossary_patterns(conn, version)
    text = " ".join(f"{entry['title'] or ''} {entry['text'] or ''}" for entry in entries)
    lowered = text.lower()
    # A term can only occur where its first word does: one set lookup per term before the
    # substring test and the regex (a busy keyword's rule and subrules are pages of text).
    words = set(WORD_RUN.findall(lowered))
    words |= {word[: -len(ending)] for word in words for ending in ("s", "es", "ed", "ing") if word.endswith(ending)}
    used = [entry for first, needle, pattern, entry in patterns
            if (not first or first in words) and needle in lowered and pattern.search(text)]
    return sorted(used, key=lambda entry: entry["term"].casefold())[:40]


def translations(conn: sqlite3.Connection, entries: list[dict[str, Any]], version: str) -> dict[str, Any]:
    """Translations of these rules, beside the English rule they translate, for side-by-side display.

    Translations link to the English version they translate (often older than the one shown), so
    they are found through every English member of the rule's lineage: under another number there
    they are "renumbered"; another rule that had this number is not this rule's translation.
    Without lineages (an older database) they are found by number.
    """
    numbers = [entry["number"] for entry in entries]
    by_lineage = all(entry.get("lineage_id") for entry in entries)
    keys = [entry["lineage_id"] for entry in entries] if by_lineage else numbers
    marks = ",".join("?" * len(keys))
    linked = rows(
        conn,
        f"""select tr.id, tr.version_id, tr.number, tr.title, tr.text, tr.english_title,
            rule_links.status, rule_links.confidence, rule_links.reasons,
            en.version_id as english_version, en.text as english_text, en.number as english_number,
            en.title as english_rule_title,
            en.lineage_id as english_lineage,
            cr_versions.lang, cr_versions.method, cr_versions.effective_date,
            cr_versions.translation_match, cr_versions.translation_note,
            cr_versions.translates_version_id
        from rules as en
        join rule_links on rule_links.en_rule_id = en.id
        join rules as tr on tr.id = rule_links.rule_id
        join cr_versions on cr_versions.id = tr.version_id
        where en.{"lineage_id" if by_lineage else "number"} in ({marks})
          and en.version_id in (select id from cr_versions where lang = 'en')
        order by cr_versions.lang, cr_versions.effective_date desc, tr.position
        limit 2000""",
        keys,
    )
    shown_number = {entry["lineage_id"]: entry["number"] for entry in entries} if by_lineage else {}
    shown = {entry["number"]: entry for entry in entries}
    columns: dict[str, dict[str, Any]] = {}
    crossed = derive_lineage.crossed_by_number(conn, keys if by_lineage and linked else [])
    for row in linked:
        column = columns.setdefault(row["version_id"], {
            "version_id": row["version_id"], "lang": row["lang"], "method": row["method"],
            "effective_date": row["effective_date"],
            "english_version": row["translates_version_id"] or row["english_version"],
            "translation_match": row["translation_match"], "translation_note": row["translation_note"],
            "rules": {},
        })
        number = shown_number.get(row["english_lineage"], row["english_number"]) if by_lineage else row["number"]
        english_now = shown.get(number)
        # The English text changed since the version this translation follows: mark it stale,
        # whether or not the linking step could already tell.
        changed_since = bool(
            english_now and row["english_version"] != version
            and (normalise_space(english_now["text"]) != normalise_space(row["english_text"])
                 or normalise_space(english_now["title"]) != normalise_space(row["english_rule_title"]))
        )
        status = row["status"]
        # The linking step judged the link against the newest English version; the page may show
        # another: stale when the text shown differs, renumbered when only the number does.
        if status == "same" and changed_since:
            status = "stale"
        elif status == "same" and by_lineage and row["english_number"] != number:
            status = "renumbered"
        # The English rule it translates was joined to the one shown by its number alone.
        by_number = by_lineage and crossed(row["english_lineage"], row["english_version"], version)
        column["rules"].setdefault(number, {**row, "status": status, "paired_by_number": by_number,
                                            "citations": translated_citations(row)})
    return {
        "numbers": numbers,
        "columns": sorted(columns.values(), key=lambda c: (c["lang"], c["version_id"])),
    }


def translated_citations(row: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """Where each number a translated rule cites leads: the English rule its English text cites in
    that place (``counterpart_citations``), else the number in the translation's own version, whose
    page leads to the English rule that number translates."""
    cited = cited_in_order(row["text"])
    counterparts = counterpart_citations(cited, cited_in_order(row["english_text"]))
    return {number: (counterparts[number], row["english_version"]) if number in counterparts
            else (number, row["version_id"]) for number in cited}


def normalise_space(text: str | None) -> str:
    return " ".join((text or "").replace("’", "'").split())


def history(conn: sqlite3.Connection, rule: dict[str, Any]) -> list[dict[str, Any]]:
    """The rule's text in each English version (its lineage; by number in a database without
    lineages), consecutive identical texts collapsed."""
    key, value = ("lineage_id", rule["lineage_id"]) if rule.get("lineage_id") else ("number", rule["number"])
    found = rows(
        conn,
        f"""select rules.version_id, rules.number, cr_versions.effective_date, rules.title, rules.text
        from rules join cr_versions on cr_versions.id = rules.version_id
        where rules.{key} = ? and cr_versions.lang = 'en'
        order by cr_versions.effective_date limit ?""",
        (value, RULE_HISTORY_LIMIT),
    )
    collapsed: list[dict[str, Any]] = []
    for row in found:
        same = collapsed and (
            collapsed[-1]["number"] == row["number"]
            and normalise_space(collapsed[-1]["text"]) == normalise_space(row["text"])
            and normalise_space(collapsed[-1]["title"]) == normalise_space(row["title"])
        )
        if same:
            collapsed[-1]["until"] = row["effective_date"]
            collapsed[-1]["versions"].append(row["version_id"])
        else:
            collapsed.append({**row, "until": row["effective_date"], "versions": [row["version_id"]]})
    return collapsed


def same_number_other_rules(conn: sqlite3.Connection, rule: dict[str, Any]) -> list[dict[str, Any]]:
    """Other rules (other lineages) that had this number in some English version, with when:
    "701.50a" was Convert's in 2024–2025 before it was Connive's."""
    if not rule.get("lineage_id"):
        return []
    found = rows(
        conn,
        """select rules.lineage_id, rules.version_id, cr_versions.effective_date, rules.title, rules.text,
            parent.title as parent_title
        from rules join cr_versions on cr_versions.id = rules.version_id
        left join rules as parent on parent.version_id = rules.version_id and parent.number = rules.parent_number
        where rules.number = ? and cr_versions.lang = 'en' and rules.lineage_id != ?
        order by cr_versions.effective_date""",
        (rule["number"], rule["lineage_id"]),
    )
    others: dict[str, dict[str, Any]] = {}
    for row in found:
        other = others.setdefault(row["lineage_id"], {**row, "from": row["effective_date"], "versions": []})
        other["until"] = row["effective_date"]
        other["versions"].append(row["version_id"])
        other["current_number"] = None
    for lineage, other in others.items():
        today = rows(conn, "select current_number, title from rule_lineages where id = ?", (lineage,))
        if today:
            other["current_number"] = today[0]["current_number"]
            other["title"] = other["title"] or today[0]["title"]
    return list(others.values())


def rule_trace(conn: sqlite3.Connection, rule: dict[str, Any]) -> list[dict[str, Any]]:
    """The rule through every English version, following its lineage: one row per version that
    has it (and one for its removal) with its number there, what changed on the way in and the
    rules merged or split on the way ("merged into 701.19c")."""
    if not rule.get("lineage_id") or not table_exists(conn, "cr_changes"):
        return []
    trace: list[dict[str, Any]] = []
    links = derive_lineage.lineage_links(conn, rule["lineage_id"])
    for member in derive_lineage.trace(conn, rule["lineage_id"]):
        if member.status == "absent":
            continue
        trace.append({"version": member.version_id, "number": member.number, "change": member.status,
                      "title": member.title, "word_diff": member.word_diff,
                      "similarity": member.similarity, "paired_by_number": member.paired_by_number,
                      "links": [link for link in links if link["new_version_id"] == member.version_id]})
        if member.status == "removed":
            break
    return trace


def versions_of(conn: sqlite3.Connection, rule: dict[str, Any]) -> list[dict[str, Any]]:
    """Every English version, newest first, with this rule's number there (None: it lacks it)."""
    numbers: dict[str, str] = {}
    if rule.get("lineage_id"):
        numbers = {
            row["version_id"]: row["number"]
            for row in rows(conn, "select version_id, number from rules where lineage_id = ?", (rule["lineage_id"],))
        }
    return [
        {**row, "number": numbers.get(row["id"]) if numbers else rule["number"]}
        for row in rows(conn, "select id, effective_date from cr_versions where lang = 'en' order by effective_date desc")
    ]
