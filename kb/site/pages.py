"""What the card, rule and change pages show, read from a ``sqlite3.Connection``.

Functions here return plain dicts (also served as JSON) and never HTML, except ``render_text``,
which turns scraped text into safe HTML: escaped first, then rule numbers become links and
mana symbols become styled tokens. Tables other engineers are still building (``cr_changes``,
``ruling_rules``) are used when present and their absence only hides a section.
"""
from __future__ import annotations

import html
import json
import re
import sqlite3
from collections import defaultdict
from typing import Any
from urllib.parse import quote

from kb.normalise.refs import extract_refs
from kb.site.search import fold, newest_english_version, rows, table_exists, table_has_rows

# {T}, {2}, {W/U}, {B/P}, {2/W}, {X}, {10}, {½}: at most a few characters inside braces.
SYMBOL = r"\{[^{}\s]{1,6}\}"
# Dotted rule numbers (601.2b, 702.78) and "rule 104"/"section 7"; not "1201.5" or "v.601.2".
RULE_REF = r"(?<![0-9A-Za-z.])[1-9]\d{2}\.\d+[a-z]?(?![A-Za-z0-9]|\.\d)"
SECTION_REF = r"(?<=\b[Rr]ule )[1-9]\d{2}\b(?!\.\d)"
TOKEN = re.compile(f"(?P<symbol>{SYMBOL})|(?P<rule>{RULE_REF})|(?P<section>{SECTION_REF})")

SYMBOL_NAMES = {
    "T": "tap", "Q": "untap", "W": "white", "U": "blue", "B": "black", "R": "red", "G": "green",
    "C": "colorless", "S": "snow", "E": "energy", "X": "X", "Y": "Y", "Z": "Z", "P": "Phyrexian",
    "CHAOS": "chaos", "PW": "planeswalker", "A": "acorn", "H": "half",
}
COLOURS = {"W": "w", "U": "u", "B": "b", "R": "r", "G": "g", "C": "c"}

CARD_PAGE_RULINGS_LIMIT = 500
RULE_HISTORY_LIMIT = 60


# -- rendering ----------------------------------------------------------------------------------


def render_text(text: str | None, version: str | None = None) -> str:
    """Scraped text as safe HTML: escaped, rule numbers linked, symbols as CSS tokens."""
    if not text:
        return ""
    out: list[str] = []
    cursor = 0
    for match in TOKEN.finditer(text):
        out.append(html.escape(text[cursor : match.start()]))
        token = match.group(0)
        if match.group("symbol"):
            out.append(symbol_html(token))
        else:
            out.append(rule_link_html(token, version))
        cursor = match.end()
    out.append(html.escape(text[cursor:]))
    return "".join(out).replace("\n", "<br>\n")


def rule_link_html(number: str, version: str | None = None) -> str:
    href = f"/rule/{quote(number)}" + (f"?version={quote(version)}" if version else "")
    return f'<a class="rule-ref" href="{html.escape(href)}">{html.escape(number)}</a>'


def symbol_html(token: str) -> str:
    """``{W/U}`` -> a token styled by its colours; the braces stay in the text for copy-paste."""
    inner = token[1:-1].upper()
    parts = inner.split("/")
    colours = [COLOURS[part] for part in parts if part in COLOURS]
    classes = ["sym"]
    if inner == "T":
        classes.append("sym-tap")
    elif inner == "Q":
        classes.append("sym-untap")
    elif colours:
        classes.append("sym-" + "".join(colours[:2]))
    else:
        classes.append("sym-generic")
    if "P" in parts:
        classes.append("sym-phyrexian")
    if len(parts) > 1:
        classes.append("sym-hybrid")
    label = " or ".join(SYMBOL_NAMES.get(part, part) for part in parts)
    shown = {"T": "T", "Q": "Q"}.get(inner, "/".join(parts))
    return (
        f'<span class="{" ".join(classes)}" title="{html.escape(label)}" role="img" '
        f'aria-label="{html.escape(token)}"><span class="sym-brace">{{</span>'
        f"{html.escape(shown)}<span class=\"sym-brace\">}}</span></span>"
    )


# -- card page ----------------------------------------------------------------------------------


def find_card(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    """A name in any language -> ``{"oracle_id": …}`` or, for unlinked pages, ``{"name": …}``."""
    wanted = fold(name)
    if not wanted:
        return None
    conn.create_function("kb_fold", 1, fold, deterministic=True)
    exact = rows(conn, "select distinct oracle_id from card_names where name = ? limit 2", (name,))
    if len(exact) == 1:
        return {"oracle_id": exact[0]["oracle_id"]}
    from kb.site.search import fts_query

    match = fts_query(name, prefix_last=False)
    if match:
        candidates = rows(
            conn,
            """select oracle_id, name from card_names where rowid in (
                select rowid from card_names_fts where card_names_fts match ? limit 200)""",
            (match,),
        )
        found = {
            row["oracle_id"] for row in candidates
            if fold(row["name"]) == wanted or wanted in {fold(face) for face in row["name"].split(" // ")}
        }
        if len(found) == 1:
            return {"oracle_id": found.pop()}
        unlinked = rows(
            conn,
            """select distinct card_name from rulings where oracle_id is null and rowid in (
                select rowid from rulings_fts where rulings_fts match ? limit 500)""",
            ("card_name : (" + match + ")",),
        )
        for row in unlinked:
            if fold(row["card_name"]) == wanted:
                return {"name": row["card_name"]}
    recorded = recorded_names(conn, name)
    if recorded:
        return {"name": recorded[0]["name"]}
    return None


def recorded_names(conn: sqlite3.Connection, name: str) -> list[dict[str, Any]]:
    """A name as documents printed it for a card not identified yet (Gatherer printed pages,
    release notes): the rows of ``card_name_records`` with the same folded name."""
    from kb.normalise.names import name_key

    if not table_exists(conn, "card_name_records"):
        return []
    return rows(
        conn,
        """select card_name_records.lang, card_name_records.name, card_name_records.document_id,
            documents.source_id, documents.url, documents.path
        from card_name_records join documents on documents.id = card_name_records.document_id
        where card_name_records.name_key = ? order by documents.source_id, card_name_records.id limit 20""",
        (name_key(name),),
    )


def card_page(conn: sqlite3.Connection, oracle_id: str | None = None, name: str | None = None) -> dict[str, Any] | None:
    """Everything about one card: names, rulings with translations and sightings, rules, issues.

    With ``name`` instead of an Oracle id: the rulings a localized page printed for a card that is
    not in the card data yet (``linked`` is False).
    """
    if oracle_id:
        card = rows(conn, "select * from cards where oracle_id = ?", (oracle_id,))
        rulings = rows(
            conn,
            "select * from rulings where oracle_id = ? order by published_at, position limit ?",
            (oracle_id, CARD_PAGE_RULINGS_LIMIT),
        )
        if not card and not rulings:
            return None
        names = rows(
            conn,
            "select lang, name, source from card_names where oracle_id = ? order by lang = 'en' desc, lang, name",
            (oracle_id,),
        )
        page = {
            "linked": bool(card),
            "oracle_id": oracle_id,
            "card": card[0] if card else None,
            "title": card[0]["name"] if card and card[0]["name"] else (names[0]["name"] if names else oracle_id),
            "names": names,
        }
    elif name:
        rulings = rows(
            conn,
            "select * from rulings where oracle_id is null and card_name = ? order by published_at, position limit ?",
            (name, CARD_PAGE_RULINGS_LIMIT),
        )
        recorded = recorded_names(conn, name)
        if not rulings and not recorded:
            return None
        lang = rulings[0]["card_name_lang"] if rulings else recorded[0]["lang"]
        names = [{"lang": lang, "name": name, "source": "page"}] if rulings else [
            {"lang": row["lang"], "name": row["name"], "source": row["source_id"]}
            for row in {(r["lang"], r["name"]): r for r in recorded}.values()
        ]
        page = {
            "linked": False,
            "oracle_id": None,
            "card": None,
            "title": name,
            "names": names,
            "printings": rows(
                conn,
                f"""select lang, printed_name, printed_type_line, printed_text, set_code, multiverse_id
                from printings where document_id in ({", ".join("?" for _ in recorded)})
                and printed_name is not null""",
                [row["document_id"] for row in recorded],
            ) if recorded else [],
        }
    else:
        return None
    page["rulings"] = rulings_with_details(conn, rulings)
    page["unlinked_translations"] = unlinked_translations(conn, [n["name"] for n in page["names"]])
    page["rules"] = rules_mentioned(conn, page["rulings"])
    page["issues"] = card_issues(conn, page["rulings"], page["title"])
    page["documents"] = documents_of(page["rulings"])
    return page


def rulings_with_details(conn: sqlite3.Connection, rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = [ruling["id"] for ruling in rulings]
    sightings = grouped(
        conn,
        """select ruling_sightings.*, documents.source_id, documents.url, documents.path,
            documents.lang as document_lang, documents.format, documents.fetched_at
        from ruling_sightings join documents on documents.id = ruling_sightings.document_id
        where ruling_sightings.ruling_id in ({marks}) order by documents.source_id, documents.id""",
        ids,
    )
    translations = grouped(
        conn,
        """select ruling_translations.*, documents.url as document_url, documents.path as document_path
        from ruling_translations left join documents on documents.id = ruling_translations.document_id
        where ruling_translations.ruling_id in ({marks}) order by ruling_translations.lang""",
        ids,
    )
    for ruling in rulings:
        ruling["sightings"] = sightings.get(ruling["id"], [])
        ruling["translations"] = translations.get(ruling["id"], [])
        ruling["cited_rules"] = extract_refs(ruling["text"] or "")
    return rulings


def grouped(conn: sqlite3.Connection, sql: str, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Rows keyed by ``ruling_id`` for a list of ids (in chunks below SQLite's variable limit)."""
    result: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for row in rows(conn, sql.format(marks=",".join("?" * len(chunk))), chunk):
            result[row["ruling_id"]].append(row)
    return result


def unlinked_translations(conn: sqlite3.Connection, names: list[str]) -> list[dict[str, Any]]:
    """Translated rulings printed under one of the card's names but not matched to a ruling."""
    if not names:
        return []
    marks = ",".join("?" * len(names))
    return rows(
        conn,
        f"""select * from ruling_translations
        where ruling_id is null and card_name in ({marks}) order by lang, id limit 200""",
        names,
    )


def rules_mentioned(conn: sqlite3.Connection, rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The CR rules the rulings cite: from ``ruling_rules`` when built, else from the texts."""
    numbers: dict[str, None] = {}
    if table_has_rows(conn, "ruling_rules") and rulings:
        columns = [row[1] for row in conn.execute("pragma table_info(ruling_rules)")]
        column = next((c for c in ("rule_number", "target_number", "number") if c in columns), None)
        if column:
            marks = ",".join("?" * len(rulings))
            for row in rows(
                conn,
                f'select distinct "{column}" as number from ruling_rules where ruling_id in ({marks})',
                [ruling["id"] for ruling in rulings],
            ):
                numbers[row["number"]] = None
    for ruling in rulings:
        for number in ruling["cited_rules"]:
            numbers[number] = None
    version = newest_english_version(conn)
    found = []
    for number in numbers:
        rule = rows(conn, "select number, title, text from rules where version_id = ? and number = ?", (version, number))
        found.append(rule[0] if rule else {"number": number, "title": None, "text": None})
    return found


def card_issues(conn: sqlite3.Connection, rulings: list[dict[str, Any]], title: str) -> list[dict[str, Any]]:
    ids = [ruling["id"] for ruling in rulings]
    issues = []
    if ids:
        marks = ",".join("?" * len(ids))
        issues += rows(conn, f"select kind, detail, document_id, ruling_id from quality_issues where ruling_id in ({marks})", ids)
    # Problems a document reported about the whole card (an unknown card, dropped symbols…).
    documents = sorted({s["document_id"] for r in rulings for s in r["sightings"]})
    if documents:
        marks = ",".join("?" * len(documents))
        for issue in rows(
            conn,
            f"""select kind, detail, document_id, ruling_id from quality_issues
            where ruling_id is null and document_id in ({marks}) limit 100""",
            documents,
        ):
            issues.append(issue)
    seen, unique = set(), []
    for issue in issues:
        key = (issue["kind"], issue["detail"])
        if key not in seen:
            seen.add(key)
            unique.append(issue)
    return unique


def documents_of(rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    documents: dict[int, dict[str, Any]] = {}
    for ruling in rulings:
        for sighting in ruling["sightings"]:
            documents.setdefault(sighting["document_id"], {
                "id": sighting["document_id"], "source_id": sighting["source_id"],
                "url": sighting["url"], "path": sighting["path"], "format": sighting["format"],
                "lang": sighting["document_lang"], "rulings": 0,
            })["rulings"] += 1
    return list(documents.values())


# -- rule page ----------------------------------------------------------------------------------


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


_GLOSSARY_CACHE: dict[tuple[str, str], list[tuple[re.Pattern[str], dict[str, Any]]]] = {}


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


# -- changes feed -------------------------------------------------------------------------------


def recent_changes(conn: sqlite3.Connection, limit: int = 50) -> list[dict[str, Any]]:
    """New rulings (by first_seen, else published_at) and new CR versions, newest first."""
    entries = []
    for row in rows(
        conn,
        """select rulings.id, rulings.oracle_id, rulings.card_name, rulings.text, rulings.source,
            rulings.published_at, coalesce(rulings.first_seen, rulings.published_at) as seen,
            cards.name as english
        from rulings left join cards on cards.oracle_id = rulings.oracle_id
        where coalesce(rulings.first_seen, rulings.published_at) is not null
        order by seen desc, rulings.id limit ?""",
        (limit,),
    ):
        card = row["english"] or row["card_name"] or "a card not yet identified"
        link = f"/card/{row['oracle_id']}" if row["oracle_id"] else (
            "/card?name=" + quote(row["card_name"]) if row["card_name"] else f"/ruling/{row['id']}"
        )
        entries.append({
            "id": f"ruling-{row['id']}", "kind": "ruling", "updated": row["seen"],
            "title": f"New ruling for {card} ({row['published_at']})", "link": link + f"#ruling-{row['id']}",
            "summary": row["text"] or "",
        })
    for row in rows(
        conn,
        "select id, lang, effective_date, title, rule_count from cr_versions where effective_date is not null order by effective_date desc limit ?",
        (limit,),
    ):
        entries.append({
            "id": f"cr-{row['id']}", "kind": "cr-version", "updated": row["effective_date"],
            "title": f"Comprehensive Rules {row['id']} ({row['rule_count']} rules)",
            "link": f"/rule/100?version={quote(row['id'])}" if row["lang"] == "en" else f"/rule/100#lang-{row['lang']}",
            "summary": row["title"] or "",
        })
    entries.sort(key=lambda entry: entry["updated"] or "", reverse=True)
    return entries[:limit]


def home_stats(conn: sqlite3.Connection) -> dict[str, Any]:
    """The counts the home page shows under the search box."""
    def count(sql: str) -> int:
        return conn.execute(sql).fetchone()[0]

    return {
        "versions": rows(conn, "select id, lang, effective_date from cr_versions order by lang = 'en' desc, effective_date desc"),
        "cards": count("select count(*) from cards"),
        "rulings": count("select count(*) from rulings"),
        "translations": count("select count(*) from ruling_translations"),
        "languages": count("select count(distinct lang) from card_names"),
        "current": newest_english_version(conn),
    }


def as_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


CHANGE_KINDS = ("added", "removed", "changed", "moved", "moved-changed",
                "glossary-added", "glossary-removed", "glossary-changed")


def version_page(conn: sqlite3.Connection, version_id: str, kind: str | None = None) -> dict[str, Any] | None:
    """One CR version: what it is, and what changed in it (an English version, against the one
    before it) or how its rules link to English (a translation)."""
    found = rows(conn, "select * from cr_versions where id = ?", (version_id,))
    if not found:
        return None
    version = found[0]
    page: dict[str, Any] = {"version": version, "previous": None, "counts": {}, "changes": [], "links": {}}
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
        page["changes"] = rows(
            conn,
            """select kind, entry_kind, old_number, new_number, aspects, word_diff, similarity
            from cr_changes where new_version_id = ? and (? is null or kind = ?) order by position""",
            (version_id, kind, kind),
        )
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
        page["not_linked"] = rows(
            conn,
            """select rules.number, rules.title, rule_links.status, rule_links.reasons
            from rule_links join rules on rules.id = rule_links.rule_id
            where rules.version_id = ? and rule_links.status != 'linked' order by rules.position limit 500""",
            (version_id,),
        )
    return page


def render_word_diff(markup: str | None) -> str:
    """``[-old-]{+new+}`` as escaped HTML with <del> and <ins>."""
    escaped = html.escape(markup or "")
    escaped = re.sub(r"\[-(.*?)-\]", r"<del>\1</del>", escaped, flags=re.S)
    return re.sub(r"\{\+(.*?)\+\}", r"<ins>\1</ins>", escaped, flags=re.S)
